"""tf.bitwise: and, or, xor, invert and shifts of integer tensors (not differentiable)."""
import jax.numpy as jnp

from tinyflow.graph.registry import register_op, shape_of_input
from tinyflow.ops.core.base import broadcast_rule, convert_to_tensor, make_op
from tinyflow.ops.core.math_ops import INTEGER, convert_like, dtype_rule

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"]

def _binary(op_type, fn, name):
    register_op(op_type, shape=broadcast_rule, dtype=dtype_rule(op_type, INTEGER), grad=None,
                lower=lambda a, x, y: fn(x, y).astype(x.dtype))

    def builder(x, y, name=None):
        return make_op(op_type, convert_like([x, y]), name=name or op_type)
    builder.__name__ = name
    builder.__doc__ = "Elementwise %s of integer tensors x and y (TF op %s)." % (name, op_type)
    return builder


bitwise_and = _binary("BitwiseAnd", jnp.bitwise_and, "bitwise_and")
bitwise_or = _binary("BitwiseOr", jnp.bitwise_or, "bitwise_or")
bitwise_xor = _binary("BitwiseXor", jnp.bitwise_xor, "bitwise_xor")
left_shift = _binary("LeftShift", jnp.left_shift, "left_shift")
right_shift = _binary("RightShift", jnp.right_shift, "right_shift")   # arithmetic for signed x, as TF's

register_op("Invert", shape=shape_of_input(0), dtype=dtype_rule("Invert", INTEGER), grad=None,
            lower=lambda a, x: jnp.invert(x))


def invert(x, name=None):
    """Flips every bit of an integer tensor (TF op Invert)."""
    return make_op("Invert", [convert_to_tensor(x)], name=name or "Invert")
