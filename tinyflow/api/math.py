"""tf.math: TF 1.15's math namespace. The math ops come from ops/core/math_ops.py; the few names that
other op families own (tf.math.softplus, tf.math.cumsum, ...) are looked up on first use."""
import importlib

from tinyflow.ops.core.math_ops import *  # noqa: F401,F403
from tinyflow.ops.core.math_ops import __all__ as _math_all
from tinyflow.ops.core.math_ops import div_no_nan as divide_no_nan  # noqa: F401
# TinyFlow's readings of calls TF rejects (bool reductions, int-vs-float equality), as at tf.*
from tinyflow.api.tinyflow_api import equal, not_equal, reduce_mean, reduce_sum  # noqa: F401,E402
from tinyflow.ops.complex_ops import angle, conj, imag, real  # noqa: F401,E402
from tinyflow.ops.special_ops import *  # noqa: F401,F403,E402 (bessel_*, igamma, betainc, zeta, polyval, ...)
from tinyflow.ops.sparse_segment_ops import unsorted_segment_sqrt_n  # noqa: F401,E402

# tf.math.<name> -> (module, name there) for names other families define.
_ELSEWHERE = {
    "softplus": ("tinyflow.nn", "softplus"), "softsign": ("tinyflow.nn", "softsign"),
    "log_softmax": ("tinyflow.nn", "log_softmax"), "top_k": ("tinyflow.nn", "top_k"),
    "in_top_k": ("tinyflow.nn", "in_top_k"), "l2_normalize": ("tinyflow.nn", "l2_normalize"),
    "cumsum": ("tinyflow", "cumsum"), "cumprod": ("tinyflow", "cumprod"), "bincount": ("tinyflow", "bincount"),
    "segment_sum": ("tinyflow", "segment_sum"), "unsorted_segment_sum": ("tinyflow", "unsorted_segment_sum"),
    "confusion_matrix": ("tinyflow", "confusion_matrix"), "softmax": ("tinyflow.nn", "softmax"),
    "zero_fraction": ("tinyflow.nn", "zero_fraction"), "invert_permutation": ("tinyflow", "invert_permutation"),
    "is_non_decreasing": ("tinyflow", "is_non_decreasing"),
    "is_strictly_increasing": ("tinyflow", "is_strictly_increasing"),
    "searchsorted": ("tinyflow.ops.search_ops", "searchsorted"),
}
for _name in ("segment_max", "segment_mean", "segment_min", "segment_prod", "unsorted_segment_max",
              "unsorted_segment_mean", "unsorted_segment_min", "unsorted_segment_prod"):
    _ELSEWHERE[_name] = ("tinyflow", _name)

__all__ = list(_math_all) + ["divide_no_nan"]


def __getattr__(name):
    if name in _ELSEWHERE:
        module, attr = _ELSEWHERE[name]
        value = getattr(importlib.import_module(module), attr, None)
        if value is not None:
            return value
    raise AttributeError("module 'tinyflow.math' has no attribute %r" % name)
