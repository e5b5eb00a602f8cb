"""tf.contrib.losses (TF 1.15): the old losses (slim.losses: logits / predictions first) and
metric_learning.triplet_semihard_loss, computed as TF computes it (squared pairwise distances, the
semi-hard negative of each anchor-positive pair: the closest negative farther than the positive, else
the farthest negative)."""
import types

from tinyflow.api.contrib.slim.losses import *  # noqa: F401,F403
from tinyflow.api.contrib.slim.losses import __all__  # noqa: F401
from tinyflow.graph import dtypes as dt
from tinyflow.ops.core import array_ops, math_ops
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.matrix_ops import eye


def pairwise_distance(feature, squared=False):
    """[n, n] Euclidean (or squared) distances between the rows of feature, 0 on the diagonal."""
    feature = convert_to_tensor(feature)
    squared_norms = math_ops.reduce_sum(math_ops.square(feature), axis=[1], keepdims=True)
    d2 = math_ops.add(squared_norms, array_ops.transpose(squared_norms)) - 2.0 * math_ops.matmul(
        feature, array_ops.transpose(feature))
    d2 = math_ops.maximum(d2, 0.0)
    error_mask = math_ops.less_equal(d2, 0.0)
    d = d2 if squared else math_ops.sqrt(d2 + math_ops.to_float(error_mask) * 1e-16)
    d = math_ops.multiply(d, math_ops.to_float(math_ops.logical_not(error_mask)))
    return math_ops.multiply(d, 1.0 - eye(_rows(feature), dtype=dt.float32))


def _rows(x):
    n = x.shape.as_list()[0] if x.shape.ndims else None
    return n if n is not None else array_ops.shape(x)[0]


def _masked_maximum(data, mask, dim=1):
    mins = math_ops.reduce_min(data, dim, keepdims=True)
    return math_ops.reduce_max(math_ops.multiply(data - mins, mask), dim, keepdims=True) + mins


def _masked_minimum(data, mask, dim=1):
    maxs = math_ops.reduce_max(data, dim, keepdims=True)
    return math_ops.reduce_min(math_ops.multiply(data - maxs, mask), dim, keepdims=True) + maxs


def triplet_semihard_loss(labels, embeddings, margin=1.0):
    """The mean over anchor-positive pairs of max(0, margin + d(a, p) - d(a, semi-hard negative)), with
    squared Euclidean distances (FaceNet's loss, as tf.contrib.losses.metric_learning computes it)."""
    labels, embeddings = convert_to_tensor(labels), convert_to_tensor(embeddings)
    if labels.shape.ndims not in (None, 1):
        raise ValueError("triplet_semihard_loss: labels must be 1-D, got shape %s" % labels.shape)
    n = _rows(embeddings)
    labels = array_ops.reshape(labels, [-1, 1])
    pdist = pairwise_distance(embeddings, squared=True)
    adjacency = math_ops.equal(labels, array_ops.transpose(labels))
    adjacency_not = math_ops.logical_not(adjacency)
    pdist_tile = array_ops.tile(pdist, [n, 1])
    mask = math_ops.logical_and(array_ops.tile(adjacency_not, [n, 1]),
                                math_ops.greater(pdist_tile, array_ops.reshape(array_ops.transpose(pdist), [-1, 1])))
    mask_final = array_ops.transpose(array_ops.reshape(
        math_ops.greater(math_ops.reduce_sum(math_ops.cast(mask, dt.float32), 1, keepdims=True), 0.0), [n, n]))
    adjacency_not = math_ops.cast(adjacency_not, dt.float32)
    mask = math_ops.cast(mask, dt.float32)
    negatives_outside = array_ops.transpose(array_ops.reshape(_masked_minimum(pdist_tile, mask), [n, n]))
    negatives_inside = array_ops.tile(_masked_maximum(pdist, adjacency_not), [1, n])
    semi_hard = math_ops.where_v2(mask_final, negatives_outside, negatives_inside)
    loss_mat = math_ops.add(margin, pdist - semi_hard)
    mask_positives = math_ops.cast(adjacency, dt.float32) - eye(n, dtype=dt.float32)
    return math_ops.div(math_ops.reduce_sum(math_ops.maximum(math_ops.multiply(loss_mat, mask_positives), 0.0)),
                        math_ops.reduce_sum(mask_positives), name="triplet_semihard_loss")


metric_learning = types.ModuleType(__name__ + ".metric_learning", "tf.contrib.losses.metric_learning")
metric_learning.triplet_semihard_loss, metric_learning.pairwise_distance = triplet_semihard_loss, pairwise_distance
