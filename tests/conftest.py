"""Shared pytest fixtures: every test starts with a fresh default graph."""
import os

import pytest

# the suite (and the example scripts it starts) leaves the user's compilation cache alone;
# tests/runtime/test_speed_compile_cache.py turns it on in processes of its own
os.environ.setdefault("TINYFLOW_COMPILATION_CACHE", "0")

import tinyflow as tf  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield
    from tinyflow.runtime import session as _s
    del _s._default_sessions[:]
    tf.reset_default_graph()
