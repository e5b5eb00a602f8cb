"""TF1's TensorArrayV3 family, as the importer runs it: a TensorArray is a Python value whose `flow`
is the dense [size, *element] tensor (XLA needs fixed shapes), so a TensorArray that is a while-loop
variable is one loop tensor. Until its first write a TensorArray of unknown element shape has no
flow; a loop it enters learns the shape from its body (import_loops.py).
"""
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.shapes import TensorShape
from tinyflow.api.tf_files.ops_table import CONVERTERS, _tf  # _tf: the tf.* builders


class ImportedTensorArray:
    def __init__(self, dtype, size, element_shape, flow=None, name=""):
        self.dtype, self.size, self.element_shape, self.flow, self.name = dtype, size, element_shape, flow, name
        self.probe = None  # while a loop body is probed: the values written, in order

    def with_flow(self, flow):
        ta = ImportedTensorArray(self.dtype, self.size, self.element_shape, flow, self.name)
        ta.probe = self.probe
        return ta

    def _zeros(self, element_dims):
        """zeros([size, *element_dims]); element_dims: ints, or scalar tensors where unknown."""
        tf = _tf()
        dims = [self.size] + list(element_dims)
        if all(isinstance(d, (int, np.integer)) for d in dims):
            return tf.zeros([int(d) for d in dims], dtype=self.dtype)
        return tf.fill(tf.stack([tf.cast(d, tf.int32) if isinstance(d, tf.Tensor) else np.int32(d) for d in dims]),
                       tf.constant(np.zeros((), self.dtype.np)))

    def zeros_like_element(self, value, skip_first=False):
        """The flow of zeros whose elements have value's shape (its rows' shape with skip_first)."""
        tf = _tf()
        shape = value.shape.as_list() if value.shape.ndims is not None else None
        if shape is None:
            raise ValueError("TensorArray '%s': the rank of the value written is unknown" % self.name)
        dyn = tf.shape(value) if not all(d is not None for d in shape) else None
        dims = [d if d is not None else dyn[i] for i, d in enumerate(shape)]
        return self._zeros(dims[1:] if skip_first else dims)

    def _flow(self, what):
        if self.flow is None:
            raise ValueError("TensorArray '%s' is %s before anything was written to it" % (self.name, what))
        return self.flow

    def read(self, index):
        from tinyflow.ops.functional_ops import get_item
        return get_item(self._flow("read"), index)

    def write(self, index, value):
        from tinyflow.ops.functional_ops import set_item
        value = _tf().convert_to_tensor(value, dtype=self.dtype)
        if self.probe is not None and self.flow is None:
            self.probe.append(value)
            return self
        flow = self.flow if self.flow is not None else self.zeros_like_element(value)
        return self.with_flow(set_item(flow, index, value))

    def scatter(self, indices, value):
        tf = _tf()
        value = tf.convert_to_tensor(value, dtype=self.dtype)
        rows = tf.expand_dims(tf.cast(indices, tf.int32), 1)
        if self.flow is None:
            base = self.zeros_like_element(value, skip_first=True)
            return self.with_flow(tf.scatter_nd(rows, value, tf.shape(base)))
        shape = tf.shape(self.flow)
        keep = 1 - tf.scatter_nd(rows, tf.ones_like(value), shape)
        return self.with_flow(self.flow * keep + tf.scatter_nd(rows, value, shape))

    def gather(self, indices):
        return _tf().gather(self._flow("gathered"), indices)

    def size_tensor(self):
        tf = _tf()
        return tf.constant(np.int32(self.size)) if isinstance(self.size, (int, np.integer)) else tf.identity(self.size)


def new(b, node):
    """TensorArrayV3(size) -> (handle, flow): both the TensorArray value."""
    size = b.const(0, required=False)
    size = int(size) if size is not None else b.x(0)
    shape = b.attr("element_shape", None) or TensorShape(None)
    if b.attr("dynamic_size", False) and not isinstance(size, int):
        pass  # the size is fixed (XLA): a dynamic_size array keeps the size it starts with
    ta = ImportedTensorArray(dt.as_dtype(b.attr("dtype")), size, shape, name=b.name)
    if shape.is_fully_defined():
        ta.flow = ta._zeros(shape.as_list())
    return [ta, ta]


def _ta(b, i):
    t = b.x(i)
    if not isinstance(t, ImportedTensorArray):
        raise ValueError("input %d must be the flow of a TensorArray, got %s" % (i, getattr(t, "name", t)))
    return t


def read(b, node):
    return [_ta(b, 2).read(b.x(1))]


def write(b, node):
    return [_ta(b, 3).write(b.x(1), b.x(2))]


def scatter(b, node):
    return [_ta(b, 3).scatter(b.x(1), b.x(2))]


def gather(b, node):
    return [_ta(b, 2).gather(b.x(1))]


def size(b, node):
    return [_ta(b, 1).size_tensor()]


def close(b, node):
    return [_tf().no_op(name=b.name)]


for _t, _f in (("TensorArrayV3", new), ("TensorArrayReadV3", read), ("TensorArrayWriteV3", write),
               ("TensorArrayScatterV3", scatter), ("TensorArrayGatherV3", gather), ("TensorArraySizeV3", size),
               ("TensorArrayCloseV3", close)):
    CONVERTERS[_t] = _f
