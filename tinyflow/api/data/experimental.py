"""tf.data.experimental (TF 1.15): the transformations `dataset.apply` takes, CsvDataset and
make_csv_dataset, and the option groups of tf.data.Options."""
import collections
import csv
import glob
import zlib

import numpy as np

from tinyflow.graph import errors
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import Tensor
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.host_ops import make_host_op, register_host_op
from tinyflow.formats import files
from tinyflow.api.data import functions
from tinyflow.api.data import structure as nest
from tinyflow.api.data.dataset_ops import Dataset, Interleave, PaddedBatch, _chunks, arg
from tinyflow.api.data.options import (DistributeOptions, MapVectorizationOptions, OptimizationOptions,  # noqa: F401
                                       StatsOptions, ThreadingOptions)
from tinyflow.api.data.readers import _filenames, _names

AUTOTUNE = -1


def shuffle_and_repeat(buffer_size, count=None, seed=None):
    """`ds.shuffle(buffer_size, seed).repeat(count)`."""
    return lambda ds: ds.shuffle(buffer_size, seed).repeat(count)


def map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False, num_parallel_calls=None):
    """`ds.map(map_func).batch(batch_size, drop_remainder)` (TF's fused op gives the same elements)."""
    if num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError("The `num_parallel_batches` and `num_parallel_calls` arguments are mutually exclusive.")
    return lambda ds: ds.map(map_func).batch(batch_size, drop_remainder)


def map_and_batch_with_legacy_function(map_func, batch_size, num_parallel_batches=None, drop_remainder=False,
                                       num_parallel_calls=None):
    """map_and_batch (tinyflow traces every map function the same way)."""
    return map_and_batch(map_func, batch_size, num_parallel_batches, drop_remainder, num_parallel_calls)


def unbatch():
    """`ds.unbatch()`."""
    return lambda ds: ds.unbatch()


class Counter(Dataset):
    """tf.data.experimental.Counter: start, start + step, ... forever, of `dtype`."""

    def __init__(self, start=0, step=1, dtype=dt.int64):
        self._start, self._step = int(start), int(step)
        super().__init__(dt.as_dtype(dtype), TensorShape([]))

    def _iterate(self, run):
        value = self._start
        while True:
            yield (np.asarray(value, self._types.np),)
            value += self._step


class _Transformation(Dataset):
    """A transformation written as a Python generator over its input's flat elements."""

    def __init__(self, input_dataset, step, types=None, shapes=None, sources=()):
        self._step = step
        super().__init__(input_dataset._types if types is None else types,
                         input_dataset._shapes if shapes is None else shapes, [input_dataset], sources)

    def _iterate(self, run):
        return self._step(self._inputs[0]._iterate(run), run)


def unique():
    """The elements not seen before (scalar integers or strings), in order."""
    def step(elements, run):
        seen = set()
        for e in elements:
            key = e[0].item() if hasattr(e[0], "item") else e[0]
            if key not in seen:
                seen.add(key)
                yield e
    return lambda ds: _Transformation(ds, step)


def scan(initial_state, scan_func):
    """`scan_func(state, element) -> (new state, output)` over the elements, from `initial_state`:
    the outputs."""
    def apply(ds):
        state = _as_structure(initial_state)
        flat_state = [arg(x) for x in nest.flatten(state)]
        state_types = nest.pack_as(state, [x.dtype if isinstance(x, Tensor) else dt.as_dtype(x.dtype)
                                           for x in flat_state])
        state_shapes = nest.pack_as(state, [x.shape if isinstance(x, Tensor) else TensorShape(np.shape(x))
                                            for x in flat_state])
        fn = functions.trace(scan_func, (state_types, ds._types), (state_shapes, ds._shapes), "scan_func")
        if not isinstance(fn.out_types, tuple) or len(fn.out_types) != 2:
            raise TypeError("The scan function must return a pair comprising the new state and the output value.")
        n = len(flat_state)

        def step(elements, run):
            current = [np.asarray(run.value(x)) for x in flat_state]
            for e in elements:
                out = fn(tuple(current) + tuple(e), run)
                current = [np.asarray(v, t.np) for v, t in zip(out[:n], nest.flatten(state_types))]
                yield tuple(out[n:])
        return _Transformation(ds, step, fn.out_types[1], fn.out_shapes[1],
                               [x for x in flat_state if isinstance(x, Tensor)] + fn.sources())
    return apply


def _as_structure(x):
    return tuple(_as_structure(v) for v in x) if isinstance(x, (tuple, list)) else x


class _Choose(Dataset):
    def __init__(self, datasets, choices):
        super().__init__(datasets[0]._types, datasets[0]._shapes, [choices] + datasets)

    def _iterate(self, run):
        its = [d._iterate(run) for d in self._inputs[1:]]
        for (i,) in self._inputs[0]._iterate(run):
            if not 0 <= int(i) < len(its):
                raise errors.InvalidArgumentError(None, None, "Selector index out of range: %d >= %d" % (i, len(its)))
            e = next(its[int(i)], None)
            if e is not None:
                yield e


def choose_from_datasets(datasets, choice_dataset):
    """The next element of datasets[i] for each int64 i of `choice_dataset` (an exhausted one is skipped)."""
    return _Choose(list(datasets), choice_dataset)


def sliding_window_batch(window_size, window_shift=None, stride=1, window_stride=1):
    """Windows of `window_size` consecutive elements every `window_shift` (or stride) elements, stacked
    (complete windows only)."""
    shift = int(window_shift if window_shift is not None else stride)

    def apply(ds):
        def step(elements, run):
            buffer = []
            for e in elements:
                buffer.append(e)
                if len(buffer) == window_size:
                    yield tuple(np.stack([b[i] for b in buffer]) for i in range(len(e)))
                    buffer = buffer[shift:]
        shapes = nest.map_structure(lambda s: TensorShape([None]).concatenate(s), ds._shapes)
        return _Transformation(ds, step, shapes=shapes)
    return apply


def prefetch_to_device(device, buffer_size=None):
    """Accepted: the elements stay on the host until a run feeds them."""
    return lambda ds: ds


def copy_to_device(target_device, source_device="/cpu:0"):
    """Accepted: the elements stay on the host until a run feeds them."""
    return lambda ds: ds


def assert_element_shape(expected_shapes):
    """Elements checked (and their static shapes refined) against `expected_shapes`."""
    def apply(ds):
        expected = [TensorShape(s) for s in nest.flatten_up_to(ds._types, expected_shapes)]
        shapes = [have.merge_with(want) for have, want in zip(ds._flat_shapes, expected)]

        def step(elements, run):
            for e in elements:
                for i, (v, want) in enumerate(zip(e, expected)):
                    if not want.is_compatible_with(TensorShape(np.shape(v))):
                        raise errors.InvalidArgumentError(
                            None, None, " assertion failed: [Wrong shape for args_%d:0 [expected] [actual].] %s %s"
                            % (i, want.as_list(), list(np.shape(v))))
                yield e
        return _Transformation(ds, step, shapes=nest.pack_as(ds._types, shapes))
    return apply


def enumerate_dataset(start=0):
    """(index, element) pairs, the index counting from `start` (int64)."""
    return lambda ds: Dataset.zip((Dataset.range(start, 2 ** 63 - 1), ds))


def parse_example_dataset(features, num_parallel_calls=1):
    """Batches of serialized tf.train.Example protos parsed into {key: tensor} (tf.parse_example)."""
    from tinyflow.ops.parsing_ops import parse_example
    return lambda ds: ds.map(lambda serialized: parse_example(serialized, features))


def get_single_element(dataset):
    """The one element of `dataset`, computed each time it is run (InvalidArgumentError unless the
    dataset has exactly one element)."""
    from tinyflow.ops import script_ops
    from tinyflow.api.data.iterator_ops import Run
    from tinyflow.api.data import structure
    sources = dataset._sources()

    def single(*values):
        elements = dataset._iterate(Run(dict(zip(sources, values))))
        first = next(elements, None)
        if first is None:
            raise errors.InvalidArgumentError(None, None, "Dataset was empty.")
        if next(elements, None) is not None:
            raise errors.InvalidArgumentError(None, None, "Dataset had more than one element.")
        return list(first) + [b""]
    # a string output puts the call on the host stage (runtime/host_stage.py): any shapes, TF's errors as they are
    outs = script_ops.py_func(single, sources, list(dataset._flat_types) + [dt.string],
                              name="DatasetToSingleElement")[:-1]
    for t, shape in zip(outs, dataset._flat_shapes):
        t.set_shape(shape)
    return structure.pack_as(dataset._types, outs)


class TFRecordWriter:
    """tf.data.experimental.TFRecordWriter: `write(dataset)` is an op writing the dataset's strings
    as the records of one TFRecord file, each time it runs."""

    def __init__(self, filename, compression_type=None):
        self._filename, self._compression = filename, compression_type

    def write(self, dataset):
        from tinyflow.ops import script_ops
        from tinyflow.api.data.iterator_ops import Run
        from tinyflow.formats.tfrecord import TFRecordOptions, TFRecordWriter as Writer
        if dataset._flat_types != [dt.string] or dataset._flat_shapes[0].ndims not in (0, None):
            raise TypeError("`dataset` must produce scalar `DT_STRING` tensors whereas it produces shape %s and "
                            "types %s" % (dataset.output_shapes, dataset.output_types))
        sources = dataset._sources()

        def write(*values):
            with Writer(self._filename, TFRecordOptions(self._compression) if self._compression else None) as w:
                for (record,) in dataset._iterate(Run(dict(zip(sources, values)))):
                    w.write(bytes(record))
            return np.array(b"", object)
        # a string output: the host stage runs it when the op is run (a jitted call of an unused result would not)
        return script_ops.py_func(write, sources, dt.string, name="DatasetToTFRecord").op


def make_batched_features_dataset(file_pattern, batch_size, features, reader=None, label_key=None, reader_args=None,
                                  num_epochs=None, shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                                  prefetch_buffer_size=None, reader_num_threads=None, parser_num_threads=None,
                                  sloppy_ordering=False, drop_final_batch=False):
    """Batches of tf.train.Example records of the files matching `file_pattern` parsed with `features`
    ({key: tensor}, or (features, label) with `label_key`); TF 1.15's defaults: the files shuffled, read
    one at a time, records shuffled with a buffer of 10000 and repeated forever (batches then all full)."""
    from tinyflow.api.data.readers import TFRecordDataset
    reader = reader or TFRecordDataset
    dataset = Dataset.list_files(file_pattern, shuffle=shuffle, seed=shuffle_seed)
    dataset = dataset.apply(parallel_interleave(lambda name: reader(name, *(reader_args or [])),
                                                cycle_length=reader_num_threads or 1, sloppy=sloppy_ordering))
    if num_epochs != 1 and shuffle:
        dataset = dataset.apply(shuffle_and_repeat(shuffle_buffer_size, num_epochs, shuffle_seed))
    elif shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, shuffle_seed)
    elif num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size, drop_remainder=drop_final_batch or num_epochs is None)
    dataset = dataset.apply(parse_example_dataset(features))
    if label_key:
        if label_key not in features:
            raise ValueError("The `label_key` provided (%r) must be one of the `features` keys." % label_key)
        dataset = dataset.map(lambda x: (x, x.pop(label_key)))
    return dataset


def parallel_interleave(map_func, cycle_length, block_length=1, sloppy=False, buffer_output_elements=None,
                        prefetch_input_elements=None):
    """Dataset.interleave in the order of TF's parallel version (sloppy=False; sloppy=True gives that
    order too, which TF allows): `prefetch_input_elements` (default 2 * cycle_length) datasets are opened
    ahead, and a finished one's place goes to the next opened at once."""
    return lambda ds: Interleave(ds, map_func, cycle_length, block_length, "parallel_interleave", True,
                                 prefetch_input_elements)


# ---- grouping ---------------------------------------------------------------------------------------
class _Window(Dataset):
    """The window a group_by_window reduce function gets: its elements are given when it is iterated."""

    def __init__(self, types, shapes):
        super().__init__(types, shapes)

    def _iterate(self, run):
        return iter(run.values[self])


class GroupByWindow(Dataset):
    """Elements grouped by key; each group, when it holds its window size of elements (and at the end,
    in ascending key order, as TF), becomes the elements of `reduce_func(key, window_dataset)`.
    `key_of(chunk, run)` gives the keys of a chunk of elements, `size_of(key, run)` a group's window size."""

    def __init__(self, input_dataset, key_of, reduce_func, size_of, sources):
        self._key_of, self._size_of = key_of, size_of
        self._window = _Window(input_dataset._types, input_dataset._shapes)
        self._reduce = functions.trace_dataset(lambda k: reduce_func(k, self._window), dt.int64, TensorShape([]),
                                               "reduce_func")
        inner = self._reduce.dataset
        super().__init__(inner._types, inner._shapes, [input_dataset], list(sources) + self._reduce.sources())

    def _iterate(self, run):
        groups = {}
        for chunk in _chunks(self._inputs[0]._iterate(run), functions._CHUNK, False):
            for e, k in zip(chunk, self._key_of(chunk, run)):
                groups.setdefault(k, []).append(e)
                n = self._size_of(k, run)
                if n <= 0:
                    raise errors.InvalidArgumentError(None, None, "Window size must be greater than zero, but got "
                                                      "%d." % n)
                if len(groups[k]) == n:
                    yield from self._reduce.iterate((np.int64(k),), run, {self._window: groups.pop(k)})
        for k in sorted(groups):
            yield from self._reduce.iterate((np.int64(k),), run, {self._window: groups.pop(k)})


def _int_function(fn, types, shapes, what):
    """`fn` traced, checked to return one integer scalar; called as (chunk, run) -> ints."""
    traced = functions.trace(fn, types, shapes, what)
    out, shape = nest.flatten(traced.out_types), nest.flatten(traced.out_shapes)
    if len(out) != 1 or not out[0].is_integer or shape[0].ndims not in (0, None):
        raise ValueError("`%s` must return a single tf.int64 scalar tensor (got %s with shape %s)."
                         % (what, traced.out_types, traced.out_shapes))
    return traced, lambda chunk, run: [int(np.asarray(r[0])) for r in traced.call_many(chunk, run)]


def group_by_window(key_func, reduce_func, window_size=None, window_size_func=None):
    """tf.data.experimental.group_by_window: elements grouped by `key_func` (an int64 scalar), each full
    window (`window_size`, or `window_size_func(key)`) reduced by `reduce_func(key, window) -> Dataset`."""
    if (window_size is None) == (window_size_func is None):
        raise ValueError("Must pass either window_size or window_size_func.")

    def apply(ds):
        key, key_of = _int_function(key_func, ds._types, ds._shapes, "key_func")
        sources = key.sources()
        if window_size_func is None:
            size_of = lambda k, run: int(window_size)  # noqa: E731
        else:
            size, sizes_of = _int_function(window_size_func, dt.int64, TensorShape([]), "window_size_func")
            size_of = lambda k, run: sizes_of([(np.int64(k),)], run)[0]  # noqa: E731
            sources = sources + size.sources()
        return GroupByWindow(ds, key_of, reduce_func, size_of, sources)
    return apply


class _BucketBatch(Dataset):
    """bucket_by_sequence_length's batch of one bucket's window: the bucket's batch size, padded to the
    longest (or to its boundary - 1)."""

    def __init__(self, window, bucket, sizes, boundaries, padded_shapes, padding_values, to_boundary, no_padding,
                 drop_remainder):
        self._bucket, self._sizes, self._boundaries = bucket, sizes, boundaries
        self._options = (to_boundary, no_padding, drop_remainder)
        types = window._types
        shapes = window._shapes if padded_shapes is None else nest.pack_as(
            types, [TensorShape(s) for s in nest.flatten_up_to(types, padded_shapes)])
        self._padded = nest.flatten(shapes)
        pads = [0] * len(self._padded) if padding_values is None else nest.flatten_up_to(types, padding_values)
        self._pads = [arg(p, d) for p, d in zip(pads, nest.flatten(types))]
        out = nest.map_structure(lambda s: TensorShape([None]).concatenate(
            s if no_padding else TensorShape(None if s.ndims is None else [None] * s.ndims)), shapes)
        super().__init__(types, out, [window], [bucket] + [p for p in self._pads if not isinstance(p, np.ndarray)])

    def _iterate(self, run):
        bucket = int(np.asarray(run.value(self._bucket)))
        to_boundary, no_padding, drop = self._options
        if to_boundary and bucket >= len(self._sizes) - 1:
            raise errors.InvalidArgumentError(None, None, "assertion failed: [When pad_to_bucket_boundary=True, "
                                              "elements must have length < max(bucket_boundaries).]")
        fill = self._boundaries[bucket] - 1 if to_boundary else None
        for chunk in _chunks(self._inputs[0]._iterate(run), self._sizes[bucket], drop):
            if no_padding:
                yield tuple(np.stack([e[i] for e in chunk]) for i in range(len(chunk[0])))
                continue
            yield tuple(PaddedBatch._pad([np.asarray(e[i]) for e in chunk], TensorShape(
                None if s.ndims is None else [fill if d is None else d for d in s.as_list()]), run.value(p))
                for i, (s, p) in enumerate(zip(self._padded, self._pads)))


def bucket_by_sequence_length(element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes=None,
                              padding_values=None, pad_to_bucket_boundary=False, no_padding=False,
                              drop_remainder=False):
    """Batches of elements of similar lengths: bucket i holds the lengths in [boundaries[i-1],
    boundaries[i]) and makes batches of bucket_batch_sizes[i], padded (to the longest element, or to the
    bucket's boundary - 1 with pad_to_bucket_boundary); group_by_window's order, as TF."""
    if len(bucket_batch_sizes) != len(bucket_boundaries) + 1:
        raise ValueError("len(bucket_batch_sizes) must equal len(bucket_boundaries) + 1")
    boundaries, sizes = [int(b) for b in bucket_boundaries], [int(b) for b in bucket_batch_sizes]
    lows, highs = [-2 ** 31] + boundaries, boundaries + [2 ** 31 - 1]

    def apply(ds):
        length, lengths_of = _int_function(element_length_func, ds._types, ds._shapes, "element_length_func")

        def buckets_of(chunk, run):
            return [next(i for i, (lo, hi) in enumerate(zip(lows, highs)) if lo <= n < hi)
                    for n in lengths_of(chunk, run)]

        def batches(bucket, window):
            return _BucketBatch(window, bucket, sizes, boundaries, padded_shapes, padding_values,
                                pad_to_bucket_boundary, no_padding, drop_remainder)
        return GroupByWindow(ds, buckets_of, batches, lambda k, run: sizes[k], length.sources())
    return apply


# ---- CSV ------------------------------------------------------------------------------------------
_CSV_TYPES = (dt.float32, dt.float64, dt.int32, dt.int64, dt.string)
_TF_NAME = {"float32": "float", "float64": "double"}


class CsvDataset(Dataset):
    """tf.data.experimental.CsvDataset: the records of CSV files, one scalar tensor per column, of the
    dtype of its default (a dtype instead of a value: the column is required)."""

    def __init__(self, filenames, record_defaults, compression_type=None, buffer_size=None, header=False,
                 field_delim=",", use_quote_delim=True, na_value="", select_cols=None):
        self._files = _filenames(filenames)
        defaults = [np.zeros([0], object if dt.as_dtype(d) is dt.string else dt.as_dtype(d).np)
                    if isinstance(d, dt.DType) else arg(d) for d in record_defaults]
        self._types = [d.dtype if isinstance(d, Tensor) else dt.string if d.dtype == object else dt.as_dtype(d.dtype)
                       for d in defaults]
        for t in self._types:
            if t not in _CSV_TYPES:
                raise TypeError("Unsupported dtype %s in record_defaults: use float32, float64, int32, int64 or "
                                "string" % t.name)
        self._defaults = defaults
        self._options = dict(header=bool(header), delim=field_delim, quote=bool(use_quote_delim), na=na_value,
                             cols=None if select_cols is None else [int(c) for c in select_cols],
                             compression=(compression_type or "").upper())
        if select_cols is not None and len(select_cols) != len(defaults):
            raise ValueError("Length of select_cols and record_defaults do not match.")
        super().__init__(tuple(self._types), tuple(TensorShape([]) for _ in defaults),
                         args=[x for x in [self._files] + defaults if isinstance(x, Tensor)])

    def _iterate(self, run):
        defaults = [np.asarray(run.value(d)).reshape(-1) for d in self._defaults]
        o = self._options
        for name in _names(run, self._files):
            f, _ = files.open_regular(name, "CSV file")
            with f:
                try:
                    lines = files.lines(files.decompressing(f, o["compression"]), name)
                    if o["header"]:
                        next(lines, None)
                    for r, line in enumerate(lines):
                        yield self._record(line.rstrip(b"\r").decode("utf-8"), defaults, name, r)
                except (OSError, zlib.error, EOFError) as e:
                    raise errors.DataLossError(None, None, "%s: cannot decompress (%s)" % (name, e)) from None

    def _record(self, text, defaults, name, r):
        o = self._options
        fields = next(csv.reader([text], delimiter=o["delim"], quoting=csv.QUOTE_MINIMAL if o["quote"] else
                                 csv.QUOTE_NONE), [""]) if text else [""]
        cols = o["cols"]
        if cols is not None:
            if max(cols) >= len(fields):
                raise errors.InvalidArgumentError(None, None, "Expect %d fields but have %d in record %d of %s"
                                                  % (max(cols) + 1, len(fields), r, name))
            fields = [fields[c] for c in cols]
        elif len(fields) != len(self._types):
            raise errors.InvalidArgumentError(None, None, "Expect %d fields but have %d in record %d of %s"
                                              % (len(self._types), len(fields), r, name))
        out = []
        for c, (f, d, dflt) in enumerate(zip(fields, self._types, defaults)):
            if f == "" or (o["na"] and f == o["na"]):
                if dflt.size == 0:
                    raise errors.InvalidArgumentError(None, None, "Field %d is required but missing in record!" % c)
                out.append(np.asarray(dflt[0], d.np) if d is not dt.string else np.array(_bytes(dflt[0]), object))
                continue
            if d is dt.string:
                out.append(np.array(f.encode("utf-8"), object))
            elif _fits(f, d) and (d.is_floating or _fits(f, dt.int64)):
                out.append(np.asarray(int(f) if d.is_integer else float(f), d.np))
            else:
                raise errors.InvalidArgumentError(None, None, "Field %d in record is not a valid %s: %s"
                                                  % (c, _TF_NAME.get(d.name, d.name), f))
        return tuple(out)


def _bytes(x):
    return x if isinstance(x, bytes) else str(x).encode("utf-8")


def _infer_type(text, na_value, previous):
    """TF's make_csv_dataset inference: the least permissive of int32, int64, float32, float64, string
    that takes this value and every earlier one of the column."""
    if text in ("", na_value):
        return previous
    order = [dt.int32, dt.int64, dt.float32, dt.float64, dt.string]
    for i, d in enumerate(order):
        if _fits(text, d) and (previous is None or previous in order[:i + 1]):
            return d


def _fits(text, d):
    try:
        if d.is_integer:
            v = int(np.int64(text))
            return d is dt.int64 or np.int32(v) == v and -2 ** 31 <= v < 2 ** 31
        if d.is_floating:
            return d.np.type(text) < np.inf
    except (ValueError, OverflowError):
        return False
    return True


def _csv_rows(names, delim, quote, header):
    for name in names:
        with open(name, newline="", encoding="utf-8") as f:
            reader = csv.reader(f, delimiter=delim, quoting=csv.QUOTE_MINIMAL if quote else csv.QUOTE_NONE)
            if header:
                next(reader, None)
            yield from reader


def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None, label_name=None,
                     select_columns=None, field_delim=",", use_quote_delim=True, na_value="", header=True,
                     num_epochs=None, shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=None, sloppy=False, num_rows_for_inference=100,
                     compression_type=None, ignore_errors=False):
    """Batches of CSV records as ({column name: tensor [batch]}, label) (TF 1.15's defaults: the files
    are shuffled and read num_parallel_reads=1 at a time, records shuffled with a buffer of 10000,
    repeated forever (num_epochs=None, batches then all full), column names from the header and dtypes
    inferred from the first 100 rows)."""
    patterns = file_pattern if isinstance(file_pattern, list) else [file_pattern]
    if not patterns:
        raise ValueError("File pattern is empty.")
    names = sorted(n for p in patterns for n in glob.glob(p))
    if not names:
        raise ValueError("No files match %s." % file_pattern)
    if column_names is None:
        if not header:
            raise ValueError("Cannot infer column names without a header line.")
        heads = [next(_csv_rows([n], field_delim, use_quote_delim, False), None) for n in names]
        if heads[0] is None:
            raise ValueError("Received StopIteration when reading the header line of %s.  Empty file?" % names[0])
        if any(h != heads[0] for h in heads[1:]):
            raise ValueError("Files have different column names in the header row.")
        column_names = heads[0]
    column_names = list(column_names)
    if len(column_names) != len(set(column_names)):
        raise ValueError("Cannot have duplicate column names.")
    if select_columns is not None:
        index = {n: i for i, n in enumerate(column_names)}
        cols = []
        for v in select_columns:
            if isinstance(v, int):
                if not 0 <= v < len(column_names):
                    raise ValueError("Column index %d specified in select_columns out of valid range." % v)
                cols.append(v)
            elif v not in index:
                raise ValueError("Value '%s' specified in select_columns not a valid column index or name." % v)
            else:
                cols.append(index[v])
        select_columns = sorted(set(cols))
        if len(select_columns) != len(cols):
            raise ValueError("select_columns contains duplicate columns")
    if column_defaults is None:
        chosen = select_columns if select_columns is not None else range(len(column_names))
        types = [None] * len(chosen)
        for i, row in enumerate(_csv_rows(names, field_delim, use_quote_delim, header)):
            if num_rows_for_inference is not None and i >= num_rows_for_inference:
                break
            if len(row) != len(column_names):
                raise ValueError("Problem inferring types: CSV row has different number of fields than expected.")
            types = [_infer_type(row[c], na_value, t) for c, t in zip(chosen, types)]
        column_defaults = [np.array([b""], object) if (t or dt.string) is dt.string else np.zeros([1], t.np)
                           for t in types]
    else:
        column_defaults = [dt.as_dtype(d) if isinstance(d, (dt.DType, type)) else d for d in column_defaults]
    if select_columns is not None and len(column_defaults) != len(select_columns):
        raise ValueError("If specified, column_defaults and select_columns must have same length.")
    if select_columns is not None and len(column_names) > len(select_columns):
        column_names = [column_names[i] for i in select_columns]
    if label_name is not None and label_name not in column_names:
        raise ValueError("`label_name` provided must be one of the columns.")

    dataset = Dataset.from_tensor_slices(np.array([n.encode("utf-8") for n in names], object))
    if shuffle:
        dataset = dataset.shuffle(len(names), shuffle_seed)
    dataset = dataset.apply(parallel_interleave(
        lambda name: CsvDataset(name, column_defaults, compression_type, None, header, field_delim, use_quote_delim,
                                na_value, select_columns),
        cycle_length=1 if num_parallel_reads in (None, AUTOTUNE) else num_parallel_reads, sloppy=sloppy))
    if num_epochs != 1 and shuffle:
        dataset = dataset.apply(shuffle_and_repeat(shuffle_buffer_size, num_epochs, shuffle_seed))
    elif shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, shuffle_seed)
    elif num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size, drop_remainder=num_epochs is None)

    def to_features(*columns):
        features = collections.OrderedDict(zip(column_names, columns))
        if label_name is not None:
            return features, features.pop(label_name)
        return features
    return dataset.map(to_features)



from tinyflow.api.data import sampling as _sampling  # noqa: E402
from tinyflow.api.data.sampling import (INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, RandomDataset,  # noqa: E402,F401
                                        Reducer, SqlDataset, cardinality, group_by_reducer,
                                        rejection_resample, sample_from_datasets, take_while)

ignore_errors = _sampling.ignore_errors   # (not imported by name: make_csv_dataset has an argument of that name)


# ---- element structures (TF 1.15: the TypeSpec classes), variants, optionals, statistics ----------------
from tinyflow.api.framework import (DatasetSpec as DatasetStructure, OptionalSpec as OptionalStructure,  # noqa: E402,F401
                                    TypeSpec as Structure)
from tinyflow.api.data.optional_ops import Optional, get_next_as_optional  # noqa: E402,F401
from tinyflow.api.data.stats_ops import StatsAggregator, bytes_produced_stats, latency_stats  # noqa: E402,F401
from tinyflow.api.data.iterator_checkpoint import (CheckpointInputPipelineHook,  # noqa: E402,F401
                                                   make_saveable_from_iterator)


def TensorStructure(dtype, shape):
    """TF 1.15's name of tf.TensorSpec(shape, dtype) (its arguments the other way round)."""
    from tinyflow.api.aliases import TensorSpec
    return TensorSpec(shape, dtype)


def SparseTensorStructure(dtype, shape):
    """tf.SparseTensorSpec(shape, dtype)."""
    from tinyflow.api.framework import SparseTensorSpec
    return SparseTensorSpec(shape, dtype)


def RaggedTensorStructure(dtype, shape, ragged_rank):
    """tf.RaggedTensorSpec(shape, dtype, ragged_rank)."""
    from tinyflow.api.framework import RaggedTensorSpec
    return RaggedTensorSpec(shape, dtype, ragged_rank)


def TensorArrayStructure(dtype, element_shape, dynamic_size, infer_shape):
    """tf.TensorArraySpec(element_shape, dtype, dynamic_size, infer_shape)."""
    from tinyflow.api.framework import TensorArraySpec
    return TensorArraySpec(element_shape, dtype, dynamic_size, infer_shape)


def get_structure(dataset_or_iterator):
    """The nested TensorSpecs of a Dataset's or Iterator's elements (TF 1.15's element_spec)."""
    from tinyflow.api.data.optional_ops import _specs
    types, shapes = getattr(dataset_or_iterator, "_types", None), getattr(dataset_or_iterator, "_shapes", None)
    if types is None or shapes is None:
        raise TypeError("`dataset_or_iterator` must be a Dataset or Iterator object, but got %s."
                        % type(dataset_or_iterator))
    return _specs(types, shapes)


def _variant_shape(shapes, attrs, values):
    return [TensorShape([])]


register_host_op("WrapDatasetVariant", _variant_shape, lambda d, a: [dt.variant], lambda s, op, i: [None])


def to_variant(dataset):
    """A scalar tf.variant tensor standing for `dataset` (from_variant gives it back)."""
    return make_host_op("WrapDatasetVariant", [], {"dataset": dataset}).outputs[0]


def from_variant(variant, structure):
    """The dataset a to_variant tensor stands for, whose elements must have the nested TensorSpecs
    `structure`."""
    if not isinstance(variant, Tensor) or variant.dtype != dt.variant or variant.op.type != "WrapDatasetVariant":
        raise TypeError("from_variant: expected the tf.variant tensor of to_variant(dataset), got %r" % (variant,))
    dataset = variant.op.attrs["dataset"]
    want = nest.flatten(structure)
    got = nest.flatten(get_structure(dataset))
    if len(want) != len(got) or any(w.dtype != g.dtype or not w.shape.is_compatible_with(g.shape)
                                    for w, g in zip(want, got)):
        raise TypeError("from_variant: the dataset's elements are %s, not %s" % (got, want))
    return dataset
