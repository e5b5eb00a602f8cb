"""XLA option sets per fetch set of a tutorial script (docs/speed.md section 9): runs the script of
benchmarks/scripts/ once, records each fetch set's program and arguments, then compiles each one's
lowered module under each option set (added to the fetch set's own options; "default": those alone)
and prints XLA's compile CPU seconds, the median step CPU ms of 9 runs and the largest difference of
any output from the first set's, relative to that output's largest value. The first tier
(lower/compiler_options.FIRST_TIER), the initializers' options (RUN_ONCE_OPTIONS) and where a first tier
takes the older fusion emitters (compiler_options.older_emitters_pay) were chosen from these figures.

    python benchmarks/tier_options.py cnn.py [default,first_tier,run_once,first_tier+w128,...]
"""
import contextlib
import io
import os
import runpy
import sys
import time

os.environ["TINYFLOW_COMPILATION_CACHE"] = "0"   # compiles, not cache loads
os.environ["TINYFLOW_TIERED"] = "0"              # each fetch set's own options as the recorded program
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import jax  # noqa: E402
import numpy as np  # noqa: E402

from tinyflow.cli.runner import alias_tensorflow  # noqa: E402
from tinyflow.lower import compiler_options as co  # noqa: E402
from tinyflow.runtime import executables  # noqa: E402

SETS = {
    "default": {},
    "first_tier": co.FIRST_TIER,
    "run_once": co.RUN_ONCE_OPTIONS,
    "level1": {co.OPT_LEVEL_FLAG: 1},
    "old_emitters": {"xla_cpu_use_fusion_emitters": False},
    "no_expensive": {"xla_llvm_disable_expensive_passes": True},
    "fast_compile": {"xla_cpu_opt_preset": "CPU_OPT_PRESET_FAST_COMPILE"},
    "level0": {co.OPT_LEVEL_FLAG: 0},
    "no_ynn": {co.YNN_FLAG: ""},
    "w128": {"xla_cpu_prefer_vector_width": 128},
    "avx2": {"xla_cpu_max_isa": "AVX2"},
}


def options(name):
    """The option set `name`: a name of SETS, or names joined by '+' (their union, later ones win)."""
    return {k: v for part in name.split("+") for k, v in SETS[part].items()}


def record(script):
    """[(Lowered, argument copies)] of every program the script compiles."""
    recorded, compiled = [], executables.Executables._compiled

    def keep(self, args, donate, **kw):
        recorded.append((self.low, [np.array(a) for a in args]))
        return compiled(self, args, donate, **kw)
    executables.Executables._compiled = keep
    alias_tensorflow()
    os.chdir(os.path.join(HERE, "scripts"))
    sys.path.insert(0, os.getcwd())
    sys.argv = [script]
    with contextlib.redirect_stdout(io.StringIO()):
        runpy.run_path(script, run_name="__main__")
    executables.Executables._compiled = compiled
    return recorded


def main():
    script = sys.argv[1]
    names = sys.argv[2].split(",") if len(sys.argv) > 2 else list(SETS)
    for i, (low, args) in enumerate(record(script)):
        lowered = jax.jit(lambda *a, f=low.flat_fn: f(*a)).lower(*args)
        ref = None
        for name in names:
            t = time.process_time()
            try:
                compiled = lowered.compile(compiler_options={**low.compiler_options, **options(name)} or None)
            except Exception as e:   # noqa: BLE001 (an option this jaxlib does not know)
                print("%d %-13s fails: %s" % (i, name, str(e).splitlines()[0][:100]))
                continue
            compile_s = time.process_time() - t
            outs = [np.asarray(o) for o in jax.block_until_ready(compiled(*args))]
            times = []
            for _ in range(9):
                t = time.process_time()
                jax.block_until_ready(compiled(*args))
                times.append(time.process_time() - t)
            ref = outs if ref is None else ref
            diff = max([float(np.max(np.abs(a.astype(np.float64) - b)) / (1e-30 + np.max(np.abs(b))))
                        if a.dtype.kind == "f" and a.size else float(not np.array_equal(a, b))
                        for a, b in zip(outs, ref)] + [0.0])
            print("%d %-24s %-13s compile %.2f s  step %.2f ms  max rel. difference %.1e" % (
                i, ",".join(t.name for t in low.sub.fetches)[:24], name, compile_s, 1e3 * np.median(times), diff),
                flush=True)


if __name__ == "__main__":
    main()
