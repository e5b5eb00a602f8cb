"""tf.compat.v2.summary in graph mode writes what TF 1.15 writes (tests/fixtures/summary_v2/record.py made
tf115.json): plugin tensors for scalars, images and histograms, record_if, all_v2_summary_ops."""
import glob
import json
import os

import numpy as np
import pytest

import tinyflow as tf
from paths import TESTS
from tinyflow.formats import png

TF = json.load(open(os.path.join(TESTS, "fixtures", "summary_v2", "tf115.json")))


def _decode(v):
    from tinyflow.formats import convert
    a = convert.to_numpy(v.tensor)
    if a.dtype == object:
        return [a[0].decode(), a[1].decode(), len(a) - 2, [len(p) for p in a[2:]], a[2]]
    return a.tolist()


def test_v2_summaries_write_tfs_values(tmp_path):
    with tf.Graph().as_default():
        writer = tf.compat.v2.summary.create_file_writer(str(tmp_path))
        step = tf.train.get_or_create_global_step()
        x = tf.placeholder(tf.float32, [])
        data = tf.constant(np.linspace(-2.0, 3.0, 23, dtype=np.float32) ** 2)
        with writer.as_default():
            with tf.name_scope("scope"):
                tf.compat.v2.summary.scalar("loss", x, step=step)
            tf.compat.v2.summary.image("img", tf.reshape(tf.linspace(0.0, 1.0, 2 * 3 * 2 * 3), [2, 3, 2, 3]),
                                       step=step, max_outputs=1)
            tf.compat.v2.summary.histogram("hist", data, step=step, buckets=5)
            with tf.compat.v2.summary.record_if(tf.equal(step % 2, 0)):
                tf.compat.v2.summary.scalar("even", x * 10, step=step)
            with pytest.raises(ValueError, match="No step set via 'step' argument"):
                tf.compat.v2.summary.scalar("nostep", 1.0)
        tf.compat.v2.summary.scalar("nowriter", 1.0)   # no default writer: nothing to write, no error
        ops = tf.compat.v1.summary.all_v2_summary_ops()
        assert len(ops) == TF["n_ops"]
        returned = []
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), writer.init()])
            for value in [3.5, 1.0, -2.0]:
                returned.append([bool(b) for b in sess.run(ops, {x: value})])
                sess.run(tf.assign_add(step, 1))
            sess.run(tf.compat.v2.summary.flush(writer))
        assert returned == TF["returned"]
    events = []
    for f in sorted(glob.glob(str(tmp_path / "*"))):
        for e in tf.train.summary_iterator(f):
            events += [[e.step, v.tag, v.metadata.plugin_data.plugin_name, _decode(v)] for v in e.summary.value]
    key = lambda e: (e[0], e[1])  # noqa: E731 (the order of ops within a step is TF's scheduler's)
    events, expected = sorted(events, key=key), sorted(TF["events"], key=key)
    assert [e[:3] for e in events] == [e[:3] for e in expected]
    for got, want in zip(events, expected):
        if got[2] == "images":
            w, h = int(want[3][0]), int(want[3][1])   # the same pixels: our PNG of TF's decoded pixels
            assert got[3][:3] == want[3][:3]
            assert got[3][4] == png.encode(np.array(want[3][4], np.uint8).reshape(h, w, 3))
        else:
            np.testing.assert_allclose(got[3], want[3], rtol=1e-6)


# what TF 1.15's visualize_embeddings wrote for the same config
PROJECTOR_PBTXT = ('model_checkpoint_path: "m.ckpt"\nembeddings {\n  tensor_name: "emb/w"\n'
                   '  metadata_path: "meta.tsv"\n  sprite {\n    image_path: "sprite.png"\n'
                   '    single_image_dim: 28\n    single_image_dim: 28\n  }\n}\n')


def test_projector_config_written_as_tf_writes_it(tmp_path):
    from tinyflow.api.contrib.tensorboard import projector
    assert tf.contrib.tensorboard.plugins.projector is projector
    config = projector.ProjectorConfig()
    e = config.embeddings.add()
    e.tensor_name, e.metadata_path = "emb/w", "meta.tsv"
    e.sprite.image_path = "sprite.png"
    e.sprite.single_image_dim.extend([28, 28])
    config.model_checkpoint_path = "m.ckpt"
    with tf.Graph().as_default():
        writer = tf.summary.FileWriter(str(tmp_path))
        projector.visualize_embeddings(writer, config)
        writer.close()
    assert (tmp_path / "projector_config.pbtxt").read_text() == PROJECTOR_PBTXT
    assert projector.ProjectorConfig.DESCRIPTOR.full_name == "tensorflow.ProjectorConfig"
