"""tf.make_template: a function whose variables are made on its first call and shared by later ones."""
from tinyflow.graph.core import get_default_graph
from tinyflow.ops import variable_scope as vs

__all__ = ["make_template"]


class Template:
    """Calls func_ inside one variable scope: the first call creates the variables ("name/w"), every
    later call reuses them (a Template built before a call gets its scope then)."""

    def __init__(self, name, func, create_scope_now=False, unique_name=None, **kwargs):
        self._name, self._func, self._kwargs = name, func, kwargs
        self._unique_name = unique_name
        self._scope = None
        self._variables_created = False
        if create_scope_now:
            self._make_scope()

    def _make_scope(self):
        with vs.variable_scope(self._unique_name, default_name=self._name) as scope:
            self._scope = scope

    def __call__(self, *args, **kwargs):
        if self._scope is None:
            self._make_scope()
        with vs.variable_scope(self._scope, reuse=True if self._variables_created else None):
            collection = get_default_graph().get_collection("trainable_variables")
            before = len(collection)
            out = self._func(*args, **dict(self._kwargs, **kwargs))
            if self._variables_created and len(get_default_graph().get_collection("trainable_variables")) > before:
                raise ValueError("Trainable variable created when calling a template after the first time, perhaps "
                                 "you used tf.Variable when you meant tf.get_variable")
        self._variables_created = True
        return out

    name = property(lambda self: self._name)
    variable_scope = property(lambda self: self._scope)
    variable_scope_name = property(lambda self: self._scope.name if self._scope else None)


def make_template(name_, func_, create_scope_now_=False, unique_name_=None, custom_getter_=None, **kwargs):
    """A Template: func_ (which makes its variables with tf.get_variable) with its variables shared."""
    return Template(name_, func_, create_scope_now_, unique_name_, **kwargs)
