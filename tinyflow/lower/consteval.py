"""An op's value on values known while tracing or folding (constants, shape computations).

By the op's numpy rule where it has one (OpDef.numpy: no XLA program at all). Otherwise its JAX rule
runs as ONE jitted program per op type, attrs and input shapes, kept in a cache across fetch sets,
graphs and sessions: run eagerly (`jax.ensure_compile_time_eval`), each jnp call of a rule is an XLA
program of its own, compiled for every new shape (one test file compiled 1,578 of them, 30 s of
its 65; a CTC loss 37 per call, an SVD's gradient 27). The value is what the same rule computes
inside a jitted step on fed inputs, fused the same way, rather than primitive by primitive.

A rule that needs some input as a concrete value (a shape, a size: `ints(x)`) is jitted again with
its small integer inputs as static arguments (one program per value, as JAX's eager primitives did);
a rule that still needs concrete values (strings, a shape read from data) runs eagerly, as before,
and its op type and attrs are remembered so (docs/speed.md, "consteval").
"""
import collections
import contextlib

import jax
import numpy as np

from tinyflow.graph.dtypes import DType
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.conv_ops import EIGEN_CONVOLUTIONS

try:   # jax >= 0.8: ensure_compile_time_eval runs every primitive of constants eagerly, even inside a
    # jit's trace or lowering; a jitted rule is run by the eval trace instead, its constants staged
    from jax._src.config import eager_constant_folding
    from jax._src.core import eval_context

    @contextlib.contextmanager
    def _evaluated():
        with eval_context(), eager_constant_folding(False):
            yield
except ImportError:   # older jax: ensure_compile_time_eval is the eval trace, which a jit traces under
    _evaluated = contextlib.nullcontext

STATIC_INTS = 64    # an integer or bool input of at most this many elements may be a static argument
_SIZE = 2048        # jitted rules kept (least recently used dropped): a long process with many graphs
_RULES = collections.OrderedDict()   # (rule, frozen attrs) -> _Rule


def numpy_value(opdef, check, attrs, args):
    """A value known while tracing by the op's numpy rule (OpDef.numpy; for its check: holds), or None."""
    try:
        with np.errstate(all="ignore"):
            out = opdef.numpy(attrs, *[np.asarray(a) for a in args]) if opdef.numpy else None
    except Exception:   # noqa: BLE001 (values the op refuses: its own rule says why, in its words)
        out = None
    return out if out is None or not check else (np.True_,)


def value(opdef, rule, attrs, args, check=False):
    """`rule(attrs, *args)` on concrete args: numpy rule, else one cached jitted program, else eager."""
    out = numpy_value(opdef, check, attrs, args)
    if out is not None:
        return out
    with jax.ensure_compile_time_eval():
        return jitted_value(rule, attrs, args)


def jitted_value(rule, attrs, args, modes=None):
    """rule(attrs, *args) through the cached jitted rule (under ensure_compile_time_eval when tracing).
    modes: how many of _STATIC_ARGS to try (1: never a program per value, for a step that runs again
    and again on new values: a dynamic op between a fetch set's jitted segments)."""
    entry = _entry(rule, attrs)
    if entry is None or entry.mode == _EAGER or any(_opaque(a) for a in args):   # (Shape of a traced value)
        return rule(attrs, *args)
    for mode in range(entry.mode, modes or len(_STATIC_ARGS)):
        static = tuple(i for i, a in enumerate(args) if _STATIC_ARGS[mode](a))
        if mode and not static:
            continue
        try:
            out = entry.call(static, args)
        except Exception:   # noqa: BLE001 (the rule needs a concrete value: the next mode, or eagerly below)
            continue
        entry.mode = mode   # the first way that works, tried first from now on
        return out
    out = rule(attrs, *args)   # raises the rule's own error for values it refuses
    if not entry.worked:   # never jitted: a shape read from data, a value checked in Python
        entry.mode = _EAGER
    return out


class _Rule:
    """One rule with fixed attrs, jitted; mode: the first of _STATIC_ARGS to try, or _EAGER."""

    def __init__(self, rule, attrs):
        self.rule, self.attrs, self.mode, self.worked = rule, attrs, 0, False
        self._jitted = {}   # (positions of the static inputs, _context()) -> jax.jit
        self._jit = {}      # (static positions, arguments' signature) -> whether to run it jitted

    def _apply(self, *xs):
        return self.rule(self.attrs, *[x.value if isinstance(x, _Static) else x for x in xs])

    def call(self, small, args):
        """The rule jitted with the inputs at `small` static; eagerly when it is one primitive or none
        (a Const, a Reshape: JAX's eager cache of primitives shares those across op types)."""
        context = _context()
        f = self._jitted.get((small, context))
        if f is None:   # (a jit per context: JAX's own cache does not tell XLA's optimization settings apart)
            f = self._jitted[small, context] = jax.jit(self._apply, static_argnums=small)
        args = [_Static(a) if i in small else a for i, a in enumerate(args)]
        key = (small, context, tuple(a if i in small else _aval(a) for i, a in enumerate(args)))
        with _evaluated():   # run now (inside a trace too), its constants staged in its program
            jit = self._jit.get(key)
            if jit is None:
                jit = self._jit[key] = len(f.trace(*args).jaxpr.eqns) > 0
            if jit:
                out = f(*args)
                self.worked = True
                return out
        return self.rule(self.attrs, *[x.value if isinstance(x, _Static) else x for x in args])


def _entry(rule, attrs):
    """The cached _Rule of (rule, attrs), or None: attrs jit cannot key on (a function, a big array)."""
    try:
        key = (rule, _freeze(attrs))
        hash(key)
    except TypeError:
        return None
    entry = _RULES.get(key)
    if entry is None:
        entry = _RULES[key] = _Rule(rule, attrs)
        if len(_RULES) > _SIZE:
            _RULES.popitem(last=False)
    else:
        _RULES.move_to_end(key)
    return entry


def _freeze(v):
    """A hashable form of an attr value that tells apart what the rule could (1, 1.0 and True; 0.0 and
    -0.0), or TypeError: only plain values, so the cache never keeps a graph alive (a body, an op)."""
    if isinstance(v, dict):
        return ("dict",) + tuple(sorted((k, _freeze(x)) for k, x in v.items()))
    if isinstance(v, (list, tuple)):
        return (type(v).__name__,) + tuple(_freeze(x) for x in v)
    if isinstance(v, float):
        return ("float", v.hex())
    if isinstance(v, (np.ndarray, np.generic)) and v.dtype != object and v.size <= STATIC_INTS:
        return ("array", v.dtype.str, v.shape, v.tobytes())
    if isinstance(v, (DType, TensorShape, np.dtype, type)):
        return (type(v), repr(v))
    if v is None or isinstance(v, (bool, int, str, bytes)):
        return (type(v), v)
    raise TypeError("an attr jit cannot key on")


def _context():
    """What a rule's program depends on besides its arguments: how convolutions run, JAX's matmul
    precision, XLA's optimizations (the test suite turns most off; a test may turn them on again)."""
    return (EIGEN_CONVOLUTIONS.get(), jax.config.jax_default_matmul_precision,
            jax.config.read("jax_disable_most_optimizations"))


def _aval(a):
    if isinstance(a, jax.Array):
        return a.shape, a.dtype, a.weak_type
    if isinstance(a, (np.ndarray, np.generic)):
        return a.shape, a.dtype
    return (type(a),)   # a Python number: weakly typed


def _small_int(a):
    return isinstance(a, (np.ndarray, np.generic, int, jax.Array)) and np.dtype(a.dtype if hasattr(a, "dtype")
                                                                             else type(a)).kind in "iub" \
        and np.size(a) <= STATIC_INTS


# which inputs a mode passes as static arguments: none; the integer scalars (a size, an axis, a count);
# every small integer or bool array (a shape, indices a rule reads in Python)
_STATIC_ARGS = (lambda a: False, lambda a: _small_int(a) and np.ndim(a) == 0, _small_int)
_EAGER = len(_STATIC_ARGS)


def _opaque(a):
    """A value jit cannot take as an argument (strings, objects), or a traced one: the rule runs eagerly."""
    if isinstance(a, jax.core.Tracer):
        return True
    try:
        return np.asarray(a).dtype.kind in "OSU" if not isinstance(a, jax.Array) else False
    except Exception:   # noqa: BLE001
        return True


class _Static:
    """A small integer array as a static argument of jit: hashed by its bytes, handed to the rule as numpy."""

    def __init__(self, a):
        self.value = np.asarray(a)
        self._key = (self.value.dtype.str, self.value.shape, self.value.tobytes())

    def __hash__(self):
        return hash(self._key)

    def __eq__(self, other):
        return isinstance(other, _Static) and self._key == other._key
