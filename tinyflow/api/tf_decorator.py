"""tf_decorator (TF 1.15's tensorflow.python.util.tf_decorator, reached as tf.flags.tf_decorator): decorators
that keep their target's name, docs and argument spec visible (make_decorator, unwrap, rewrap)."""
from __future__ import absolute_import, division, print_function  # noqa: F401 (names of TF's module)

import inspect

from tinyflow.api import tf_stack


def make_decorator(target, decorator_func, decorator_name=None, decorator_doc="", decorator_argspec=None):
    """decorator_func made to look like `target` (name, module, docs, __wrapped__), its TFDecorator attached."""
    if decorator_name is None:
        decorator_name = tf_stack.extract_stack(limit=2)[0].name
    decorator = TFDecorator(decorator_name, target, decorator_doc, decorator_argspec)
    decorator_func._tf_decorator = decorator
    for attr in ("__name__", "__qualname__", "__module__"):
        if hasattr(target, attr):
            setattr(decorator_func, attr, getattr(target, attr))
    if hasattr(target, "__dict__"):
        for name in target.__dict__:
            if name not in decorator_func.__dict__:
                decorator_func.__dict__[name] = target.__dict__[name]
    if hasattr(target, "__doc__"):
        decorator_func.__doc__ = decorator.__doc__
    decorator_func.__wrapped__ = decorator_func.__original_wrapped__ = target
    return decorator_func


def _has_tf_decorator_attr(obj):
    return isinstance(getattr(obj, "_tf_decorator", None), TFDecorator)


def rewrap(decorator_func, previous_target, new_target):
    """Replaces previous_target by new_target in decorator_func's chain of decorators."""
    cur, innermost, target = decorator_func, None, None
    while _has_tf_decorator_attr(cur):
        innermost, target = cur, cur._tf_decorator
        if target.decorated_target is previous_target:
            break
        cur = target.decorated_target
    if innermost is None:
        return new_target
    target.decorated_target = new_target
    (innermost.__func__ if inspect.ismethod(innermost) else innermost).__wrapped__ = new_target
    return decorator_func


def unwrap(maybe_tf_decorator):
    """([the TFDecorators from outermost in], the final target)."""
    decorators, cur = [], maybe_tf_decorator
    while True:
        if isinstance(cur, TFDecorator):
            decorators.append(cur)
        elif _has_tf_decorator_attr(cur):
            decorators.append(cur._tf_decorator)
        else:
            break
        if not hasattr(decorators[-1], "decorated_target"):
            break
        cur = decorators[-1].decorated_target
    return decorators, cur


class TFDecorator:
    """What a decorator wraps, under the decorator's name and docs."""

    def __init__(self, decorator_name, target, decorator_doc="", decorator_argspec=None):
        self._decorated_target, self._decorator_name = target, decorator_name
        self._decorator_doc, self._decorator_argspec = decorator_doc, decorator_argspec
        if hasattr(target, "__name__"):
            self.__name__ = target.__name__
        if hasattr(target, "__qualname__"):
            self.__qualname__ = target.__qualname__
        self.__doc__ = self._decorator_doc or getattr(target, "__doc__", None) or ""

    def __get__(self, instance, owner):
        return self._decorated_target.__get__(instance, owner)

    def __call__(self, *args, **kwargs):
        return self._decorated_target(*args, **kwargs)

    @property
    def decorated_target(self):
        return self._decorated_target

    @decorated_target.setter
    def decorated_target(self, decorated_target):
        self._decorated_target = decorated_target

    decorator_name = property(lambda self: self._decorator_name)
    decorator_doc = property(lambda self: self._decorator_doc)
    decorator_argspec = property(lambda self: self._decorator_argspec)
