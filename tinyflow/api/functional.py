"""tf.map_fn: ops/functional_ops.py's while loop (compiled by XLA) or, when strings are involved (string
elements or results), a loop on the host, since XLA has no strings: `fn` is traced once into its own
graph, as a dataset's map function (api/data/functions.py), and a py_func runs it element by element
(string ops on the host stage, the rest jitted once) and stacks the results."""
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph import nest
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops import functional_ops, script_ops
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.api.data import functions
from tinyflow.api.data.iterator_ops import Run


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False, infer_shape=True,
           name=None):
    """Stacks fn(elems[i]) over the first dimension of elems (a tensor or nested structure); `dtype`
    (a dtype or nested structure of them) when fn's results differ from elems in structure or dtype."""
    flat = [convert_to_tensor(e) for e in nest.flatten(elems)]
    out_struct = dtype if dtype is not None else nest.pack_as(elems, [e.dtype for e in flat])
    out_types = [dt.as_dtype(d) for d in nest.flatten(out_struct)]
    if dt.string not in out_types and not any(e.dtype is dt.string for e in flat):
        return functional_ops.map_fn(fn, elems, dtype, parallel_iterations, back_prop, swap_memory, infer_shape,
                                     name)
    if not callable(fn):
        raise TypeError("fn must be callable.")
    if any(e.shape.ndims == 0 for e in flat):
        raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
    slices = [TensorShape(None) if e.shape.ndims is None else TensorShape(e.shape.as_list()[1:]) for e in flat]
    traced = functions.trace(lambda *parts: fn(nest.pack_as(elems, list(parts))), tuple(e.dtype for e in flat),
                             tuple(slices), name or "map")
    got = [d for d in nest.flatten(traced.out_types)]
    if got != out_types:
        raise TypeError("fn's output does not match dtype (or elems when dtype is None): %s vs %s"
                        % ([d.name for d in got], [d.name for d in out_types]))
    shapes = nest.flatten(traced.out_shapes)
    sources = traced.sources()

    def host_loop(*arrays):
        parts, captured = arrays[:len(flat)], arrays[len(flat):]
        run = Run(dict(zip(sources, captured)))
        rows = [traced(tuple(p[i] for p in parts), run) for i in range(len(parts[0]))]
        return [np.stack([r[j] for r in rows]) if rows else
                np.zeros((0,) + tuple(d or 0 for d in (s.as_list() or [])), object if t is dt.string else t.np)
                for j, (s, t) in enumerate(zip(shapes, out_types))]
    outs = script_ops.py_func(host_loop, flat + sources, out_types, name=name or "map")
    n = flat[0].shape[0].value if flat[0].shape.ndims else None
    for o, s in zip(outs, shapes):
        o.set_shape(TensorShape([n]).concatenate(s))
    return nest.pack_as(out_struct, outs)
