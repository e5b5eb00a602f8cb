"""Op types TF's gradient graphs use that tinyflow's own graphs do not need: their index inputs
(axes, shapes) are computed from tensor shapes, so tinyflow knows them while tracing (Shape is a
static op) and they lower with numpy on those values.

  BroadcastGradientArgs(s0, s1) -> (r0, r1): the axes to sum a broadcast result's gradient over
  DynamicReduce(x, axes; reduction, keep_dims): Sum/Mean/Max/Min/Prod over axes given as a tensor
  DynamicReduceGrad(g, x, axes; reduction, keep_dims): its gradient (TF's rule of each reduction)
  PreventGradient(x; message): the identity; its gradient raises LookupError (TF's rule)
"""
import numpy as np

from tinyflow.graph.registry import register_op
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core.base import make_op

def _concrete(v, what):
    try:
        return np.asarray(v).astype(np.int64)
    except Exception:  # a traced value: its shape was not known while tracing
        raise ValueError("tinyflow needs the %s of this imported TF op while tracing; it depends on fed values"
                         % what) from None


def broadcast_gradient_args(s0, s1):
    """TF's BroadcastGradientArgs on concrete shapes (numpy)."""
    s0, s1 = [int(d) for d in s0], [int(d) for d in s1]
    n = max(len(s0), len(s1))
    a, b = [1] * (n - len(s0)) + s0, [1] * (n - len(s1)) + s1
    r0, r1 = [], []
    for i, (x, y) in enumerate(zip(a, b)):
        if x == y:
            if x == 1:
                r0.append(i)
                r1.append(i)
            continue
        if x == 1:
            r0.append(i)
        elif y == 1:
            r1.append(i)
        else:
            raise ValueError("Incompatible shapes: %s vs. %s" % (s0, s1))
    return np.array(r0, np.int64), np.array(r1, np.int64)


def _bga_lower(attrs, s0, s1):
    r0, r1 = broadcast_gradient_args(_concrete(s0, "shapes"), _concrete(s1, "shapes"))
    npd = attrs["T"].np
    return r0.astype(npd), r1.astype(npd)


def _bga_shape(shapes, attrs, values):
    if values[0] is not None and values[1] is not None:
        r0, r1 = broadcast_gradient_args(values[0], values[1])
        return [TensorShape([len(r0)]), TensorShape([len(r1)])]
    return [TensorShape([None]), TensorShape([None])]


register_op("BroadcastGradientArgs", shape=_bga_shape, dtype=lambda d, a: [d[0], d[0]], grad=None,
            lower=_bga_lower)


def _axes(axes, rank):
    return tuple(sorted({int(a) % rank for a in np.reshape(axes, [-1])})) if rank else ()


def _reduce_shape(shapes, attrs, values):
    x = shapes[0]
    if x.ndims is None:
        return [TensorShape(None)]
    if values[1] is None:
        return [TensorShape([None] * x.ndims) if attrs["keep_dims"] else TensorShape(None)]
    axes = _axes(values[1], x.ndims)
    dims = x.as_list()
    if attrs["keep_dims"]:
        return [TensorShape([1 if i in axes else d for i, d in enumerate(dims)])]
    return [TensorShape([d for i, d in enumerate(dims) if i not in axes])]


def _reduce_lower(attrs, x, axes):
    from tinyflow.ops.core import math_ops as M   # the static reductions' rules: TF's NaN conventions
    return M._reduce_lower(M._REDUCTIONS[attrs["reduction"]][0])(
        {"axis": _axes(_concrete(axes, "reduction axes"), x.ndim), "keep_dims": attrs["keep_dims"]}, x)


def _reduce_grad_lower(attrs, g, x, axes):
    """The gradient of DynamicReduce (TF's _SumGrad, _MeanGrad, _MinOrMaxGrad, _ProdGrad) on concrete axes."""
    import jax.numpy as jnp
    from tinyflow.ops.core import math_ops as M
    static = {"axis": _axes(_concrete(axes, "reduction axes"), x.ndim), "keep_dims": attrs["keep_dims"]}
    kind = attrs["reduction"]
    if kind == "Prod":
        return M._prod_grad_lower(static, g, x)
    back = lambda v, mean=False: M._unreduce_lower(dict(static, mean=mean), v.astype(g.dtype), x)   # noqa: E731
    if kind in ("Sum", "Mean"):
        return back(g, kind == "Mean")
    chosen = (x == back(_reduce_lower(attrs, x, axes))).astype(g.dtype)   # the ties share the gradient
    return chosen / back(jnp.sum(chosen, axis=static["axis"], keepdims=attrs["keep_dims"])) * back(g)


register_op("DynamicReduce", shape=_reduce_shape, dtype=lambda d, a: [d[0]], lower=_reduce_lower,
            grad=lambda op, g: [make_op("DynamicReduceGrad", [g] + list(op.inputs), dict(op.attrs)), None])
register_op("DynamicReduceGrad", shape=lambda s, a, v: [s[1]], dtype=lambda d, a: [d[0]], grad=None,
            lower=_reduce_grad_lower)


def dynamic_reduce(x, axes, reduction, keep_dims, name=None):
    return make_op("DynamicReduce", [x, axes], {"reduction": reduction, "keep_dims": bool(keep_dims)},
                   name=name)


def bga(s0, s1, name=None):
    return make_op("BroadcastGradientArgs", [s0, s1], {"T": s0.dtype}, name=name)





def _prevent_gradient_grad(op, grad):
    raise LookupError("Gradient explicitly disabled. Reason: %s" % op.attrs["message"])  # TF's error


register_op("PreventGradient", shape=lambda s, a, v: [s[0]], dtype=lambda d, a: [d[0]], grad=_prevent_gradient_grad,
            lower=lambda attrs, x: x)


def prevent_gradient(x, message="", name=None):
    """TF's PreventGradient: the identity, whose gradient is an error (what the second derivative of a
    sparse softmax cross entropy meets)."""
    return make_op("PreventGradient", [x], {"message": str(message)}, name=name)
