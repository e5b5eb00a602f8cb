"""tf.data.Dataset (TF 1.15): the base class with every transformation method, the sources and the
transformations (each a Dataset over its input(s)).

A dataset is a Python object, not a graph op: its elements are produced on the host, one at a time,
by `_iterate(run)`, a generator of flat tuples of numpy arrays. `run` (a `Run`) is one
initialization of an iterator (iterator_ops.py): it holds the values of the graph tensors the pipeline reads (a
placeholder given to from_tensor_slices, a fed batch size), which the iterator's initializer fetched,
and the random generators of its shuffles. Only an iterator touches the graph (iterator_ops.py).
"""
import itertools

import numpy as np

from tinyflow.graph import errors
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import Tensor, constant_value
from tinyflow.graph.serialize import register_runtime_only
from tinyflow.graph.shapes import TensorShape, as_shape
from tinyflow.ops.random_ops import get_seed
from tinyflow.runtime.eager.context import executing_eagerly
from tinyflow.ops.core import base
from tinyflow.api.data import functions
from tinyflow.api.data import structure as nest
from tinyflow.api.data.iterator_ops import Iterator


_eager_iterator = [None]  # register_eager's hook


def register_eager(iterator_class):
    """Eager execution's seam (api/eager calls it): iterator_class(dataset) iterates a dataset eagerly
    (`for x in dataset`, make_one_shot_iterator while executing eagerly)."""
    _eager_iterator[0] = iterator_class


def arg(x, dtype=None):
    """A dataset argument known now (numpy), or a Tensor whose value the initializer must fetch."""
    t = base.as_tensor_or_none(x)
    if t is None:
        return base.to_numpy(x, dtype)
    value = constant_value(t)
    if value is not None:
        return np.asarray(value)
    return t


def int_arg(x):
    """A scalar int argument (batch_size, count): a Python int now, or a Tensor read at initialization."""
    a = arg(x, dt.int64)
    return a if isinstance(a, Tensor) else int(a)


@register_runtime_only
class Dataset:
    """A sequence of elements, each a nested structure (tuple, dict) of tensors of fixed dtypes.

    Build one with a source (`from_tensor_slices`, `from_tensors`, `range`, `zip`, `from_generator`),
    chain transformations (`shuffle`, `repeat`, `map`, `batch`, ...), and read it in a graph through
    an iterator: `make_one_shot_iterator()` or `make_initializable_iterator()`, then `get_next()`.
    """

    def __init__(self, types, shapes, inputs=(), args=()):
        self._types = types        # nested DType
        self._shapes = shapes      # nested TensorShape, same structure
        self._inputs = tuple(inputs)
        self._args = tuple(args)   # arguments that may be graph tensors

    # ---- what an element looks like ---------------------------------------------------------
    output_types = property(lambda self: self._types, doc="The nested dtypes of an element.")
    output_shapes = property(lambda self: self._shapes, doc="The nested static shapes of an element.")
    output_classes = property(lambda self: nest.map_structure(lambda _: Tensor, self._types),
                              doc="The nested classes of an element (tf.Tensor for each).")
    _flat_types = property(lambda self: nest.flatten(self._types))
    _flat_shapes = property(lambda self: nest.flatten(self._shapes))

    def _sources(self):
        """The graph tensors this pipeline reads (non-constant), without duplicates, in order."""
        out = []
        for t in [a for a in self._args if isinstance(a, Tensor)] + [t for d in self._inputs for t in d._sources()]:
            if t not in out:
                out.append(t)
        return out

    def _iterate(self, run):
        """Yields the elements of this dataset for one initialization, as flat tuples of numpy arrays."""
        raise NotImplementedError

    def __repr__(self):
        return "<%s shapes: %s, types: %s>" % (type(self).__name__, self._shapes, self._types)

    # ---- sources ----------------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors):
        """A dataset whose elements are the slices of `tensors` along their first dimension."""
        return _TensorSlices(tensors)

    @staticmethod
    def from_tensors(tensors):
        """A dataset with one element: `tensors`."""
        return _Tensors(tensors)

    @staticmethod
    def range(*args):
        """`range(stop)`, `range(start, stop[, step])`: int64 scalars, as Python's range."""
        return _Range(*args)

    @staticmethod
    def zip(datasets):
        """A dataset of the elements of the (nested tuple or dict of) datasets, side by side."""
        return Zip(datasets)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None):
        """The names of the files matching `file_pattern` (a glob or a list of globs), sorted, looked up
        when the iterator starts; then shuffled (shuffle=None: True) as `shuffle(len(files), seed)`.
        No match: InvalidArgumentError when the iterator starts reading."""
        files = ListFiles(file_pattern)
        return Shuffle(files, _WHOLE, seed, True) if shuffle or shuffle is None else files

    @staticmethod
    def from_generator(generator, output_types, output_shapes=None, args=None):
        """A dataset of the elements yielded by `generator(*args)` (called anew for each iteration)."""
        return _Generator(generator, output_types, output_shapes, args)

    # ---- transformations --------------------------------------------------------------------
    def batch(self, batch_size, drop_remainder=False):
        """Stacks consecutive elements into batches; the last one may be smaller unless drop_remainder."""
        return Batch(self, batch_size, drop_remainder)

    def padded_batch(self, batch_size, padded_shapes, padding_values=None, drop_remainder=False):
        """Like batch, padding each component to `padded_shapes` (None / -1: the longest in the batch)."""
        return PaddedBatch(self, batch_size, padded_shapes, padding_values, drop_remainder)

    def unbatch(self):
        """Splits each element into the slices along its first dimension (the inverse of batch)."""
        return Unbatch(self)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True):
        """Shuffles with a buffer of `buffer_size` elements: each output is drawn uniformly from it."""
        return Shuffle(self, buffer_size, seed, reshuffle_each_iteration)

    def repeat(self, count=None):
        """Repeats this dataset `count` times (None or -1: forever)."""
        return Repeat(self, count)

    def take(self, count):
        """The first `count` elements (-1: all)."""
        return Take(self, count)

    def skip(self, count):
        """All but the first `count` elements (-1: none)."""
        return Skip(self, count)

    def shard(self, num_shards, index):
        """Every num_shards-th element from `index` on (TF's Dataset.shard): one process's part of the
        data, e.g. shard(tf.distribute.process_count(), tf.distribute.process_index())."""
        if not 0 <= int(index) < int(num_shards):
            raise errors.InvalidArgumentError(None, None, "Index must be in [0, num_shards) (index %d, num_shards %d)"
                                              % (index, num_shards))
        return Shard(self, int(num_shards), int(index))

    def map(self, map_func, num_parallel_calls=None):
        """Applies `map_func` (TF ops on the element's tensors; a tuple element is unpacked into arguments)."""
        return Map(self, map_func)

    def interleave(self, map_func, cycle_length=-1, block_length=1, num_parallel_calls=None):
        """The elements of the datasets `map_func` makes of this dataset's elements, `cycle_length` of
        them open at once (AUTOTUNE, -1: one per CPU, as TF), `block_length` consecutive elements from
        each in turn; TF's order."""
        return Interleave(self, map_func, cycle_length, block_length)

    def flat_map(self, map_func):
        """The elements of the datasets `map_func` makes of this dataset's elements, one after another."""
        return Interleave(self, map_func, 1, 1, "flat_map")

    def filter(self, predicate):
        """The elements for which `predicate` (TF ops returning a scalar bool) is true."""
        return Filter(self, predicate)

    def concatenate(self, dataset):
        """This dataset's elements followed by `dataset`'s (same dtypes and structure)."""
        return Concatenate(self, dataset)

    def prefetch(self, buffer_size):
        """Accepted for compatibility: elements are produced on demand on the host."""
        return self

    def cache(self, filename=""):
        """Accepted for compatibility: the pipeline is cheap to recompute on the host."""
        return self

    def apply(self, transformation_func):
        """`transformation_func(self)`, for tf.data.experimental transformations."""
        return transformation_func(self)

    def with_options(self, options):
        """This dataset with `options` (a tf.data.Options) merged into its own: kept and reported by
        `options()`; the pipeline runs on the host whatever they say."""
        out = _WithOptions(self)
        out._options = self.options().merge(options)
        return out

    def options(self):
        """The tf.data.Options of this dataset (merged from its inputs and with_options)."""
        from tinyflow.api.data.options import Options
        mine = getattr(self, "_options", None) or Options()
        for d in self._inputs:
            mine = d.options().merge(mine)
        return mine

    # ---- iterators --------------------------------------------------------------------------
    def make_one_shot_iterator(self):
        """An iterator that needs no initialization; the dataset may only read constants. While
        executing eagerly: an eager iterator (api/eager/data.py) giving EagerTensors."""
        if _eager_iterator[0] is not None and executing_eagerly():
            return _eager_iterator[0](self)
        return Iterator._make_one_shot(self)

    def __iter__(self):
        """`for element in dataset`: eager execution only (TF 1.15's rule)."""
        if _eager_iterator[0] is None or not executing_eagerly():
            raise RuntimeError("dataset.__iter__() is only supported when eager execution is enabled.")
        return _eager_iterator[0](self)

    def make_initializable_iterator(self, shared_name=None):
        """An iterator started (and restarted) by running its `initializer`, with any feeds it needs."""
        return Iterator._make_initializable(self)


def _components(tensors):
    """The leaves of a source's argument as numpy (known now) or Tensors, and its structure."""
    leaves = [arg(x) for x in nest.flatten(tensors)]
    types = [x.dtype if isinstance(x, Tensor) else dt.as_dtype(x.dtype) for x in leaves]
    shapes = [x.shape if isinstance(x, Tensor) else TensorShape(x.shape) for x in leaves]
    return leaves, types, shapes


class _Tensors(Dataset):
    def __init__(self, tensors):
        self._leaves, types, shapes = _components(tensors)
        super().__init__(nest.pack_as(tensors, types), nest.pack_as(tensors, shapes), args=self._leaves)

    def _iterate(self, run):
        yield tuple(run.value(x) for x in self._leaves)


class _TensorSlices(Dataset):
    def __init__(self, tensors):
        self._leaves, types, shapes = _components(tensors)
        if any(s.ndims == 0 for s in shapes):
            raise ValueError("Shape must be at least rank 1 but is rank 0 (from_tensor_slices slices "
                             "along the first dimension)")
        sizes = sorted({s[0].value for s in shapes if s.ndims and s[0].value is not None})
        if len(sizes) > 1:
            raise ValueError("Dimensions %d and %d are not compatible (from_tensor_slices: every component "
                             "needs the same size in the 0th dimension)" % tuple(sizes[:2]))
        slices = [TensorShape(None) if s.ndims is None else TensorShape(s.as_list()[1:]) for s in shapes]
        super().__init__(nest.pack_as(tensors, types), nest.pack_as(tensors, slices), args=self._leaves)

    def _iterate(self, run):
        arrays = [np.asarray(run.value(x)) for x in self._leaves]
        sizes = {a.shape[0] if a.ndim else None for a in arrays}
        if len(sizes) != 1 or None in sizes:
            from tinyflow.graph import errors
            raise errors.InvalidArgumentError(None, None, "All components must have the same size in the 0th "
                                              "dimension, got %s" % [a.shape for a in arrays])
        for i in range(sizes.pop()):
            yield tuple(a[i] for a in arrays)


class _Range(Dataset):
    def __init__(self, *args):
        if not 1 <= len(args) <= 3:
            raise ValueError("Invalid arguments to Dataset.range: %r" % (args,))
        start, stop, step = (0, args[0], 1) if len(args) == 1 else (tuple(args) + (1,))[:3]
        self._range = [int_arg(x) for x in (start, stop, step)]
        super().__init__(dt.int64, TensorShape([]), args=self._range)

    def _iterate(self, run):
        start, stop, step = (int(run.value(x)) for x in self._range)
        if step == 0:
            from tinyflow.graph import errors
            raise errors.InvalidArgumentError(None, None, "step must be a non-zero integer.")
        for i in range(start, stop, step):
            yield (np.int64(i),)


class _Generator(Dataset):
    def __init__(self, generator, output_types, output_shapes, args):
        if not callable(generator):
            raise TypeError("`generator` must be callable.")
        types, shapes = nest.normalize_types_and_shapes(output_types, output_shapes)
        # TF makes each argument a tensor and hands the generator its numpy value: a str as bytes, an
        # int as np.int32, a list as an array (a Tensor: its value when the iterator is initialized)
        self._generator, self._gen_args = generator, tuple(arg(a) for a in (args or ()))
        super().__init__(types, shapes, (), [a for a in self._gen_args if isinstance(a, Tensor)])

    def _iterate(self, run):
        types, shapes = self._flat_types, self._flat_shapes
        args = [np.asarray(run.value(a)) for a in self._gen_args]
        for value in self._generator(*[a[()] if a.ndim == 0 else a for a in args]):
            flat = nest.flatten_up_to(self._types, value)
            yield tuple(nest.check_value(v, d, s, "from_generator") for v, d, s in zip(flat, types, shapes))


# ---- the transformations: each is a Dataset over its input(s) with its own `_iterate` --------------
def _batched(shapes, batch_size, drop_remainder):
    """Shapes of a batch: the batch dimension is known only when every batch is full."""
    n = batch_size if drop_remainder and not isinstance(batch_size, Tensor) else None
    return nest.map_structure(lambda s: TensorShape([n]).concatenate(s), shapes)


def _positive(run, x, what):
    n = int(run.value(x))
    if n <= 0:
        raise errors.InvalidArgumentError(None, None, "%s must be greater than zero." % what)
    return n


def _chunks(elements, n, drop_remainder):
    """Lists of n consecutive elements (the last may be shorter unless drop_remainder)."""
    chunk = []
    for e in elements:
        chunk.append(e)
        if len(chunk) == n:
            yield chunk
            chunk = []
    if chunk and not drop_remainder:
        yield chunk


class Batch(Dataset):
    def __init__(self, input_dataset, batch_size, drop_remainder):
        self._n, self._drop = int_arg(batch_size), bool(drop_remainder)
        super().__init__(input_dataset._types, _batched(input_dataset._shapes, self._n, self._drop),
                         [input_dataset], [self._n])

    def _iterate(self, run):
        n = _positive(run, self._n, "Batch size")
        for chunk in _chunks(self._inputs[0]._iterate(run), n, self._drop):
            yield tuple(_stack([e[i] for e in chunk], i) for i in range(len(chunk[0])))


def _stack(values, component):
    first = np.shape(values[0])
    for i, v in enumerate(values):
        if np.shape(v) != first:
            raise errors.InvalidArgumentError(
                None, None, "Cannot batch tensors with different shapes in component %d. First element had shape "
                "%s and element %d had shape %s." % (component, TensorShape(first).as_proto_str(), i,
                                                     TensorShape(np.shape(v)).as_proto_str()))
    return np.stack(values)


class PaddedBatch(Dataset):
    def __init__(self, input_dataset, batch_size, padded_shapes, padding_values, drop_remainder):
        types = input_dataset._types
        self._padded = [as_shape(s) for s in nest.flatten_up_to(types, padded_shapes)]
        self._padded = [TensorShape(None if s.ndims is None else [None if d is None or d < 0 else d
                                                                 for d in s.as_list()]) for s in self._padded]
        for s, have in zip(self._padded, nest.flatten(input_dataset._shapes)):
            if not have.is_compatible_with(TensorShape(None if s.ndims is None else [None] * s.ndims)):
                raise ValueError("The padded shape %s is not compatible with the corresponding input component "
                                 "shape %s." % (s, have))
        pads = ([b"" if d == dt.string else 0 for d in nest.flatten(types)] if padding_values is None
                else nest.flatten_up_to(types, padding_values))   # TF pads strings with b""
        self._pads = [arg(p, d) for p, d in zip(pads, nest.flatten(types))]
        self._n, self._drop = int_arg(batch_size), bool(drop_remainder)
        super().__init__(types, _batched(nest.pack_as(types, self._padded), self._n, self._drop), [input_dataset],
                         [self._n] + self._pads)

    def _iterate(self, run):
        n = _positive(run, self._n, "Batch size")
        for chunk in _chunks(self._inputs[0]._iterate(run), n, self._drop):
            yield tuple(self._pad([np.asarray(e[i]) for e in chunk], self._padded[i], run.value(self._pads[i]))
                        for i in range(len(chunk[0])))

    @staticmethod
    def _pad(values, padded, pad_value):
        longest = np.max([v.shape for v in values], axis=0) if values[0].ndim else ()
        target = [m if d is None else d for d, m in zip(padded.as_list(), longest)] if padded.ndims else []
        dtype = object if values[0].dtype.kind in "SUO" else values[0].dtype   # strings of any length
        out = np.full([len(values)] + list(target), pad_value, dtype)
        for i, v in enumerate(values):
            if any(s > t for s, t in zip(v.shape, target)):
                raise errors.InvalidArgumentError(None, None, "Attempted to pad to a smaller size than the input "
                                                  "element.")
            where = (i,) + tuple(slice(0, s) for s in v.shape)
            if dtype is object:   # Python bytes, as TF gives (a 0-d string: not its array)
                v = v.astype(object) if v.ndim else v.astype(object)[()]
            out[where] = v
        return out


class Unbatch(Dataset):
    def __init__(self, input_dataset):
        shapes = nest.map_structure(lambda s: TensorShape(None if s.ndims is None else s.as_list()[1:]),
                                    input_dataset._shapes)
        super().__init__(input_dataset._types, shapes, [input_dataset])

    def _iterate(self, run):
        for e in self._inputs[0]._iterate(run):
            for i in range(len(e[0])):
                yield tuple(c[i] for c in e)


class Shuffle(Dataset):
    """TF's buffer: fill `buffer_size` elements, then emit a uniformly chosen one and put the next
    input element in its place. Seeded (op seed or graph seed): the same order for each
    initialization; reshuffle_each_iteration: each repetition (of a later repeat()) draws anew."""

    def __init__(self, input_dataset, buffer_size, seed, reshuffle_each_iteration):
        self._size, self._reshuffle = int_arg(buffer_size), bool(reshuffle_each_iteration)
        seeds = get_seed(seed)
        if seeds[0] is None:  # no seed anywhere: a fresh order each time
            seeds = tuple(int(s) for s in np.random.SeedSequence().generate_state(2))
            self._fixed = False
        else:
            self._fixed = True
        self._seeds = seeds
        super().__init__(input_dataset._types, input_dataset._shapes, [input_dataset], [self._size])

    def _rng(self, run):
        if not self._reshuffle:
            return np.random.default_rng(self._seeds)
        if self not in run.state:  # one stream per initialization: epochs continue it
            seeds = self._seeds if self._fixed else np.random.SeedSequence().generate_state(2)
            run.state[self] = np.random.default_rng(seeds)
        return run.state[self]

    def _iterate(self, run):
        size = _positive(run, self._size, "buffer_size")
        rng = self._rng(run)
        source = iter(self._inputs[0]._iterate(run))
        buf = []
        for e in source:
            buf.append(e)
            if len(buf) == size:
                break
        while buf:
            i = int(rng.integers(len(buf)))
            out = buf[i]
            nxt = next(source, None)
            if nxt is None:
                buf[i] = buf[-1]
                buf.pop()
            else:
                buf[i] = nxt
            yield out


class Repeat(Dataset):
    def __init__(self, input_dataset, count):
        self._count = -1 if count is None else int_arg(count)
        super().__init__(input_dataset._types, input_dataset._shapes, [input_dataset], [self._count])

    def _iterate(self, run):
        count, epoch = int(run.value(self._count)), 0
        while count < 0 or epoch < count:
            empty = True
            for e in self._inputs[0]._iterate(run):
                empty = False
                yield e
            if empty:  # repeating an empty dataset forever would never end
                return
            epoch += 1


class Take(Dataset):
    def __init__(self, input_dataset, count):
        self._count = int_arg(count)
        super().__init__(input_dataset._types, input_dataset._shapes, [input_dataset], [self._count])

    def _iterate(self, run):
        count = int(run.value(self._count))  # -1: all of it
        return itertools.islice(self._inputs[0]._iterate(run), count if count >= 0 else None)


class Skip(Dataset):
    def __init__(self, input_dataset, count):
        self._count = int_arg(count)
        super().__init__(input_dataset._types, input_dataset._shapes, [input_dataset], [self._count])

    def _iterate(self, run):
        count = int(run.value(self._count))  # -1: skips all of it
        return itertools.islice(self._inputs[0]._iterate(run), count, None) if count >= 0 else iter(())


class Shard(Dataset):
    def __init__(self, input_dataset, num_shards, index):
        self._n, self._i = num_shards, index
        super().__init__(input_dataset._types, input_dataset._shapes, [input_dataset], [])

    def _iterate(self, run):
        return itertools.islice(self._inputs[0]._iterate(run), self._i, None, self._n)


class Map(Dataset):
    def __init__(self, input_dataset, map_func):
        self._fn = functions.trace(map_func, input_dataset._types, input_dataset._shapes, "map")
        super().__init__(self._fn.out_types, self._fn.out_shapes, [input_dataset], self._fn.sources())

    def _iterate(self, run):
        # a traced function runs once per chunk of elements (vmapped over equally shaped ones)
        for chunk in _chunks(self._inputs[0]._iterate(run), functions._CHUNK, False):
            for out in self._fn.call_many(chunk, run):
                yield tuple(out)


class Filter(Dataset):
    def __init__(self, input_dataset, predicate):
        self._fn = functions.trace(predicate, input_dataset._types, input_dataset._shapes, "filter")
        out = nest.flatten(self._fn.out_types)
        shape = nest.flatten(self._fn.out_shapes)
        if nest.is_nested(self._fn.out_types) or out[0] != dt.bool_ or shape[0].ndims not in (0, None):
            raise ValueError("`predicate` return type must be convertible to a scalar boolean tensor. Was %s "
                             "with shape %s." % (self._fn.out_types, self._fn.out_shapes))
        super().__init__(input_dataset._types, input_dataset._shapes, [input_dataset], self._fn.sources())

    def _iterate(self, run):
        for chunk in _chunks(self._inputs[0]._iterate(run), functions._CHUNK, False):
            for e, keep in zip(chunk, self._fn.call_many(chunk, run)):
                if bool(np.asarray(keep[0])):
                    yield e


class Zip(Dataset):
    def __init__(self, datasets):
        if isinstance(datasets, list):
            datasets = tuple(datasets)
        flat = nest.flatten(datasets)
        if not flat or not all(isinstance(d, Dataset) for d in flat):
            raise TypeError("The argument to `Dataset.zip()` must be a (nested) structure of `Dataset` objects.")
        super().__init__(nest.pack_as(datasets, [d._types for d in flat]),
                         nest.pack_as(datasets, [d._shapes for d in flat]), flat)

    def _iterate(self, run):
        for parts in zip(*[d._iterate(run) for d in self._inputs]):
            yield tuple(c for p in parts for c in p)


class Concatenate(Dataset):
    def __init__(self, input_dataset, dataset):
        if input_dataset._types != dataset._types:
            raise TypeError("Two datasets to concatenate have different types %s and %s"
                            % (input_dataset._types, dataset._types))
        shapes = [a.most_specific_compatible_shape(b) for a, b in zip(input_dataset._flat_shapes,
                                                                      dataset._flat_shapes)]
        super().__init__(input_dataset._types, nest.pack_as(input_dataset._types, shapes), [input_dataset, dataset])

    def _iterate(self, run):
        for d in self._inputs:
            yield from d._iterate(run)


class _WithOptions(Dataset):
    def __init__(self, input_dataset):
        super().__init__(input_dataset._types, input_dataset._shapes, [input_dataset])

    def _iterate(self, run):
        aggregator = self._options.experimental_stats.aggregator
        if aggregator is not None:   # where the pipeline's latency_stats / bytes_produced_stats record (stats_ops.py)
            run.state["stats_aggregator"] = aggregator
        return self._inputs[0]._iterate(run)


_WHOLE = 2 ** 62  # a shuffle buffer that holds the whole dataset (list_files shuffles every file name)


class ListFiles(Dataset):
    """Dataset.list_files's names: the matches of every pattern, sorted together (as TF's MatchingFiles)."""

    def __init__(self, file_pattern):
        from tinyflow.ops.host_ops import to_bytes_array
        t = base.as_tensor_or_none(file_pattern)
        if t is not None and t.dtype is not dt.string:
            raise TypeError("`file_pattern` must be a `tf.Tensor` of `tf.string`, got %s" % t.dtype.name)
        value = None if t is None else constant_value(t)
        self._patterns = t if t is not None and value is None else to_bytes_array(
            value if t is not None else file_pattern).reshape(-1)
        super().__init__(dt.string, TensorShape([]), args=[self._patterns])

    def _iterate(self, run):
        import glob
        patterns = [p.decode("utf-8") if isinstance(p, bytes) else str(p)
                    for p in np.asarray(run.value(self._patterns), object).reshape(-1)]
        names = sorted(n for p in patterns for n in glob.glob(p))  # all patterns' matches sorted together, as TF
        if not names:
            raise errors.InvalidArgumentError(None, None, "assertion failed: [No files matched pattern: %s]"
                                              % ", ".join(patterns))
        for n in names:
            yield (np.array(n.encode("utf-8"), dtype=object),)


def _cpus():
    import os
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class Interleave(Dataset):
    """interleave / flat_map / parallel_interleave: the datasets `map_func` makes of the input's elements,
    read `cycle_length` at a time, `block_length` elements from each in turn, in TF's deterministic order
    (parallel: the order of TF's ParallelInterleaveDataset, whose finished slots take the next element
    at once; `prefetch` input elements are opened ahead, as TF's workers)."""

    def __init__(self, input_dataset, map_func, cycle_length, block_length, name="interleave", parallel=False,
                 prefetch=None):
        self._fn = functions.trace_dataset(map_func, input_dataset._types, input_dataset._shapes, name)
        inner = self._fn.dataset
        self._cycle, self._block = int_arg(cycle_length), int_arg(block_length)
        self._parallel, self._prefetch = parallel, prefetch
        super().__init__(inner._types, inner._shapes, [input_dataset],
                         [self._cycle, self._block] + self._fn.sources())

    def _iterate(self, run):
        cycle, block = int(run.value(self._cycle)), int(run.value(self._block))
        if cycle == -1 and not self._parallel:
            cycle = _cpus()  # AUTOTUNE: TF takes the number of schedulable CPUs
        if cycle <= 0:
            raise errors.InvalidArgumentError(None, None, "cycle_length must be greater than zero.")
        if block <= 0:
            raise errors.InvalidArgumentError(None, None, "block_length must be greater than zero.")
        opened = (iter(self._fn.iterate(e, run)) for e in self._inputs[0]._iterate(run))
        if self._parallel:
            prefetch = 2 * cycle if self._prefetch is None else int(self._prefetch)
            return _parallel_order(opened, cycle, block, prefetch)
        return _interleave_order(opened, cycle, block)


_END = object()


def _interleave_order(opened, cycle, block):
    """TF's InterleaveDataset: a slot opens the next input's dataset when the cycle reaches it empty."""
    slots, at, count, live, exhausted = [None] * cycle, 0, 0, 0, False
    while not exhausted or live:
        if slots[at] is not None:
            x = next(slots[at], _END)
            if x is not _END:
                yield x
                count += 1
                if count < block:
                    continue
            else:
                slots[at], live = None, live - 1
        elif not exhausted:
            slots[at] = next(opened, None)
            exhausted = slots[at] is None
            live += not exhausted
            continue
        at, count = (at + 1) % cycle, 0


def _parallel_order(opened, cycle, block, prefetch):
    """TF's ParallelInterleaveDataset (sloppy=False): cycle + prefetch inputs start at once; a finished
    slot takes the next started one and the cycle moves past it."""
    started = list(itertools.islice(opened, cycle + prefetch))
    slots, staged = [[it, _END] for it in started[:cycle]], [[it, _END] for it in started[cycle:]]
    at, count = 0, 0
    while True:
        for i in range(len(slots)):
            index = (at + i) % len(slots)
            worker = slots[index]
            if worker is None:
                continue
            if worker[1] is _END:
                worker[1] = next(worker[0], _END)
            if worker[1] is not _END:
                x, worker[1] = worker[1], _END
                at, count = index, count + 1
                if count == block:
                    at, count = (index + 1) % len(slots), 0
                yield x
                break
            slots[index] = None
            nxt = next(opened, None)
            if nxt is not None:
                staged.append([nxt, _END])
            if staged:
                slots[index] = staged.pop(0)
                at, count = (index + 1) % len(slots), 0
                break
        else:
            return
