"""Python operators on tf.Tensor and tf.Variable (TF1's: + - * / // % ** @, comparisons, & | ^ ~,
abs, unary minus, indexing). `==` stays identity, as in TF1 (use tf.equal)."""
from ..graph.core import Tensor
from . import array_ops, math_ops
from .state_ops import Variable


def _binary(fn, name):
    def op(x, y):
        return fn(x, y, name=name)

    def rop(y, x):
        return fn(x, y, name=name)
    return op, rop


def _truediv(x, y, name=None):
    return math_ops.truediv(x, y, name=name)


_OPS = {
    "add": (math_ops.add, "add"), "sub": (math_ops.subtract, "sub"), "mul": (math_ops.multiply, "mul"),
    "truediv": (_truediv, "truediv"), "floordiv": (math_ops.floordiv, "floordiv"),
    "mod": (math_ops.floormod, "mod"), "pow": (math_ops.pow, "pow"), "matmul": (math_ops.matmul, "matmul"),
    "and": (math_ops.logical_and, "and"), "or": (math_ops.logical_or, "or"), "xor": (math_ops.logical_xor, "xor"),
}


def install(cls):
    """Gives `cls` TF's Python operators; its values are converted with convert_to_tensor."""
    for key, (fn, name) in _OPS.items():
        op, rop = _binary(fn, name)
        setattr(cls, "__%s__" % key, op)
        setattr(cls, "__r%s__" % key, rop)
    cls.__div__, cls.__rdiv__ = cls.__truediv__, cls.__rtruediv__
    cls.__lt__ = lambda x, y: math_ops.less(x, y)
    cls.__le__ = lambda x, y: math_ops.less_equal(x, y)
    cls.__gt__ = lambda x, y: math_ops.greater(x, y)
    cls.__ge__ = lambda x, y: math_ops.greater_equal(x, y)
    cls.__neg__ = lambda x: math_ops.negative(x)
    cls.__abs__ = lambda x: math_ops.abs(x)
    cls.__invert__ = lambda x: math_ops.logical_not(x)
    cls.__pos__ = lambda x: x
    if hasattr(array_ops, "getitem"):
        cls.__getitem__ = array_ops.getitem


install(Tensor)
install(Variable)
