"""tf.manip: TF 1.15's older names of array manipulations (the same functions as at tf.)."""
from tinyflow.ops.array_more_ops import batch_to_space_nd, space_to_batch_nd  # noqa: F401
from tinyflow.ops.core.array_ops import reshape, tile  # noqa: F401
from tinyflow.ops.core.indexing_ops import gather_nd, scatter_nd  # noqa: F401
from tinyflow.ops.core.sequence_ops import roll  # noqa: F401


def reverse(tensor, axis, name=None):
    """tensor with the dimensions in `axis` reversed (tf.reverse)."""
    from tinyflow.api import reverse as _reverse
    return _reverse(tensor, axis, name=name)
