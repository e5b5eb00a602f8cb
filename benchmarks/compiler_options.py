"""Re-checks each per-fetch-set XLA compiler option (tinyflow/lower/compiler_options.py) on the
installed jaxlib: times with and without it, and says whether the decision still helps.

  1. CNN training step (holds Conv2DBackpropFilter): YNNPACK without convolutions vs XLA's default.
  2. The same CNN's forward-only fetch set: the options must stay off there (YNNPACK's convs faster).
  3. The CNN's initializer (run once): compile time with co.RUN_ONCE_OPTIONS (level 1, older emitters) vs default.
  4. jaxlib's default YNNPACK list still {dots, convolutions, reductions}: else YNN_NO_CONV drops more.

    python benchmarks/compiler_options.py [--steps 15] [--batch 50]
"""
import argparse
import os
import re
import sys
import time

os.environ["TINYFLOW_COMPILATION_CACHE"] = "0"   # compile times, not cache loads
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import tinyflow as tf  # noqa: E402
from tinyflow.lower import compiler_options as co  # noqa: E402
from _common import step_times  # noqa: E402


def cnn(batch):
    """Deep-MNIST's net (conv 5x5x32, pool, conv 5x5x64, pool, dense 1024, 10 logits, Adam)."""
    tf.reset_default_graph()
    tf.set_random_seed(0)
    x = tf.placeholder(tf.float32, [None, 28, 28, 1])
    y = tf.placeholder(tf.int64, [None])

    def conv_pool(h, shape):
        w = tf.Variable(tf.truncated_normal(shape, stddev=0.1))
        h = tf.nn.relu(tf.nn.conv2d(h, w, [1, 1, 1, 1], "SAME") + tf.Variable(tf.constant(0.1, shape=shape[-1:])))
        return tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    h = conv_pool(conv_pool(x, [5, 5, 1, 32]), [5, 5, 32, 64])
    h = tf.layers.dense(tf.reshape(h, [-1, 7 * 7 * 64]), 1024, activation=tf.nn.relu)
    logits = tf.layers.dense(h, 10)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train = tf.train.AdamOptimizer(1e-4).minimize(loss)
    rng = np.random.RandomState(0)
    feed = {x: rng.rand(batch, 28, 28, 1).astype(np.float32), y: rng.randint(0, 10, batch)}
    return feed, loss, train, tf.global_variables_initializer()


def session(setting, init, fetches, feed):
    """A Session whose fetch sets are compiled under $TINYFLOW_COMPILER_OPTIONS=setting (read at compile)."""
    os.environ["TINYFLOW_COMPILER_OPTIONS"] = setting
    sess = tf.Session()
    sess.run(init)
    for f in fetches:
        sess.lowered(f, feed)
    return sess


def verdict(ok):
    return "yes, keep it" if ok else "NO: re-measure, the decision may no longer hold"


def check_steps(args):
    feed, loss, train, init = cnn(args.batch)
    on, off = session("1", init, [[train, loss]], feed), session("0", init, [[train, loss], loss], feed)
    assert on.lowered([train, loss], feed).function.compiler_options.get(co.YNN_FLAG) == co.YNN_NO_CONV
    assert not off.lowered([train, loss], feed).function.compiler_options
    # same start values, then one step each: the values agree within TF's tolerance
    a, b = on.run([train, loss], feed)[1], off.run([train, loss], feed)[1]
    print("loss with / without options: %.7f / %.7f" % (a, b))
    (t_on, _), (t_off, _) = step_times([lambda: on.run([train, loss], feed), lambda: off.run([train, loss], feed)],
                                       args.steps)
    print("1. CNN training step, YNNPACK without convolutions: %.1f ms, XLA's default: %.1f ms (%.2fx)  "
          "helps: %s" % (t_on * 1e3, t_off * 1e3, t_on / t_off, verdict(t_on < t_off * 0.97)))
    # 2: forward-only fetch set: what the option would do there (it is not passed: check it stays slower)
    low = off.lowered(loss, feed)
    fargs = low.function.flat_args(*low.args)
    default = jax.jit(low.function.flat_fn)
    no_conv = jax.jit(low.function.flat_fn, compiler_options={co.YNN_FLAG: co.YNN_NO_CONV})
    (t_def, _), (t_nc, _) = step_times([lambda: jax.block_until_ready(default(*fargs)),
                                        lambda: jax.block_until_ready(no_conv(*fargs))], args.steps)
    print("2. CNN forward only, XLA's default: %.1f ms, without YNNPACK convolutions: %.1f ms (%.2fx)  "
          "keeping it off there helps: %s" % (t_def * 1e3, t_nc * 1e3, t_nc / t_def, verdict(t_def < t_nc)))
    on.close(), off.close()
    return init


def compile_secs(fn, options, fargs, reps=2):
    """Fastest XLA compile of fn (a new function object each time: nothing cached in memory)."""
    best = float("inf")
    for _ in range(reps):
        lowered = jax.jit(lambda *a: fn(*a), compiler_options=options).lower(*fargs)
        t0 = time.perf_counter()
        lowered.compile()
        best = min(best, time.perf_counter() - t0)
    return best


def check_init(init):
    os.environ["TINYFLOW_COMPILER_OPTIONS"] = "1"
    with tf.Session() as sess:
        low = sess.lowered([init])
        assert low.function.compiler_options == co.RUN_ONCE_OPTIONS
        fargs = low.function.flat_args(*low.args)
        plain = jax.jit(low.function.flat_fn)
        fn = low.function.flat_fn
        t_on, t_off = compile_secs(fn, low.function.compiler_options, fargs), compile_secs(fn, None, fargs)
        (r_on, _), (r_off, _) = step_times([lambda: jax.block_until_ready(low.jitted(*fargs)),
                                            lambda: jax.block_until_ready(plain(*fargs))], 5, warmup=1)
    print("3. CNN initializer, compile at level 1, older emitters: %.2f s, default: %.2f s (%.2fx); "
          "run %.1f / %.1f ms; helps: %s" % (t_on, t_off, t_on / t_off, r_on * 1e3, r_off * 1e3,
                         verdict(t_on + r_on < (t_off + r_off) * 0.9)))


def ynn_ops(options):
    x, w, m = jnp.ones((50, 28, 28, 32)), jnp.ones((5, 5, 32, 64)), jnp.ones((64, 64))   # XLA picks YNN here

    def f(x, w, m):
        y = jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        y = jax.lax.reduce_window(y, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        return jnp.sum(y * y) + jnp.sum(jnp.tanh(m @ m))
    text = jax.jit(jax.grad(f, argnums=(1, 2)), compiler_options=options).lower(x, w, m).compile().as_text()
    ops = set()
    for ln in text.splitlines():
        if ln.strip().startswith(("%ynn_fusion", "ROOT %ynn_fusion")):
            name = re.search(r'op_name="([^"]*)"', ln)
            ops.add(name.group(1).rsplit("/", 1)[-1] if name else "?")
    return ops


def check_default_list():
    T = "LIBRARY_FUSION_TYPE_"
    default = ynn_ops(None)
    explicit = ynn_ops({co.YNN_FLAG: ",".join(T + t for t in ("INDIVIDUAL_DOT", "INDIVIDUAL_CONVOLUTION", "REDUCE"))})
    no_conv = ynn_ops({co.YNN_FLAG: co.YNN_NO_CONV})
    print("4. YNNPACK by default: %s; with YNN_NO_CONV: %s" % (sorted(default), sorted(no_conv)))
    print("   default list still {dots, convolutions, reductions}: %s" % verdict(
        default == explicit and "conv_general_dilated" in default and "conv_general_dilated" not in no_conv))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=15)
    p.add_argument("--batch", type=int, default=50)
    args = p.parse_args()
    print("jax %s, %s" % (jax.__version__, jax.devices()[0].platform))
    init = check_steps(args)
    check_init(init)
    check_default_list()


if __name__ == "__main__":
    main()
