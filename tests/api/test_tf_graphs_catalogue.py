"""The catalogue of tests/fixtures/tf_graphs (TF 1.15 wrote it): frozen tf.cond, while_loop and
dynamic_rnn graphs import as tinyflow's own If/While ops and give TF's numbers; the MNIST-style
training .meta files resume with TF's losses for four optimizers; bad frames get errors naming a node."""
import json
import os

import numpy as np
import pytest

import tinyflow as tf
from paths import TESTS

pytest.importorskip("tensorboard")
from tinyflow.api.tf_files.graph_util import read_graph_def  # noqa: E402

FIX = os.path.join(TESTS, "fixtures", "tf_graphs")
with open(os.path.join(FIX, "expected.json")) as _f:
    WANT = json.load(_f)


def _import(name):
    gd = read_graph_def(os.path.join(FIX, name + ".pb"))
    tf.import_graph_def(gd, name="")
    types = {op.type for op in tf.get_default_graph().get_operations()}
    assert not types & {"Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond"}
    return gd, types


def test_frozen_cond_batch_norm_and_dropout():
    gd, types = _import("cond_bn")
    assert {"Switch", "Merge"} <= {n.op for n in gd.node}
    assert "StatelessIf" in types or "If" in types  # tinyflow's own cond: still one jitted function
    x = np.array(WANT["cond_bn"]["x"], np.float32)
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run("out/BiasAdd:0", {"x:0": x}), WANT["cond_bn"]["out_infer"],
                                   rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(sess.run("bn_relu:0", {"x:0": x, "is_training:0": True}),
                                   WANT["cond_bn"]["relu_train"], rtol=1e-5, atol=1e-6)


def test_frozen_while_loop():
    _, types = _import("while")
    assert types & {"While", "StatelessWhile"}
    want = WANT["while"]
    with tf.Session() as sess:
        for n, (x, acc) in want["runs"].items():
            got = sess.run(["x_out:0", "acc_out:0"], {"n:0": int(n), "x0:0": want["x0"]})
            np.testing.assert_allclose(got[0], x, rtol=1e-6)
            np.testing.assert_allclose(got[1], acc, rtol=1e-6)


def test_frozen_nested_cond_and_while_and_case():
    _, types = _import("nested")
    assert types & {"While", "StatelessWhile"} and types & {"If", "StatelessIf"}
    want = WANT["nested"]
    with tf.Session() as sess:
        for key, values in want["runs"].items():
            n, flag = key.split("_")
            got = sess.run(["loop_of_cond:0", "cond_of_loop:0", "case_out:0"],
                           {"n:0": int(n), "x0:0": want["x0"], "flag:0": flag == "1"})
            for g, w in zip(got, values):
                np.testing.assert_allclose(g, w, rtol=1e-6)


@pytest.mark.parametrize("kind", ["lstm", "gru", "birnn"])
def test_frozen_dynamic_rnn(kind):
    gd, types = _import(kind)
    assert {"TensorArrayV3", "TensorArrayScatterV3", "TensorArrayReadV3", "TensorArrayWriteV3",
            "TensorArrayGatherV3", "Enter", "LoopCond"} <= {n.op for n in gd.node}
    assert kind != "birnn" or "ReverseSequence" in {n.op for n in gd.node}
    assert types & {"While", "StatelessWhile"}
    want = WANT[kind]
    feed = {"x:0": np.array(want["x"], np.float32)}
    if kind != "gru":
        feed["lens:0"] = np.array(want["lens"], np.int32)
    with tf.Session() as sess:
        for name, value in want["outputs"].items():
            np.testing.assert_allclose(sess.run(name + ":0", feed), value, rtol=1e-5, atol=1e-6)
        # another batch size: the TensorArray's zeros take the batch from the fed input
        feed["x:0"] = np.concatenate([feed["x:0"], feed["x:0"]])
        if kind != "gru":
            feed["lens:0"] = np.concatenate([feed["lens:0"], feed["lens:0"]])
        name, value = next(iter(want["outputs"].items()))
        got = sess.run(name + ":0", feed)
        np.testing.assert_allclose(got[:len(value)], value, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got[len(value):], value, rtol=1e-5, atol=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize("opt", ["adam", "sgd", "momentum", "rmsprop"])
def test_training_meta_resumes_with_tfs_losses(opt):
    want = WANT[opt]
    assert {"HistogramSummary", "MergeSummary", "PreventGradient", "SparseSoftmaxCrossEntropyWithLogits"} <= set(
        want["ops"])
    saver = tf.train.import_meta_graph(os.path.join(FIX, opt, "model-3.meta"))
    graph = tf.get_default_graph()
    train_op = tf.get_collection("train_op")[0]
    loss = graph.get_tensor_by_name("sparse_softmax_cross_entropy_loss/value:0")
    data = WANT["mnist_data"]
    feed = {"x:0": np.array(data["x"], np.float32), "y:0": np.array(data["y"], np.int64), "keep_prob:0": 1.0}
    merged = graph.get_tensor_by_name("Merge/MergeSummary:0")
    with tf.Session() as sess:
        saver.restore(sess, tf.train.latest_checkpoint(os.path.join(FIX, opt)))
        losses = [sess.run([train_op, loss], feed)[1] for _ in range(4)]
        summary = tf.Summary.FromString(sess.run(merged, feed))
        final = sess.run(loss, feed)
    np.testing.assert_allclose(losses, want["next_losses"], rtol=1e-5)
    assert [v.tag for v in summary.value] == ["loss", "accuracy_1", "logits_1"]
    assert summary.value[0].simple_value == pytest.approx(float(final), rel=1e-6)
    assert summary.value[2].histo.num == 16 * 10


@pytest.mark.slow
def test_rnn_training_meta_resumes_with_tfs_losses():
    """TF's gradient of the dynamic_rnn loop (a second frame popping stacks the forward loop pushed)
    becomes tinyflow's own gradient of the imported While op, fed the same incoming gradients."""
    want = WANT["rnn_train"]
    assert {"StackV2", "StackPushV2", "StackPopV2", "TanhGrad", "SigmoidGrad", "ConcatOffset"} <= set(want["ops"])
    saver = tf.train.import_meta_graph(os.path.join(FIX, "rnn_train", "model.meta"))
    graph = tf.get_default_graph()
    types = {op.type for op in graph.get_operations()}
    assert types & {"WhileGrad", "StatelessWhileGrad"} and not types & {"Enter", "StackPopV2"}
    train_op = tf.get_collection("train_op")[0]
    loss = graph.get_tensor_by_name("sparse_softmax_cross_entropy_loss/value:0")
    feed = {"x:0": np.array(WANT["lstm"]["x"], np.float32), "y:0": np.array(want["y"], np.int64)}
    with tf.Session() as sess:
        saver.restore(sess, os.path.join(FIX, "rnn_train", "model"))
        losses = [sess.run([train_op, loss], feed)[1] for _ in range(3)]
    np.testing.assert_allclose(losses, want["next_losses"], rtol=1e-5)


def test_batch_norm_training_meta_resumes_with_tfs_losses_and_moving_averages():
    want = WANT["bn_train"]
    assert {"FusedBatchNormV3", "FusedBatchNormGradV3", "AssignSub", "ApplyMomentum"} <= set(want["ops"])
    saver = tf.train.import_meta_graph(os.path.join(FIX, "bn_train", "model.meta"))
    graph = tf.get_default_graph()
    train_op = tf.get_collection("train_op")[0]
    loss = graph.get_tensor_by_name("sparse_softmax_cross_entropy_loss/value:0")
    feed = {"x:0": np.array(want["x"], np.float32), "y:0": np.array(want["y"], np.int64)}
    with tf.Session() as sess:
        saver.restore(sess, os.path.join(FIX, "bn_train", "model"))
        losses = [sess.run([train_op, loss], feed)[1] for _ in range(3)]
        mean, var = sess.run(["bn/moving_mean:0", "bn/moving_variance:0"])
    np.testing.assert_allclose(losses, want["next_losses"], rtol=1e-5)
    np.testing.assert_allclose(mean, want["moving_mean"], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(var, want["moving_variance"], rtol=1e-5)


def test_sigmoid_tanh_grad_and_concat_offset_match_numpy():
    from tinyflow.formats import convert
    y = np.array([0.2, 0.7], np.float32)
    dy = np.array([1.5, -2.0], np.float32)
    with tf.Graph().as_default():
        tf.constant(y, name="y"), tf.constant(dy, name="dy")
        s = tf.concat([tf.zeros([2, 3]), tf.zeros([2, 5]), tf.zeros([2, 1])], 1)
        gd = tf.get_default_graph().as_graph_def()
    for op, inputs in (("SigmoidGrad", ["y", "dy"]), ("TanhGrad", ["y", "dy"]), ("RsqrtGrad", ["y", "dy"])):
        n = gd.node.add(name=op, op=op)
        n.input.extend(inputs)
        n.attr["T"].type = 1
    n = gd.node.add(name="offsets", op="ConcatOffset")
    n.input.extend([s.op.inputs[-1].op.name] + ["shape%d" % i for i in range(3)])
    n.attr["N"].i = 3
    for i, dims in enumerate([[2, 3], [2, 5], [2, 1]]):
        c = gd.node.add(name="shape%d" % i, op="Const")
        c.attr["dtype"].type = 3
        convert.from_numpy(np.array(dims, np.int32), c.attr["value"].tensor)
    with tf.Graph().as_default():
        sig, tanh, o0, o1, o2, rsq = tf.import_graph_def(
            gd, return_elements=["SigmoidGrad:0", "TanhGrad:0", "offsets:0", "offsets:1", "offsets:2", "RsqrtGrad:0"],
            name="")
        with tf.Session() as sess:
            got = sess.run([sig, tanh, o0, o1, o2, rsq])
    np.testing.assert_allclose(got[0], dy * y * (1 - y), rtol=1e-6)
    np.testing.assert_allclose(got[1], dy * (1 - y * y), rtol=1e-6)
    assert [g.tolist() for g in got[2:5]] == [[0, 0], [0, 3], [0, 8]]
    np.testing.assert_allclose(got[5], dy * -0.5 * y ** 3, rtol=1e-6)  # d rsqrt(x) = -rsqrt(x)^3 / 2


def _cond_training():
    """The batch-norm-under-is_training .meta, resumed 3 steps: (losses, eval loss, moving mean)."""
    want = WANT["cond_train"]
    assert {"RefSwitch", "DynamicStitch", "RsqrtGrad", "Switch", "Merge", "AssignSub"} <= set(want["ops"])
    saver = tf.train.import_meta_graph(os.path.join(FIX, "cond_train", "model.meta"))
    loss = tf.get_default_graph().get_tensor_by_name("sparse_softmax_cross_entropy_loss/value:0")
    data = WANT["mnist_data"]
    feed = {"x:0": np.array(data["x"], np.float32), "y:0": np.array(data["y"], np.int64), "is_training:0": True}
    with tf.Session() as sess:
        saver.restore(sess, os.path.join(FIX, "cond_train", "model"))
        losses = [sess.run([tf.get_collection("train_op")[0], loss], feed)[1] for _ in range(3)]
        del feed["is_training:0"]
        return losses, sess.run(loss, feed), sess.run("bn/moving_mean:0")


@pytest.mark.slow
def test_cond_training_meta_resumes_with_tfs_losses():
    """TF's gradient of a tf.cond (a second Switch/Merge on the same predicate, tuple control edges on
    the Switch) imports as a tf.cond; the moving-average updates inside a branch run in select form."""
    losses, eval_loss, _ = _cond_training()
    np.testing.assert_allclose(losses, WANT["cond_train"]["next_losses"], rtol=1e-5)
    np.testing.assert_allclose(eval_loss, WANT["cond_train"]["eval_loss"], rtol=1e-5)


def test_cond_training_moving_mean_matches_tf():
    """The moving mean after 3 resumed steps is TF's. (The fixture's dense layer before batch norm has no bias:
    with one, its gradient is rounding noise that Adam turns into +-lr steps, different in TF and tinyflow,
    and the batch mean the moving mean follows moves with it, while the loss does not.)"""
    _, _, mean = _cond_training()
    np.testing.assert_allclose(mean, WANT["cond_train"]["moving_mean"], rtol=1e-5)


def test_prevent_gradient_raises_tfs_lookup_error():
    saver = tf.train.import_meta_graph(os.path.join(FIX, "sgd", "model-3.meta"))
    assert saver is not None
    backprop = tf.get_default_graph().get_tensor_by_name(
        "sparse_softmax_cross_entropy_loss/xentropy/xentropy:1")
    assert backprop.op.type == "SparseSoftmaxCrossEntropyWithLogits"
    prevent = [op for op in tf.get_default_graph().get_operations() if op.type == "PreventGradient"]
    assert prevent
    with pytest.raises(LookupError, match="Gradient explicitly disabled"):
        tf.gradients(prevent[0].outputs[0], prevent[0].inputs[0])


def _while_graph():
    return read_graph_def(os.path.join(FIX, "while.pb"))


def _node(gd, name):
    return [n for n in gd.node if n.name == name][0]


def test_loop_without_loop_cond_names_the_frame():
    gd = _while_graph()
    lc = _node(gd, "while/LoopCond")
    lc.op = "Identity"
    with pytest.raises(tf.errors.InvalidArgumentError, match="LoopCond"):
        tf.import_graph_def(gd, name="")


def test_exit_outside_a_loop_and_merge_of_one_branch_name_the_node():
    gd = _while_graph()
    _node(gd, "x_out").op = "Exit"
    with pytest.raises(tf.errors.InvalidArgumentError, match="x_out"):
        tf.import_graph_def(gd, name="")
    gd = read_graph_def(os.path.join(FIX, "cond_bn.pb"))
    merge = [n for n in gd.node if n.op == "Merge"][0]
    merge.input[1] = merge.input[0]  # both inputs from one branch
    with pytest.raises(tf.errors.InvalidArgumentError, match=merge.name):
        tf.import_graph_def(gd, name="")


def test_cycle_that_is_not_a_loop_is_an_error():
    gd = _while_graph()
    _node(gd, "while/NextIteration").op = "Identity"
    with pytest.raises(tf.errors.InvalidArgumentError, match="cycle"):
        tf.import_graph_def(gd, name="")


def test_failed_import_leaves_the_graph_as_it_was():
    gd = _while_graph()
    _node(gd, "while/Less/Enter").attr["is_constant"].b = False
    n_ops = len(tf.get_default_graph().get_operations())
    with pytest.raises(tf.errors.InvalidArgumentError, match="while/Less/Enter"):
        tf.import_graph_def(gd, name="")
    assert len(tf.get_default_graph().get_operations()) == n_ops


def test_exported_summaries_carry_tfs_inputs_and_attrs():
    """TF 1.15 imports these (tests/fixtures/tf_graphs/check_tf_reads_summaries.log): the tag is a
    string Const input, the attrs are exactly TF's op definition's."""
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    tf.summary.scalar("loss", tf.reduce_mean(x))
    tf.summary.histogram("x", x)
    tf.summary.image("img", tf.reshape(x, [-1, 1, 3, 1]), max_outputs=2)
    tf.summary.merge_all()
    gd = tf.get_default_graph().as_graph_def()
    nodes = {n.name: n for n in gd.node}
    want = {"ScalarSummary": {"T"}, "HistogramSummary": {"T"}, "ImageSummary": {"T", "max_images"},
            "MergeSummary": {"N"}}
    seen = set()
    for n in gd.node:
        if n.op in want:
            seen.add(n.op)
            assert set(n.attr) == want[n.op], n
            if n.op != "MergeSummary":
                tag = nodes[n.input[0]]
                assert tag.op == "Const" and tag.attr["dtype"].type == 7 and len(n.input) == 2
    assert seen == set(want)
    assert list(nodes["Merge/MergeSummary"].input) == ["loss", "x_1", "img"]
    with tf.Graph().as_default():
        tf.import_graph_def(gd, name="")
        with tf.Session() as sess:
            summary = tf.Summary.FromString(sess.run("Merge/MergeSummary:0", {"x:0": np.ones([2, 3], np.float32)}))
        assert [v.tag for v in summary.value] == ["loss", "x_1", "img/image/0", "img/image/1"]


@pytest.mark.slow
def test_cond_and_while_export_as_tf1_frames_and_read_back(tmp_path):
    """tinyflow's dynamic_rnn, tf.cond and tf.while_loop are written as TF1 frames (TF 1.15 runs them
    with tinyflow's numbers: tests/fixtures/tf_graphs/check_tf_reads_frames.log); the importer reads
    them back into tinyflow's own ops, with the same numbers."""
    import sys
    sys.path.insert(0, FIX)
    try:
        import tinyflow_writes_frames as writer
    finally:
        sys.path.remove(FIX)
    frozen, values = writer.main(str(tmp_path))
    ops = {n.op for n in frozen.node}
    assert {"Enter", "Exit", "Switch", "Merge", "LoopCond", "NextIteration", "TensorScatterUpdate"} <= ops
    assert not ops & {"StatelessWhile", "While", "StatelessIf", "If", "TensorListSetItem", "TensorListGetItem"}
    enters = [n for n in frozen.node if n.op == "Enter"]
    assert all(set(n.attr) == {"T", "frame_name", "is_constant", "parallel_iterations"} for n in enters)
    xv, lv = writer.feeds()
    with tf.Graph().as_default():
        tf.import_graph_def(read_graph_def(str(tmp_path / "frozen.pb")), name="")
        with tf.Session() as sess:
            feed = {"x:0": xv, "lens:0": lv, "n:0": 6}
            for k in writer.OUTPUTS:
                np.testing.assert_allclose(sess.run(k + ":0", feed), values[k], rtol=1e-5, atol=1e-6)
            feed["flag:0"] = True
            np.testing.assert_allclose(sess.run("cond_c:0", feed), values["cond_c_true"], rtol=1e-5, atol=1e-6)


def test_dynamic_stitch_round_trips_through_a_graph_def():
    from tinyflow.api.tf_files.export_graph import as_graph_def
    with tf.Graph().as_default() as g:
        tf.dynamic_stitch([tf.constant([0, 2]), tf.constant([1])],
                          [tf.constant([[1., 2.], [5., 6.]]), tf.constant([[3., 4.]])], name="ds")
        gd = as_graph_def(g)
    with tf.Graph().as_default():
        out, = tf.import_graph_def(gd, return_elements=["ds:0"], name="")
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(out), [[1, 2], [3, 4], [5, 6]])


@pytest.mark.slow
@pytest.mark.parametrize("name", ["inception_v2", "resnet_v2_small"])
def test_frozen_zoo_nets_give_tfs_logits(name):
    """Model-zoo nets TF 1.15 froze (slim's inception_v2 at depth 0.25, a small resnet_v2; random weights and
    batch-norm statistics): tinyflow imports the GraphDef and gives TF's logits (zoo/make_zoo.py)."""
    want = json.load(open(os.path.join(FIX, "zoo", "zoo.json")))[name]
    feed = np.random.RandomState(5).uniform(-1, 1, want["input_shape"]).astype(np.float32)
    with tf.Graph().as_default():
        gd = read_graph_def(os.path.join(FIX, "zoo", name + ".pb"))
        x, logits = tf.import_graph_def(gd, return_elements=["input:0", "logits:0"], name="")
        with tf.Session() as sess:
            got = sess.run(logits, {x: feed})
    np.testing.assert_allclose(got, want["logits"], rtol=2e-4, atol=2e-5)
