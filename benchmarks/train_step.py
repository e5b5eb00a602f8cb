"""Training-step speed per optimizer: tinyflow's Session.run against the same step hand-written
with jax.jit + optax (parameters and optimizer state donated), in one process.

The model is the MLP of the core issue: 784-256-256-10, ReLU, softmax cross entropy, batch 64.
Each step fetches the loss, as a training loop does (`_, l = sess.run([train, loss], feed)`).
Steps are timed one by one, the implementations interleaved; steps/s comes from the fastest step
(the cost without a noisy neighbour), the median is shown beside it.
Target (issue 3): tinyflow / jax <= 1.10x on the CPU. A TF 1.15 column is added when
`import tensorflow` gives a 1.x version.

    python benchmarks/train_step.py [--steps N] [--only adam,sgd] [--hlo adam]
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
import _common  # noqa: E402 (benchmarks/ is the script's folder)

SIZES = [784, 256, 256, 10]
BATCH = 64

# name: (tf.train optimizer factory (tinyflow or TF 1.x module), optax transformation with the same rule)
OPTIMIZERS = {
    "sgd": (lambda t: t.train.GradientDescentOptimizer(0.1), lambda: optax.sgd(0.1)),
    "momentum": (lambda t: t.train.MomentumOptimizer(0.1, 0.9), lambda: optax.sgd(0.1, momentum=0.9)),
    "nesterov": (lambda t: t.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
                 lambda: optax.sgd(0.1, momentum=0.9, nesterov=True)),
    "adam": (lambda t: t.train.AdamOptimizer(0.001), lambda: optax.adam(0.001)),
    "adagrad": (lambda t: t.train.AdagradOptimizer(0.1),
                lambda: optax.adagrad(0.1, initial_accumulator_value=0.1, eps=0.0)),
    "rmsprop": (lambda t: t.train.RMSPropOptimizer(0.001),
                lambda: optax.rmsprop(0.001, decay=0.9, eps=1e-10, initial_scale=1.0, momentum=0.0)),
    "adadelta": (lambda t: t.train.AdadeltaOptimizer(1.0), lambda: optax.adadelta(1.0, rho=0.95, eps=1e-8)),
}


def step_times(fns, n):
    """Per-call seconds of each fn, interleaved (_common.step_times) with 5 warm-up calls: on a loaded
    machine the fastest call is the best estimate of the unloaded cost."""
    return _common.step_times(fns, n, warmup=5)


def data():
    rng = np.random.default_rng(0)
    params = [(rng.normal(0, 0.05, (a, b)).astype(np.float32), np.zeros(b, np.float32))
              for a, b in zip(SIZES[:-1], SIZES[1:])]
    xb = rng.normal(size=(BATCH, 784)).astype(np.float32)
    yb = np.eye(10, dtype=np.float32)[rng.integers(0, 10, BATCH)]
    return params, xb, yb


def graph_step(t, make_opt, params):
    """The training step as a TF1 graph in module t (tinyflow or tensorflow 1.x): (sess, train, loss, x, y)."""
    g = t.Graph()
    with g.as_default():
        x = t.placeholder(t.float32, [None, 784])
        y = t.placeholder(t.float32, [None, 10])
        h = x
        for i, (w0, b0) in enumerate(params):
            h = t.matmul(h, t.Variable(w0)) + t.Variable(b0)
            if i < len(params) - 1:
                h = t.nn.relu(h)
        loss = t.reduce_mean(t.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=h))
        train = make_opt(t).minimize(loss)
        sess = t.Session(graph=g)
        sess.run(t.global_variables_initializer())
    return sess, train, loss, x, y


def jax_step(make_tx, params):
    """The same step hand-written: jax.jit with params and optimizer state donated."""
    tx = make_tx()

    def loss_fn(ps, xb, yb):
        h = xb
        for i, (w, b) in enumerate(ps):
            h = h @ w + b
            if i < len(ps) - 1:
                h = jax.nn.relu(h)
        return jnp.mean(-jnp.sum(yb * jax.nn.log_softmax(h), -1))

    def step(ps, st, xb, yb):
        loss, grads = jax.value_and_grad(loss_fn)(ps, xb, yb)
        updates, st = tx.update(grads, st, ps)
        return optax.apply_updates(ps, updates), st, loss

    step = jax.jit(step, donate_argnums=(0, 1))
    ps = jax.tree_util.tree_map(jnp.asarray, params)
    return step, {"ps": ps, "st": tx.init(ps)}


def tensorflow1():
    try:
        import tensorflow as real_tf
    except ImportError:
        return None
    return real_tf if real_tf.__version__.startswith("1.") else None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=500, help="timed steps per optimizer and implementation")
    p.add_argument("--only", default="", help="comma-separated optimizer names")
    p.add_argument("--hlo", default="", help="print tinyflow's optimized HLO of this optimizer's step and exit")
    args = p.parse_args()
    params, xb, yb = data()
    names = [n for n in OPTIMIZERS if not args.only or n in args.only.split(",")]
    if args.hlo:
        sess, train, loss, x, y = graph_step(tf, OPTIMIZERS[args.hlo][0], params)
        print(sess.lowered([train, loss], {x: xb, y: yb}).hlo)
        return
    real_tf = tensorflow1()
    print("device: %s, batch %d, MLP %s, %d steps each; steps/s from the fastest step (median in brackets)" % (
        jax.devices()[0].device_kind, BATCH, "-".join(map(str, SIZES)), args.steps))
    head = "%-10s %18s %18s %8s %8s" % ("optimizer", "tinyflow st/s", "jax+optax st/s", "ratio", "(median)")
    print(head + (" %18s" % "TF 1.15 st/s" if real_tf else ""))
    for name in names:
        make_opt, make_tx = OPTIMIZERS[name]
        sess, train, loss, x, y = graph_step(tf, make_opt, params)
        feed = {x: xb, y: yb}
        step, state = jax_step(make_tx, params)

        def jax_call():
            state["ps"], state["st"], l = step(state["ps"], state["st"], xb, yb)
            return float(l)

        fns = [lambda: sess.run([train, loss], feed), jax_call]
        if real_tf:
            rs, rtrain, rloss, rx, ry = graph_step(real_tf, make_opt, params)
            fns.append(lambda: rs.run([rtrain, rloss], {rx: xb, ry: yb}))
        times = step_times(fns, args.steps)
        (tf_min, tf_med), (jax_min, jax_med) = times[:2]
        row = "%-10s %9.0f (%6.0f) %9.0f (%6.0f) %7.3fx %7.3fx" % (
            name, 1 / tf_min, 1 / tf_med, 1 / jax_min, 1 / jax_med, tf_min / jax_min, tf_med / jax_med)
        if real_tf:
            row += " %9.0f (%6.0f)" % (1 / times[2][0], 1 / times[2][1])
        print(row, flush=True)


if __name__ == "__main__":
    main()
