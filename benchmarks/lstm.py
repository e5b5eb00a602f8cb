"""LSTM training step: tf.nn.dynamic_rnn (a tf.while_loop and its gradient) against the same
model hand-written in JAX with `lax.scan` (+ optax, donated parameters), in one process.

Model: inputs [batch 20, 35 steps, 256] -> BasicLSTMCell(256) -> dense 256->1000 on every step ->
sparse softmax cross entropy; plain SGD. Each step fetches the loss.
Target (issue 17, item 2): tinyflow / jax <= 1.10x. A TF 1.15 column comes from the same graph run
by benchmarks/tf1/lstm_tf1.py under a TF 1.x python, when one exists (~/.tf1-oracle, $TF1_PYTHON), and a
TF 2.x one from the same file through tf.compat.v1 (~/.tf2-anchor, $TF2_PYTHON).

    python benchmarks/lstm.py [--steps N] [--reps R] [--no-tf1]
"""
import argparse
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np
import optax

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tinyflow as tf  # noqa: E402
from _common import step_times, tf1_run, tf2_run  # noqa: E402

BATCH, STEPS, UNITS, VOCAB = 20, 35, 256, 1000
LR = 0.5


def data():
    rng = np.random.default_rng(0)
    kernel = rng.uniform(-0.05, 0.05, (2 * UNITS, 4 * UNITS)).astype(np.float32)
    bias = np.zeros(4 * UNITS, np.float32)
    w_out = rng.uniform(-0.05, 0.05, (UNITS, VOCAB)).astype(np.float32)
    b_out = np.zeros(VOCAB, np.float32)
    xb = rng.normal(size=(BATCH, STEPS, UNITS)).astype(np.float32)
    yb = rng.integers(0, VOCAB, (BATCH, STEPS)).astype(np.int64)
    return (kernel, bias, w_out, b_out), xb, yb


def graph_step(t, params):
    """The step as a TF1 graph in module t: (sess, train, loss, x, y)."""
    kernel, bias, w_out, b_out = params
    g = t.Graph()
    with g.as_default():
        x = t.placeholder(t.float32, [BATCH, STEPS, UNITS])
        y = t.placeholder(t.int64, [BATCH, STEPS])
        cell = t.nn.rnn_cell.BasicLSTMCell(UNITS)
        outputs, _ = t.nn.dynamic_rnn(cell, x, dtype=t.float32)
        logits = t.matmul(t.reshape(outputs, [-1, UNITS]), t.Variable(w_out)) + t.Variable(b_out)
        loss = t.reduce_mean(t.nn.sparse_softmax_cross_entropy_with_logits(labels=t.reshape(y, [-1]), logits=logits))
        train = t.train.GradientDescentOptimizer(LR).minimize(loss)
        sess = t.Session(graph=g)
        sess.run(t.global_variables_initializer())
        for v in t.trainable_variables():  # the same start values everywhere
            if "kernel" in v.name:
                v.load(kernel, sess)
            elif "bias" in v.name:
                v.load(bias, sess)
    return sess, train, loss, x, y


def jax_step(params):
    """The same step hand-written: lax.scan over time, jax.value_and_grad, optax.sgd, donated."""
    tx = optax.sgd(LR)

    def loss_fn(ps, xb, yb):
        kernel, bias, w_out, b_out = ps

        def cell(carry, xt):
            c, h = carry
            i, j, f, o = jnp.split(jnp.concatenate([xt, h], 1) @ kernel + bias, 4, axis=1)
            c = c * jax.nn.sigmoid(f + 1.0) + jax.nn.sigmoid(i) * jnp.tanh(j)
            h = jnp.tanh(c) * jax.nn.sigmoid(o)
            return (c, h), h
        zeros = jnp.zeros((BATCH, UNITS), jnp.float32)
        _, hs = jax.lax.scan(cell, (zeros, zeros), jnp.swapaxes(xb, 0, 1))
        logits = jnp.swapaxes(hs, 0, 1).reshape(-1, UNITS) @ w_out + b_out
        logp = jax.nn.log_softmax(logits)
        return -jnp.mean(jnp.take_along_axis(logp, yb.reshape(-1, 1), 1))

    def step(ps, st, xb, yb):
        loss, grads = jax.value_and_grad(loss_fn)(ps, xb, yb)
        updates, st = tx.update(grads, st, ps)
        return optax.apply_updates(ps, updates), st, loss

    step = jax.jit(step, donate_argnums=(0, 1))
    ps = tuple(jnp.asarray(p) for p in params)
    return step, {"ps": ps, "st": tx.init(ps)}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=100, help="timed steps per implementation and repetition")
    p.add_argument("--reps", type=int, default=3, help="repetitions; the median ratio is reported")
    p.add_argument("--no-tf1", action="store_true", help="leave out the TF 1.15 and TF 2.x columns")
    args = p.parse_args()
    params, xb, yb = data()
    sess, train, loss, x, y = graph_step(tf, params)
    feed = {x: xb, y: yb}
    step, state = jax_step(params)
    l_tf, l_jax = sess.run(loss, feed), float(step(state["ps"], state["st"], xb, yb)[2])
    state["ps"], state["st"] = jax_step(params)[1].values()  # the donated buffers are gone: start again
    print("device: %s; LSTM %d units, %d steps, batch %d, softmax %d; first losses tinyflow %.5f, jax %.5f" % (
        jax.devices()[0].device_kind, UNITS, STEPS, BATCH, VOCAB, l_tf, l_jax))

    def jax_call():
        state["ps"], state["st"], l = step(state["ps"], state["st"], xb, yb)
        return float(l)
    print("%-4s %16s %16s %9s %9s" % ("rep", "tinyflow ms", "jax scan ms", "ratio", "(median)"))
    ratios = []
    for r in range(args.reps):
        (tf_min, tf_med), (jax_min, jax_med) = step_times([lambda: sess.run([train, loss], feed), jax_call],
                                                          args.steps)
        ratios.append(tf_min / jax_min)
        print("%-4d %7.2f (%6.2f) %7.2f (%6.2f) %8.3fx %8.3fx" % (
            r, tf_min * 1e3, tf_med * 1e3, jax_min * 1e3, jax_med * 1e3, tf_min / jax_min, tf_med / jax_med),
            flush=True)
    print("tinyflow / jax (median of %d, fastest steps): %.3fx  (target <= 1.10x)" % (args.reps, np.median(ratios)))
    for run in (() if args.no_tf1 else (tf1_run, tf2_run)):
        res = run("lstm_tf1.py", args.steps)
        if res:
            print("TF %s%s: %.2f ms fastest step (%.2f median); tinyflow / TF = %.3fx" % (
                res["version"], " compat.v1" if run is tf2_run else "", res["min"] * 1e3, res["median"] * 1e3,
                tf_min / res["min"]))


if __name__ == "__main__":
    main()
