"""tf.contrib.deprecated's summaries tag exactly as told and name their ops after the op type (TF 1.15 gave
the tags, kinds, values and op names asserted here for the same graph)."""
import tinyflow as tf


def test_deprecated_summaries_match_tf():
    with tf.Graph().as_default():
        d = tf.contrib.deprecated
        with tf.name_scope("outer"):
            a = d.scalar_summary("loss/x", tf.constant(2.5))
            b = d.scalar_summary(["p", "q"], tf.constant([1.0, 2.0]))
            h = d.histogram_summary("h", tf.constant([1., 2., 2., 5.]))
            i = d.image_summary("img", tf.zeros([2, 2, 2, 1]), max_images=1)
        m = d.merge_all_summaries()
        assert [a.op.name, b.op.name, h.op.name, i.op.name] == [
            "outer/ScalarSummary", "outer/ScalarSummary_1", "outer/HistogramSummary", "outer/ImageSummary"]
        with tf.Session() as s:
            summ = tf.Summary.FromString(s.run(m))
    assert [(v.tag, v.WhichOneof("value")) for v in summ.value] == [
        ("loss/x", "simple_value"), ("p", "simple_value"), ("q", "simple_value"), ("h", "histo"),
        ("img/image", "image")]
    assert [v.simple_value for v in summ.value[:3]] == [2.5, 1.0, 2.0]
    assert summ.value[3].histo.num == 4 and summ.value[3].histo.sum == 10.0
