"""Python operators on tf.Tensor and tf.Variable, as TF 1.15 defines them: + - * / // % ** @ and
their reflected forms, unary - and abs, & | ^ ~ on bools, < <= > >=, and indexing.

`==` and `!=` stay identity comparisons and tensors stay hashable, as in TF1 (tf.equal is the op).
Each operator's op is named as TF names it ("add", "sub", "mul", "truediv", "floordiv", "mod",
"pow", "matmul", "and", "or", "xor"); `x + y` is an AddV2 op, tf.add an Add op.
"""
from tinyflow.graph.core import Tensor
from tinyflow.ops.core import indexing_ops, math_ops
from tinyflow.ops.state_ops import Variable

_OPS = {
    "add": math_ops.add_v2, "sub": math_ops.subtract, "mul": math_ops.multiply, "truediv": math_ops.truediv,
    "floordiv": math_ops.floordiv, "mod": math_ops.floormod, "pow": math_ops.pow, "matmul": math_ops.matmul,
    "and": math_ops.logical_and, "or": math_ops.logical_or, "xor": math_ops.logical_xor,
}


def _binary(fn, name):
    def op(x, y):
        return fn(x, y, name=name)

    def rop(y, x):  # x <op> y where only y is a tensor: y is the right operand
        return fn(x, y, name=name)
    return op, rop


def install(cls):
    """Gives `cls` TF's Python operators; its values are converted with convert_to_tensor."""
    for name, fn in _OPS.items():
        op, rop = _binary(fn, name)
        setattr(cls, "__%s__" % name, op)
        setattr(cls, "__r%s__" % name, rop)
    cls.__div__, cls.__rdiv__ = cls.__truediv__, cls.__rtruediv__
    cls.__lt__ = lambda x, y: math_ops.less(x, y)
    cls.__le__ = lambda x, y: math_ops.less_equal(x, y)
    cls.__gt__ = lambda x, y: math_ops.greater(x, y)
    cls.__ge__ = lambda x, y: math_ops.greater_equal(x, y)
    cls.__neg__ = lambda x: math_ops.negative(x)
    cls.__abs__ = lambda x: math_ops.abs(x)
    cls.__invert__ = lambda x: math_ops.logical_not(x)
    if hasattr(indexing_ops, "getitem"):
        cls.__getitem__ = indexing_ops.getitem


install(Tensor)
install(Variable)
