"""tf.debugging: TF 1.15's namespace of assertions and numeric checks (ops/check_ops.py and
ops/logging_ops.py), plus is_finite / is_inf / is_nan from the math ops."""
from tinyflow.ops.check_ops import *  # noqa: F401,F403
from tinyflow.ops.check_ops import __all__ as _checks
from tinyflow.ops.logging_ops import Assert, check_numerics  # noqa: F401
from tinyflow.ops.core.math_ops import is_finite, is_inf, is_nan  # noqa: F401

__all__ = list(_checks) + ["Assert", "check_numerics", "is_finite", "is_inf", "is_nan"]
