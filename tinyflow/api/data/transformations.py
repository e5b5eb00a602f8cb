"""The Dataset transformations: each is a Dataset over its input(s) with its own `_iterate`."""
import itertools

import numpy as np

from tinyflow.graph import errors
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import Tensor
from tinyflow.graph.shapes import TensorShape, as_shape
from tinyflow.ops.random_ops import get_seed
from tinyflow.api.data import functions
from tinyflow.api.data import structure as nest
from tinyflow.api.data.dataset_ops import Dataset, arg, int_arg


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
        pads = [0] * len(self._padded) if padding_values is None else nest.flatten_up_to(types, padding_values)
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
        out = np.full([len(values)] + list(target), pad_value, values[0].dtype)
        for i, v in enumerate(values):
            if any(s > t for s, t in zip(v.shape, target)):
                raise errors.InvalidArgumentError(None, None, "Attempted to pad to a smaller size than the input "
                                                  "element.")
            out[(i,) + tuple(slice(0, s) for s in v.shape)] = v
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
