"""tf.user_ops: TF's example of a custom op (my_fact), built from its C++ kernel, which tinyflow cannot load."""
from tinyflow.api.framework import unimplemented as _unimplemented

my_fact = _unimplemented("user_ops.my_fact", "tf.py_func", why="it is TF's example custom C++ op")
