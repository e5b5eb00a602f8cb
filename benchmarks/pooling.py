"""Pooling and convolution gradients alone: tinyflow (the gradient op in a Session), the same gradient
hand-written in JAX (jax.vjp of lax.reduce_window / lax.conv_general_dilated: what tinyflow lowered
before issue 30) and TF 1.15's CPU kernels (benchmarks/tf1/pooling_tf1.py, under a TF 1.x python), and TF
2.x's through tf.compat.v1 (the same file, benchmarks/_common.tf2_run).

Each timed call computes the gradient of one op for a fixed upstream gradient and fetches its dot
product with a fixed random tensor (a scalar: no copy of the result, and nothing XLA could simplify
away); inputs live on the device (Variables / device arrays).
Targets (issue 30): MaxPoolGrad and the text-CNN input gradient no slower than TF x 1.5; tinyflow
never slower than the hand-written JAX.

    python benchmarks/pooling.py [--n N] [--no-tf1] [--only SUBSTRING] [--cpu]

--cpu times CPU seconds of the process (all threads) instead of wall seconds, on both sides: on a
machine shared with other jobs it measures the work each implementation does.
"""
import argparse
import os
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tinyflow as tf  # noqa: E402
from _common import step_times, tf1_run, tf2_run  # noqa: E402

# name, kind, input shape (NHWC / NDHWC), window or filter shape, strides (spatial), padding
CASES = [
    ("mnist pool1 2x2/2", "max", [50, 28, 28, 32], [2, 2], [2, 2], "SAME"),
    ("mnist pool2 2x2/2", "max", [50, 14, 14, 64], [2, 2], [2, 2], "SAME"),
    ("cifar pool1 3x3/2", "max", [128, 24, 24, 64], [3, 3], [2, 2], "SAME"),
    ("cifar pool2 3x3/2", "max", [128, 12, 12, 64], [3, 3], [2, 2], "SAME"),
    ("3x3/1 SAME", "max", [32, 32, 32, 32], [3, 3], [1, 1], "SAME"),
    ("text-CNN max over time", "max", [64, 54, 1, 128], [54, 1], [1, 1], "VALID"),
    ("avg 2x2/2 VALID", "avg", [64, 16, 16, 128], [2, 2], [2, 2], "VALID"),
    ("avg 3x3/1 SAME", "avg", [32, 32, 32, 32], [3, 3], [1, 1], "SAME"),
    ("max3d 2x2x2/2", "max3d", [8, 16, 16, 16, 16], [2, 2, 2], [2, 2, 2], "SAME"),
    ("max3d 3x3x3/2", "max3d", [8, 16, 16, 16, 16], [3, 3, 3], [2, 2, 2], "SAME"),
    ("avg3d 2x2x2/2", "avg3d", [8, 16, 16, 16, 16], [2, 2, 2], [2, 2, 2], "SAME"),
    ("text-CNN 3x128 dx", "conv_dx", [64, 56, 128, 1], [3, 128, 1, 128], [1, 1], "VALID"),
    ("text-CNN 5x128 dx", "conv_dx", [64, 56, 128, 1], [5, 128, 1, 128], [1, 1], "VALID"),
    ("text-CNN 3x128 dw", "conv_dw", [64, 56, 128, 1], [3, 128, 1, 128], [1, 1], "VALID"),
    ("text-CNN 3x128 fwd", "conv", [64, 56, 128, 1], [3, 128, 1, 128], [1, 1], "VALID"),
    ("mnist conv2 5x5 dx", "conv_dx", [50, 14, 14, 32], [5, 5, 32, 64], [1, 1], "SAME"),
    ("mnist conv2 5x5 dw", "conv_dw", [50, 14, 14, 32], [5, 5, 32, 64], [1, 1], "SAME"),
]


def _full(v):
    return [1] + list(v) + [1]


def _out_shape(case):
    _, kind, x, k, s, pad = case
    spatial = [-(-n // st) if pad == "SAME" else (n - kk) // st + 1 for n, kk, st in zip(x[1:-1], k, s)]
    return [x[0]] + spatial + [k[3] if kind.startswith("conv") else x[-1]]


def tinyflow_call(case, x, w, g, r):
    """A Session computing sum(r * (d op / d input-or-filter . g))."""
    _, kind, _, k, s, pad = case
    xv, gv = tf.Variable(x), tf.constant(g)
    if kind.startswith("conv"):
        wv = tf.Variable(w)
        y = tf.nn.conv2d(xv, wv, _full(s), pad)
        out = y if kind == "conv" else tf.gradients(y, wv if kind == "conv_dw" else xv, grad_ys=gv)[0]
    else:
        pool = {"max": tf.nn.max_pool, "avg": tf.nn.avg_pool, "max3d": tf.nn.max_pool3d,
                "avg3d": tf.nn.avg_pool3d}[kind]
        out = tf.gradients(pool(xv, _full(k), _full(s), pad), xv, grad_ys=gv)[0]
    total = tf.reduce_sum(out * tf.Variable(r))
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    return lambda: sess.run(total)


def jax_call(case, x, w, g, r):
    """The same gradient hand-written in JAX."""
    _, kind, _, k, s, pad = case
    x, w, g, r = jnp.asarray(x), None if w is None else jnp.asarray(w), jnp.asarray(g), jnp.asarray(r)
    if kind.startswith("conv"):
        def conv(x, w):
            return lax.conv_general_dilated(x, w, s, pad, dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                            precision=lax.Precision.HIGHEST)
        if kind == "conv":
            fn = jax.jit(lambda x, w, g, r: jnp.sum(conv(x, w) * r))
        else:
            arg = 1 if kind == "conv_dw" else 0
            fn = jax.jit(lambda x, w, g, r: jnp.sum(jax.vjp(conv, x, w)[1](g)[arg] * r))
    else:
        init, op = (-jnp.inf, lax.max) if kind.startswith("max") else (0.0, lax.add)

        def pool(x):
            y = lax.reduce_window(x, init, op, tuple(_full(k)), tuple(_full(s)), pad)
            return y if kind.startswith("max") else y / np.prod(k)   # (the count is exact for VALID only)
        fn = jax.jit(lambda x, w, g, r: jnp.sum(jax.vjp(pool, x)[1](g)[0] * r))
    return lambda: float(fn(x, w, g, r))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=20, help="timed calls per implementation")
    p.add_argument("--no-tf1", action="store_true", help="leave out the TF 1.15 and TF 2.x columns")
    p.add_argument("--only", default="", help="run only the cases whose name holds this")
    p.add_argument("--cpu", action="store_true", help="time CPU seconds (all threads), not wall seconds")
    args = p.parse_args()
    cases = [c for c in CASES if args.only in c[0]]
    tf_args = (args.n, repr([list(c) for c in cases]), int(args.cpu))
    tf1, tf2 = [None if args.no_tf1 else run("pooling_tf1.py", *tf_args) for run in (tf1_run, tf2_run)]
    rng = np.random.RandomState(0)
    clock = time.process_time if args.cpu else time.perf_counter
    print("device: %s; fastest of %d calls, %s ms (TF 1.15 %s, TF 2.x %s)" % (
        jax.devices()[0].device_kind, args.n, "CPU" if args.cpu else "wall", tf1["version"] if tf1 else "not run",
        tf2["version"] if tf2 else "not run"))
    print("%-22s %10s %10s %10s %10s %10s %10s %10s" % ("case", "tinyflow", "jax", "TF 1.15", "TF 2.x v1", "tf'/jax",
                                                        "tf'/TF1", "tf'/TF2"))
    for case in cases:
        x = rng.randint(0, 5, size=case[2]).astype(np.float32)  # ties, as activations after relu have
        w = rng.randn(*case[3]).astype(np.float32) if case[1].startswith("conv") else None
        g = rng.randn(*_out_shape(case)).astype(np.float32)
        r = rng.randn(*(_out_shape(case) if case[1] == "conv" else case[3] if case[1] == "conv_dw" else case[2]))
        r = r.astype(np.float32)
        tf.reset_default_graph()
        fns = [tinyflow_call(case, x, w, g, r), jax_call(case, x, w, g, r)]
        slow = case[1] == "conv_dx" and case[3][1] == case[2][2]   # jax.vjp takes seconds here
        times = step_times(fns[:1] if slow else fns, 3 if slow else args.n, warmup=1, clock=clock)
        t_tiny, t_jax = times[0][0], (times[1][0] if not slow else step_times(fns[1:], 1, warmup=1, clock=clock)[0][0])
        t_tf, t_tf2 = (res["times"][case[0]] if res else float("nan") for res in (tf1, tf2))
        print("%-22s %10.2f %10.2f %10.2f %10.2f %9.2fx %9.2fx %9.2fx" % (
            case[0], t_tiny * 1e3, t_jax * 1e3, t_tf * 1e3, t_tf2 * 1e3, t_tiny / t_jax, t_tiny / t_tf, t_tiny / t_tf2),
            flush=True)


if __name__ == "__main__":
    main()
