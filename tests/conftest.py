"""Shared pytest fixtures: every test starts with a fresh default graph."""
import os

import pytest

# the suite (and the example scripts it starts) leaves the user's compilation cache alone;
# tests/runtime/test_speed_compile_cache.py turns it on in processes of its own
os.environ.setdefault("TINYFLOW_COMPILATION_CACHE", "0")
# one program per fetch set, as before tiers (runtime/executables.py): no second compile in a test that
# runs many steps; tests/runtime/test_tiers.py turns them on
os.environ.setdefault("TINYFLOW_TIERED", "0")
# XLA compile time is most of the suite's CPU (each distinct fetch set compiles once: ~0.05-1 s on the
# CPU). JAX's jax_disable_most_optimizations (XLA backend optimization level 0, LLVM's expensive passes
# off; XLA's HLO passes all still run) cuts the suite's CPU by 17-22%, measured as
# process CPU per test on samples: 400 tests of ops/nn, ops/math, api/layers, losses, optimizers and
# metrics 51.7 -> 43.1 CPU-s; 265 tests of lower/, runtime/, ops/ (subprocesses counted) 129.6 -> 101.6.
# It is an environment variable so the processes the suite starts (CLI, examples) compile cheaply too.
# The production default is still tested: the production_compile fixture turns it off for tests of
# compiler options and of bit-for-bit equal draws (at level 0 one float of tests/lower/test_program.py's
# random ops differed by 1 ulp), and .ci/core_only.sh runs the examples outside pytest at XLA's defaults.
os.environ.setdefault("JAX_DISABLE_MOST_OPTIMIZATIONS", "1")


def _suite_xla_flags():
    """XLA:CPU code generation for the suite, cheaper to compile, the same programs: XLA's older
    (non-MLIR) fusion emitters and one LLVM module per program instead of 32 parallel splits (each a
    thread and a module of its own, for kernels of a few lines). Measured on jaxlib 0.10.2: the whole
    suite 692 -> 468 s wall on the 2-core machine (the 393 value checks of tests/ops/test_registry.py
    38.0 -> 24.3 CPU-s), every test passing. Only on jaxlib 0.10, where they were measured: XLA
    aborts on a flag it does not know, and a later jaxlib may drop these. Set in the environment, so
    the processes the suite starts inherit them (a child that sets XLA_FLAGS itself appends to it);
    the examples of .ci/core_only.sh, the benchmarks and users keep XLA's defaults."""
    import jaxlib
    if not jaxlib.__version__.startswith("0.10."):
        return
    flags = os.environ.get("XLA_FLAGS", "")
    for flag in ("--xla_cpu_use_fusion_emitters=false", "--xla_cpu_parallel_codegen_split_count=1"):
        if flag.split("=")[0] not in flags:
            flags += " " + flag
    os.environ["XLA_FLAGS"] = flags.strip()


_suite_xla_flags()


@pytest.hookimpl(optionalhook=True)   # a plain pytest without xdist (.ci/numpy1.sh) does not know the hook
def pytest_xdist_auto_num_workers(config):
    """`-n auto` on a machine of 2-4 cores: one worker more than cores. A worker waits a quarter of its
    time (measured: 76% CPU per worker on the 2-core machine: subprocesses starting, fsyncs of the
    durability tests, threads of the queue and Supervisor tests); a third worker fills those waits.
    Elsewhere xdist's own choice (one per core)."""
    n = os.cpu_count() or 1
    return n + 1 if 2 <= n <= 4 else None


def pytest_configure(config):
    """Under `-n`, xdist's work-stealing schedule instead of its default one: the suite's long tests (the
    corpus replays, 20-33 s) otherwise end up queued behind a busy worker while the others idle at the end."""
    if getattr(config.option, "dist", "no") == "load" and getattr(config.option, "numprocesses", None):
        config.option.dist = "worksteal"

import tinyflow as tf  # noqa: E402


@pytest.fixture
def production_compile():
    """The test compiles at XLA's defaults, as a user's process does (the suite runs with
    jax_disable_most_optimizations, above): for tests of compiler options and bit-for-bit numerics."""
    import jax
    before = jax.config.read("jax_disable_most_optimizations")
    jax.config.update("jax_disable_most_optimizations", False)
    yield
    jax.config.update("jax_disable_most_optimizations", before)


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield
    from tinyflow.runtime import session as _s
    del _s._default_sessions[:]
    tf.reset_default_graph()
