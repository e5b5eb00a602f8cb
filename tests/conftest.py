"""Shared pytest fixtures: every test starts with a fresh default graph."""
import os

import pytest

# the suite (and the example scripts it starts) leaves the user's compilation cache alone;
# tests/runtime/test_speed_compile_cache.py turns it on in processes of its own
os.environ.setdefault("TINYFLOW_COMPILATION_CACHE", "0")
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
