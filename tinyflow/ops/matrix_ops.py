"""Matrix-shaped array ops: diag, diag_part, matrix_diag, matrix_diag_part, eye, tensordot and
einsum. Each op: one register_op with all its rules, next to its TF-style builder (split out of
array_ops.py, whose helpers these ops share).
"""
import jax.numpy as jnp
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import ShapeError, Tensor
from tinyflow.graph.registry import register_op, same_as_input
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core import math_ops
from tinyflow.ops.core.array_ops import concat, ones, pad, reshape, stack, transpose
from tinyflow.ops.core.util import convert_same, int_tensor, pyrange, name_scope
from tinyflow.ops.core.base import broadcast_shapes, constant_value_of, convert_to_tensor, make_op
from tinyflow.ops.core.indexing_ops import dims_or_shape, dims_prod

__all__ = [
    'cross',
    'diag',
    'diag_part',
    'einsum',
    'eye',
    'matrix_diag',
    'matrix_band_part',
    'matrix_diag_part',
    'matrix_set_diag',
    'matrix_transpose',
    'tensordot',
]


# ---- diagonals and eye ----------------------------------------------------------------------------
def _diag_shape(shapes, attrs, values):
    x = shapes[0]
    return [TensorShape(None if x.ndims is None else x.as_list() * 2)]


def _diag_part_shape(shapes, attrs, values):
    x = shapes[0]
    if x.ndims is None:
        return [TensorShape(None)]
    if x.ndims % 2 or x.ndims == 0:
        raise ShapeError("Input must have even rank <= 6, got rank %d" % x.ndims)
    d, k = x.as_list(), x.ndims // 2
    out = []
    for a, b in zip(d[:k], d[k:]):
        if a is not None and b is not None and a != b:
            raise ShapeError("Dimensions must be equal, but are %d and %d" % (a, b))
        out.append(a if a is not None else b)
    return [TensorShape(out)]


def _diag_lower(a, x):
    return jnp.diag(x.reshape(-1)).reshape(x.shape * 2)


def _diag_part_lower(a, x):
    half = x.shape[:x.ndim // 2]
    n = int(np.prod(half))
    return jnp.diagonal(x.reshape(n, n)).reshape(half)


register_op("Diag", shape=_diag_shape, dtype=same_as_input(0), grad=lambda op, g: [diag_part(g)], lower=_diag_lower)
register_op("DiagPart", shape=_diag_part_shape, dtype=same_as_input(0), grad=lambda op, g: [diag(g)],
            lower=_diag_part_lower)


def diag(diagonal, name=None):
    """A tensor of rank 2k with `diagonal` (rank k) on its diagonal: out[i..., i...] = diagonal[i...]."""
    return make_op("Diag", [convert_to_tensor(diagonal)], name=name or "Diag")


def diag_part(input, name=None):
    """The diagonal of a rank-2k tensor (inverse of diag)."""
    return make_op("DiagPart", [convert_to_tensor(input)], name=name or "DiagPart")


def _matrix_diag_shape(shapes, attrs, values):
    x = shapes[0]
    if x.ndims is None:
        return [TensorShape(None)]
    if x.ndims < 1:
        raise ShapeError("Shape must be at least rank 1 but is rank 0")
    return [TensorShape(x.as_list() + x.as_list()[-1:])]


def _matrix_diag_part_shape(shapes, attrs, values):
    x = shapes[0]
    if x.ndims is None:
        return [TensorShape(None)]
    if x.ndims < 2:
        raise ShapeError("Shape must be at least rank 2 but is rank %d" % x.ndims)
    m, n = x.as_list()[-2:]
    k = None if m is None or n is None else min(m, n)
    return [TensorShape(x.as_list()[:-2] + [k])]


def _matrix_diag_lower(a, x):
    eye_ = jnp.eye(x.shape[-1], dtype=bool)
    return jnp.where(eye_, x[..., None], jnp.zeros((), x.dtype))


def _matrix_diag_part_grad(op, g):
    x = op.inputs[0]
    m, n = x.shape.as_list()[-2:] if x.shape.ndims is not None else (None, None)
    dx = matrix_diag(g)
    if m != n:  # a non-square input: pad the square [k, k] result to [m, n]
        if m is None or n is None:
            raise NotImplementedError("MatrixDiagPart gradient of a non-square matrix with unknown dimensions")
        k = min(m, n)
        dx = pad(dx, [[0, 0]] * (x.shape.ndims - 2) + [[0, m - k], [0, n - k]])
    return [dx]


register_op("MatrixDiag", shape=_matrix_diag_shape, dtype=same_as_input(0), lower=_matrix_diag_lower,
            grad=lambda op, g: [matrix_diag_part(g)])
register_op("MatrixDiagPart", shape=_matrix_diag_part_shape, dtype=same_as_input(0), grad=_matrix_diag_part_grad,
            lower=lambda a, x: jnp.diagonal(x, axis1=-2, axis2=-1))


def matrix_diag(diagonal, name="MatrixDiag"):
    """Batched diagonal matrices: [..., n] -> [..., n, n]."""
    return make_op("MatrixDiag", [convert_to_tensor(diagonal)], name=name)


def matrix_diag_part(input, name="MatrixDiagPart"):
    """The main diagonals of a batch of matrices: [..., m, n] -> [..., min(m, n)]."""
    return make_op("MatrixDiagPart", [convert_to_tensor(input)], name=name)


def _matrix_shape(shapes, attrs, values):
    """shape rule: the input's shape, which must be a (batch of) matrix."""
    x = shapes[0]
    if x.ndims is not None and x.ndims < 2:
        raise ShapeError("Shape must be at least rank 2 but is rank %d" % x.ndims)
    return [x]


def _band_lower(a, x, lower, upper):
    m, n = x.shape[-2:]
    i, j = np.arange(m)[:, None], np.arange(n)[None, :]
    lower, upper = int(lower), int(upper)  # a negative bound keeps that whole triangle
    keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
    return jnp.where(keep, x, jnp.zeros((), x.dtype))


def _band_check(a, x, lower, upper):
    """TF's kernel: a bound past the matrix's rows / columns is an error (not 'the whole triangle')."""
    m, n = x.shape[-2:]
    return (jnp.logical_and(lower <= m, upper <= n), jnp.asarray(lower), jnp.asarray(upper), jnp.asarray([m, n]))


def _band_message(op, lower, upper, mn):
    if lower > mn[0]:
        return "num_lower must be negative or less or equal to number of rows (%d) got: %d" % (mn[0], lower)
    return "num_upper must be negative or less or equal to number of columns (%d) got: %d" % (mn[1], upper)


register_op("MatrixBandPart", shape=_matrix_shape, dtype=same_as_input(0), lower=_band_lower,
            grad=lambda op, g: [matrix_band_part(g, op.inputs[1], op.inputs[2]), None, None],
            check=_band_check, check_message=_band_message)


def matrix_band_part(input, num_lower, num_upper, name=None):
    """Each matrix with the entries outside the band zeroed: kept where i - j <= num_lower and
    j - i <= num_upper (a negative bound keeps the whole lower / upper triangle)."""
    with name_scope(name or "MatrixBandPart") as scope:
        x = convert_to_tensor(input, name="input")
        lower = int_tensor(num_lower, "num_lower")
        upper = convert_to_tensor(num_upper, dtype=lower.dtype, name="num_upper")
        return make_op("MatrixBandPart", [x, lower, upper], name=scope)


def _set_diag_shape(shapes, attrs, values):
    x, d = shapes
    (out,) = _matrix_shape([x], attrs, values)
    want = _matrix_diag_part_shape([x], attrs, values)[0]
    if not d.is_compatible_with(want):
        raise ShapeError("diagonal must have shape %s to fit input of shape %s, got %s"
                         % (want.as_proto_str(), x.as_proto_str(), d.as_proto_str()))
    return [out]


def _set_diag_lower(a, x, d):
    k = np.arange(min(x.shape[-2:]))
    return jnp.asarray(x).at[..., k, k].set(d)


def _set_diag_grad(op, g):
    return [matrix_set_diag(g, math_ops.zeros_like(op.inputs[1])), matrix_diag_part(g)]


register_op("MatrixSetDiag", shape=_set_diag_shape, dtype=same_as_input(0), lower=_set_diag_lower,
            grad=_set_diag_grad)


def matrix_set_diag(input, diagonal, name="set_diag"):
    """Each matrix of `input` with its main diagonal replaced by `diagonal` ([..., min(m, n)])."""
    x, d = convert_same([input, diagonal], "MatrixSetDiag", "input")
    return make_op("MatrixSetDiag", [x, d], name=name)


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """Transposes the last two dimensions of `a` (rank >= 2), keeping batch dimensions."""
    a = convert_to_tensor(a, name="a")
    rank = a.shape.ndims
    if rank is None:
        raise ValueError("tinyflow's matrix_transpose needs a known rank, got %s" % a)
    if rank < 2:
        raise ValueError("Argument 'a' should be a (batch) matrix, with rank >= 2.  Found: %s" % a.shape)
    if conjugate and a.dtype.is_complex:
        from tinyflow.ops.core.math_ops import conj
        a = conj(a)
    return transpose(a, list(pyrange(rank - 2)) + [rank - 1, rank - 2], name=name)


# ---- cross product --------------------------------------------------------------------------------
def _cross_shape(shapes, attrs, values):
    a, b = shapes
    if not a.is_compatible_with(b):
        raise ShapeError("Dimensions must be equal, but are %s and %s" % (a.as_proto_str(), b.as_proto_str()))
    out = a.merge_with(b)
    if out.ndims is not None and (out.ndims == 0 or out[-1].value not in (None, 3)):
        raise ShapeError("Dimension must be 3 but is %s" % (out[-1].value if out.ndims else "a scalar"))
    return [out]


register_op("Cross", shape=_cross_shape, dtype=same_as_input(0),
            grad=lambda op, g: [cross(op.inputs[1], g), cross(g, op.inputs[0])],
            lower=lambda a, x, y: jnp.cross(x, y).astype(x.dtype))


def cross(a, b, name=None):
    """The cross product of 3-vectors along the last dimension of a and b (same shapes)."""
    a, b = convert_same([a, b], "Cross", "a")
    return make_op("Cross", [a, b], name=name or "Cross")


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dt.float32, name=None):
    """Identity matrices [*batch_shape, num_rows, num_columns]."""
    with name_scope(name or "eye"):
        rows = int(constant_value_of(num_rows))
        cols = rows if num_columns is None else int(constant_value_of(num_columns))
        batch = [int(d) for d in (batch_shape or [])]
        k = min(rows, cols)
        out = matrix_diag(ones(batch + [k], dtype=dtype))
        if rows != cols:
            out = pad(out, [[0, 0]] * len(batch) + [[0, rows - k], [0, cols - k]])
        return out


# ---- tensordot and einsum -------------------------------------------------------------------------

def tensordot(a, b, axes, name=None):
    """Sums a[..] * b[..] over the axes pairs in `axes` (an int N: last N of a with first N of b)."""
    with name_scope(name or "Tensordot") as scope:
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, name="b")
        ra, rb = a.shape.ndims, b.shape.ndims
        if ra is None or rb is None:
            raise ValueError("tinyflow: tensordot needs inputs of known rank")
        if isinstance(axes, (int, np.integer)) or (not isinstance(axes, (list, tuple)) and np.ndim(axes) == 0) or (
                isinstance(axes, Tensor) and axes.shape.ndims == 0):
            n = int(constant_value_of(axes))
            if n < 0 or n > ra or n > rb:
                raise ValueError("'axes' must be at most the rank of a and b (%d, %d), got %d" % (ra, rb, n))
            a_axes, b_axes = list(pyrange(ra - n, ra)), list(pyrange(n))
        else:
            if len(axes) != 2:
                raise ValueError("'axes' must be an integer or have length 2.")
            a_axes, b_axes = ([int(i) for i in np.asarray(constant_value_of(ax)).reshape(-1)] for ax in axes)
            if len(a_axes) != len(b_axes):
                raise ValueError("Different number of contraction axes 'a' and 'b', %d != %d."
                                 % (len(a_axes), len(b_axes)))
            a_axes = [i % ra for i in a_axes]
            b_axes = [i % rb for i in b_axes]
        free_a = [i for i in pyrange(ra) if i not in a_axes]
        free_b = [i for i in pyrange(rb) if i not in b_axes]
        a2 = _reshape2(a, free_a + a_axes, free_a, a_axes)
        b2 = _reshape2(b, b_axes + free_b, b_axes, free_b)
        ab = math_ops.matmul(a2, b2)
        fa, fb = dims_or_shape(a, free_a), dims_or_shape(b, free_b)
        out_shape = fa + fb if isinstance(fa, list) and isinstance(fb, list) else concat([fa, fb], 0)
        return reshape(ab, out_shape, name=scope)


def _reshape2(x, perm, rows, cols):
    """x transposed by `perm` and reshaped to a matrix [prod(rows dims), prod(cols dims)]."""
    r, c = dims_prod(dims_or_shape(x, rows)), dims_prod(dims_or_shape(x, cols))
    if perm != list(pyrange(len(perm))):
        x = transpose(x, perm)
    return reshape(x, [r, c] if isinstance(r, int) and isinstance(c, int) else stack([r, c]))


def _einsum_parse(equation, n):
    eq = equation.replace(" ", "")
    ins, arrow, out = eq.partition("->")
    ins = ins.split(",")
    if len(ins) != n:
        raise ValueError("Expected %d inputs in equation %r, got %d" % (len(ins), equation, n))
    if not arrow:
        letters = "".join(ins).replace(".", "")
        out = ("..." if any("..." in s for s in ins) else "") + "".join(
            sorted(c for c in set(letters) if letters.count(c) == 1))
    return ins, out


def _einsum_shape(shapes, attrs, values):
    ins, out = _einsum_parse(attrs["equation"], len(shapes))
    sizes, ell = {}, []
    for sub, s in zip(ins, shapes):
        if s.ndims is None:
            if "..." in sub:
                ell = None
            continue
        d = s.as_list()
        if "..." in sub:
            pre, post = sub.split("...")
            k = len(d) - len(pre) - len(post)
            e, d = d[len(pre):len(pre) + k], d[:len(pre)] + d[len(pre) + k:]
            sub = pre + post
            if ell is not None:
                ell = broadcast_shapes(TensorShape(ell), TensorShape(e)).as_list()
        if len(sub) != len(d):
            raise ShapeError("Expected %d dimensions for subscripts %r but the input has rank %d"
                             % (len(sub), sub, len(d)))
        for c, v in zip(sub, d):
            old = sizes.get(c)
            if old is not None and v is not None and old != v and 1 not in (old, v):
                raise ShapeError("Expected dimension %d at axis %d of the input shaped %s but got dimension %d"
                                 % (old, sub.index(c), s.as_proto_str(), v))
            if old is None or old == 1:
                sizes[c] = v
    if "..." in out:
        if ell is None:
            return [TensorShape(None)]
        pre, post = out.split("...")
        return [TensorShape([sizes.get(c) for c in pre] + ell + [sizes.get(c) for c in post])]
    return [TensorShape([sizes.get(c) for c in out])]


def _einsum_grad(op, g):
    ins, out = _einsum_parse(op.attrs["equation"], len(op.inputs))
    grads = []
    for i, x in enumerate(op.inputs):
        sub = ins[i]
        letters = sub.replace(".", "")
        # a repeated letter ('ii', 'iij') reads a diagonal: the gradient of the diagonal (each letter
        # once), put back on it below
        full, sub = sub, "".join(c for k, c in enumerate(sub) if c == "." or c not in sub[:k])
        letters = sub.replace(".", "")
        others = [s for j, s in enumerate(ins) if j != i]
        avail = set(out) | set("".join(others))
        keep = "".join(c for c in sub if c == "." or c in avail)
        gx = einsum("%s->%s" % (",".join([out] + others), keep), g, *[t for j, t in enumerate(op.inputs) if j != i])
        missing = [c for c in letters if c not in avail]
        if missing:  # letters summed away in the forward pass come back by broadcasting
            if x.shape.ndims is None:
                raise NotImplementedError("tinyflow: einsum gradient needs the input's rank")
            pre, _, post = sub.partition("...")
            pos = {c: k for k, c in enumerate(pre)}
            pos.update({c: x.shape.ndims - len(post) + k for k, c in enumerate(post)})
            ones_ = ones(dims_or_shape(x, [pos[c] for c in missing]), dtype=x.dtype)
            gx = einsum("%s,%s->%s" % (keep, "".join(missing), sub), gx, ones_)
        if full != sub:
            gx = _onto_diagonal(gx, sub, full, x)
        if "..." in sub:
            gx = math_ops.sum_to(gx, x)
        grads.append(gx)
    return grads


def _onto_diagonal(g, sub, full, x):
    """g (subscripts `sub`, each letter once) placed on the diagonal of x's subscripts `full`, where
    letters repeat: each repeat renamed to a fresh letter tied to its first by an identity matrix."""
    fresh = iter(c for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in full)
    pre, _, post = full.partition("...")
    renamed, eyes, pairs = "", [], []
    for k, c in enumerate(full):
        if c != "." and c in full[:k]:
            f = next(fresh)
            at = k if k < len(pre) or "..." not in full else x.shape.ndims - (len(full) - k)
            eyes.append(matrix_diag(ones(dims_or_shape(x, [at]), dtype=x.dtype)))
            pairs.append(c + f)
            c = f
        renamed += c
    return einsum("%s->%s" % (",".join([sub] + pairs), renamed), g, *eyes)


register_op("Einsum", shape=_einsum_shape, dtype=same_as_input(0), grad=_einsum_grad,
            lower=lambda a, *xs: jnp.einsum(a["equation"], *xs).astype(xs[0].dtype))


def einsum(equation, *inputs, **kwargs):
    """Einstein summation, e.g. einsum('ij,jk->ik', a, b); '...' broadcasts leading dimensions."""
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError("invalid keyword arguments for this function: %s" % ", ".join(sorted(kwargs)))
    xs = convert_same(inputs, "Einsum", "inputs")
    return make_op("Einsum", xs, {"equation": equation.replace(" ", "")}, name=name or "einsum")
