"""Tiny hostile files: no crafted file under 1 MB makes a reader use more than 100 MB or hang (issue 31,
item 5). Every case runs in one child process, which reports its peak memory (getrusage) over its
baseline after each case; a hang is caught by an alarm in the child and by the parent's timeout."""
import json
import os
import subprocess
import sys

import pytest

CHILD = r'''
import gzip, json, os, resource, signal, struct, sys, zlib
import numpy as np
import tinyflow as tf
from tinyflow.formats import bundle, convert, files, table, tfrecord
from tinyflow.formats.protos import bundle as bundle_msgs, graph_pb2
from tinyflow.graph import errors

d = sys.argv[1]
def peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

def graph_def(values):
    gd = graph_pb2().GraphDef()
    n = gd.node.add(name="c", op="Const")
    n.attr["dtype"].type = 1
    t = n.attr["value"].tensor
    t.dtype = 1
    for s in (16384, 16384):   # 1 GiB of float32
        t.tensor_shape.dim.add(size=s)
    t.float_val.extend(values)
    m = gd.node.add(name="s", op="Identity", input=["c"])
    m.attr["T"].type = 1
    return gd

def graph_pb(values):
    path = os.path.join(d, "g%d.pb" % len(values))
    with open(path, "wb") as f:
        f.write(graph_def(values).SerializeToString())
    assert os.path.getsize(path) < 200
    g = tf.Graph()
    with g.as_default():
        with open(path, "rb") as f:
            tf.import_graph_def(graph_pb2().GraphDef.FromString(f.read()), name="")
    return "imported %d ops" % len(g.get_operations())

def checkpoint(name, index=None, data=None):
    prefix = os.path.join(d, name)

    def prepare():
        if index is not None:
            index(prefix + ".index")
        if data is not None:
            data(prefix + ".data-00000-of-00001")
    return lambda: bundle.BundleReader(prefix), prepare

def link_zero(path):
    os.symlink("/dev/zero", path)

def fifo(path):
    os.mkfifo(path)

def huge_entry(path):
    # 10,000 slices of one [10000, 16384] float32 tensor (655 MB), every one the same 64 kB of data
    from tinyflow.formats import ordered_code
    msgs = bundle_msgs()
    items = [(b"", msgs.BundleHeaderProto(num_shards=1, endianness=0).SerializeToString())]
    e = msgs.BundleEntryProto(dtype=1)
    for s in (10000, 16384):
        e.shape.dim.add(size=s)
    for i in range(10000):
        sl = e.slices.add()
        sl.extent.add(start=i, length=1)
        sl.extent.add()
        p = msgs.BundleEntryProto(dtype=1, shard_id=0, offset=0, size=65536)
        p.shape.dim.add(size=1)
        p.shape.dim.add(size=16384)
        items.append((ordered_code.tensor_slice_key("v", [(i, 1), (0, -1)]), p.SerializeToString()))
    items.append((b"v", e.SerializeToString()))
    with open(path, "wb") as f:
        f.write(table.write_table(sorted(items)))
    assert os.path.getsize(path) < 1 << 20

def write(path, data):
    with open(path, "wb") as f:
        f.write(data)

def record_header(length):
    h = struct.pack("<Q", length)
    return h + struct.pack("<I", tfrecord.masked_crc32c(h))

def make(name, data):
    path = os.path.join(d, name)
    if data is None:
        link_zero(path)
    elif data == "fifo":
        fifo(path)
    else:
        write(path, data())
    assert data in (None, "fifo") or os.path.getsize(path) < 1 << 20
    return path

def tfrecords(name, data, compression=None):
    path = os.path.join(d, name)
    return lambda: sum(1 for _ in tfrecord.read_records(path, compression)), lambda: make(name, data)

def gz(data):
    return gzip.compress(data, 9)

def dataset(kind, name, data, compression=None):
    return lambda: read_dataset(kind, name, compression), lambda: make(name, data)

def read_dataset(kind, name, compression=None):
    ds = getattr(tf.data, kind)(os.path.join(d, name), compression_type=compression)
    nxt = ds.make_one_shot_iterator().get_next()
    n = 0
    with tf.Session() as s:
        try:
            while True:
                s.run(nxt)
                n += 1
        except tf.errors.OutOfRangeError:
            return n

def meta_fifo():
    return lambda: tf.train.import_meta_graph(os.path.join(d, "m.meta")), lambda: fifo(os.path.join(d, "m.meta"))

def now(fn):
    return fn, lambda: None

MB = 1 << 20
CASES = [
    ("graphdef one value, 1 GiB shape", now(lambda: graph_pb([1.0]))),
    ("graphdef two values, 1 GiB shape", now(lambda: graph_pb([1.0, 2.0]))),
    ("V2 index -> /dev/zero", (checkpoint("z", index=link_zero))),
    ("V2 index is a FIFO", (checkpoint("f", index=fifo))),
    ("V2 data -> /dev/zero", (checkpoint("dz", index=lambda p: write(p, open(os.path.join(d, "ok.index"),
                                                                                           "rb").read()),
                                                     data=link_zero))),
    ("V2 huge sliced entry", (lambda: bundle.BundleReader(os.path.join(d, "h")).get_tensor("v").nbytes,
                              lambda: (huge_entry(os.path.join(d, "h.index")),
                                       write(os.path.join(d, "h.data-00000-of-00001"), b"\0" * 65536)))),
    ("tfrecord length over the file", tfrecords("big.tfr", lambda: record_header(1 << 40) + b"x" * 100)),
    ("tfrecord -> /dev/zero", tfrecords("zero.tfr", None)),
    ("tfrecord FIFO", tfrecords("fifo.tfr", "fifo")),
    ("gzip tfrecord bomb, 1 GiB record", tfrecords("bomb.gz", lambda: gz(record_header((1 << 30) - 8)
                                                                          + bytes(200 * MB)), "GZIP")),
    ("gzip tfrecord bomb under the record limit", tfrecords("bomb2.gz", lambda: gz(record_header(60 * MB)
                                                                                  + bytes(60 * MB + 4)), "GZIP")),
    ("zlib tfrecord bomb", tfrecords("bomb.z", lambda: zlib.compress(record_header((1 << 30) - 8) + bytes(200 * MB),
                                                                     9), "ZLIB")),
    ("TFRecordDataset -> /dev/zero", dataset("TFRecordDataset", "zero2.tfr", None)),
    ("TextLineDataset -> /dev/zero", dataset("TextLineDataset", "zero.txt", None)),
    ("TextLineDataset gzip bomb, one line", dataset("TextLineDataset", "line.gz", lambda: gz(bytes(300 * MB)),
                                                            "GZIP")),
    ("import_meta_graph FIFO", meta_fifo()),
]

if sys.argv[2] == "prepare":
    write(os.path.join(d, "ok.index"), bundle.bundle_files({"v": ("float32", np.zeros(2, np.float32))})[0])
    write(os.path.join(d, "warm.txt"), b"a\nb\n")
assert read_dataset("TextLineDataset", "warm.txt") == 2   # the baseline has a Session that ran
if sys.argv[2] == "prepare":   # the files are made by another process: its memory is not measured
    for _, (_, prepare) in CASES:
        prepare()
    sys.exit(0)
base = peak_mb()
def alarm(*a):
    raise TimeoutError("hung")
signal.signal(signal.SIGALRM, alarm)
for name, (case, _) in CASES:
    signal.alarm(20)
    try:
        got = "ok: %s" % (case(),)
    except errors.OpError as e:
        got = "%s: %s" % (type(e).__name__, e.message[:300])
    except Exception as e:
        got = "PY %s: %s" % (type(e).__name__, str(e)[:300])
    signal.alarm(0)
    print(json.dumps([name, got, peak_mb() - base]), flush=True)
'''


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("hostile"))
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    prep = subprocess.run([sys.executable, "-c", CHILD, d, "prepare"], capture_output=True, text=True, timeout=300,
                          env=env)
    assert prep.returncode == 0, prep.stderr[-3000:]
    proc = subprocess.run([sys.executable, "-c", CHILD, d, "read"], capture_output=True, text=True, timeout=300,
                          env=env)
    out = {}
    for line in proc.stdout.splitlines():
        name, got, mb = json.loads(line)
        out[name] = (got, mb)
    assert out, proc.stderr[-3000:]
    return d, out


EXPECTED = {
    "graphdef one value, 1 GiB shape": "ok: imported 2 ops",
    "graphdef two values, 1 GiB shape": "InvalidArgumentError: Node 'c' (op: 'Const'): attr 'value': a constant of "
                                        "shape [16384, 16384] (1073741824 bytes) given by 2 values",
    "V2 index -> /dev/zero": "DataLossError: Checkpoint index {d}/z.index is not a regular file",
    "V2 index is a FIFO": "DataLossError: Checkpoint index {d}/f.index is not a regular file",
    "V2 data -> /dev/zero": "DataLossError: Checkpoint data file {d}/dz.data-00000-of-00001 is not a regular file",
    "V2 huge sliced entry": "DataLossError: Checkpoint index {d}/h.index: the slices of v need 655360000 bytes, "
                            "more than its data files hold",
    "tfrecord length over the file": "DataLossError: truncated record at 0 in file {d}/big.tfr: its length "
                                     "1099511627776 is over the file's 112 bytes",
    "tfrecord -> /dev/zero": "DataLossError: TFRecord file {d}/zero.tfr is not a regular file",
    "tfrecord FIFO": "DataLossError: TFRecord file {d}/fifo.tfr is not a regular file",
    "gzip tfrecord bomb, 1 GiB record": "DataLossError: record at 0 in file {d}/bomb.gz: its length 1073741816 is "
                                        "over tinyflow's limit of 67108864 bytes for a record of a compressed file",
    "gzip tfrecord bomb under the record limit": "DataLossError: corrupted record at 0 in file {d}/bomb2.gz "
                                                 "(data checksum mismatch)",
    "zlib tfrecord bomb": "DataLossError: record at 0 in file {d}/bomb.z: its length 1073741816 is over tinyflow's "
                          "limit of 67108864 bytes",
    "TFRecordDataset -> /dev/zero": "DataLossError: TFRecord file {d}/zero2.tfr is not a regular file",
    "TextLineDataset -> /dev/zero": "DataLossError: text file {d}/zero.txt is not a regular file",
    "TextLineDataset gzip bomb, one line": "DataLossError: {d}/line.gz has a line over tinyflow's limit of 67108864 "
                                           "bytes",
    "import_meta_graph FIFO": "DataLossError: Unable to read meta graph {d}/m.meta: not a regular file",
}


@pytest.mark.slow
def test_tiny_hostile_files_are_refused_with_a_clear_error_within_100_mb(results):
    """Every case of EXPECTED, in one test: its two children run once (as the cases of a parametrized
    test, each pytest-xdist worker that drew one ran them again: 6 s of CPU apiece). A failure names
    each case that failed."""
    d, out = results
    failed = []
    for name in sorted(EXPECTED):
        if name not in out:
            failed.append("%s: the child stopped before this case (killed or hung)" % name)
            continue
        got, mb = out[name]
        want = EXPECTED[name].replace("{d}", d)
        if not got.startswith(want):
            failed.append("%s: got %r, want %r" % (name, got, want))
        if mb >= 100:
            failed.append("%s: %.0f MB over the baseline" % (name, mb))
    assert not failed, "\n".join(failed)
