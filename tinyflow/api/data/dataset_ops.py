"""tf.data.Dataset (TF 1.15): the base class with every transformation method, and the sources.

A dataset is a Python object, not a graph op: its elements are produced on the host, one at a time,
by `_iterate(run)`, a generator of flat tuples of numpy arrays. `run` (a `Run`) is one
initialization of an iterator: it holds the values of the graph tensors the pipeline reads (a
placeholder given to from_tensor_slices, a fed batch size), which the iterator's initializer fetched,
and the random generators of its shuffles. Only an iterator touches the graph (iterator_ops.py).
"""
import numpy as np

from tinyflow.graph import errors
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import Tensor, constant_value
from tinyflow.graph.serialize import register_runtime_only
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops import base
from tinyflow.api.data import structure as nest


class Run:
    """One initialization of an iterator: graph tensor values (Tensor -> numpy) and per-run state."""

    def __init__(self, values=None):
        self.values = dict(values or {})
        self.state = {}  # dataset -> its state for this run (a shuffle's random generator)

    def value(self, x):
        """A dataset argument's value: a Tensor's fetched value, or the constant itself."""
        return self.values[x] if isinstance(x, Tensor) else x


def arg(x, dtype=None):
    """A dataset argument known now (numpy), or a Tensor whose value the initializer must fetch."""
    t = base._as_tensor_or_none(x)
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

    def __iter__(self):
        raise RuntimeError("dataset.__iter__() is only supported when eager execution is enabled.")

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
        return _t.Zip(datasets)

    @staticmethod
    def from_generator(generator, output_types, output_shapes=None, args=None):
        """A dataset of the elements yielded by `generator(*args)` (called anew for each iteration)."""
        return _Generator(generator, output_types, output_shapes, args)

    # ---- transformations --------------------------------------------------------------------
    def batch(self, batch_size, drop_remainder=False):
        """Stacks consecutive elements into batches; the last one may be smaller unless drop_remainder."""
        return _t.Batch(self, batch_size, drop_remainder)

    def padded_batch(self, batch_size, padded_shapes, padding_values=None, drop_remainder=False):
        """Like batch, padding each component to `padded_shapes` (None / -1: the longest in the batch)."""
        return _t.PaddedBatch(self, batch_size, padded_shapes, padding_values, drop_remainder)

    def unbatch(self):
        """Splits each element into the slices along its first dimension (the inverse of batch)."""
        return _t.Unbatch(self)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True):
        """Shuffles with a buffer of `buffer_size` elements: each output is drawn uniformly from it."""
        return _t.Shuffle(self, buffer_size, seed, reshuffle_each_iteration)

    def repeat(self, count=None):
        """Repeats this dataset `count` times (None or -1: forever)."""
        return _t.Repeat(self, count)

    def take(self, count):
        """The first `count` elements (-1: all)."""
        return _t.Take(self, count)

    def skip(self, count):
        """All but the first `count` elements (-1: none)."""
        return _t.Skip(self, count)

    def shard(self, num_shards, index):
        """Every num_shards-th element from `index` on (TF's Dataset.shard): one process's part of the
        data, e.g. shard(tf.distribute.process_count(), tf.distribute.process_index())."""
        if not 0 <= int(index) < int(num_shards):
            raise errors.InvalidArgumentError(None, None, "Index must be in [0, num_shards) (index %d, num_shards %d)"
                                              % (index, num_shards))
        return _t.Shard(self, int(num_shards), int(index))

    def map(self, map_func, num_parallel_calls=None):
        """Applies `map_func` (TF ops on the element's tensors; a tuple element is unpacked into arguments)."""
        return _t.Map(self, map_func)

    def filter(self, predicate):
        """The elements for which `predicate` (TF ops returning a scalar bool) is true."""
        return _t.Filter(self, predicate)

    def concatenate(self, dataset):
        """This dataset's elements followed by `dataset`'s (same dtypes and structure)."""
        return _t.Concatenate(self, dataset)

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
        return self

    # ---- iterators --------------------------------------------------------------------------
    def make_one_shot_iterator(self):
        """An iterator that needs no initialization; the dataset may only read constants."""
        from tinyflow.api.data.iterator_ops import Iterator
        return Iterator._make_one_shot(self)

    def make_initializable_iterator(self, shared_name=None):
        """An iterator started (and restarted) by running its `initializer`, with any feeds it needs."""
        from tinyflow.api.data.iterator_ops import Iterator
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
        self._generator, self._gen_args = generator, tuple(args or ())
        super().__init__(types, shapes)

    def _iterate(self, run):
        types, shapes = self._flat_types, self._flat_shapes
        for value in self._generator(*self._gen_args):
            flat = nest.flatten_up_to(self._types, value)
            yield tuple(nest.check_value(v, d, s, "from_generator") for v, d, s in zip(flat, types, shapes))


from tinyflow.api.data import transformations as _t  # noqa: E402 (the transformations subclass Dataset)
