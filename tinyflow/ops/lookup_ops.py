"""Lookup tables (tf.contrib.lookup, tf.lookup): per-session host state, as TF's table resources.

A table is a name (its `table` attr); its contents live in `_TABLES[session][name]`, filled by an
initializer op (InitializeTableV2: keys and values tensors; InitializeTableFromTextFileV2: a text
file's columns) and read by LookupTableFindV2 / LookupTableSizeV2. All are host ops: keys may be
strings. Before its initializer ran, a table raises TF's FailedPreconditionError("Table not
initialized."); running the initializer again leaves it as it is (as TF). A dataset function's own
Session reads the tables of the Session that iterates the dataset (`_owner`).
"""
import threading
import weakref

import numpy as np

from tinyflow.graph import errors
from tinyflow.graph import dtypes as dt
from tinyflow.graph.shapes import TensorShape
from tinyflow.formats import files
from tinyflow.ops.host_ops import register_host_op, string_array

_TABLES = weakref.WeakKeyDictionary()  # Session -> {table name: {key: value}}
_LOCK = threading.Lock()
WHOLE_LINE, LINE_NUMBER = -2, -1


def _tables(session):
    owner = getattr(session, "_resource_owner", None)
    with _LOCK:
        return _TABLES.setdefault(session if owner is None else owner, {})


def _key(k):
    return bytes(k) if isinstance(k, (bytes, np.bytes_)) else k.item() if hasattr(k, "item") else k


def _fill(session, op, pairs):
    tables = _tables(session)
    if op.attrs["table"] in tables:
        return []   # initialized already: TF's initializer leaves it as it is
    table = {}
    for k, v in pairs:
        k = _key(k)
        if k in table and table[k] != v:
            raise errors.FailedPreconditionError(op.node_def, op, "HashTable has different value for same key. Key "
                                                 "%s has %s and trying to add value %s" % (_text(k), table[k], v))
        table[k] = v
    tables[op.attrs["table"]] = table
    return []


def _text(k):
    return k.decode("utf-8", "replace") if isinstance(k, bytes) else str(k)


def _import(session, op, inputs):
    keys, values = inputs
    if keys.shape != values.shape:
        raise errors.InvalidArgumentError(op.node_def, op, "Expected shape %s for value, got %s"
                                          % (list(keys.shape), list(values.shape)))
    return _fill(session, op, zip(keys.reshape(-1), values.reshape(-1)))


def _column(op, line, fields, index, n, dtype, name, what):
    """The key or value of line `n`: its number, the whole line, or a column parsed as `dtype`."""
    if index == LINE_NUMBER:
        return np.int64(n)
    if index != WHOLE_LINE and index >= len(fields):
        raise errors.InvalidArgumentError(op.node_def, op, "Invalid number of columns in %s line %d (%s) for the %s "
                                          "index %d" % (name, n, line.decode("utf-8", "replace"), what, index))
    text = line if index == WHOLE_LINE else fields[index]
    if dtype is dt.string:
        return text
    try:
        return dtype.np.type(int(text) if dtype.is_integer else float(text))
    except (ValueError, OverflowError):
        raise errors.InvalidArgumentError(op.node_def, op, "Field %s in line %d is not a valid %s."
                                          % (text.decode("utf-8", "replace"), n, dtype.name)) from None


def _from_file(session, op, inputs):
    a = op.attrs
    name = bytes(np.asarray(inputs[0], object)[()]).decode("utf-8")
    f, _ = files.open_regular(name, "vocabulary file")
    pairs, position, delim = [], 0, a["delimiter"].encode("utf-8")
    with f:
        for n, line in enumerate(files.lines(f, name)):
            if a["vocab_size"] != -1 and n >= a["vocab_size"]:
                break
            position += len(line) + 1   # TF reports the position after the line
            line = line.rstrip(b"\r")
            if not line:
                raise errors.InvalidArgumentError(op.node_def, op, "Invalid content in %s: empty line found at "
                                                  "position %d." % (name, position))
            fields = line.split(delim)
            pairs.append((_column(op, line, fields, a["key_index"], n, a["key_dtype"], name, "key"),
                          _column(op, line, fields, a["value_index"], n, a["value_dtype"], name, "value")))
    if a["vocab_size"] != -1 and len(pairs) < a["vocab_size"]:
        raise errors.InvalidArgumentError(op.node_def, op, "Invalid vocab_size in %s: expected %d but got %d"
                                          % (name, a["vocab_size"], len(pairs)))
    return _fill(session, op, pairs)


def _table(session, op):
    if op.attrs.get("empty_key") is not None:   # a mutable (dense hash) table: empty until inserted into
        return _tables(session).setdefault(op.attrs["table"], {})
    table = _tables(session).get(op.attrs["table"])
    if table is None:
        raise errors.FailedPreconditionError(op.node_def, op, "Table not initialized.")
    return table


def _check_keys(op, keys):
    """A dense hash table's keys may be neither its empty_key nor its deleted_key (TF's)."""
    for attr, what in (("empty_key", "empty_key"), ("deleted_key", "deleted_key")):
        if op.attrs.get(attr) is not None and np.any(keys == op.attrs[attr]):
            raise errors.InvalidArgumentError(op.node_def, op, "Using the %s as a table key is not allowed" % what)


def _find(session, op, inputs):
    table, (keys, default) = _table(session, op), inputs
    _check_keys(op, keys)
    d = default[()] if np.ndim(default) == 0 else default
    if np.ndim(default) > 0:   # vector values: one row per key
        rows = [table.get(_key(k), d) for k in keys.reshape(-1)]
        return [np.array(rows, op.attrs["value_dtype"].np).reshape(keys.shape + np.shape(default))]
    flat = [table.get(_key(k), d) for k in keys.reshape(-1)]
    if op.attrs["value_dtype"] is dt.string:
        return [string_array(keys.shape, flat)]
    return [np.array(flat, op.attrs["value_dtype"].np).reshape(keys.shape)]


_NONE = (lambda s, a, v: [], lambda d, a: [])
register_host_op("InitializeTableV2", *_NONE, _import, stateful=True)
register_host_op("InitializeTableFromTextFileV2", *_NONE, _from_file, stateful=True)
register_host_op("LookupTableFindV2", lambda s, a, v: [s[0].concatenate(s[1])], lambda d, a: [a["value_dtype"]], _find,
                 stateful=True)


def _insert(session, op, inputs):
    table, (keys, values) = _table(session, op), inputs
    _check_keys(op, keys)
    rows = values.reshape((keys.size,) + values.shape[keys.ndim:])
    for k, v in zip(keys.reshape(-1), rows):
        table[_key(k)] = v[()] if v.ndim == 0 else v.copy()
    return []


def _remove(session, op, inputs):
    table, (keys,) = _table(session, op), inputs
    _check_keys(op, keys)
    for k in keys.reshape(-1):
        table.pop(_key(k), None)
    return []


register_host_op("LookupTableInsertV2", *_NONE, _insert, stateful=True)
register_host_op("LookupTableRemoveV2", *_NONE, _remove, stateful=True)
register_host_op("LookupTableSizeV2", lambda s, a, v: [TensorShape([])], lambda d, a: [dt.int64],
                 lambda session, op, inputs: [np.int64(len(_table(session, op)))], stateful=True)
