"""More of tf.image (issue 37): sobel_edges, extract_patches, is_jpeg, non_max_suppression_with_scores (soft-NMS)
and non_max_suppression_overlaps (on the host), and extract_glimpse (ops/image_ops.py). (resize_image_with_pad,
adjust / random_jpeg_quality and TF 1.15's newer spellings build on api/image.py and live there.)"""
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import get_default_graph
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core import array_ops as A
from tinyflow.ops.core.base import constant, convert_to_tensor
from tinyflow.ops.host_ops import make_host_op, register_host_op
from tinyflow.ops.image_ops import extract_glimpse  # noqa: F401



def sobel_edges(image):
    """[batch, h, w, d, 2]: the vertical and horizontal Sobel responses of each channel (REFLECT padding)."""
    from tinyflow.ops.conv_ops import depthwise_conv2d
    with get_default_graph().name_scope("sobel_edges"):
        x = convert_to_tensor(image, name="image")
        kernels = np.array([[[-1, -2, -1], [0, 0, 0], [1, 2, 1]], [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]], np.float64)
        k = np.expand_dims(np.transpose(kernels, (1, 2, 0)), -2)                 # [3, 3, 1, 2]
        channels = x.shape[-1].value
        k = constant(np.tile(k, [1, 1, channels, 1]).astype(x.dtype.np))
        padded = A.pad(x, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
        out = depthwise_conv2d(padded, k, [1, 1, 1, 1], "VALID")
        return A.reshape(out, A.concat([A.shape(x), constant(np.array([2], np.int32))], 0))


def extract_patches(images, sizes, strides, rates, padding, name=None):
    """tf.image.extract_patches: tf.extract_image_patches under TF 2's argument names."""
    from tinyflow.ops.misc_ops import extract_image_patches
    return extract_image_patches(images, sizes=sizes, strides=strides, rates=rates, padding=padding, name=name)


# ---- file formats ---------------------------------------------------------------------------------------
def _is_jpeg(session, op, inputs):
    data = bytes(np.asarray(inputs[0]).reshape(-1)[0])
    return [np.bool_(data[:3] == b"\xff\xd8\xff")]


register_host_op("IsJpeg", lambda s, a, v: [TensorShape([])], lambda d, a: [dt.bool_], _is_jpeg)


def is_jpeg(contents, name=None):
    """Whether the bytes start as a JPEG file does (FF D8 FF)."""
    from tinyflow.ops.string_ops import as_strings
    return make_host_op("IsJpeg", [as_strings(contents)], name=name or "is_jpeg").outputs[0]


# ---- non-max suppression variants, on the host -------------------------------------------------------------
def _iou(b, i, others):
    y1 = np.maximum(np.minimum(b[i, 0], b[i, 2]), np.minimum(b[others, 0], b[others, 2]))
    x1 = np.maximum(np.minimum(b[i, 1], b[i, 3]), np.minimum(b[others, 1], b[others, 3]))
    y2 = np.minimum(np.maximum(b[i, 0], b[i, 2]), np.maximum(b[others, 0], b[others, 2]))
    x2 = np.minimum(np.maximum(b[i, 1], b[i, 3]), np.maximum(b[others, 1], b[others, 3]))
    inter = np.maximum(y2 - y1, 0) * np.maximum(x2 - x1, 0)
    area = lambda k: np.abs((b[k, 2] - b[k, 0]) * (b[k, 3] - b[k, 1]))   # noqa: E731
    union = area(i) + area(others) - inter
    return np.where(union > 0, inter / np.where(union > 0, union, 1), 0.0)


def _nms(session, op, inputs):
    """TF's NonMaxSuppressionV5 (soft-NMS with a Gaussian of sigma, hard NMS when sigma is 0), or with an
    overlap matrix (NonMaxSuppressionWithOverlaps): greedy by score, a candidate's score decayed (or dropped)
    by its overlap with each box selected before it."""
    first, scores, k, thresh, score_thresh = inputs[:5]
    sigma = float(inputs[5]) if len(inputs) > 5 else 0.0
    k, thresh, score_thresh = int(k), float(thresh), float(score_thresh)
    overlaps = op.attrs["overlaps"]
    scores = scores.astype(np.float64).copy()
    scale = -0.5 / sigma if sigma > 0 else 0.0
    selected, sel_scores = [], []
    alive = scores > score_thresh
    while len(selected) < k and alive.any():
        i = int(np.argmax(np.where(alive, scores, -np.inf)))
        selected.append(i)
        sel_scores.append(scores[i])
        alive[i] = False
        rest = np.nonzero(alive)[0]
        ov = first[i, rest] if overlaps else _iou(first, i, rest)
        if sigma > 0:
            scores[rest] *= np.exp(scale * ov * ov)
            keep = (ov <= thresh) & (scores[rest] > score_thresh)
        else:
            keep = ov <= thresh
        alive[rest[~keep]] = False
    n = len(selected)
    if op.attrs["pad"]:
        selected += [0] * (k - n)
        sel_scores += [0.0] * (k - n)
    return [np.array(selected, np.int32), np.array(sel_scores, np.float32), np.int32(n)]


register_host_op("NonMaxSuppressionHost", lambda s, a, v: [TensorShape([None]), TensorShape([None]), TensorShape([])],
                 lambda d, a: [dt.int32, dt.float32, dt.int32], _nms)


def _nms_call(first, scores, max_output_size, iou_threshold, score_threshold, sigma, overlaps, pad, name):
    ins = [convert_to_tensor(first, dt.float32), convert_to_tensor(scores, dt.float32),
           convert_to_tensor(max_output_size, dt.int32), convert_to_tensor(iou_threshold, dt.float32),
           convert_to_tensor(score_threshold, dt.float32)]
    if sigma is not None:
        ins.append(convert_to_tensor(sigma, dt.float32))
    return make_host_op("NonMaxSuppressionHost", ins, {"overlaps": overlaps, "pad": pad}, name=name).outputs


def non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"),
                                    soft_nms_sigma=0.0, name=None):
    """(selected_indices, selected_scores): greedy NMS, or soft-NMS (scores decayed by exp(-iou^2 / 2 sigma))
    when soft_nms_sigma > 0."""
    out = _nms_call(boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma, False, False,
                    name or "non_max_suppression_with_scores")
    return out[0], out[1]


def non_max_suppression_overlaps(overlaps, scores, max_output_size, overlap_threshold=0.5,
                                 score_threshold=float("-inf"), name=None):
    """Greedy NMS over a given [n, n] overlap matrix instead of boxes: the selected indices."""
    return _nms_call(overlaps, scores, max_output_size, overlap_threshold, score_threshold, None, True, False,
                     name or "non_max_suppression_overlaps")[0]
