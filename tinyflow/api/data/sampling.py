"""More of tf.data.experimental (TF 1.15): ignore_errors, take_while, sample_from_datasets,
rejection_resample, group_by_reducer (Reducer), RandomDataset, SqlDataset (sqlite), cardinality; each a
host-side generator over its input's elements, as the rest of tinyflow's tf.data."""
import numpy as np

from tinyflow.api.data import functions
from tinyflow.api.data import structure as nest
from tinyflow.api.data.dataset_ops import Dataset, arg
from tinyflow.graph import dtypes as dt
from tinyflow.graph import errors
from tinyflow.graph.core import Tensor
from tinyflow.graph.shapes import TensorShape

INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2


class _Generated(Dataset):
    """A dataset whose elements `step(run)` yields (as flat tuples)."""

    def __init__(self, types, shapes, step, inputs=(), args=()):
        self._step = step
        super().__init__(types, shapes, inputs, args)

    def _iterate(self, run):
        return self._step(run)


def _without_errors(ds, run):
    """ds's elements, those whose computation raised InvalidArgumentError left out: a map's function runs
    element by element so that one bad element does not end its input (a generator that raised is over)."""
    from tinyflow.api.data.dataset_ops import Map
    if isinstance(ds, Map):
        for e in _without_errors(ds._inputs[0], run):
            try:
                yield tuple(ds._fn(e, run))
            except errors.InvalidArgumentError:
                continue
        return
    elements = ds._iterate(run)
    while True:
        try:
            yield next(elements)
        except StopIteration:
            return
        except errors.InvalidArgumentError:   # the input cannot go on after this: what it gave is kept
            return


def ignore_errors():
    """The elements whose computation did not raise InvalidArgumentError (TF's ignore_errors)."""
    return lambda ds: _Generated(ds._types, ds._shapes, lambda run: _without_errors(ds, run), [ds])


def take_while(predicate):
    """The elements up to the first for which `predicate` (a scalar bool function) is False."""
    def apply(ds):
        fn = functions.trace(predicate, ds._types, ds._shapes, "take_while")
        out = nest.flatten(fn.out_types)
        if nest.is_nested(fn.out_types) or out[0] != dt.bool_ or nest.flatten(fn.out_shapes)[0].ndims not in (0, None):
            raise ValueError("`predicate` must return a scalar boolean tensor.")

        def step(run):
            for e in ds._iterate(run):
                if not bool(np.asarray(fn(e, run)[0])):
                    return
                yield e
        return _Generated(ds._types, ds._shapes, step, [ds], fn.sources())
    return apply


def _rng(seed):
    from tinyflow.ops.random_ops import get_seed
    graph_seed, op_seed = get_seed(seed)
    return np.random.RandomState(None if graph_seed is None and op_seed is None else
                                 (int(graph_seed or 0) * 1000003 + int(op_seed or 0)) % (2 ** 32))


def sample_from_datasets(datasets, weights=None, seed=None):
    """Elements drawn from `datasets` at random with probabilities `weights` (default: uniform); an exhausted
    dataset is dropped and the others' weights renormalized (TF's DirectedInterleave)."""
    datasets = list(datasets)
    if not datasets:
        raise ValueError("`datasets` must be a non-empty list of datasets.")
    for d in datasets[1:]:
        if d._types != datasets[0]._types:
            raise TypeError("All datasets must have the same type")
    w = arg(np.full(len(datasets), 1.0 / len(datasets)) if weights is None else weights, dt.float32)
    if isinstance(weights, Dataset):
        raise NotImplementedError("tinyflow: sample_from_datasets takes a list or tensor of weights, not a Dataset "
                                  "of them")
    shapes = list(datasets[0]._flat_shapes)
    for d in datasets[1:]:
        shapes = [a.most_specific_compatible_shape(b) for a, b in zip(shapes, d._flat_shapes)]
    state = _rng(seed)

    def step(run):
        probs = np.asarray(run.value(w), np.float64)
        its = [d._iterate(run) for d in datasets]
        live = list(range(len(its)))
        while live:
            p = probs[live] / probs[live].sum()
            i = live[state.choice(len(live), p=p)]
            e = next(its[i], None)
            if e is None:
                live.remove(i)
                continue
            yield e
    return _Generated(datasets[0]._types, nest.pack_as(datasets[0]._types, shapes), step, datasets,
                      [w] if isinstance(w, Tensor) else [])


def rejection_resample(class_func, target_dist, initial_dist=None, seed=None):
    """(class, element) pairs resampled so that the classes follow `target_dist`: an element of class c is
    kept with probability min(1, (target[c] / initial[c]) / max over classes), initial_dist estimated from
    the classes seen so far when not given (TF's scheme)."""
    def apply(ds):
        fn = functions.trace(class_func, ds._types, ds._shapes, "class_func")
        target = arg(target_dist, dt.float32)
        initial = None if initial_dist is None else arg(initial_dist, dt.float32)
        state = _rng(seed)

        def step(run):
            goal = np.asarray(run.value(target), np.float64)
            counts = np.zeros(len(goal))
            for e in ds._iterate(run):
                c = int(np.asarray(fn(e, run)[0]))
                counts[c] += 1
                start = (np.asarray(run.value(initial), np.float64) if initial is not None
                         else counts / counts.sum())
                ratio = np.where(start > 0, goal / np.maximum(start, 1e-12), 0.0)
                accept = ratio / ratio.max() if ratio.max() > 0 else ratio
                if state.rand() < accept[c]:
                    yield (np.asarray(c, np.int64),) + tuple(e)
        sources = fn.sources() + [t for t in (target, initial) if isinstance(t, Tensor)]
        return _Generated((dt.int64, ds._types), (TensorShape([]), ds._shapes), step, [ds], sources)
    return apply


class Reducer:
    """group_by_reducer's reduction: init_func(key) -> state, reduce_func(state, element) -> state,
    finalize_func(state) -> output."""

    def __init__(self, init_func, reduce_func, finalize_func):
        self.init_func, self.reduce_func, self.finalize_func = init_func, reduce_func, finalize_func


def group_by_reducer(key_func, reducer):
    """One output per key (an int64 of key_func): the reducer's state over that key's elements, finalized;
    the keys in the order they first appear."""
    def apply(ds):
        key_fn = functions.trace(key_func, ds._types, ds._shapes, "key_func")
        init = functions.trace(reducer.init_func, dt.int64, TensorShape([]), "init_func")
        state_types, state_shapes = init.out_types, init.out_shapes
        reduce_fn = functions.trace(reducer.reduce_func, (state_types, ds._types), (state_shapes, ds._shapes),
                                    "reduce_func")
        final = functions.trace(reducer.finalize_func, state_types, state_shapes, "finalize_func")
        n = len(nest.flatten(state_types))

        def step(run):
            states = {}
            for e in ds._iterate(run):
                key = int(np.asarray(key_fn(e, run)[0]))
                if key not in states:
                    states[key] = tuple(init((np.int64(key),), run))
                states[key] = tuple(reduce_fn(states[key] + tuple(e), run))[:n]
            for key, s in states.items():
                yield tuple(final(s, run))
        sources = key_fn.sources() + init.sources() + reduce_fn.sources() + final.sources()
        return _Generated(final.out_types, final.out_shapes, step, [ds], sources)
    return apply


class RandomDataset(Dataset):
    """Pseudorandom int64 scalars (uniform over int64), forever."""

    def __init__(self, seed=None):
        self._seed = seed
        super().__init__(dt.int64, TensorShape([]))

    def _iterate(self, run):
        state = _rng(self._seed)
        while True:
            yield (np.asarray(state.randint(-2 ** 63, 2 ** 63 - 1, dtype=np.int64)),)


class SqlDataset(Dataset):
    """The rows of an SQL query (driver 'sqlite': data_source_name a database file), one tuple of
    output_types per row."""

    def __init__(self, driver_name, data_source_name, query, output_types):
        if driver_name != "sqlite":
            raise errors.InvalidArgumentError(None, None, "The database type, %s, is not supported by SqlDataset. "
                                              "The set of supported databases is: {'sqlite'}." % driver_name)
        self._source, self._query = data_source_name, query
        types = tuple(dt.as_dtype(t) for t in nest.flatten(output_types))
        super().__init__(nest.pack_as(output_types, types), nest.pack_as(output_types, [TensorShape([])] * len(types)))

    def _iterate(self, run):
        import sqlite3
        try:
            conn = sqlite3.connect("file:%s?mode=ro" % self._source, uri=True)
        except sqlite3.Error as e:
            raise errors.FailedPreconditionError(None, None, "Sqlite error: %s (%s)" % (e, self._source)) from None
        types = self._flat_types
        try:
            for row in conn.execute(self._query):
                if len(row) != len(types):
                    raise errors.InvalidArgumentError(None, None, "The number of columns of the query (%d) does not "
                                                      "match the number of output types (%d)" % (len(row),
                                                                                                 len(types)))
                yield tuple(np.asarray(v.encode() if isinstance(v, str) and t == dt.string else v,
                                       object if t == dt.string else t.np) for v, t in zip(row, types))
        except sqlite3.Error as e:
            raise errors.InvalidArgumentError(None, None, "Sqlite error: %s" % e) from None
        finally:
            conn.close()


def _static_cardinality(ds):
    """The number of elements when known while building, INFINITE_CARDINALITY or UNKNOWN_CARDINALITY."""
    from tinyflow.api.data import dataset_ops as d
    kind = type(ds).__name__
    count = getattr(ds, "_count", None)
    if isinstance(ds, d._TensorSlices):
        sizes = {np.shape(x)[0] if not isinstance(x, Tensor) else x.shape[0].value for x in ds._leaves}
        size = sizes.pop() if len(sizes) == 1 else None
        return UNKNOWN_CARDINALITY if size is None else size
    if isinstance(ds, d._Tensors):
        return 1
    if isinstance(ds, d._Range):
        if any(isinstance(x, Tensor) for x in ds._range):
            return UNKNOWN_CARDINALITY
        return len(range(*ds._range))
    if kind in ("Counter", "RandomDataset"):
        return INFINITE_CARDINALITY
    if not ds._inputs or isinstance(count, Tensor) or kind in ("Filter", "_Generated", "Interleave", "Unbatch",
                                                              "_Transformation", "GroupByWindow", "_Choose"):
        return UNKNOWN_CARDINALITY
    inner = [_static_cardinality(i) for i in ds._inputs]
    if kind == "Zip":
        known = [c for c in inner if c >= 0]
        return min(known) if known else (INFINITE_CARDINALITY if all(c == -1 for c in inner)
                                         else UNKNOWN_CARDINALITY)
    if kind == "Concatenate":
        return UNKNOWN_CARDINALITY if -2 in inner else (-1 if -1 in inner else sum(inner))
    n = inner[0]
    if kind == "Repeat":
        if count < 0:
            return 0 if n == 0 else INFINITE_CARDINALITY
        return n if n < 0 else n * count
    if kind == "Take":
        return n if count < 0 else (count if n == -1 else (n if n == -2 else min(n, count)))
    if kind == "Skip":
        return n if n < 0 else (0 if count < 0 else max(n - count, 0))
    if kind in ("Batch", "PaddedBatch"):
        size = ds._n
        if n < 0 or isinstance(size, Tensor):
            return n if n == -1 else UNKNOWN_CARDINALITY
        return n // size if ds._drop else -(-n // size)
    if kind in ("Map", "_WithOptions", "Shuffle", "Prefetch", "Cache", "Shard"):
        if kind == "Shard":
            return n if n < 0 else len(range(ds._i, n, ds._n))
        return n
    return UNKNOWN_CARDINALITY


def cardinality(dataset):
    """An int64 scalar: the number of elements, INFINITE_CARDINALITY (-1) or UNKNOWN_CARDINALITY (-2)."""
    from tinyflow.ops.core.base import constant
    return constant(_static_cardinality(dataset), dt.int64, name="DatasetCardinality")

