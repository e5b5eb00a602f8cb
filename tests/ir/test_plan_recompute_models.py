"""plan_recompute on ordinary models (issue 29): the shapes of feed_shapes reach every value of the candidate
gradient graphs (through tf.losses, slicing, Recompute ops, a dynamic_rnn's while loop), so a graph built
with an unknown batch dimension is planned exactly like the same graph built with the batch in its shapes."""
import numpy as np
import pytest

import tinyflow as tf
import tinyflow.cli.memory as tm
from tinyflow.passes.recompute_plan import predict

B, D, C = 64, 12, 5


def _mlp_head(x):
    h = tf.layers.dense(x, 16, activation=tf.nn.relu, name="d1")
    return tf.layers.dense(h, 16, activation=tf.nn.tanh, name="d2")


def _loss(kind, batch):
    """(loss, {placeholder: its shape with the batch}) of a small model with loss `kind`."""
    x = tf.placeholder(tf.float32, [batch, D], name="x")
    h = _mlp_head(x)
    logits = tf.layers.dense(h, C, name="out")
    if kind in ("sparse_softmax_cross_entropy", "transformer"):
        y = tf.placeholder(tf.int32, [batch], name="y")
        y_shape = [B]
    else:
        y = tf.placeholder(tf.float32, [batch, C], name="y")
        y_shape = [B, C]
    losses = tf.losses
    loss = {
        "mean_squared_error": lambda: losses.mean_squared_error(y, logits),
        "absolute_difference": lambda: losses.absolute_difference(y, logits),
        "huber_loss": lambda: losses.huber_loss(y, logits),
        "log_loss": lambda: losses.log_loss(y, tf.sigmoid(logits)),
        "hinge_loss": lambda: losses.hinge_loss(y, logits),
        "cosine_distance": lambda: losses.cosine_distance(y, tf.nn.l2_normalize(logits, 1), axis=1),
        "sigmoid_cross_entropy": lambda: losses.sigmoid_cross_entropy(y, logits),
        "softmax_cross_entropy": lambda: losses.softmax_cross_entropy(y, logits, label_smoothing=0.1),
        "sparse_softmax_cross_entropy": lambda: losses.sparse_softmax_cross_entropy(y, logits),
        "slice": lambda: tf.reduce_mean(tf.square(h[:, :C] - y)),
        "issue_form": lambda: tf.reduce_mean(tf.square(tf.layers.dense(h, C, name="o2") - y)),
    }[kind]()
    return loss, {x: [B, D], y: y_shape}


def _layer_norm(h, name):
    with tf.variable_scope(name):
        gamma = tf.get_variable("gamma", [h.shape[-1]], initializer=tf.ones_initializer())
        beta = tf.get_variable("beta", [h.shape[-1]], initializer=tf.zeros_initializer())
    mean, var = tf.nn.moments(h, [-1], keep_dims=True)
    return (h - mean) * tf.rsqrt(var + 1e-6) * gamma + beta


def _transformer(batch, T=4, d=8, heads=2):
    """One Transformer encoder block (multi-head self-attention, layer norm, feed-forward) and a loss."""
    x = tf.placeholder(tf.float32, [batch, T, d], name="x")
    y = tf.placeholder(tf.int32, [batch, T], name="y")
    n = tf.shape(x)[0]

    def heads_of(t):
        return tf.transpose(tf.reshape(t, [n, T, heads, d // heads]), [0, 2, 1, 3])
    q, k, v = (heads_of(tf.layers.dense(x, d, name=nm)) for nm in ("q", "k", "v"))
    att = tf.nn.softmax(tf.matmul(q, k, transpose_b=True) / np.sqrt(d // heads))
    o = tf.reshape(tf.transpose(tf.matmul(att, v), [0, 2, 1, 3]), [n, T, d])
    h = _layer_norm(x + tf.layers.dense(o, d, name="proj"), "ln1")
    f = tf.layers.dense(tf.nn.relu(tf.layers.dense(h, 2 * d, name="ff1")), d, name="ff2")
    h = _layer_norm(h + f, "ln2")
    logits = tf.layers.dense(h, C, name="logits")
    return tf.losses.sparse_softmax_cross_entropy(y, logits), {x: [B, T, d], y: [B, T]}


def _dynamic_rnn(batch, T=5, hidden=8):
    x = tf.placeholder(tf.float32, [batch, T, D], name="x")
    y = tf.placeholder(tf.float32, [batch, hidden], name="y")
    out, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.LSTMCell(hidden), x, dtype=tf.float32)
    return tf.losses.mean_squared_error(y, out[:, -1]), {x: [B, T, D], y: [B, hidden]}


MODELS = {"transformer": _transformer, "dynamic_rnn": _dynamic_rnn}
KINDS = ["mean_squared_error", "absolute_difference", "huber_loss", "log_loss", "hinge_loss", "cosine_distance",
         "sigmoid_cross_entropy", "softmax_cross_entropy", "sparse_softmax_cross_entropy", "slice", "issue_form"]


def _build(kind, batch):
    if kind in MODELS:
        return MODELS[kind](batch)
    return _loss(kind, batch)


def _plans(kind, batch, budget_of_plain=None):
    """(plan, arena without recomputation, every candidate's (kept, arena)) for the model built with `batch`."""
    with tf.Graph().as_default():
        tf.set_random_seed(0)
        loss, shapes = _build(kind, batch)
        feed_shapes = shapes if batch is None else {}
        xs = [v._as_graph_element() for v in tf.trainable_variables()]
        plain, _ = predict(loss, xs, None, feed_shapes)
        budget = None if budget_of_plain is None else int(budget_of_plain * plain)
        plan = tm.plan_recompute(loss, budget, feed_shapes)
        return plan, plain


def test_budget_is_met_on_a_transformer_with_unknown_batch():
    plan, plain = _plans("transformer", None, budget_of_plain=0.6)
    assert plan.fits and plan.predicted_peak_bytes <= 0.6 * plain
    assert plan.extra_flops > 0


def test_dynamic_rnn_says_the_budget_is_out_of_reach():
    """A while loop's gradient reads its own forward state: nothing of the loop is recomputed, and the plan
    says the budget does not fit (the smallest arena found)."""
    plan, plain = _plans("dynamic_rnn", None, budget_of_plain=0.6)
    assert not plan.fits
    assert plan.predicted_peak_bytes == min(c[1] for c in plan.candidates) <= plain


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS + list(MODELS))
def test_prediction_is_the_sessions_planned_arena(kind):
    """Built with an unknown batch and planned for feed_shapes, the predicted arena (with the chosen
    checkpoints and without any) is what sess.memory_report plans for the same fetch set, from the shapes
    the jitted function traces."""
    rng = np.random.RandomState(0)
    with tf.Graph().as_default():
        tf.set_random_seed(0)
        loss, shapes = _build(kind, None)
        xs = tf.trainable_variables()
        plan = tm.plan_recompute(loss, None, shapes)
        plain, _ = predict(loss, [v._as_graph_element() for v in xs], None, shapes)
        checkpointed = [g for g in tf.gradients(loss, xs, checkpoints=plan.checkpoints) if g is not None]
        grads = [g for g in tf.gradients(loss, xs) if g is not None]
        feed = {p: (rng.randint(0, C, s) if p.dtype == tf.int32 else rng.rand(*s)).astype(p.dtype.np)
                for p, s in shapes.items()}
        verify = kind in MODELS
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            report = sess.memory_report([loss] + checkpointed, feed, xla=False, verify=verify)
            report_plain = sess.memory_report([loss] + grads, feed, xla=False, verify=False)
    assert report.verified is (True if verify else None)
    assert report.planned_bytes == plan.predicted_peak_bytes <= plain
    assert report_plain.planned_bytes == plain


def test_unfed_placeholder_is_named():
    with tf.Graph().as_default():
        loss, shapes = _loss("mean_squared_error", None)
        x = next(p for p in shapes if p.name == "x:0")
        with pytest.raises(ValueError, match="placeholder y:0 is not fully known.*feed_shapes"):
            tm.plan_recompute(loss, None, {x: [B, D]})


def test_tinyflow_memory_is_an_attribute():
    import tinyflow
    assert tinyflow.memory.plan_recompute is tm.plan_recompute


def test_recomputed_segment_with_a_shape_computation_runs():
    """A segment that computes a shape (tf.shape -> strided slice -> stack -> reshape) keeps it known while
    the branch is traced, as the step's own static values are (the BERT-tiny zoo model's embeddings)."""
    rng = np.random.RandomState(0)
    x = tf.placeholder(tf.float32, [None, 4, 8])
    w = tf.Variable(rng.randn(32, 32).astype(np.float32))
    h = tf.tanh(tf.matmul(tf.reshape(tf.sin(x), [-1, 32]), w))
    n = tf.shape(h)[0]     # between the variable and the loss
    h = tf.reshape(tf.tanh(tf.reshape(h, [n, 4, 8]) * 2.0), [n, 32])
    loss = tf.reduce_sum(tf.matmul(h, w))
    plain = tf.gradients(loss, [w])[0]
    checkpointed = tf.gradients(loss, [w], checkpoints=[])[0]
    segments = [op for op in tf.get_default_graph().get_operations() if op.type == "Recompute"]
    # (Shape itself is static, never recomputed: the slice and the stack of its value are)
    assert any(op.type == "Pack" for r in segments for op in r.attrs["ops"])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        a, b = sess.run([plain, checkpointed], {x: rng.randn(3, 4, 8)})
    np.testing.assert_allclose(a, b, rtol=1e-5)
