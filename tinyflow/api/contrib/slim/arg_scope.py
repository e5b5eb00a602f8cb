"""slim's arg_scope: default keyword arguments for the functions decorated by add_arg_scope, set for
a `with` block (TF 1.15's tf.contrib.framework.arg_scope, same semantics and errors).

Scopes nest: an inner arg_scope starts from a copy of the outer one and updates the arguments of the
ops it lists; an explicit keyword at the call always wins. A scope (the dict `arg_scope` yields) can
be re-entered later with `with arg_scope(saved_scope):`.
"""
import contextlib
import functools

_ARGSTACK = [{}]
_DECORATED_OPS = {}


def current_arg_scope():
    """The innermost scope: {op key: {argument: value}}."""
    return _ARGSTACK[-1]


def arg_scope_func_key(op):
    return getattr(op, "_key_op", str(op))


def _name_op(op):
    return (op.__module__, op.__name__)


def _kwarg_names(func):
    # the arguments with a default value, in order
    n = len(func.__defaults__) if func.__defaults__ else 0
    argcount = func.__code__.co_argcount
    return func.__code__.co_varnames[argcount - n:argcount]


@contextlib.contextmanager
def arg_scope(list_ops_or_scope, **kwargs):
    """Sets kwargs as the default arguments of every op of `list_ops_or_scope` (a list or tuple of
    add_arg_scope-decorated functions), or re-enters a scope dict that an earlier arg_scope yielded."""
    if isinstance(list_ops_or_scope, dict):
        if kwargs:
            raise ValueError("When attempting to re-use a scope by suppling a"  # TF's message, as it is
                             "dictionary, kwargs must be empty.")
        current_scope = list_ops_or_scope.copy()
    else:
        if not isinstance(list_ops_or_scope, (list, tuple)):
            raise TypeError("list_ops_or_scope must either be a list/tuple or reused scope (i.e. dict)")
        current_scope = current_arg_scope().copy()
        for op in list_ops_or_scope:
            key = arg_scope_func_key(op)
            if not has_arg_scope(op):
                raise ValueError("%s is not decorated with @add_arg_scope", _name_op(op))  # TF's (unformatted)
            merged = dict(current_scope.get(key, {}))
            merged.update(kwargs)
            current_scope[key] = merged
    _ARGSTACK.append(current_scope)
    try:
        yield current_scope
    finally:
        _ARGSTACK.pop()


def add_arg_scope(func):
    """Decorates `func` so that arg_scope can supply its keyword arguments."""
    key = arg_scope_func_key(func)

    @functools.wraps(func)
    def func_with_args(*args, **kwargs):
        scope = current_arg_scope()
        if key in scope:
            defaults = dict(scope[key])
            defaults.update(kwargs)
            kwargs = defaults
        return func(*args, **kwargs)

    _DECORATED_OPS[key] = _kwarg_names(func)
    func_with_args._key_op = key
    return func_with_args


def has_arg_scope(func):
    """Whether `func` is decorated by add_arg_scope."""
    return arg_scope_func_key(func) in _DECORATED_OPS


def arg_scoped_arguments(func):
    """The names of the arguments arg_scope can set for `func`."""
    assert has_arg_scope(func)
    return _DECORATED_OPS[arg_scope_func_key(func)]
