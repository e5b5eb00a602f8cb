"""tf.raw_ops: TF's generated function for every op kernel, by keyword arguments of its OpDef. tinyflow has
no OpDef argument lists: each raw op is declared, and calling it raises UnimplementedError naming the
public function to use."""
from tinyflow.api.framework import unimplemented as _unimplemented


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _unimplemented("raw_ops.%s" % name, "the public tf.* function that builds the %s op" % name)
