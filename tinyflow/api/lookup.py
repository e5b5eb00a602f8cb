"""Lookup tables: tf.contrib.lookup, tensorflow.python.ops.lookup_ops and tf.lookup (TF 1.15).

A table maps keys (strings or integers) to values, filled by an initializer when
`tf.tables_initializer()` runs (TF's TABLE_INITIALIZERS collection), per session; lookups run on the
host (ops/lookup_ops.py). Out-of-vocabulary buckets hash as TF (Fingerprint64:
tf.strings.to_hash_bucket_fast), so ids match TF's.
"""
import collections
import types

import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph import errors
from tinyflow.graph.core import GraphKeys, add_to_collection, get_default_graph, name_scope
from tinyflow.ops import lookup_ops as _ops
from tinyflow.ops import string_ops
from tinyflow.ops.core import math_ops
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.host_ops import make_host_op
from tinyflow.ops.sparse import SparseTensor
from tinyflow.api.aliases import tables_initializer  # noqa: F401

initialize_all_tables = tables_initializer


class TextFileIndex:
    """Which part of a line is a key or value: the whole line, or its line number (else a column)."""
    WHOLE_LINE = _ops.WHOLE_LINE
    LINE_NUMBER = _ops.LINE_NUMBER


HasherSpec = collections.namedtuple("HasherSpec", ["hasher", "key"])
FastHashSpec = HasherSpec("fasthash", None)


class StrongHashSpec(HasherSpec):
    """Accepted for TF's signature; tinyflow hashes with Fingerprint64 (FastHashSpec) only."""
    __slots__ = ()

    def __new__(cls, key):
        raise NotImplementedError("tinyflow: StrongHashSpec (keyed SipHash) is not supported; use FastHashSpec")


# ---- initializers ---------------------------------------------------------------------------------
class TableInitializerBase:
    """What fills a table: `initialize(table)` makes the op, put in the TABLE_INITIALIZERS collection."""

    def __init__(self, key_dtype, value_dtype):
        self._key_dtype, self._value_dtype = dt.as_dtype(key_dtype), dt.as_dtype(value_dtype)

    key_dtype = property(lambda self: self._key_dtype)
    value_dtype = property(lambda self: self._value_dtype)

    def _init_op(self, op_type, inputs, attrs, table):
        with name_scope(self._name):
            op = make_host_op(op_type, inputs, dict(attrs, table=table._table_name), name=op_type)
        add_to_collection(GraphKeys.TABLE_INITIALIZERS, op)
        return op


class KeyValueTensorInitializer(TableInitializerBase):
    """A table of `keys[i] -> values[i]` (two tensors of one shape)."""

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        with name_scope(name or "key_value_init"):
            self._keys = convert_to_tensor(keys, key_dtype, name="keys")
            self._values = convert_to_tensor(values, value_dtype, name="values")
        self._name = name or "key_value_init"
        if not self._keys.shape.is_compatible_with(self._values.shape):
            k, v = self._keys.shape.as_list(), self._values.shape.as_list()
            raise ValueError("Dimension 0 in both shapes must be equal, but are %s and %s. Shapes are %s and %s."
                             % (k[0], v[0], k, v))
        super().__init__(self._keys.dtype, self._values.dtype)

    def initialize(self, table):
        _check_types(table, self)
        return self._init_op("InitializeTableV2", [self._keys, self._values], {}, table)


class TextFileInitializer(TableInitializerBase):
    """A table read from a text file: each line's key and value are its whole line (WHOLE_LINE), its line
    number (LINE_NUMBER) or a column (split at `delimiter`); the first `vocab_size` lines when given."""

    def __init__(self, filename, key_dtype, key_index, value_dtype, value_index, vocab_size=None, delimiter="\t",
                 name=None):
        key_dtype, value_dtype = dt.as_dtype(key_dtype), dt.as_dtype(value_dtype)
        if key_index < -2 or value_index < -2:
            raise ValueError("Invalid key index %s / value index %s." % (key_index, value_index))
        if key_index == TextFileIndex.LINE_NUMBER and key_dtype is not dt.int64:
            raise ValueError("Signature mismatch. Keys must be dtype %s, got %s." % (dt.int64, key_dtype))
        if key_index == TextFileIndex.WHOLE_LINE and not (key_dtype.is_integer or key_dtype is dt.string):
            raise ValueError("Signature mismatch. Keys must be integer or string, got %s." % key_dtype)
        if value_index == TextFileIndex.LINE_NUMBER and value_dtype is not dt.int64:
            raise ValueError("Signature mismatch. Values must be dtype %s, got %s." % (dt.int64, value_dtype))
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError("Invalid vocab_size %s." % vocab_size)
        self._filename = convert_to_tensor(filename, dt.string)
        self._attrs = {"key_index": int(key_index), "value_index": int(value_index), "delimiter": delimiter,
                       "vocab_size": -1 if vocab_size is None else int(vocab_size), "key_dtype": key_dtype,
                       "value_dtype": value_dtype}
        self._name = name or "text_file_init"
        super().__init__(key_dtype, value_dtype)

    def initialize(self, table):
        _check_types(table, self)
        return self._init_op("InitializeTableFromTextFileV2", [self._filename], self._attrs, table)


class TextFileStringTableInitializer(TextFileInitializer):
    """int64 line numbers -> the lines (strings) of a vocabulary file."""

    def __init__(self, filename, key_column_index=TextFileIndex.LINE_NUMBER,
                 value_column_index=TextFileIndex.WHOLE_LINE, vocab_size=None, delimiter="\t",
                 name="text_file_string_table_init"):
        super().__init__(filename, dt.int64, key_column_index, dt.string, value_column_index, vocab_size, delimiter,
                         name)


class TextFileIdTableInitializer(TextFileInitializer):
    """The lines of a vocabulary file -> their int64 line numbers."""

    def __init__(self, filename, key_column_index=TextFileIndex.WHOLE_LINE,
                 value_column_index=TextFileIndex.LINE_NUMBER, vocab_size=None, delimiter="\t",
                 name="text_file_id_table_init", key_dtype=dt.string):
        super().__init__(filename, key_dtype, key_column_index, dt.int64, value_column_index, vocab_size, delimiter,
                         name)


def _check_types(table, initializer):
    if table.key_dtype != initializer.key_dtype or table.value_dtype != initializer.value_dtype:
        raise TypeError("Signature mismatch. Keys must be dtype %s, got %s." % (table.key_dtype,
                                                                               initializer.key_dtype))


# ---- tables ---------------------------------------------------------------------------------------
class LookupInterface:
    """A table: `lookup(keys)` (a Tensor or SparseTensor of key_dtype) and `size()`."""

    def __init__(self, key_dtype, value_dtype, name):
        self._key_dtype, self._value_dtype, self._name = dt.as_dtype(key_dtype), dt.as_dtype(value_dtype), name

    key_dtype = property(lambda self: self._key_dtype)
    value_dtype = property(lambda self: self._value_dtype)
    name = property(lambda self: self._name)

    def _keys(self, keys):
        """(the key tensor, a function making the result a SparseTensor again when `keys` was one)."""
        if isinstance(keys, SparseTensor):
            return keys.values, lambda v: SparseTensor(keys.indices, v, keys.dense_shape)
        keys = convert_to_tensor(keys, self._key_dtype if not hasattr(keys, "dtype") else None)
        if keys.dtype != self._key_dtype:
            raise TypeError("Signature mismatch. Keys must be dtype %s, got %s." % (self._key_dtype, keys.dtype))
        return keys, lambda v: v


class InitializableLookupTableBase(LookupInterface):
    """A table filled once by its initializer (run by tf.tables_initializer()); unknown keys give
    `default_value`."""

    def __init__(self, default_value, initializer, name=None):
        super().__init__(initializer.key_dtype, initializer.value_dtype, name or "hash_table")
        self._table_name = get_default_graph().unique_name(self._name)
        self._default_value = convert_to_tensor(default_value, self._value_dtype, name="default_value")
        if self._default_value.shape.ndims not in (None, 0):
            raise ValueError("Shape must be rank 0 but is rank %d for the default_value" %
                             self._default_value.shape.ndims)
        with name_scope(self._table_name):
            self._init_op = initializer.initialize(self)

    default_value = property(lambda self: self._default_value)
    initializer = property(lambda self: self._init_op, doc="The op that fills the table.")
    resource_handle = property(lambda self: self._table_name)

    def size(self, name=None):
        """The number of entries (int64 scalar); FailedPreconditionError before initialization."""
        return make_host_op("LookupTableSizeV2", [], {"table": self._table_name},
                            name=name or self._table_name + "_Size").outputs[0]

    def lookup(self, keys, name=None):
        """The value of each key (`default_value` for missing ones), in the shape of `keys`."""
        keys, rebuild = self._keys(keys)
        out = make_host_op("LookupTableFindV2", [keys, self._default_value],
                           {"table": self._table_name, "value_dtype": self._value_dtype},
                           name=name or self._table_name + "_Lookup").outputs[0]
        return rebuild(out)


class HashTable(InitializableLookupTableBase):
    """A table of fixed contents (TF 1.15's StaticHashTable / contrib.lookup.HashTable)."""

    def __init__(self, initializer, default_value, shared_name=None, name=None):
        super().__init__(default_value, initializer, name)


StaticHashTable = StaticHashTableV1 = HashTable


class IdTableWithHashBuckets(LookupInterface):
    """`table` (string or integer keys -> int64 ids) with `num_oov_buckets` more ids for missing keys:
    size + Fingerprint64(key) % num_oov_buckets (integer keys hashed as their decimal strings, as TF)."""

    def __init__(self, table, num_oov_buckets, hasher_spec=FastHashSpec, name=None, key_dtype=None):
        if num_oov_buckets < 0:
            raise ValueError("oov_buckets must be > 0 if no table is supplied.")
        if hasher_spec != FastHashSpec:
            raise NotImplementedError("tinyflow: only FastHashSpec (TF's Fingerprint64) hashes OOV buckets")
        self._table, self._buckets = table, int(num_oov_buckets)
        super().__init__(key_dtype or (table.key_dtype if table else dt.string), dt.int64,
                         name or (table.name if table else "hash_bucket"))

    initializer = property(lambda self: self._table.initializer if self._table else None)

    def size(self, name=None):
        n = convert_to_tensor(np.int64(self._buckets))
        return math_ops.add(self._table.size(), n, name=name) if self._table else n

    def lookup(self, keys, name=None):
        keys, rebuild = self._keys(keys)
        text = keys if keys.dtype is dt.string else string_ops.as_string(keys)
        buckets = string_ops.string_to_hash_bucket_fast(text, max(self._buckets, 1))
        if self._table is None:
            return rebuild(buckets)
        ids = self._table.lookup(keys)
        if self._buckets:
            from tinyflow.ops.core.math_ops import where_v2
            ids = where_v2(math_ops.not_equal(ids, self._table.default_value), ids,
                           math_ops.add(buckets, self._table.size()), name=name)
        return rebuild(ids)


def StaticVocabularyTable(initializer, num_oov_buckets, lookup_key_dtype=None, name=None):  # noqa: N802 (TF's class name)
    """tf.lookup.StaticVocabularyTable: the initializer's ids, and num_oov_buckets hashed ids for others."""
    return IdTableWithHashBuckets(HashTable(initializer, -1), num_oov_buckets, name=name, key_dtype=lookup_key_dtype)


StaticVocabularyTableV1 = StaticVocabularyTable


# ---- the vocabulary functions ---------------------------------------------------------------------
def index_table_from_file(vocabulary_file=None, num_oov_buckets=0, vocab_size=None, default_value=-1,
                          hasher_spec=FastHashSpec, key_dtype=dt.string, name=None,
                          key_column_index=TextFileIndex.WHOLE_LINE, value_column_index=TextFileIndex.LINE_NUMBER,
                          delimiter="\t"):
    """A table of the lines of `vocabulary_file` -> their line numbers (int64); other keys get
    `default_value`, or one of `num_oov_buckets` ids after the vocabulary."""
    if vocabulary_file is None or (isinstance(vocabulary_file, str) and not vocabulary_file):
        raise ValueError("vocabulary_file must be specified and must not be empty.")
    if num_oov_buckets < 0:
        raise ValueError("num_oov_buckets must be greater or equal than 0, got %d." % num_oov_buckets)
    if vocab_size is not None and vocab_size < 1:
        raise ValueError("vocab_size must be greater than 0, got %d." % vocab_size)
    key_dtype = dt.as_dtype(key_dtype)
    if not (key_dtype.is_integer or key_dtype is dt.string):
        raise TypeError("Only integer and string keys are supported.")
    with name_scope(name or "string_to_index"):
        init = TextFileIdTableInitializer(vocabulary_file, key_column_index, value_column_index, vocab_size, delimiter,
                                          key_dtype=dt.int64 if key_dtype.is_integer else key_dtype)
        table = HashTable(init, default_value)
        return IdTableWithHashBuckets(table, num_oov_buckets, hasher_spec, key_dtype=key_dtype) if num_oov_buckets \
            else table


def index_table_from_tensor(vocabulary_list=None, num_oov_buckets=0, default_value=-1, hasher_spec=FastHashSpec,
                            dtype=dt.string, name=None, mapping=None):
    """A table of the entries of the 1-D `vocabulary_list` (tf.contrib.lookup: `mapping`) -> their
    positions (int64); other keys get `default_value`, or one of `num_oov_buckets` ids after them."""
    vocabulary_list = mapping if vocabulary_list is None else vocabulary_list
    if vocabulary_list is None:
        raise ValueError("vocabulary_list must be specified.")
    if num_oov_buckets < 0:
        raise ValueError("num_oov_buckets must be greater or equal than 0, got %d." % num_oov_buckets)
    dtype = dt.as_dtype(dtype)
    if not (dtype.is_integer or dtype is dt.string):
        raise TypeError("Only integer and string keys are supported.")
    with name_scope(name or "string_to_index"):
        keys = convert_to_tensor(vocabulary_list)
        if keys.dtype.is_integer != dtype.is_integer:
            raise ValueError("Expected %s, got %s." % ("integer" if dtype.is_integer else "non-integer", keys.dtype))
        if dtype.is_integer and keys.dtype is not dt.int64:
            keys = math_ops.cast(keys, dt.int64)
        n = keys.shape.as_list()[0] if keys.shape.ndims == 1 else None
        values = math_ops.cast(convert_to_tensor(np.arange(n, dtype=np.int64)) if n is not None else
                               math_ops.range(math_ops.size(keys, out_type=dt.int64)), dt.int64)
        table = HashTable(KeyValueTensorInitializer(keys, values, dt.int64 if dtype.is_integer else dtype, dt.int64),
                          default_value)
        return IdTableWithHashBuckets(table, num_oov_buckets, hasher_spec, key_dtype=dtype) if num_oov_buckets \
            else table


def index_to_string_table_from_file(vocabulary_file, vocab_size=None, default_value="UNK", name=None,
                                    key_column_index=TextFileIndex.LINE_NUMBER,
                                    value_column_index=TextFileIndex.WHOLE_LINE, delimiter="\t"):
    """A table of int64 line numbers -> the lines of `vocabulary_file`; others give `default_value`."""
    if vocabulary_file is None or (isinstance(vocabulary_file, str) and not vocabulary_file):
        raise ValueError("vocabulary_file must be specified and must not be empty.")
    if vocab_size is not None and vocab_size < 1:
        raise ValueError("vocab_size must be greater than 0, got %d." % vocab_size)
    with name_scope(name or "index_to_string"):
        init = TextFileStringTableInitializer(vocabulary_file, key_column_index, value_column_index, vocab_size,
                                              delimiter)
        return HashTable(init, default_value)


def index_to_string_table_from_tensor(vocabulary_list=None, default_value="UNK", name=None, mapping=None):
    """A table of int64 positions -> the strings of the 1-D `vocabulary_list` (contrib: `mapping`)."""
    vocabulary_list = mapping if vocabulary_list is None else vocabulary_list
    if vocabulary_list is None:
        raise ValueError("vocabulary_list must be specified.")
    with name_scope(name or "index_to_string"):
        values = convert_to_tensor(vocabulary_list, dt.string)
        n = values.shape.as_list()[0]
        keys = convert_to_tensor(np.arange(n, dtype=np.int64))
        return HashTable(KeyValueTensorInitializer(keys, values, dt.int64, dt.string), default_value)


def string_to_index(tensor, mapping, default_value=-1, name=None):
    """tf.contrib.lookup.string_to_index: the positions of `tensor`'s strings in `mapping`."""
    return index_table_from_tensor(mapping, default_value=default_value, name=name).lookup(tensor)


def index_to_string(tensor, mapping, default_value="UNK", name=None):
    """tf.contrib.lookup.index_to_string: the strings of `mapping` at the int64 positions `tensor`."""
    return index_to_string_table_from_tensor(mapping, default_value=default_value, name=name).lookup(tensor)


string_to_index_table_from_file = index_table_from_file
string_to_index_table_from_tensor = index_table_from_tensor


class DenseHashTable(LookupInterface):
    """tf.lookup.experimental.DenseHashTable: a mutable table (insert / insert_or_assign, erase / remove,
    lookup, size) of scalar keys and values of default_value's shape, kept per Session as tinyflow's other
    tables. Its keys may be neither `empty_key` nor `deleted_key` (InvalidArgumentError, as TF's). TF's
    export() gives its open-addressing buckets (their order is its hash's): tinyflow does not lay them out."""

    def __init__(self, key_dtype, value_dtype, default_value, empty_key, deleted_key, initial_num_buckets=None,
                 name="MutableDenseHashTable", checkpoint=True):
        super().__init__(key_dtype, value_dtype, name)
        self._table_name = get_default_graph().unique_name(name)
        self._default_value = convert_to_tensor(default_value, self._value_dtype, name="default_value")
        self._value_shape = self._default_value.shape
        self._empty_key, self._deleted_key = (self._key_dtype.as_numpy_dtype(empty_key),
                                              self._key_dtype.as_numpy_dtype(deleted_key))
        if self._empty_key == self._deleted_key:
            raise errors.InvalidArgumentError(None, None, "Empty and deleted keys cannot be equal")

    name = property(lambda self: self._table_name)
    resource_handle = property(lambda self: self._table_name)

    def _op(self, op_type, inputs, name, **attrs):
        attrs.update(table=self._table_name, empty_key=self._empty_key, deleted_key=self._deleted_key)
        return make_host_op(op_type, inputs, attrs, name=name or "%s_%s" % (self._table_name, op_type))

    def size(self, name=None):
        return self._op("LookupTableSizeV2", [], name).outputs[0]

    def lookup(self, keys, name=None):
        """The value of each key (default_value for missing ones): keys.shape + default_value's shape."""
        keys, rebuild = self._keys(keys)
        return rebuild(self._op("LookupTableFindV2", [keys, self._default_value], name,
                                value_dtype=self._value_dtype).outputs[0])

    def insert_or_assign(self, keys, values, name=None):
        keys, _ = self._keys(keys)
        values = convert_to_tensor(values, self._value_dtype, name="values")
        return self._op("LookupTableInsertV2", [keys, values], name)

    insert = insert_or_assign

    def erase(self, keys, name=None):
        keys, _ = self._keys(keys)
        return self._op("LookupTableRemoveV2", [keys], name)

    remove = erase

    def export(self, name=None):
        raise errors.UnimplementedError(None, None, "DenseHashTable.export gives TF's hash buckets, which tinyflow's "
                                                    "table does not lay out (lookup, insert, erase, size work)")


experimental = types.SimpleNamespace(DenseHashTable=DenseHashTable)
