"""tf.compat: `tf.compat.v1` is tinyflow itself (tinyflow only speaks TF1), plus TF2's switches as no-ops."""
import contextlib
import datetime
import numbers
import os
import sys
import types

import numpy as np

v2 = types.ModuleType("tinyflow.compat.v2", "tf.compat.v2: the TF2 names TF1 scripts call (summary)")


def _v2_getattr(name):
    if name == "summary":   # TF2's summary API in graph mode, loaded on first use
        from tinyflow.api import summary_v2
        v2.summary = summary_v2
        return summary_v2
    raise AttributeError("module 'tinyflow.compat.v2' has no attribute %r" % name)


v2.__getattr__ = _v2_getattr


def disable_v2_behavior():
    """Accepted for compatibility: tinyflow always runs graphs the TF1 way."""


def enable_resource_variables():
    """Accepted for compatibility: tinyflow's variables already behave as resource variables."""


bytes_or_text_types = (bytes, str)
integral_types = (numbers.Integral, np.integer)
real_types = (numbers.Real, np.integer, np.floating)
complex_types = (numbers.Complex, np.number)


def as_bytes(bytes_or_text, encoding="utf-8"):
    """str -> bytes in `encoding`; bytes (and bytearray) as they are."""
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError("Expected binary or unicode string, got %r" % (bytes_or_text,))


def as_text(bytes_or_text, encoding="utf-8"):
    """bytes -> str in `encoding`; str as it is."""
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError("Expected binary or unicode string, got %r" % bytes_or_text)


as_str = as_text


def as_str_any(value):
    """str(value), decoding bytes."""
    return as_str(value) if isinstance(value, bytes) else str(value)


def path_to_str(path):
    """A path-like object as a str (anything else as it is)."""
    return os.fspath(path) if hasattr(path, "__fspath__") else path


# TF 1.15.5's forward-compatibility horizon: code asks whether a change made after a date may be used
_HORIZON = [datetime.date(2019, 8, 21)]


def forward_compatible(year, month, day):
    """Whether TF 1.15's forward-compatibility horizon (2019-08-21, or the one forward_compatibility_horizon
    set) is past the date, as TF answers it."""
    return _HORIZON[0] > datetime.date(year, month, day)


@contextlib.contextmanager
def forward_compatibility_horizon(year, month, day):
    """Inside, forward_compatible answers as if the horizon were this date."""
    old, _HORIZON[0] = _HORIZON[0], datetime.date(year, month, day)
    try:
        yield
    finally:
        _HORIZON[0] = old


def dimension_value(dimension):
    """A Dimension's value (an int or None); anything else as it is."""
    from tinyflow.graph.shapes import Dimension
    return dimension.value if isinstance(dimension, Dimension) else dimension


def dimension_at_index(shape, index):
    """The Dimension at `index` of a TensorShape (Dimension(None) when its rank is unknown)."""
    from tinyflow.graph.shapes import Dimension, TensorShape
    if not isinstance(shape, TensorShape):
        raise TypeError("dimension_at_index takes a TensorShape, got %r" % (shape,))
    return Dimension(None) if shape.ndims is None else shape.dims[index]


def __getattr__(name):
    if name == "v1":   # the package itself (looked up, not imported: this module is part of it)
        return sys.modules["tinyflow"]
    raise AttributeError("module 'tinyflow.compat' has no attribute %r" % name)
