"""The update ops of the optimizers (TF's training_ops): ApplyGradientDescent, ApplyAdam, ...

Each op takes the variable and its slots as reference inputs (OpDef.ref_inputs), in TF's input
order, and its lowering returns their new values; output 0 is the variable's new value. The math
is TF 1.15's kernels' expressions, in their order (what they give at inf and NaN is TF's). Each has
its sparse form, SparseApply*, for an IndexedSlices gradient: the same rule on the indexed rows.
"""
import operator

import jax
import jax.numpy as jnp
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import ShapeError
from tinyflow.graph.shapes import TensorShape
from tinyflow.graph.registry import register_op
from tinyflow.ops.core.base import make_op
from tinyflow.ops.core.util import first_bad


def _apply_shape(same_shape):
    """Shape rule: the inputs in same_shape (slots, grad) have var's shape; the others are scalars."""
    def rule(shapes, attrs, values):
        out = shapes[0]
        for i in same_shape:
            s = shapes[i]
            if out.ndims is not None and s.ndims is not None and out.ndims != s.ndims:
                raise ShapeError("Shapes must be equal rank, but are %d and %d" % (out.ndims, s.ndims))
            if not out.is_compatible_with(s):
                d = next(k for k, (a, b) in enumerate(zip(out.as_list(), s.as_list())) if None not in (a, b) and a != b)
                raise ShapeError("Dimension %d in both shapes must be equal, but are %d and %d. Shapes are %s and %s."
                                 % (d, out.as_list()[d], s.as_list()[d], out.as_proto_str(), s.as_proto_str()))
            out = out.merge_with(s)
        for i, s in enumerate(shapes):
            if i and i not in same_shape and s.ndims not in (None, 0):
                raise ShapeError("Shape must be rank 0 but is rank %d" % s.ndims)
        return [out]
    return rule


def _apply_dtype(dtypes, attrs):
    for d in dtypes[1:]:
        if d != dtypes[0]:
            raise TypeError("Input of '%s' Op has type %s that does not match type %s of argument 'var'."
                            % (attrs.get("_type", "Apply"), d.name, dtypes[0].name))
    return [dtypes[0]]


def _apply_dtype_but_last(dtypes, attrs):
    """ApplyAdagradDA's rule: its last input (global_step) is int64, the rest var's dtype."""
    if dtypes[-1] != dt.int64:
        raise TypeError("Input 'global_step' of 'ApplyAdagradDA' Op has type %s that does not match expected type "
                        "of int64." % dtypes[-1].name)
    return _apply_dtype(dtypes[:-1], attrs)


def _register(op_type, n_refs, tensor_inputs, lower, dtype=_apply_dtype, **rules):
    """An update op with refs 0..n_refs-1; `lower(attrs, *arrays)` returns the new ref values."""
    def typed(attrs, var, *rest):
        outs = lower(attrs, var, *rest)
        outs = outs if isinstance(outs, tuple) else (outs,)
        return tuple(o.astype(var.dtype) for o in outs) if n_refs > 1 else outs[0].astype(var.dtype)
    register_op(op_type, shape=rules.pop("shape", None) or _apply_shape(tensor_inputs), dtype=dtype, grad=None,
                ref_inputs=tuple(range(n_refs)), lower=typed, **rules)


def _make(op_type, inputs, attrs=None, indices=None):
    """The update op; with `indices`, its sparse form SparseApply*: grad holds the rows at `indices`."""
    if indices is not None:
        op_type, inputs = "Sparse" + op_type, list(inputs)
        inputs.insert(_GRAD_AT[op_type] + 1, indices)
    attrs = dict(attrs or {}, use_locking=False, _type=op_type)
    return make_op(op_type, [i._as_graph_element() if hasattr(i, "_as_graph_element") else i for i in inputs],
                   attrs, name=op_type)


# ---- the rules, one per op: TF 1.15's kernel expressions (training_ops.cc), in its order ---------------
# (the order matters at the edges: TF's m += (g - m) * (1 - beta1) is NaN where m and g are inf, a
# moving average written beta1 * m + (1 - beta1) * g would be inf)
def _gd(a, var, alpha, delta):
    return var - delta * alpha


def _momentum(a, var, accum, lr, grad, momentum):
    accum = accum * momentum + grad
    if a["use_nesterov"]:
        return var - (grad * lr + accum * momentum * lr), accum
    return var - accum * lr, accum


def _adagrad(a, var, accum, lr, grad):
    accum = accum + grad * grad
    return var - grad * lr * jax.lax.rsqrt(accum), accum


# (add, sub, mul, div, sqrt): lax's primitives for arguments of one dtype (the usual case: jnp's operators
# are a jit each, 17 per Adam variable while a step is traced), else Python's operators (jnp's promotion)
_LAX_ARITHMETIC = (jax.lax.add, jax.lax.sub, jax.lax.mul, jax.lax.div, jax.lax.sqrt)
_ARITHMETIC = (operator.add, operator.sub, operator.mul, operator.truediv, jnp.sqrt)


def _adam(a, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad):
    args = (var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad)
    uniform = all(getattr(x, "dtype", None) == var.dtype for x in args) and \
        all(np.ndim(x) == 0 for x in args[3:9]) and np.shape(var) == np.shape(m) == np.shape(v) == np.shape(grad)
    add, sub, mul, div, sqrt = _LAX_ARITHMETIC if uniform else _ARITHMETIC
    one = np.ones((), var.dtype) if uniform else 1
    alpha = div(mul(lr, sqrt(sub(one, beta2_power))), sub(one, beta1_power))
    m = add(m, mul(sub(grad, m), sub(one, beta1)))
    v = add(v, mul(sub(mul(grad, grad), v), sub(one, beta2)))
    return sub(var, div(mul(m, alpha), add(sqrt(v), epsilon))), m, v


def _rmsprop(a, var, ms, mom, lr, rho, momentum, epsilon, grad):
    ms = ms + (grad * grad - ms) * (1 - rho)
    mom = mom * momentum + jax.lax.rsqrt(ms + epsilon) * lr * grad
    return var - mom, ms, mom


def _centered_rmsprop(a, var, mg, ms, mom, lr, rho, momentum, epsilon, grad):
    ms = ms + (grad * grad - ms) * (1 - rho)
    mg = mg + (grad - mg) * (1 - rho)
    mom = mom * momentum + jax.lax.rsqrt(ms - mg * mg + epsilon) * lr * grad
    return var - mom, mg, ms, mom


def _adadelta(a, var, accum, accum_update, lr, rho, epsilon, grad):
    accum = accum * rho + grad * grad * (1 - rho)
    update = jnp.sqrt(accum_update + epsilon) * jax.lax.rsqrt(accum + epsilon) * grad
    return var - update * lr, accum, accum_update * rho + update * update * (1 - rho)


def _ftrl(a, var, accum, linear, grad, lr, l1, l2, lr_power, l2_shrinkage=None):
    # TF's FTRL-proximal; lr_power -0.5 uses sqrt as TF's kernel does. V2 (l2_shrinkage): the linear
    # term sees grad + 2 * l2_shrinkage * var, the accumulator grad. TF's dense kernel zeroes var where
    # |linear| <= l1; its sparse one computes (clip(linear, -l1, l1) - linear) / quadratic (a["sparse"]),
    # which is NaN where linear is or the quadratic term is 0 and l2 too.
    shrunk = grad if l2_shrinkage is None else grad + 2 * l2_shrinkage * var
    new_accum = accum + grad * grad
    if a["sqrt_power"]:
        sigma = (jnp.sqrt(new_accum) - jnp.sqrt(accum)) / lr
        quadratic = jnp.sqrt(new_accum) / lr + 2 * l2
    else:
        sigma = (new_accum ** -lr_power - accum ** -lr_power) / lr
        quadratic = new_accum ** -lr_power / lr + 2 * l2
    linear = linear + shrunk - sigma * var
    if a.get("sparse"):
        return (jnp.clip(linear, -l1, l1) - linear) / quadratic, new_accum, linear
    pre = (jnp.sign(linear) * l1 - linear) / quadratic
    return jnp.where(jnp.abs(linear) > l1, pre, jnp.zeros_like(pre)), new_accum, linear


def _ftrl_v2(a, var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power):
    return _ftrl(a, var, accum, linear, grad, lr, l1, l2, lr_power, l2_shrinkage)


def _shrink(prox, lr, l1, l2):
    # TF's proximal step: soft-threshold by lr * l1 (when l1 > 0), then scale by 1 / (1 + l2 * lr)
    soft = jnp.sign(prox) * jnp.maximum(jnp.abs(prox) - lr * l1, 0)
    return jnp.where(l1 > 0, soft, prox) / (1 + l2 * lr)


def _proximal_gd(a, var, alpha, l1, l2, delta):
    return _shrink(var - delta * alpha, alpha, l1, l2)


def _proximal_adagrad(a, var, accum, lr, l1, l2, grad):
    accum = accum + grad * grad
    lr_t = lr * jax.lax.rsqrt(accum)
    return _shrink(var - grad * lr_t, lr_t, l1, l2), accum


def _adagrad_da(a, var, g_acc, gg_acc, grad, lr, l1, l2, global_step):
    """TF's dual averaging: the accumulated gradient, soft-thresholded by l1 * step, over the root of the
    accumulated squares plus l2 * step * lr."""
    g_acc, gg_acc, step = g_acc + grad, gg_acc + grad * grad, global_step.astype(var.dtype)
    shrunk = jnp.where(l1 > 0, -jnp.sign(g_acc) * jnp.maximum(jnp.abs(g_acc) - step * l1, 0), -g_acc)
    return lr * shrunk / (l2 * (step * lr) + jnp.sqrt(gg_acc)), g_acc, gg_acc


# ---- the sparse forms: the rows at `indices` only ----------------------------------------------------
# SparseApply<X> takes ApplyX's inputs with `indices` after grad, and grad holds the rows at them. TF's
# optimizers sum a repeated index's rows first (Optimizer._apply_sparse_duplicate_indices) and TF's kernels
# then update those rows alone: slots of rows not indexed keep their values (a lazy Momentum or RMSProp).
# These ops sum the repeated rows themselves, so that the step keeps static shapes (no tf.unique).
_GRAD_AT = {}   # SparseApply<X> -> the position of grad (indices follow it)


def _unique_rows(idx, values, n):
    """The distinct indices, padded to len(idx) with n (out of range: dropped when written back), and the
    rows of `values` summed per distinct index."""
    rows, where = jnp.unique(idx, size=idx.shape[0], fill_value=n, return_inverse=True)
    return rows, jax.ops.segment_sum(values, where.reshape(-1), num_segments=idx.shape[0])


def _rows_rule(lower, n_refs, g):
    """The dense rule `lower` on the indexed rows of the refs, written back into them."""
    def rule(a, *args):
        idx, args = args[g + 1], list(args[:g + 1] + args[g + 2:])
        refs = args[:n_refs]
        if idx.shape[0] == 0 or refs[0].shape[0] == 0:   # nothing to update (or a failing index check)
            return tuple(refs)
        rows, args[g] = _unique_rows(idx, args[g], refs[0].shape[0])
        args[:n_refs] = [r.at[rows].get(mode="clip") for r in refs]
        new = lower(dict(a, sparse=True), *args)
        return tuple(r.at[rows].set(v.astype(r.dtype), mode="drop") for r, v in zip(refs, new if isinstance(
            new, tuple) else (new,)))
    return rule


def _sparse_shape(n_refs, g):
    """grad is [len(indices)] + var.shape[1:] (input g, indices at g + 1), var at least a vector; the rest as
    the dense op's."""
    dense = _apply_shape(tuple(range(1, n_refs)))

    def rule(shapes, attrs, values):
        var, grad, idx = shapes[0], shapes[g], shapes[g + 1]
        if var.ndims == 0:
            raise ShapeError("Shape must be at least rank 1 but is rank 0")
        if idx.ndims not in (None, 1):
            raise ShapeError("Shape must be rank 1 but is rank %d" % idx.ndims)
        if grad.ndims is not None and var.ndims is not None:
            want = TensorShape([idx.as_list()[0] if idx.ndims else None] + var.as_list()[1:])
            if not grad.is_compatible_with(want):
                raise ShapeError("grad has shape %s, %s expects %s" % (grad.as_proto_str(), attrs.get("_type"),
                                                                      want.as_proto_str()))
        return dense([s for k, s in enumerate(shapes) if k not in (g, g + 1)], attrs, values)
    return rule


def _sparse_dtype(g, dense):
    def rule(dtypes, attrs):
        if dtypes[g + 1] not in (dt.int32, dt.int64):
            raise TypeError("Value passed to parameter 'indices' has DataType %s not in list of allowed values: "
                            "int32, int64" % dtypes[g + 1].name)
        return dense(list(dtypes[:g + 1]) + list(dtypes[g + 2:]), attrs)
    return rule


def _index_check(g, inner):
    """TF's kernels check each index (after the optimizer summed repeated ones): the first one out of
    [0, var.shape[0]) and its offset among the distinct indices in the order they first appear. With
    `inner`, a var of rows of no elements fails too (TF's Adagrad, Ftrl and proximal kernels)."""
    def check(a, *args):
        idx, var = jnp.asarray(args[g + 1]), args[0]
        ok, pos, _, value = first_bad((idx < 0) | (idx >= var.shape[0]), idx)
        n = jnp.array(var.shape[0], np.int64)
        empty_rows = jnp.array(bool(inner and var.shape[0] and not var.size))
        if not idx.shape[0]:
            return ok & ~empty_rows, value, pos, n, empty_rows
        order = jnp.argsort(idx, stable=True)
        s = idx[order]
        firsts = jnp.zeros(idx.shape, bool).at[order].set(jnp.concatenate([jnp.ones(1, bool), s[1:] != s[:-1]]))
        return ok & ~empty_rows, value, jnp.sum(firsts & (jnp.arange(idx.shape[0]) < pos)), n, empty_rows
    return check


def _register_sparse(op_type, n_refs, g, lower, dtype=_apply_dtype, message=None):
    _GRAD_AT[op_type] = g
    message = message or (lambda value, offset, n: "Index %d at offset %d in indices is out of range" % (value, offset))
    inner = op_type[len("SparseApply"):] in ("Adagrad", "AdagradDA", "Ftrl", "FtrlV2", "ProximalAdagrad",
                                             "ProximalGradientDescent")
    _register(op_type, n_refs, None, lower, _sparse_dtype(g, dtype), shape=_sparse_shape(n_refs, g),
              check=_index_check(g, inner), check_message=lambda op, value, offset, n, empty_rows: (
                  "Inner dimension should be greater than zero." if empty_rows else message(value, offset, n)))


def _sparse_adam(a, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, indices):
    """TF's sparse Adam (AdamOptimizer._apply_sparse_shared, assign and scatter_add ops, no kernel of its own):
    m and v of every row decay, the indexed rows get their summed gradient's share added, every row of var
    moves."""
    g = jnp.zeros(var.shape, grad.dtype).at[indices].add(grad, mode="drop")
    m, v = m * beta1 + g * (1 - beta1), v * beta2 + g * g * (1 - beta2)
    return var - lr * jnp.sqrt(1 - beta2_power) / (1 - beta1_power) * m / (jnp.sqrt(v) + epsilon), m, v


_SPARSE = ("ApplyProximalGradientDescent", "ApplyProximalAdagrad", "ApplyMomentum", "ApplyAdagrad", "ApplyRMSProp",
           "ApplyCenteredRMSProp", "ApplyAdadelta", "ApplyFtrl", "ApplyFtrlV2", "ApplyAdagradDA")
for _t, _n, _inputs, _lower, _dtype in [
        ("ApplyGradientDescent", 1, (2,), _gd, _apply_dtype),
        ("ApplyProximalGradientDescent", 1, (4,), _proximal_gd, _apply_dtype),
        ("ApplyProximalAdagrad", 2, (1, 5), _proximal_adagrad, _apply_dtype),
        ("ApplyMomentum", 2, (1, 3), _momentum, _apply_dtype),
        ("ApplyAdagrad", 2, (1, 3), _adagrad, _apply_dtype),
        ("ApplyAdam", 3, (1, 2, 9), _adam, _apply_dtype),
        ("ApplyRMSProp", 3, (1, 2, 7), _rmsprop, _apply_dtype),
        ("ApplyCenteredRMSProp", 4, (1, 2, 3, 8), _centered_rmsprop, _apply_dtype),
        ("ApplyAdadelta", 3, (1, 2, 6), _adadelta, _apply_dtype),
        ("ApplyFtrl", 3, (1, 2, 3), _ftrl, _apply_dtype),
        ("ApplyFtrlV2", 3, (1, 2, 3), _ftrl_v2, _apply_dtype),
        ("ApplyAdagradDA", 3, (1, 2, 3), _adagrad_da, _apply_dtype_but_last)]:
    _register(_t, _n, _inputs, _lower, _dtype)
    if _t in _SPARSE:   # grad is the last input of var's shape in each
        _register_sparse("Sparse" + _t, _n, max(_inputs), _rows_rule(_lower, _n, max(_inputs)), _dtype)
_register_sparse("SparseApplyAdam", 3, 9, _sparse_adam, message=lambda value, offset, n: (
    "indices[%d] = %d is not in [0, %d)" % (offset, value, n)))


# ---- builders (TF's argument order) ----------------------------------------------------------------
def apply_gradient_descent(var, alpha, delta, indices=None):
    return _make("ApplyGradientDescent", [var, alpha, delta], None, indices)


def apply_momentum(var, accum, lr, grad, momentum, use_nesterov=False, indices=None):
    return _make("ApplyMomentum", [var, accum, lr, grad, momentum], {"use_nesterov": bool(use_nesterov)}, indices)


def apply_adagrad(var, accum, lr, grad, indices=None):
    return _make("ApplyAdagrad", [var, accum, lr, grad], None, indices)


def apply_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, indices=None):
    return _make("ApplyAdam", [var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad], None, indices)


def apply_rms_prop(var, ms, mom, lr, rho, momentum, epsilon, grad, indices=None):
    return _make("ApplyRMSProp", [var, ms, mom, lr, rho, momentum, epsilon, grad], None, indices)


def apply_centered_rms_prop(var, mg, ms, mom, lr, rho, momentum, epsilon, grad, indices=None):
    return _make("ApplyCenteredRMSProp", [var, mg, ms, mom, lr, rho, momentum, epsilon, grad], None, indices)


def apply_adadelta(var, accum, accum_update, lr, rho, epsilon, grad, indices=None):
    return _make("ApplyAdadelta", [var, accum, accum_update, lr, rho, epsilon, grad], None, indices)


def apply_ftrl(var, accum, linear, grad, lr, l1, l2, lr_power, sqrt_power=False, indices=None):
    return _make("ApplyFtrl", [var, accum, linear, grad, lr, l1, l2, lr_power], {"sqrt_power": bool(sqrt_power)},
                 indices)


def apply_ftrl_v2(var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power, sqrt_power=False, indices=None):
    return _make("ApplyFtrlV2", [var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power],
                 {"sqrt_power": bool(sqrt_power)}, indices)


def apply_proximal_gradient_descent(var, alpha, l1, l2, delta, indices=None):
    return _make("ApplyProximalGradientDescent", [var, alpha, l1, l2, delta], None, indices)


def apply_proximal_adagrad(var, accum, lr, l1, l2, grad, indices=None):
    return _make("ApplyProximalAdagrad", [var, accum, lr, l1, l2, grad], None, indices)


def apply_adagrad_da(var, gradient_accumulator, gradient_squared_accumulator, grad, lr, l1, l2, global_step,
                     indices=None):
    return _make("ApplyAdagradDA", [var, gradient_accumulator, gradient_squared_accumulator, grad, lr, l1, l2,
                                    global_step], None, indices)
