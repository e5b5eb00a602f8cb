"""What XLA (CPU) does with a recomputation, in plain JAX: `python benchmarks/recompute_xla_probe.py`.

A hand-written training step of a 48-layer tanh MLP (width 256, batch 1024), its backward pass
written out, with the forward values of segments of 7 layers recomputed in four ways:

  none     no recomputation (every forward value kept)
  copy     the segment's ops written again in the backward pass
  barrier  the same, behind lax.optimization_barrier((checkpoint, incoming gradient))
  cond     lax.cond(g[0,0] == g[0,0], segment, segment, ...): the lowering of tinyflow's Recompute op

Prints, per way, the dots in the optimized HLO, XLA's temp bytes and the step time. Only "cond"
keeps the recomputation (more dots, less temp); see docs/recompute.md.
"""
import re
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

L, W, B, K = 48, 256, 1024, 7


def layer(h, w):
    return jnp.tanh(h @ w)


def make_step(mode):
    def step(ws, x):
        hs = [x]
        for w in ws:
            hs.append(layer(hs[-1], w))
        loss = 0.5 * jnp.sum(hs[-1] ** 2)
        g = hs[-1]
        kept = sorted(set(range(0, L + 1, K)) | {L})
        gws = [None] * L
        i = L
        while i > 0:
            a = max(c for c in kept if c < i)        # recompute hs[a+1 .. i-1] from hs[a]
            h0 = hs[a]
            if mode == "none":
                loc = hs
            elif mode == "cond":
                def seg(h0, wsub):
                    out = [h0]
                    for w in wsub:
                        out.append(layer(out[-1], w))
                    return tuple(out)
                flat = g[0, 0]
                loc = {a + j: v for j, v in enumerate(lax.cond(flat == flat, seg, seg, h0, tuple(ws[a:i - 1])))}
            else:
                if mode == "barrier":
                    h0, g = lax.optimization_barrier((h0, g))
                loc = {a: h0}
                for j in range(a, i - 1):
                    loc[j + 1] = layer(loc[j], ws[j])
            for j in range(i - 1, a - 1, -1):
                out = hs[i] if j + 1 == i else loc[j + 1]
                dz = g * (1 - out ** 2)
                gws[j] = loc[j].T @ dz
                g = dz @ ws[j].T
            i = a
        return loss, gws
    return step


def main():
    rng = np.random.RandomState(0)
    ws = [jnp.asarray(rng.randn(W, W).astype(np.float32) / np.sqrt(W)) for _ in range(L)]
    x = jnp.asarray(rng.randn(B, W).astype(np.float32))
    print("| recomputation | dots in HLO | XLA temp MiB | step ms | loss |\n|---|---|---|---|---|")
    for mode in ("none", "copy", "barrier", "cond"):
        f = jax.jit(make_step(mode))
        c = f.lower(ws, x).compile()
        dots = len(re.findall(r" dot\(", c.as_text()))
        f(ws, x)[0].block_until_ready()
        best = float("inf")
        for _ in range(5):
            t = time.perf_counter()
            loss = f(ws, x)[0].block_until_ready()
            best = min(best, time.perf_counter() - t)
        print("| %s | %d | %.2f | %.1f | %.6g |" % (mode, dots, c.memory_analysis().temp_size_in_bytes / 2 ** 20,
                                                   best * 1e3, float(loss)))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
