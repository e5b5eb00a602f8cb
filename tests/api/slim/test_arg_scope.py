"""slim.arg_scope / add_arg_scope against TF 1.15 (tests/fixtures/slim/arg_scope_oracle.py printed
the values asserted here)."""
import pytest

import tinyflow.api.contrib.framework as framework
import tinyflow.api.contrib.slim as slim
from tinyflow.api.contrib.slim import add_arg_scope, arg_scope, arg_scoped_arguments, current_arg_scope


@add_arg_scope
def f(a, b=1, c=2, d=3):
    return (a, b, c, d)


@add_arg_scope
def g(x, c=0):
    return (x, c)


def plain(a, b=1):
    return (a, b)


def test_nested_scopes_and_explicit_arguments():
    with arg_scope([f], b=10, c=20):
        assert f(0) == (0, 10, 20, 3)
        with arg_scope([f, g], c=30) as sc:
            assert (f(0), g(0), f(0, c=5)) == ((0, 10, 30, 3), (0, 30), (0, 10, 5, 3))
        assert f(0) == (0, 10, 20, 3)
    assert f(0) == (0, 1, 2, 3)
    with arg_scope(sc):
        assert (f(0), g(1)) == ((0, 10, 30, 3), (1, 30))
    assert current_arg_scope() == {}


def test_arguments_and_names():
    assert arg_scoped_arguments(f) == ("b", "c", "d")
    assert f.__name__ == "f"
    assert slim.conv2d is slim.convolution2d and slim.conv2d.__name__ == "convolution2d"
    assert framework.arg_scope is slim.arg_scope and framework.add_arg_scope is add_arg_scope


def test_errors_are_tf_s():
    with pytest.raises(ValueError) as e:
        with arg_scope([plain], b=2):
            pass
    assert str(e.value) == "('%s is not decorated with @add_arg_scope', ('" + __name__ + "', 'plain'))"
    with pytest.raises(TypeError, match="list_ops_or_scope must either be a list/tuple or reused scope"):
        with arg_scope(f, b=2):
            pass
    with pytest.raises(ValueError, match="kwargs must be empty"):
        with arg_scope({}, b=2):
            pass
    assert current_arg_scope() == {}


def test_scope_survives_an_exception():
    with pytest.raises(RuntimeError):
        with arg_scope([f], b=7):
            raise RuntimeError("boom")
    assert f(0) == (0, 1, 2, 3)
