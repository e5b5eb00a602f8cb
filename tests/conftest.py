"""Shared pytest fixtures: every test starts with a fresh default graph."""
import pytest

import tinyflow as tf


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield
    from tinyflow.client import session as _s
    del _s._default_sessions[:]
    tf.reset_default_graph()
