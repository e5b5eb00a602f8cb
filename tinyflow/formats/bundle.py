"""TF's V2 checkpoint, the tensor bundle (tensorflow/core/util/tensor_bundle): `P.index` and
`P.data-00000-of-00001`.

The index is a table (table.py) mapping each tensor name to a BundleEntryProto (dtype, shape,
shard, offset, size, masked crc32c of the bytes); the key "" holds the BundleHeaderProto (number
of data shards, endianness). The data files hold the raw little-endian tensor bytes. A partitioned
variable is one entry naming its slices, each stored under a key made from the name and the
slice's extents (ordered_code.py).

Every file is untrusted: data files are named from the prefix, never from the index; each
entry's offset and size are checked against the data file, its dtype and shape against its size,
and its checksum when read. Errors are DataLossError naming the file.
"""
import math
import os

import numpy as np

from tinyflow.graph import errors
from tinyflow.graph import dtypes as dt
from tinyflow.formats import files, ordered_code
from tinyflow.formats.protos import bundle
from tinyflow.formats.table import _read_varint, _varint, masked_crc32c, read_table, write_table

_BY_ENUM = {d.as_datatype_enum: d for d in dt.ALL}
_MAX_SHARDS = 1 << 16


def data_filename(prefix, shard=0, num_shards=1):
    return "%s.data-%05d-of-%05d" % (prefix, shard, num_shards)


def is_bundle(prefix):
    """True when P.index is a table (TF's format); tinyflow's npz index is JSON text."""
    try:
        f, _ = files.open_regular(prefix + ".index", "Checkpoint index")
    except errors.OpError:   # absent, or not a regular file: the reader says which
        return False
    with f:
        return f.read(1) != b"{"


def _loss(message):
    return errors.DataLossError(None, None, message)


class BundleReader:
    """Reads a V2 checkpoint (tf.train.NewCheckpointReader's interface); checks everything it can
    before returning: the table's checksums, each entry's place in its data file and its size."""

    def __init__(self, prefix):
        self._prefix = prefix
        index_path = prefix + ".index"
        try:   # a regular file of at most files.MAX_WHOLE_FILE bytes (/dev/zero, a FIFO: refused)
            raw = files.read_regular(index_path, "Checkpoint index")
        except errors.NotFoundError as e:
            raise errors.NotFoundError(None, None, "Unsuccessful TensorSliceReader constructor: Failed to find any "
                                       "matching files for %s (%s)" % (prefix, e.message)) from None
        items = read_table(raw, index_path)
        msgs = bundle()
        if not items or items[0][0] != b"":
            raise _loss("Checkpoint index %s has no bundle header" % index_path)
        header = msgs.BundleHeaderProto()
        self._entries = {}
        try:
            header.ParseFromString(items[0][1])
            for key, value in items[1:]:
                entry = msgs.BundleEntryProto()
                entry.ParseFromString(value)
                self._entries[key] = entry
        except Exception as e:  # protobuf's DecodeError, or a bad enum/UTF-8
            raise _loss("Checkpoint index %s holds a malformed entry: %s" % (index_path, e)) from None
        if header.endianness != 0:
            raise _loss("Checkpoint %s was written on a big-endian machine, which tinyflow does not read" % prefix)
        if not 1 <= header.num_shards <= _MAX_SHARDS:
            raise _loss("Checkpoint index %s names %d data shards" % (index_path, header.num_shards))
        self._shards = [data_filename(prefix, i, header.num_shards) for i in range(header.num_shards)]
        sizes = []
        for path in self._shards:
            if not os.path.lexists(path):
                raise errors.NotFoundError(None, None, "Checkpoint data file %s of %s not found" % (path, prefix))
            f, size = files.open_regular(path, "Checkpoint data file")   # its real size, a regular file
            f.close()
            sizes.append(size)
        self._sizes = sizes
        self._names = {}
        # tf.train.Checkpoint's object graph (a serialized proto, a string tensor): tinyflow restores such
        # checkpoints by their keys (api/train/checkpoint.py); object_graph() reads it, the name map leaves it out
        self._graph_entry = self._entries.pop(b"_CHECKPOINTABLE_OBJECT_GRAPH", None)
        if self._graph_entry is not None:
            self._check(b"_CHECKPOINTABLE_OBJECT_GRAPH", self._graph_entry, sizes, index_path)
        for key, entry in self._entries.items():
            self._check(key, entry, sizes, index_path)
            if not key.startswith(b"\x00"):  # slice keys start with a 0 byte; names never do
                try:
                    self._names[key.decode("utf-8")] = key
                except UnicodeDecodeError:
                    raise _loss("Checkpoint index %s has a key that is not UTF-8: %r" % (index_path, key)) from None
        for name, key in self._names.items():
            self._check_slices(name, self._entries[key], index_path)

    def _check(self, key, entry, sizes, index_path):
        name = key.decode("utf-8", "replace")
        if entry.dtype not in _BY_ENUM:
            raise _loss("Checkpoint index %s: tensor %s has a dtype tinyflow cannot read (DataType %d)"
                        % (index_path, name, entry.dtype))
        if entry.shape.unknown_rank or any(d.size < 0 for d in entry.shape.dim):
            raise _loss("Checkpoint index %s: tensor %s has an invalid shape" % (index_path, name))
        if entry.slices:
            return
        if not 0 <= entry.shard_id < len(sizes):
            raise _loss("Checkpoint index %s: tensor %s is in shard %d of %d" % (index_path, name, entry.shard_id,
                                                                                len(sizes)))
        if entry.offset < 0 or entry.size < 0 or entry.offset + entry.size > sizes[entry.shard_id]:
            raise _loss("Checkpoint index %s: tensor %s lies outside its data file %s (offset %d, size %d, file %d "
                        "bytes)" % (index_path, name, self._shards[entry.shard_id], entry.offset, entry.size,
                                    sizes[entry.shard_id]))
        numel = 1
        for d in entry.shape.dim:
            numel *= d.size
        if _BY_ENUM[entry.dtype] == dt.string:
            if entry.size < numel + 4:   # a length byte (at least) per string and the lengths' checksum
                raise _loss("Checkpoint index %s: string tensor %s of %d strings cannot be %d bytes"
                            % (index_path, name, numel, entry.size))
        elif numel * _BY_ENUM[entry.dtype].np.itemsize != entry.size:
            raise _loss("Checkpoint index %s: tensor %s of shape %s and dtype %s cannot be %d bytes"
                        % (index_path, name, [d.size for d in entry.shape.dim], _BY_ENUM[entry.dtype].name,
                           entry.size))

    def _check_slices(self, name, entry, index_path):
        if not entry.slices:
            return
        shape = [d.size for d in entry.shape.dim]
        covered = 0
        for sl in entry.slices:
            ext = self._extents(name, sl, shape, index_path)
            key = ordered_code.tensor_slice_key(name, [(s, ln) for s, ln, _ in ext])
            part = self._entries.get(key)
            if part is None:
                raise _loss("Checkpoint index %s: slice %s of %s is missing" % (index_path, ext, name))
            if part.dtype != entry.dtype or [d.size for d in part.shape.dim] != [n for _, _, n in ext]:
                raise _loss("Checkpoint index %s: slice %s of %s has the wrong dtype or shape"
                            % (index_path, ext, name))
            covered += math.prod(n for _, _, n in ext)  # Python ints: no overflow on a hostile shape
        if covered * _BY_ENUM[entry.dtype].np.itemsize > sum(self._sizes):   # overlapping slices: bounded
            raise _loss("Checkpoint index %s: the slices of %s need %d bytes, more than its data files hold"
                        % (index_path, name, covered * _BY_ENUM[entry.dtype].np.itemsize))
        if covered != math.prod(shape):
            raise _loss("Checkpoint index %s: the slices of %s do not cover its shape %s" % (index_path, name, shape))

    @staticmethod
    def _extents(name, sl, shape, index_path):
        """[(start, length as encoded (-1: all), actual length)] of a TensorSliceProto."""
        if len(sl.extent) != len(shape):
            raise _loss("Checkpoint index %s: a slice of %s has rank %d, not %d" % (index_path, name, len(sl.extent),
                                                                                   len(shape)))
        out = []
        for e, n in zip(sl.extent, shape):
            length = e.length if e.HasField("length") else -1
            actual = n - e.start if length == -1 else length
            if e.start < 0 or actual < 0 or e.start + actual > n:
                raise _loss("Checkpoint index %s: a slice of %s lies outside its shape %s" % (index_path, name, shape))
            out.append((e.start, length, actual))
        return out

    def object_graph(self):
        """The serialized TrackableObjectGraph of an object-based checkpoint (tf.train.Checkpoint, Keras'
        save_weights), or None."""
        if self._graph_entry is None:
            return None
        return self._read("_CHECKPOINTABLE_OBJECT_GRAPH", self._graph_entry).reshape(-1)[0]

    # ---- NewCheckpointReader's interface ----
    def get_variable_to_shape_map(self):
        return {n: [d.size for d in self._entries[k].shape.dim] for n, k in self._names.items()}

    def get_variable_to_dtype_map(self):
        return {n: _BY_ENUM[self._entries[k].dtype] for n, k in self._names.items()}

    def has_tensor(self, name):
        return name in self._names

    def debug_string(self):
        return "".join("%s (%s) %s\n" % (n, self.get_variable_to_dtype_map()[n].name, s)
                       for n, s in sorted(self.get_variable_to_shape_map().items())).encode()

    def get_tensor(self, name):
        """The value of `name` as numpy, its checksum verified (a partitioned variable is assembled)."""
        if name not in self._names:
            raise errors.NotFoundError(None, None, "Key %s not found in checkpoint" % name)
        entry = self._entries[self._names[name]]
        if not entry.slices:
            return self._read(name, entry)
        shape = [d.size for d in entry.shape.dim]
        out = np.zeros(shape, _BY_ENUM[entry.dtype].np)
        for sl in entry.slices:
            ext = self._extents(name, sl, shape, self._prefix + ".index")
            part = self._entries[ordered_code.tensor_slice_key(name, [(s, ln) for s, ln, _ in ext])]
            out[tuple(slice(s, s + n) for s, _, n in ext)] = self._read(name, part)
        return out

    def _read(self, name, entry):
        path = self._shards[entry.shard_id]
        f, size = files.open_regular(path, "Checkpoint data file")
        with f:
            if entry.offset + entry.size > size:
                raw = b""
            else:
                f.seek(entry.offset)
                raw = f.read(entry.size)
        if len(raw) != entry.size:
            raise _loss("Checkpoint data file %s is truncated: %s needs bytes %d..%d" % (path, name, entry.offset,
                                                                                      entry.offset + entry.size))
        dtype = _BY_ENUM[entry.dtype]
        strings = _strings(raw, [d.size for d in entry.shape.dim], name, path) if dtype == dt.string else None
        crc = _string_bytes(strings)[1] if dtype == dt.string else masked_crc32c(raw)
        if crc != entry.crc32c:
            raise _loss("Checksum does not match: stored %d vs. calculated on the restored bytes %d (tensor %s in %s)"
                        % (entry.crc32c, crc, name, path))
        if strings is not None:
            return strings
        npd = dtype.np.newbyteorder("<") if dtype.np.itemsize > 1 and dtype != dt.bfloat16 else dtype.np
        return np.frombuffer(raw, npd).astype(dtype.np, copy=False).reshape([d.size for d in entry.shape.dim]).copy()


def _string_bytes(a):
    """A string tensor as TF stores it: the varint lengths, their masked checksum (of the lengths as
    uint32), the bytes; and the crc32c of the whole (the lengths counted as uint32 again)."""
    items = [x if isinstance(x, bytes) else str(x).encode("utf-8") for x in a.reshape(-1)]
    lengths32 = np.array([len(x) for x in items], "<u4").tobytes()
    checksum = np.array([masked_crc32c(lengths32)], "<u4").tobytes()
    body = b"".join(items)
    return b"".join(_varint(len(x)) for x in items) + checksum + body, masked_crc32c(lengths32 + checksum + body)


def _strings(raw, shape, name, path):
    """The numpy object array of a stored string tensor (its lengths' checksum verified)."""
    numel, pos, lengths = int(np.prod(shape)), 0, []
    try:
        for _ in range(numel):
            n, pos = _read_varint(raw, pos, len(raw))
            lengths.append(n)
    except Exception:
        raise _loss("Checkpoint data file %s: string tensor %s has malformed lengths" % (path, name)) from None
    checksum = raw[pos:pos + 4]
    if masked_crc32c(np.array(lengths, "<u4").tobytes()) != int.from_bytes(checksum, "little") or \
            pos + 4 + sum(lengths) != len(raw):
        raise _loss("Checkpoint data file %s: string tensor %s does not match its lengths" % (path, name))
    out, pos = np.empty(numel, object), pos + 4
    for i, n in enumerate(lengths):
        out[i], pos = raw[pos:pos + n], pos + n
    return out.reshape(shape)


def bundle_files(named_arrays):
    """(index bytes, data bytes) of a one-shard V2 checkpoint of {name: (DType, numpy array)}."""
    msgs = bundle()
    header = msgs.BundleHeaderProto(num_shards=1, endianness=0)
    header.version.producer = 1
    items, data = [(b"", header.SerializeToString())], bytearray()
    for name in sorted(named_arrays, key=lambda n: n.encode("utf-8")):
        dtype, a = named_arrays[name]
        dtype = dt.as_dtype(dtype)
        if dtype == dt.string:
            a = np.asarray(a, object)
            raw, crc = _string_bytes(a)
        else:
            a = np.asarray(a, dtype.np, order="C")
            if a.dtype.itemsize > 1 and dtype != dt.bfloat16:
                a = a.astype(a.dtype.newbyteorder("<"), copy=False)
            raw = a.tobytes()
            crc = masked_crc32c(raw)
        entry = msgs.BundleEntryProto(dtype=dtype.as_datatype_enum, shard_id=0, offset=len(data), size=len(raw),
                                      crc32c=crc)
        for n in a.shape:
            entry.shape.dim.add(size=n)
        data += raw
        items.append((name.encode("utf-8"), entry.SerializeToString()))
    return write_table(items), bytes(data)
