"""tf.Variable while executing eagerly (TF's ResourceVariable in eager mode): holds its value.

Every read makes a fresh EagerTensor of the current value that remembers its variable (`_handle`),
so ops that update a variable (Assign, ApplyAdam: OpDef.ref_inputs) write their results back to it,
and tapes learn which tensors came from which variable.
"""
import jax.numpy as jnp
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import GraphKeys, get_default_graph
from tinyflow.graph.shapes import as_shape
from tinyflow.ops import state_ops
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.core.math_ops import cast
from tinyflow.runtime.eager import tape as _tape
from tinyflow.runtime.eager.execute import EagerOp
from tinyflow.runtime.eager.context import executing_eagerly
from tinyflow.runtime.eager.tensor import EagerResource, EagerTensor


class EagerVariable(EagerResource, state_ops.Variable):
    """A variable of eager mode: `tf.Variable(...)` (or `tfe.Variable`) while executing eagerly."""

    def __init__(self, initial_value=None, trainable=True, collections=None, validate_shape=True,
                 caching_device=None, name=None, variable_def=None, dtype=None, expected_shape=None,
                 import_scope=None, constraint=None, use_resource=None, synchronization=None, aggregation=None,
                 shape=None):
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        graph = get_default_graph()
        with graph.control_dependencies(None), graph.name_scope(name or "Variable") as scope:
            init = initial_value() if callable(initial_value) else initial_value
            init = convert_to_tensor(init, dtype=None if dtype is None or hasattr(init, "dtype") else dtype)
            if dtype is not None and init.dtype != dt.as_dtype(dtype):
                init = cast(init, dtype)
        self._name = scope.rstrip("/")
        self._value = init._value
        self._dtype = init.dtype
        self._var_shape = as_shape(shape) if shape is not None else init.shape
        self._initial_value = init
        self._trainable = trainable
        self._constraint = constraint
        # the variable's op (TF's VarHandleOp), named as the variable: slots ("w/Adam") and
        # checkpoints (key "w") use its name; tf.train.Saver reads its dtype and shape
        self._read_op = EagerOp(graph, "VarHandleOp", self._name, [], {"dtype": self._dtype,
                                                                        "shape": self._var_shape})
        self._read_op._variable = self
        if collections and GraphKeys.GLOBAL_STEP in collections:  # TF keeps no other collection eagerly
            graph.add_to_collections(collections, self)

    # ---- identity --------------------------------------------------------------------------------
    name = property(lambda self: self._name + ":0")
    op = property(lambda self: self._read_op)
    graph = property(lambda self: self._read_op.graph)
    dtype = property(lambda self: self._dtype)
    shape = property(lambda self: self._var_shape)
    initializer = property(lambda self: None)
    device = property(lambda self: self._variable.device)

    def get_shape(self):
        return self._var_shape

    @property
    def _variable(self):
        """A read of the current value (what ops take as this variable's input)."""
        t = EagerTensor(self._value, self._dtype, self._read_op)
        t._handle = self
        if _tape.ACTIVE:
            _tape.read(self, t)
        return t

    def value(self):
        return self._variable

    def read_value(self):
        return self._variable

    def initialized_value(self):
        return self._variable

    def numpy(self):
        """The current value as numpy."""
        a = np.array(self._value)
        return a[()] if a.ndim == 0 else a

    def eval(self, session=None):
        raise NotImplementedError("eval is not supported when eager execution is enabled, is .numpy() what "
                                  "you're looking for?")

    def load(self, value, session=None):
        self.assign(value)

    def set_shape(self, shape):
        raise NotImplementedError("Variable.set_shape is not supported when eager execution is enabled.")

    # ---- numpy and Python interop -------------------------------------------------------------
    def __repr__(self):
        a = self.numpy()
        text = repr(a) if isinstance(a, np.ndarray) else str(a)
        return "<tf.Variable '%s' shape=%s dtype=%s, numpy=%s>" % (self.name, self.shape, self._dtype.name, text)

    __str__ = __repr__


def _variable_class(cls):
    """state_ops.Variable's hook: tf.Variable(...) makes an EagerVariable while executing eagerly."""
    return EagerVariable if executing_eagerly() else cls


class EagerValues:
    """What tf.train.Saver asks a Session for (`_variable_value`, `_set_variable`), answered by the
    eager variables themselves: `saver.save(None, path)` and `saver.restore(None, path)`."""

    graph = None

    def run(self, fetch):
        """A global_step given to save(): its value."""
        return np.asarray(fetch)

    def _variable_value(self, op):
        return np.asarray(op._variable._value)

    def _set_variable(self, op, value):
        v = op._variable
        v._value = jnp.asarray(np.asarray(value, v.dtype.np))


def eager_values():
    """state for tf.train.Saver while executing eagerly (None in graph mode)."""
    return EagerValues() if executing_eagerly() else None
