"""tf.function and tf.autograph in graph mode (TF 1.15's names).

tf.function: TF traces the Python function once per input signature into a function graph and adds a
call op to the caller's graph. tinyflow builds the function's ops directly in the caller's graph at each
call (what calling a concrete function does to the graph's values, without the call op): the results are
the same tensors' values; the Python body runs at each call, not once per signature. `input_signature` is
checked as TF checks it (ValueError naming the inputs and the signature).

tf.autograph: tinyflow does NOT convert Python control flow. to_graph returns a function that runs the
original; if it uses a Tensor as a Python bool (`if t:`, `while t:`, `for ... in range(t)` over a tensor),
it raises a TypeError saying to write tf.cond / tf.while_loop instead. Functions whose control flow
depends only on Python values run unchanged (that is all autograph would do to them). to_code returns
the function's source unconverted. do_not_convert returns the function; Feature is TF's enum.
"""
import enum
import functools
import inspect
import textwrap

from tinyflow.graph.core import Tensor
from tinyflow.graph import shapes
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.api.aliases import TensorSpec

_AUTOGRAPH_ADVICE = ("tinyflow's autograph does not convert Python control flow over tensors (`if`/`while`/`for` "
                     "on a Tensor in %s): write it with tf.cond / tf.while_loop / tf.map_fn")


def _spec_text(values):
    return "(\n    " + ",\n    ".join(repr(v) for v in values) + ")"


class ConcreteFunction:
    """The function for one input signature: calling it builds its ops in the current graph."""

    def __init__(self, function, input_signature):
        self._function = function
        self.structured_input_signature = (tuple(input_signature or ()), {})

    def __call__(self, *args, **kwargs):
        return self._function(*args, **kwargs)

    @property
    def python_function(self):
        return self._function._python_function


class Function:
    """What tf.function returns: a callable checking its input_signature, building the body per call."""

    def __init__(self, python_function, input_signature=None, autograph=True):
        self._python_function = python_function
        self.input_signature = None if input_signature is None else tuple(input_signature)
        self._autograph = autograph
        functools.update_wrapper(self, python_function)

    python_function = property(lambda self: self._python_function)

    def _check(self, args, kwargs):
        if self.input_signature is None:
            return args, kwargs
        if len(args) + len(kwargs) > len(self.input_signature):
            raise TypeError("When input_signature is provided, only pass arguments covered by it. Received %d "
                            "argument(s)." % (len(args) + len(kwargs)))
        names = list(inspect.signature(self._python_function).parameters)
        values = list(args) + [kwargs[n] for n in names[len(args):len(self.input_signature)] if n in kwargs]
        tensors = []
        for value, spec in zip(values, self.input_signature):
            if not isinstance(value, Tensor):
                try:
                    value = convert_to_tensor(value, dtype=spec.dtype)
                except (TypeError, ValueError):
                    value = None
            if value is None or not (value.dtype == spec.dtype and
                                     shapes.as_shape(spec.shape).is_compatible_with(value.shape)):
                raise ValueError("Python inputs incompatible with input_signature:\n  inputs: %s\n  "
                                 "input_signature: %s" % (_spec_text(values), _spec_text(self.input_signature)))
            tensors.append(value)
        return tuple(tensors), {}

    def __call__(self, *args, **kwargs):
        args, kwargs = self._check(args, kwargs) if self.input_signature is not None else (args, kwargs)
        return _run(self._python_function, args, kwargs)

    def get_concrete_function(self, *args, **kwargs):
        """A ConcreteFunction for the input_signature (or for these arguments' specs)."""
        signature = self.input_signature
        if signature is None:
            signature = [TensorSpec.from_tensor(a) if isinstance(a, Tensor) else a for a in args]
        return ConcreteFunction(self, signature)

    def __get__(self, instance, owner):   # a decorated method: bind it
        if instance is None:
            return self
        return Function(self._python_function.__get__(instance, owner), self.input_signature, self._autograph)


def _run(fn, args, kwargs):
    try:
        return fn(*args, **kwargs)
    except TypeError as e:
        if "as a Python `bool`" in str(e):
            raise TypeError(_AUTOGRAPH_ADVICE % getattr(fn, "__qualname__", fn)) from e
        raise


def function(func=None, input_signature=None, autograph=True, experimental_autograph_options=None,
             experimental_relax_shapes=False, experimental_compile=None):
    """tf.function: see the module docstring for what it does in tinyflow's graph mode."""
    if func is None:
        return lambda f: Function(f, input_signature, autograph)
    return Function(func, input_signature, autograph)


class Feature(enum.Enum):
    """tf.autograph.experimental.Feature (accepted; tinyflow converts nothing)."""
    ALL = "ALL"
    AUTO_CONTROL_DEPS = "AUTO_CONTROL_DEPS"
    ASSERT_STATEMENTS = "ASSERT_STATEMENTS"
    BUILTIN_FUNCTIONS = "BUILTIN_FUNCTIONS"
    EQUALITY_OPERATORS = "EQUALITY_OPERATORS"
    LISTS = "LISTS"
    NAME_SCOPES = "NAME_SCOPES"


def do_not_convert(func=None, run_as=None, return_dtypes=None):
    """Marks a function as not to be converted: it is returned as it is."""
    if func is None:
        return lambda f: f
    return func


def to_graph(entity, recursive=True, arg_values=None, arg_types=None, experimental_optional_features=None):
    """The function, run as written; a Tensor used as a Python bool raises a TypeError naming tf.cond."""
    if not callable(entity):
        raise ValueError("Expected a function, method or class, got %r" % (entity,))
    if inspect.isclass(entity):
        return entity

    @functools.wraps(entity)
    def converted(*args, **kwargs):
        return _run(entity, args, kwargs)
    return converted


def to_code(entity, recursive=True, arg_values=None, arg_types=None, indentation="  ",
            experimental_optional_features=None):
    """The function's source, unconverted (tinyflow does no autograph conversion)."""
    return textwrap.dedent(inspect.getsource(entity))


def set_verbosity(level, alsologtostdout=False):
    """Autograph's logging level (nothing to log: no conversion happens)."""


def trace(*args):
    """tf.autograph.trace: prints its arguments."""
    print(*args)


def set_loop_options(parallel_iterations=None, back_prop=None, swap_memory=None, maximum_iterations=None,
                     shape_invariants=None):
    """Options for the tf.while_loop autograph makes of the enclosing loop. TF 1.15's function does nothing
    when called (autograph reads the call in the source); tinyflow's loops take no such options."""


class _Experimental:
    Feature = Feature
    do_not_convert = staticmethod(do_not_convert)
    set_loop_options = staticmethod(set_loop_options)


class _Autograph:
    """The tf.autograph namespace."""
    to_graph = staticmethod(to_graph)
    to_code = staticmethod(to_code)
    do_not_convert = staticmethod(do_not_convert)
    set_verbosity = staticmethod(set_verbosity)
    trace = staticmethod(trace)
    experimental = _Experimental


autograph = _Autograph()
