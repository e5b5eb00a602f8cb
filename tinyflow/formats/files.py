"""Opening untrusted files: regular files only, sizes known before anything is read.

A path may name a device (/dev/zero reads forever), a FIFO (an open blocks until a writer comes) or
a link to either. `open_regular` opens without blocking and checks what it opened (fstat: no race
between the check and the read); `read_regular` reads a whole file only under a limit. Errors are
TF's, naming the file (and the limit).
"""
import gzip
import os
import stat
import zlib

from tinyflow.graph import errors

# The largest file tinyflow reads whole into memory (a GraphDef, a checkpoint index, a MetaGraphDef,
# a line or fixed-length record file); TFRecord files are streamed and have no such limit.
MAX_WHOLE_FILE = 1 << 30
# The largest one record of a TFRecord file (TF's own limit is the memory there is): checked against
# the file's size, and for a compressed file (whose size says nothing) against the smaller limit.
MAX_RECORD = 1 << 30
MAX_COMPRESSED_RECORD = 64 << 20


def open_regular(path, what="file"):
    """(binary file object, size) of `path` opened for reading; NotFoundError when absent,
    DataLossError naming it when it is not a regular file."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, "%s; No such file or directory" % path) from None
    except OSError as e:
        raise errors.PermissionDeniedError(None, None, "%s: %s" % (path, e.strerror)) from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise errors.DataLossError(None, None, "%s %s is not a regular file (a device, FIFO or folder): refused"
                                   % (what, path))
    return os.fdopen(fd, "rb"), st.st_size


def read_regular(path, what="file", limit=MAX_WHOLE_FILE):
    """The bytes of the regular file `path`, at most `limit` of them (ResourceExhaustedError naming
    the file and the limit for a larger one)."""
    f, size = open_regular(path, what)
    with f:
        if size > limit:
            raise errors.ResourceExhaustedError(None, None, "%s %s is %d bytes, over tinyflow's limit of %d bytes "
                                                "for this kind of file" % (what, path, size, limit))
        data = f.read(limit + 1)
    if len(data) > limit:   # it grew since fstat
        raise errors.ResourceExhaustedError(None, None, "%s %s is over tinyflow's limit of %d bytes" % (what, path,
                                                                                                         limit))
    return data


def decompressing(f, compression):
    """A stream of the bytes of file object `f` decompressed ("GZIP", "ZLIB" or none), read as asked."""
    if compression == "GZIP":
        return gzip.GzipFile(fileobj=f, mode="rb")
    return Inflate(f) if compression == "ZLIB" else f


def lines(stream, path, limit=MAX_COMPRESSED_RECORD):
    """The lines of a stream (without their b"\\n"), read 64 kB at a time; DataLossError naming the file
    for a line over `limit` bytes."""
    parts, size = [], 0
    while True:
        chunk = stream.read(1 << 16)
        if not chunk:
            break
        *done, rest = chunk.split(b"\n")
        if done:
            yield b"".join(parts + [done[0]])
            yield from done[1:]
            parts, size = [], 0
        parts.append(rest)
        size += len(rest)
        if size > limit:
            raise errors.DataLossError(None, None, "%s has a line over tinyflow's limit of %d bytes" % (path, limit))
    if size:
        yield b"".join(parts)


class Inflate:
    """A ZLIB stream read `n` bytes at a time, never more than asked for in memory (a zip bomb inflates
    as it is read)."""

    def __init__(self, f):
        self._f, self._z, self._buf = f, zlib.decompressobj(), b""

    def read(self, n):
        parts, have = [self._buf], len(self._buf)
        while have < n and not self._z.eof:
            chunk = self._z.unconsumed_tail or self._f.read(1 << 16)
            if not chunk:
                break
            out = self._z.decompress(chunk, max(n - have, 1 << 16))
            parts.append(out)
            have += len(out)
        data = b"".join(parts)
        self._buf = data[n:]
        return data[:n]
