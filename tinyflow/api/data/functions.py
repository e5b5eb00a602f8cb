"""A map/filter function of a dataset: traced once into its own graph, run on the host per element.

As in TF, `map_func` gets the element's tensors (a tuple element unpacked into arguments) and
returns tensors built from tf ops. It is traced once into a FuncGraph (the graph tf.cond bodies
use): placeholders of the element's dtypes and shapes are its arguments, and tensors of the outer
graph it uses are captured (constants copied; others become placeholders whose values the
iterator's initializer fetches, so a map may read a fed placeholder or a variable). Each element is
then one `Session.run` of that small graph: one cached jitted function, so tracing, shape
inference and compilation happen once per pipeline. A function whose output shapes depend on
values (`tf.fill([n], n)`) cannot be jitted: it falls back to its generated code run eagerly.

A Python function that cannot take tensors (it calls numpy on its arguments) falls back to being
called on numpy values; its output dtypes come from a probe call on zeros, its shapes keep only
what the probe can tell (see `_PyFunction`).
"""
import itertools
import warnings

import jax
import numpy as np

from tinyflow.graph import errors
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import Graph, Operation, Tensor, get_default_graph
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.graph.func_graph import FuncGraph
from tinyflow.ops.random_ops import run_key, run_keys
from tinyflow.api.data import structure as nest


_CHUNK = 128  # elements per call of a vmapped map function


def _call(fn, element):
    """TF's convention: a (plain) tuple element is unpacked into arguments; anything else is one."""
    return fn(*element) if type(element) is tuple else fn(element)


def _lists_to_tuples(x):
    if isinstance(x, list):
        return tuple(_lists_to_tuples(v) for v in x)
    if isinstance(x, tuple) and not hasattr(x, "_fields"):
        return tuple(_lists_to_tuples(v) for v in x)
    if isinstance(x, dict):
        return type(x)((k, _lists_to_tuples(v)) for k, v in x.items())
    return x


def trace(fn, types, shapes, name):
    """The function `fn` over elements of (nested) `types` / `shapes`: a traced graph, or a Python
    fallback when `fn` cannot take tensors."""
    try:
        return _TracedFunction(fn, types, shapes, name)
    except _NotTensorFunction as e:
        return _PyFunction(fn, types, shapes, e.cause)


class _NotTensorFunction(Exception):
    def __init__(self, cause):
        super().__init__(str(cause))
        self.cause = cause


class _TracedFunction:
    """`fn` traced into a FuncGraph; `out_types` / `out_shapes` describe what it returns."""

    def __init__(self, fn, types, shapes, name):
        self._graph = g = FuncGraph(get_default_graph(), name)
        with g.as_default():
            self._args = [g.create_op("Placeholder", [], {"dtype": d, "shape": s}, name="arg%d" % i).outputs[0]
                          for i, (d, s) in enumerate(zip(nest.flatten(types), nest.flatten(shapes)))]
            try:
                result = _call(fn, nest.pack_as(types, self._args))
            except (TypeError, ValueError, AttributeError, NotImplementedError) as e:  # numpy code given tensors?
                raise _NotTensorFunction(e) from e
            result = _lists_to_tuples(result)
            leaves = nest.flatten(result)
            if any(isinstance(x, np.ndarray) and x.dtype == object for x in leaves):
                raise _NotTensorFunction(TypeError("the function returned numpy objects holding tensors"))
            for x in leaves:
                if isinstance(x, Operation):
                    raise TypeError("The map/filter function of a dataset must return tensors, not the "
                                    "operation '%s'." % x.name)
            self._outputs = [x if isinstance(x, Tensor) and x.graph is g else
                             g.capture(x) if isinstance(x, Tensor) else convert_to_tensor(x) for x in leaves]
        self.out_types = nest.pack_as(result, [t.dtype for t in self._outputs])
        self.out_shapes = nest.pack_as(result, [t.shape for t in self._outputs])
        self._session = None
        self._eager = False   # set when the traced graph cannot be jitted
        self._counter = 0     # random ops in an eager function draw anew per element
        self._vmapped = None  # call_many's jitted, vmapped function; False: not possible

    def sources(self):
        """The outer tensors the function captured: their values come from the initializer's run."""
        return [outer for outer, _ in self._graph.captures]

    def __call__(self, flat, run):
        """The function's flat outputs (numpy) for one element `flat` (numpy)."""
        if self._session is None:
            from tinyflow.runtime.session import Session  # the client layer, only when a pipeline runs
            self._session = Session(graph=self._graph)
        self._session._resource_owner = run.session   # lookup tables are the iterating Session's
        feed = dict(zip(self._args, flat))
        feed.update((inner, run.values[outer]) for outer, inner in self._graph.captures)
        if not self._eager:
            try:
                return self._session.run(self._outputs, feed)
            except errors.InvalidArgumentError as e:
                if not isinstance(e.__cause__, jax.errors.JAXTypeError):
                    raise
                self._eager = True  # a shape that depends on a value (tf.fill([n], x)): no jit
        return self._run_eagerly(feed)

    def call_many(self, elements, run):
        """The outputs for many elements (flat tuples of numpy): one call of the function vmapped over
        the stacked elements when they have equal shapes (per-element results are the same: vmap
        maps the function over the batch, it does not make a batch-level function), else one by one."""
        if self._graph._host_stage:
            self._vmapped = False  # strings run on the host (runtime/host_stage.py): element by element
        if self._vmapped is not False and len({tuple(np.shape(c) for c in e) for e in elements}) == 1:
            try:
                return self._call_vmapped(elements, run)
            except errors.InvalidArgumentError as e:
                if not isinstance(e.__cause__, jax.errors.JAXTypeError):
                    raise
                self._vmapped = False  # value-dependent shapes: element by element, eagerly
        return (self(e, run) for e in elements)  # lazily: an error (tf.Assert) comes with its element

    def _call_vmapped(self, elements, run):
        if self._vmapped is None:
            first = self(elements[0], run)  # makes the session; fails here (not under vmap) on a bad function
            feeds = self._args + [inner for _, inner in self._graph.captures]
            if self._eager or self._session.compiled(self._outputs, [], feeds).checks:
                # value-dependent shapes, or a run-time check (tf.Assert) that must raise with its element
                self._vmapped = False
                return itertools.chain([first], (self(e, run) for e in elements[1:]))
            low = self._session.compiled(self._outputs, [], feeds)

            def one(args, captured, key):
                return low.fn((), (), tuple(args) + tuple(captured), key)[1]
            self._needs_key = low.needs_key
            self._vmapped = jax.jit(jax.vmap(one, in_axes=(0, None, 0 if low.needs_key else None)))
        n = len(elements)
        pad = [elements[-1]] * (_CHUNK - n) if n < _CHUNK else []  # one shape per chunk: one compile
        args = [np.stack([e[i] for e in elements + pad]).astype(t.dtype.np, copy=False)
                for i, t in enumerate(self._args)]
        captured = [run.values[outer] for outer, _ in self._graph.captures]
        keys = None
        if self._needs_key:
            keys = run_keys(np.arange(self._counter + 1, self._counter + 1 + len(args[0])))
            self._counter += len(args[0])
        outs = [np.asarray(o, t.dtype.np) for o, t in zip(self._vmapped(args, captured, keys), self._outputs)]
        return [[o[i] for o in outs] for i in range(n)]

    def _run_eagerly(self, feed):
        """The function's generated code called without jit, so every value is concrete."""
        low = self._session.compiled(self._outputs, [], list(feed))
        self._counter += 1
        _, outs = low.fn((), (), tuple(np.asarray(v, t.dtype.np) for t, v in feed.items()),
                         run_key(self._counter) if low.needs_key else None)
        return [np.asarray(o, t.dtype.np) for o, t in zip(outs, self._outputs)]


class _PyFunction:
    """A numpy function: called on numpy values. Its output dtypes (TF's for numpy's) come from a
    probe call on zeros of the element's shapes; the probe gives its output shapes too when the
    element's shapes are fully known, else only their ranks."""

    def __init__(self, fn, types, shapes, cause):
        self._fn, self._types = fn, types
        flat_types, flat_shapes = nest.flatten(types), nest.flatten(shapes)
        zeros = [np.zeros([1 if d is None else d for d in (s.as_list() if s.ndims is not None else [])], d.np)
                 for d, s in zip(flat_types, flat_shapes)]
        try:  # in a throwaway graph: tf ops a failing TF function makes on numpy must not land in the user's
            with np.errstate(all="ignore"), warnings.catch_warnings(), Graph().as_default():
                warnings.simplefilter("ignore")
                result = _lists_to_tuples(_call(fn, nest.pack_as(types, zeros)))
            probe = [np.asarray(x) for x in nest.flatten(result)]
            if any(a.dtype == object for a in probe):
                raise TypeError("not a numpy function")
        except Exception:
            raise cause from None  # neither a TF function nor a numpy one: the tracing error says why
        exact = all(s.is_fully_defined() for s in flat_shapes)
        self.out_types = nest.pack_as(result, [dt.as_dtype(a.dtype) for a in probe])
        self.out_shapes = nest.pack_as(result, [TensorShape(a.shape if exact else [None] * a.ndim) for a in probe])
        self._out_template = result

    def sources(self):
        return []

    def call_many(self, elements, run):
        return (self(e, run) for e in elements)

    def __call__(self, flat, run):
        result = _lists_to_tuples(_call(self._fn, nest.pack_as(self._types, flat)))
        return [np.asarray(x, d.np) for x, d in zip(nest.flatten_up_to(self._out_template, result),
                                                     nest.flatten(self.out_types))]


def trace_dataset(fn, types, shapes, name):
    """The `map_func` of interleave / flat_map: traced once, like a map function, into a graph where
    it returns a Dataset (whose arguments may be tensors of that graph: the element itself, or ops on it)."""
    return _DatasetFunction(fn, types, shapes, name)


class _DatasetFunction:
    """`fn(element) -> Dataset`, traced: `dataset` describes what each element's dataset yields; for one
    element, `iterate` computes the graph tensors that dataset reads (one Session.run of the traced graph
    when any is computed from the element, as `tf.strings.join([dir, name])`) and iterates it."""

    def __init__(self, fn, types, shapes, name):
        self._graph = g = FuncGraph(get_default_graph(), name)
        with g.as_default():
            self._args = [g.create_op("Placeholder", [], {"dtype": d, "shape": s}, name="arg%d" % i).outputs[0]
                          for i, (d, s) in enumerate(zip(nest.flatten(types), nest.flatten(shapes)))]
            result = _call(fn, nest.pack_as(types, self._args))
        if not hasattr(result, "_iterate") or not hasattr(result, "_sources"):
            raise TypeError("`map_func` must return a `Dataset` object. Got %s" % type(result))
        self.dataset = result
        needed = result._sources()
        self._outer = [t for t in needed if t.graph is not g]   # tensors of the enclosing graph, read as they are
        self._inner = [t for t in needed if t.graph is g]
        self._session = None

    def sources(self):
        """The outer tensors the function reads: their values come from the initializer's run."""
        return list(dict.fromkeys([outer for outer, _ in self._graph.captures] + self._outer))

    def iterate(self, flat, run, extra=None):
        """The elements (flat tuples of numpy) of the dataset `fn` returns for element `flat` (`extra`:
        more values its datasets read, such as a group_by_window window's elements)."""
        feed = dict(zip(self._args, flat))
        feed.update((inner, run.values[outer]) for outer, inner in self._graph.captures)
        values = {t: run.values[t] for t in self._outer}
        computed = [t for t in self._inner if t not in feed]
        values.update((t, feed[t]) for t in self._inner if t in feed)
        if computed:
            if self._session is None:
                from tinyflow.runtime.session import Session  # the client layer, only when a pipeline runs
                self._session = Session(graph=self._graph)
            self._session._resource_owner = run.session
            values.update(zip(computed, self._session.run(computed, feed)))
        values.update(extra or {})
        return self.dataset._iterate(type(run)(values, run.session))
