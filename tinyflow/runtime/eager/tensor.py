"""EagerTensor: a tf.Tensor that holds its value (a JAX array, or numpy for strings).

It is a `Tensor`, so every op builder and gradient rule takes it as it takes a graph tensor; the
eager executor (execute.py) reads `_value`. What a user sees is TF 1.15's EagerTensor: `.numpy()`,
numpy interop, Python numbers and bools, `len`, iteration, and TF's printed forms.
"""
import itertools

import numpy as np

from tinyflow.graph import core
from tinyflow.graph.core import Tensor
from tinyflow.graph.shapes import TensorShape

_ids = itertools.count()


def _device_name(value):
    devices = getattr(value, "devices", None)  # a JAX array knows its device; numpy (strings) is on the host
    platform = next(iter(devices())).platform if devices is not None else "cpu"
    kind = "CPU" if platform == "cpu" else "GPU"
    return "/job:localhost/replica:0/task:0/device:%s:0" % kind


class ValueInterop:
    """numpy and Python conversions of a value held as `self._value` (an eager tensor's, an eager
    variable's)."""

    def __array__(self, dtype=None, copy=None):
        a = np.asarray(self._value)
        return a if dtype is None else a.astype(dtype)

    def __float__(self):
        return float(np.asarray(self._value))

    def __int__(self):
        return int(np.asarray(self._value))

    def __bool__(self):
        return bool(np.asarray(self._value))

    def __format__(self, spec):
        return self.numpy().__format__(spec)


class EagerResource(ValueInterop):
    """What a gradient tape knows of an eager variable (variables.py's EagerVariable): it holds a
    value, `read_value()` reads it, and a tape watches it as a source of gradients."""


class EagerTensor(ValueInterop, Tensor):
    """The result of an op run eagerly (TF's EagerTensor)."""

    _consumers = ()  # eager ops are not linked into a graph
    _handle = None   # the EagerVariable this tensor reads, for reads of variables
    _np = None       # the value as numpy, once asked for (a Const's is known from the start)

    def __init__(self, value, dtype, op=None, value_index=0):
        self._value = value
        self._dtype = dtype
        self._op = op
        self._value_index = value_index
        self._shape = None
        self._id = next(_ids)

    # ---- what it is ----------------------------------------------------------------------------
    @property
    def graph(self):
        # Eager tensors share one graph, today's eager default, so tensors made before a
        # tf.reset_default_graph() still combine with new ones.
        g = core._default[0]
        return g if getattr(g, "_eager", False) else self._op.graph

    @property
    def shape(self):
        if self._shape is None:
            self._shape = TensorShape(self._value.shape)
        return self._shape

    def get_shape(self):
        return self.shape

    def set_shape(self, shape):
        if not self.shape.is_compatible_with(shape):
            raise ValueError("Tensor's shape %s is not compatible with supplied shape %s" % (self.shape,
                                                                                          TensorShape(shape)))

    @property
    def ndim(self):
        return len(self._value.shape)

    @property
    def name(self):
        # TF raises AttributeError here; tinyflow's builders name inputs in their messages, so an
        # eager tensor answers with the name of the op that made it.
        op = self._op
        return "%s:%d" % (op.name, self._value_index) if op is not None else "EagerTensor:0"

    @property
    def device(self):
        return _device_name(self._value)

    def numpy(self):
        """The value as a numpy array (a numpy scalar for a 0-d tensor), a copy the caller owns."""
        a = np.array(self._value)
        if a.dtype.kind in "USO":  # TF's strings are bytes
            a = np.array([x.encode() if isinstance(x, str) else x for x in a.reshape(-1).tolist()],
                         dtype=object).reshape(a.shape)
        return a[()] if a.ndim == 0 else a

    def eval(self, feed_dict=None, session=None):
        raise NotImplementedError("eval is not supported when eager execution is enabled, is .numpy() what "
                                  "you're looking for?")

    # ---- numpy and Python interop -------------------------------------------------------------
    def __index__(self):
        return int(np.asarray(self._value).__index__())

    def __len__(self):
        if not self._value.shape:
            raise TypeError("Scalar tensor has no `len()`")
        return self._value.shape[0]

    def __iter__(self):
        if not self._value.shape:
            raise TypeError("Cannot iterate over a scalar tensor.")
        return (self[i] for i in range(self._value.shape[0]))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    # ---- printing (TF 1.15's forms) ------------------------------------------------------------
    def _text(self, is_repr):
        a = self.numpy()
        text = repr(a) if is_repr and isinstance(a, np.ndarray) else str(a)
        return "\n" + text if "\n" in text else text

    def __str__(self):
        return "tf.Tensor(%s, shape=%s, dtype=%s)" % (self._text(False), self.shape, self._dtype.name)

    def __repr__(self):
        return "<tf.Tensor: id=%d, shape=%s, dtype=%s, numpy=%s>" % (self._id, self.shape, self._dtype.name,
                                                                     self._text(True))

    def _const_value(self):
        """The value as numpy, for rules that need it while 'building' (graph.core.constant_value)."""
        v = self._np
        if v is None:
            v = self._np = np.asarray(self._value)
        return v
