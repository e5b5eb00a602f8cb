"""Backward shape rules (OpDef.infer_back, read by passes/infer.py's backward sweep). Numpy only.

A rule: infer_back(in_shapes, out_shapes, attrs, values) -> [TensorShape or None per input]. It fills
unknown input dimensions from the outputs and the other inputs: how TinyFlow's weights, created
with unknown shapes, get theirs (a MatMul knows its weight's input dimension from its data).
"""
import numpy as np

from tinyflow.graph.shapes import TensorShape


def same_shape(shapes, outs, attrs, values):
    """Unary elementwise: the input has the output's shape."""
    return [outs[0]] + [None] * (len(shapes) - 1)


def broadcast(shapes, outs, attrs, values):
    """Binary broadcasting: an *unknown* input dimension of the output's rank takes the output's
    dimension (NNVM's same-shape convention: a shape left to inference never broadcasts)."""
    out = outs[0]
    if out.ndims is None:
        return [None] * len(shapes)
    res = []
    for s in shapes:
        if s.ndims is None or s.ndims != out.ndims:
            res.append(None)
            continue
        res.append(TensorShape([d if d is not None else o for d, o in zip(s.as_list(), out.as_list())]))
    return res


def _dims(s, rank):
    return s.as_list() if s.ndims == rank else [None] * rank


def _pick(*xs):
    for x in xs:
        if x is not None:
            return x
    return None


def matmul(shapes, outs, attrs, values):
    a, b, o = _dims(shapes[0], 2), _dims(shapes[1], 2), _dims(outs[0], 2)
    ta, tb = attrs.get("transpose_a", False), attrs.get("transpose_b", False)
    (k1, m) = a if ta else a[::-1]
    (n, k2) = b if tb else b[::-1]
    m, n, k = _pick(m, o[0]), _pick(n, o[1]), _pick(k1, k2)
    return [TensorShape([k, m] if ta else [m, k]), TensorShape([n, k] if tb else [k, n])]


def bias_add(shapes, outs, attrs, values):
    x = shapes[0].merge_with(outs[0])
    if x.ndims is None:
        return [None, None]
    ax = 1 if attrs.get("data_format") == "NCHW" else x.ndims - 1  # BiasAdd's channel axis
    return [x, TensorShape([x[ax].value])]


def conv2d(shapes, outs, attrs, values):
    x, w, o = _dims(shapes[0], 4), _dims(shapes[1], 4), _dims(outs[0], 4)
    c = 1 if attrs.get("data_format") == "NCHW" else 3
    w = w[:2] + [_pick(w[2], x[c]), _pick(w[3], o[c])]
    x = list(x)
    x[0], x[c] = _pick(x[0], o[0]), _pick(x[c], w[2])
    return [TensorShape(x), TensorShape(w)]


def transpose(shapes, outs, attrs, values):
    perm, o = values[1], outs[0]
    if perm is None or o.ndims is None:
        return [None, None]
    dims = [None] * o.ndims
    for i, p in enumerate(np.asarray(perm).reshape(-1)):
        dims[int(p)] = o.as_list()[i]
    return [TensorShape(dims), None]


def reshape(shapes, outs, attrs, values):
    x, n = shapes[0], outs[0].num_elements()
    if x.ndims is None or n is None:
        return [None, None]
    dims = x.as_list()
    unknown = [i for i, d in enumerate(dims) if d is None]
    if len(unknown) != 1:
        return [None, None]
    known = int(np.prod([d for d in dims if d is not None]))
    if known == 0 or n % known:
        raise ValueError("cannot reshape %d elements from %s" % (n, x))
    dims[unknown[0]] = n // known
    return [TensorShape(dims), None]
