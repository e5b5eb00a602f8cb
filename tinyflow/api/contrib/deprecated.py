"""tf.contrib.deprecated: TF 0.x's summary functions, which tag a summary exactly as told (no name scope
in the tag) and name their op after the op type: scalar_summary(tags, values), histogram_summary,
image_summary, audio_summary, merge_summary, merge_all_summaries."""
from tinyflow.api import summary as _summary
from tinyflow.graph.core import GraphKeys, name_scope


def scalar_summary(tags, values, collections=None, name=None):
    """Scalar summaries of `values` tagged `tags` (a string and a scalar, or lists of the same length)."""
    if isinstance(tags, (list, tuple)):
        from tinyflow.ops.core import array_ops
        with name_scope(name, "ScalarSummary") as scope:   # one op's Summary holding every tag's value
            parts = [_summary._summary_op("ScalarSummary", "ScalarSummary", array_ops.reshape(values, [-1])[i], [],
                                          None, tag=t) for i, t in enumerate(tags)]
            return _summary.merge(parts, [GraphKeys.SUMMARIES] if collections is None else collections, scope)
    return _summary._summary_op("ScalarSummary", name or "ScalarSummary", values, collections, None, tag=tags)


def histogram_summary(tag, values, collections=None, name=None):
    return _summary._summary_op("HistogramSummary", name or "HistogramSummary", values, collections, None, tag=tag)


def image_summary(tag, tensor, max_images=3, collections=None, name=None):
    return _summary._summary_op("ImageSummary", name or "ImageSummary", tensor, collections, None, tag=tag,
                                max_images=int(max_images))


def audio_summary(tag, tensor, sample_rate, max_outputs=3, collections=None, name=None):
    return _summary._summary_op("AudioSummaryV2", name or "AudioSummary", tensor, collections, None,
                                more_inputs=[sample_rate], tag=tag, max_outputs=int(max_outputs))


def merge_summary(inputs, collections=None, name=None):
    return _summary.merge(inputs, collections, name)


def merge_all_summaries(key=GraphKeys.SUMMARIES):
    return _summary.merge_all(key)
