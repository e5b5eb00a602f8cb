"""tf.map_fn, tf.foldl, tf.foldr, tf.scan and tf.TensorArray, built on tf.while_loop.

Each function is a while loop over the first dimension of `elems`. Element i is read with
TensorListGetItem and results are written by index with TensorListSetItem (TF2's list-op names;
here the "list" is an ordinary dense [n, ...] tensor). A TensorArray is a Python value around such
a tensor (its `flow`). The loops pass maximum_iterations=n, so their gradients use the bounded
scan when n is static.
"""
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import ShapeError
from tinyflow.graph.registry import register_op
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core.base import convert_to_tensor, make_op
from tinyflow.ops.control_flow_ops import flatten, pack_as, while_loop

__all__ = ['TensorArray', 'foldl', 'foldr', 'map_fn', 'scan']


# ---- element read / write on a dense list ---------------------------------------------------------
def _get_item_shape(shapes, attrs, values):
    s = shapes[0]
    if s.ndims == 0:
        raise ShapeError("Shape must be at least rank 1 but is rank 0")
    return [TensorShape(None) if s.ndims is None else TensorShape(s.as_list()[1:])]


def _set_item_shape(shapes, attrs, values):
    lst, _, item = shapes
    if lst.ndims is not None and item.ndims is not None:
        if not TensorShape(lst.as_list()[1:]).is_compatible_with(item):
            raise ShapeError("Item of shape %s does not fit a list of shape %s" % (item, lst))
    return [lst]


def get_item(lst, index, name=None):
    """lst[index] for a scalar int32 tensor index (0 <= index < n)."""
    return make_op("TensorListGetItem", [lst, convert_to_tensor(index, dtype=dt.int32)], name=name or "GetItem")


def set_item(lst, index, item, name=None):
    """A copy of lst with lst[index] = item."""
    return make_op("TensorListSetItem", [lst, convert_to_tensor(index, dtype=dt.int32), item],
                   name=name or "SetItem")


def _get_item_grad(op, g):
    from tinyflow.ops.core.array_ops import zeros_like
    return [set_item(zeros_like(op.inputs[0]), op.inputs[1], g), None]


def take_item(lst, index, name=None):
    """(a copy of lst with lst[index] = 0, lst[index]): SetItem's gradient, read and cleared at once."""
    rest, item = make_op("TensorListTakeItem", [lst, convert_to_tensor(index, dtype=dt.int32)], name=name or "TakeItem")
    return rest, item


def _set_item_grad(op, g):
    rest, item = take_item(g, op.inputs[1])
    return [rest, None, item]


def _take_item_grad(op, g_rest, g_item):
    from tinyflow.ops.core.array_ops import zeros_like
    lst, index = op.inputs
    if g_item is None:
        g_item = zeros_like(op.outputs[1])
    return [set_item(zeros_like(lst) if g_rest is None else g_rest, index, g_item), None]


def _get_item_lower(attrs, lst, index):
    from jax import lax
    return lax.dynamic_index_in_dim(lst, index, 0, keepdims=False)


def _set_item_lower(attrs, lst, index, item):
    from jax import lax
    return lax.dynamic_update_index_in_dim(lst, item.astype(lst.dtype), index, 0)


def _take_item_lower(attrs, lst, index):
    """On XLA:CPU the slot and the zeros written over it come out of one conditional (both branches
    the same): the write then depends on the read by data, which lets XLA update the list in place.
    As two separate ops, XLA:CPU copied the whole list before the write when both are in a loop (the
    read is not ordered before the write): twice per iteration of dynamic_rnn's backward loop, O(T^2)
    (docs/speed.md, "rnnspeed"). Elsewhere the two ops as they were: a GPU would read the
    conditional's predicate back to the host at every iteration."""
    from jax import lax
    import jax.numpy as jnp

    def read(lst, index):
        return lax.dynamic_index_in_dim(lst, index, 0, keepdims=False), jnp.zeros(lst.shape[1:], lst.dtype)

    def ordered(lst, index):
        return lax.cond(index < 0, read, read, lst, index)
    item, zeros = lax.platform_dependent(lst, index, cpu=ordered, default=read)
    return [lax.dynamic_update_index_in_dim(lst, zeros, index, 0), item]


register_op("TensorListGetItem", shape=_get_item_shape, dtype=lambda d, a: [d[0]], grad=_get_item_grad,
            lower=_get_item_lower)
register_op("TensorListSetItem", shape=_set_item_shape, dtype=lambda d, a: [d[0]], grad=_set_item_grad,
            lower=_set_item_lower)
register_op("TensorListTakeItem", shape=lambda shapes, attrs, values: [shapes[0]] + _get_item_shape(shapes, attrs,
                                                                                                  values),
            dtype=lambda d, a: [d[0], d[0]], grad=_take_item_grad, lower=_take_item_lower)


# ---- helpers ----------------------------------------------------------------------------------------
def _length(elems_flat):
    """The number of elements (first dimension) as (static int or None, int32 tensor)."""
    from tinyflow.ops.core.array_ops import shape
    n = elems_flat[0].shape[0].value if elems_flat[0].shape.ndims else None
    for e in elems_flat:
        if e.shape.ndims == 0:
            raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
    if n is not None:
        return n, convert_to_tensor(np.int32(n))
    return None, get_item(shape(elems_flat[0]), 0)


def _zeros_stacked(n_static, n, shape, dtype):
    """zeros([n] + shape) for a fully defined element shape."""
    from tinyflow.ops.core.array_ops import fill, stack
    if not shape.is_fully_defined():
        raise ValueError("tinyflow: map_fn/scan need a fully defined output shape per element, got %s" % shape)
    if n_static is not None:
        return convert_to_tensor(np.zeros([n_static] + shape.as_list(), dtype.np))
    return fill(stack([n] + [np.int32(d) for d in shape.as_list()]), convert_to_tensor(np.zeros((), dtype.np)))


def _elems(elems):
    flat = [convert_to_tensor(e) for e in flatten(elems)]
    if not flat:
        raise ValueError("elems must be a Tensor or (possibly nested) sequence of Tensors. Got %s" % (elems,))
    return flat


# ---- the public functions ----------------------------------------------------------------------------
def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False, infer_shape=True,
           name=None):
    """Stacks fn(elems[i]) over the first dimension of elems (a tensor or nested structure).

    As in TF, `dtype` (a dtype or nested structure of them) is needed when fn's output structure
    or dtypes differ from those of elems.
    """
    from tinyflow.graph.core import get_default_graph
    from tinyflow.ops.control_flow_ops import assert_same_structure
    if not callable(fn):
        raise TypeError("fn must be callable.")
    flat = _elems(elems)
    out_struct = dtype if dtype is not None else pack_as(elems, [e.dtype for e in flat])
    graph = get_default_graph()
    with graph.name_scope(name or "map"):
        n_static, n = _length(flat)
        accs = [TensorArray(d, size=n_static if n_static is not None else n) for d in flatten(out_struct)]

        def body(i, accs):
            out = fn(pack_as(elems, [get_item(e, i) for e in flat]))
            assert_same_structure(out_struct, out, "fn's output does not match dtype (or elems when dtype is None)")
            return i + 1, [a.write(i, o) for a, o in zip(accs, flatten(out))]
        _, accs = while_loop(lambda i, accs: i < n, body, [np.int32(0), accs], back_prop=back_prop,
                             maximum_iterations=n, return_same_structure=True)
        return pack_as(out_struct, [a.stack() for a in accs])


def _fold(fn, elems, initializer, reverse, name, back_prop, stacked):
    """The shared loop of foldl/foldr/scan: acc = fn(acc, elems[i]) over i in order (or reversed).

    Returns the final accumulator leaves, the accumulator structure and (stacked) the [n, ...]
    accumulators by position i.
    """
    from tinyflow.graph.core import get_default_graph
    if not callable(fn):
        raise TypeError("fn must be callable.")
    flat = _elems(elems)
    graph = get_default_graph()
    with graph.name_scope(name):
        n_static, n = _length(flat)
        step = -1 if reverse else 1
        first = n - 1 if reverse else convert_to_tensor(np.int32(0))
        if initializer is None:  # the first element is the first accumulator
            acc0 = pack_as(elems, [get_item(e, first) for e in flat])
            start, count = first + step, n - 1
            count_static = None if n_static is None else n_static - 1
        else:
            acc0 = initializer
            start, count, count_static = first, n, n_static
        acc_flat = [convert_to_tensor(a) for a in flatten(acc0)]
        outs = [_zeros_stacked(n_static, n, a.shape, a.dtype) for a in acc_flat] if stacked else []
        if stacked and initializer is None:
            outs = [set_item(o, first, a) for o, a in zip(outs, acc_flat)]
        if count_static == 0:   # no step (an empty elems with an initializer): XLA would still trace the body
            return acc0, acc_flat, outs
        if count_static is not None:
            count = convert_to_tensor(np.int32(count_static))

        def body(k, i, acc, outs):
            item = pack_as(elems, [get_item(e, i) for e in flat])
            new = [convert_to_tensor(o) for o in flatten(fn(pack_as(acc0, acc), item))]
            if len(new) != len(acc):
                raise ValueError("fn must return the structure of the accumulator (initializer)")
            return k + 1, i + step, new, [set_item(o, i, a) for o, a in zip(outs, new)]
        _, _, acc, outs = while_loop(lambda k, i, acc, outs: k < count, body,
                                     [np.int32(0), start, acc_flat, outs], back_prop=back_prop,
                                     maximum_iterations=count, return_same_structure=True)
    return acc0, acc, outs


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """acc = fn(acc, elems[i]) for i = 0..n-1, from initializer (default elems[0]); returns acc."""
    acc0, acc, _ = _fold(fn, elems, initializer, False, name or "foldl", back_prop, False)
    return pack_as(acc0, acc)


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """acc = fn(acc, elems[i]) for i = n-1..0, from initializer (default elems[-1]); returns acc."""
    acc0, acc, _ = _fold(fn, elems, initializer, True, name or "foldr", back_prop, False)
    return pack_as(acc0, acc)


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, infer_shape=True,
         reverse=False, name=None):
    """The successive accumulators acc = fn(acc, elems[i]), stacked by position i (TF's tf.scan)."""
    acc0, _, outs = _fold(fn, elems, initializer, reverse, name or "scan", back_prop, True)
    return pack_as(acc0, outs)


# ---- tf.TensorArray ---------------------------------------------------------------------------------
class TensorArray:
    """TF1's TensorArray as a value: a dense [size, ...] tensor (`flow`) written and read by index.

    Each write returns a new TensorArray, as in TF (use the returned one). A TensorArray can be a
    tf.while_loop variable; if no element_shape is given, the loop learns it from the body's first
    write. The size is fixed (XLA): dynamic_size=True needs a size to start from and never grows.
    """

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None,
                 handle=None, flow=None, infer_shape=True, element_shape=None, colocate_with_first_write_call=True,
                 name=None):
        self._dtype = dt.as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._name = name or tensor_array_name or "TensorArray"
        self._flow = flow
        if flow is not None:
            self._size = flow.shape[0].value if flow.shape.ndims else None
            self._element_shape = TensorShape(flow.shape.as_list()[1:]) if flow.shape.ndims else TensorShape(None)
            if self._size is None:
                self._size = get_item(make_op("Shape", [flow], {"out_type": dt.int32}), 0)
            return
        if size is None:
            raise ValueError("Size must be provided if handle is not provided")
        v = np.asarray(size) if not hasattr(size, "op") else None
        self._size = int(v) if v is not None else size
        if self._dynamic_size and v is not None and int(v) == 0:
            raise NotImplementedError("tinyflow: a TensorArray with dynamic_size=True and size 0 cannot grow under "
                                      "XLA; give it its final size")
        self._element_shape = TensorShape(element_shape) if element_shape is not None else TensorShape(None)
        if self._element_shape.is_fully_defined():
            self._flow = self._zeros(self._element_shape)

    dtype = property(lambda self: self._dtype)
    element_shape = property(lambda self: self._element_shape)
    dynamic_size = property(lambda self: self._dynamic_size)
    handle = property(lambda self: self.flow)

    @property
    def flow(self):
        if self._flow is None:
            raise ValueError("tinyflow: TensorArray '%s' has no value yet: write to it first or give "
                             "element_shape" % self._name)
        return self._flow

    def _zeros(self, shape):
        n = self._size
        return _zeros_stacked(n if isinstance(n, int) else None, n, shape, self._dtype)

    def _with_flow(self, flow):
        ta = TensorArray.__new__(TensorArray)
        ta.__dict__.update(self.__dict__)
        ta._flow = flow
        if flow is not None and flow.shape.ndims:
            ta._element_shape = TensorShape(flow.shape.as_list()[1:])
        return ta

    def write(self, index, value, name=None):
        """A TensorArray with element `index` set to `value`."""
        value = convert_to_tensor(value, dtype=self._dtype)
        flow = self._flow
        if flow is None:  # the first write fixes the element shape
            hook = self.__dict__.get("_on_first_write")  # set by tf.while_loop for a loop variable
            flow = hook(value) if hook is not None else self._zeros(value.shape)
        return self._with_flow(set_item(flow, index, value, name=name))

    def read(self, index, name=None):
        """Element `index`."""
        return get_item(self.flow, index, name=name)

    def stack(self, name=None):
        """All elements, stacked: [size, ...]."""
        from tinyflow.ops.core.array_ops import identity
        return identity(self.flow, name=name or "TensorArrayStack")

    def gather(self, indices, name=None):
        from tinyflow.ops.core.indexing_ops import gather
        return gather(self.flow, indices, name=name)

    def concat(self, name=None):
        from tinyflow.ops.core.array_ops import reshape
        s = self.flow.shape.as_list()
        return reshape(self.flow, [-1] + s[2:], name=name)

    def unstack(self, value, name=None):
        """A TensorArray holding the rows of `value`."""
        value = convert_to_tensor(value, dtype=self._dtype)
        return self._with_flow(value)

    def size(self, name=None):
        return convert_to_tensor(np.int32(self._size)) if isinstance(self._size, int) else self._size

    def identity(self):
        return self

    def close(self, name=None):
        from tinyflow.ops.core.array_ops import no_op
        return no_op(name=name)
