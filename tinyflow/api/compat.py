"""tf.compat: `tf.compat.v1` is tinyflow itself (tinyflow only speaks TF1), plus TF2's switches as no-ops."""
import sys
import types

v2 = types.SimpleNamespace()


def disable_v2_behavior():
    """Accepted for compatibility: tinyflow always runs graphs the TF1 way."""


def enable_resource_variables():
    """Accepted for compatibility: tinyflow's variables already behave as resource variables."""


def __getattr__(name):
    if name == "v1":   # the package itself (looked up, not imported: this module is part of it)
        return sys.modules["tinyflow"]
    raise AttributeError("module 'tinyflow.compat' has no attribute %r" % name)
