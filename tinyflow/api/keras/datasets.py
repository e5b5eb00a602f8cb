"""tf.keras.datasets: mnist, fashion_mnist, cifar10, cifar100, imdb, reuters, boston_housing.

The loaders read the files Keras caches in ~/.keras/datasets under TF 1.15's names (tinyflow never
downloads); a missing file is a NotFoundError naming it and the URL it comes from. Parsing, shuffling
(TF seeds numpy's global generator with `seed`, so does this) and index shifting are TF 1.15's.

The cached files are untrusted: imdb.npz / reuters.npz hold object arrays and CIFAR batches are Python
pickles, which TF opens with plain pickle; here they go through an unpickler that admits only numpy's
array-rebuilding functions, so a crafted file cannot run code.
"""
import gzip
import io
import json
import os
import pickle
import tarfile
import types
import zipfile

import numpy as np

from tinyflow.api.keras import backend
from tinyflow.api.keras.preprocessing.sequence import _remove_long_seq
from tinyflow.api.keras.utils import get_file
from tinyflow.graph import errors

_ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
_SAFE_GLOBALS = {("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
                 ("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar"),
                 ("numpy", "ndarray"), ("numpy", "dtype"), ("numpy.core.numeric", "_frombuffer"),
                 ("numpy._core.numeric", "_frombuffer"), ("copy_reg", "_reconstructor"), ("copyreg", "_reconstructor"),
                 ("__builtin__", "object"), ("builtins", "object")}


class _SafeUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) == ("_codecs", "encode"):   # how protocol 2 spells bytes: only latin-1 text allowed
            return _latin1_bytes
        if (module, name) not in _SAFE_GLOBALS:
            raise pickle.UnpicklingError("global %s.%s is not allowed in a dataset file" % (module, name))
        return super().find_class(module, name)


def _latin1_bytes(text, encoding="latin1"):
    if encoding not in ("latin1", "latin-1") or not isinstance(text, str):
        raise pickle.UnpicklingError("_codecs.encode(%r) is not allowed in a dataset file" % (encoding,))
    return text.encode("latin1")


def _unpickle(f, path, encoding="ASCII"):
    try:
        return _SafeUnpickler(f, encoding=encoding).load()
    except Exception as e:   # a truncated or crafted file: say which
        raise errors.DataLossError(None, None, "%s is not a readable dataset pickle: %s" % (path, e))


def _load_npz(path):
    """The arrays of an .npz file; object arrays unpickled with the numpy-only unpickler."""
    out = {}
    try:
        with zipfile.ZipFile(path) as z:
            for member in z.namelist():
                with z.open(member) as f:
                    raw = io.BytesIO(f.read())
                version = np.lib.format.read_magic(raw)
                read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else \
                    np.lib.format.read_array_header_2_0
                shape, fortran, dtype = read_header(raw)
                if dtype.hasobject:
                    arr = _unpickle(raw, path)
                else:
                    arr = np.frombuffer(raw.read(), dtype=dtype, count=int(np.prod(shape)))
                    arr = arr.reshape(shape[::-1]).T if fortran else arr.reshape(shape)
                out[member[:-4] if member.endswith(".npy") else member] = arr
    except (zipfile.BadZipFile, ValueError) as e:
        raise errors.DataLossError(None, None, "%s is not a readable .npz file: %s" % (path, e))
    return out


def _arrays(path, fname, keys):
    d = _load_npz(get_file(path, origin=_ORIGIN + fname))
    missing = [k for k in keys if k not in d]
    if missing:
        raise errors.DataLossError(None, None, "%s has no array %s" % (path, missing[0]))
    return [d[k] for k in keys]


def _mnist_load_data(path="mnist.npz"):
    """((x_train, y_train), (x_test, y_test)): 28x28 uint8 digits and their labels."""
    x_train, y_train, x_test, y_test = _arrays(path, "mnist.npz", ["x_train", "y_train", "x_test", "y_test"])
    return (x_train, y_train), (x_test, y_test)


def _fashion_mnist_load_data():
    """Zalando's 28x28 uint8 clothing images from ~/.keras/datasets/fashion-mnist/*-ubyte.gz."""
    out = []
    for part in ("train", "t10k"):
        lab = get_file(part + "-labels-idx1-ubyte.gz", origin=_ORIGIN + part + "-labels-idx1-ubyte.gz",
                       cache_subdir=os.path.join("datasets", "fashion-mnist"))
        img = get_file(part + "-images-idx3-ubyte.gz", origin=_ORIGIN + part + "-images-idx3-ubyte.gz",
                       cache_subdir=os.path.join("datasets", "fashion-mnist"))
        with gzip.open(lab, "rb") as f:
            y = np.frombuffer(f.read(), np.uint8, offset=8)
        with gzip.open(img, "rb") as f:
            x = np.frombuffer(f.read(), np.uint8, offset=16)
        if x.size != len(y) * 784:
            raise errors.DataLossError(None, None, "%s holds %d bytes of pixels, not %d images of 28x28"
                                       % (img, x.size, len(y)))
        out.append((x.reshape(len(y), 28, 28), y))
    return tuple(out)


def _boston_load_data(path="boston_housing.npz", test_split=0.2, seed=113):
    """Boston house prices: 13 features, the price in k$; shuffled with `seed`, the last test_split held out."""
    assert 0 <= test_split < 1
    x, y = _arrays(path, "boston_housing.npz", ["x", "y"])
    np.random.seed(seed)
    indices = np.arange(len(x))
    np.random.shuffle(indices)
    x, y = x[indices], y[indices]
    split = int(len(x) * (1 - test_split))
    return (np.array(x[:split]), np.array(y[:split])), (np.array(x[split:]), np.array(y[split:]))


def _word_sequences(xs, labels, num_words, skip_top, maxlen, start_char, oov_char, index_from):
    """TF's shared imdb/reuters post-processing: shift indices, prepend start_char, drop long reviews,
    map rare (>= num_words) and skip_top words to oov_char (or drop them)."""
    if start_char is not None:
        xs = [[start_char] + [w + index_from for w in x] for x in xs]
    elif index_from:
        xs = [[w + index_from for w in x] for x in xs]
    if maxlen:
        xs, labels = _remove_long_seq(maxlen, xs, labels)
        if not xs:
            raise ValueError("After filtering for sequences shorter than maxlen=" + str(maxlen) +
                             ", no sequence was kept. Increase maxlen.")
    if not num_words:
        num_words = max([max(x) for x in xs])
    if oov_char is not None:
        xs = [[w if skip_top <= w < num_words else oov_char for w in x] for x in xs]
    else:
        xs = [[w for w in x if skip_top <= w < num_words] for x in xs]
    return xs, labels


def _obj_array(seqs):
    """np.array of lists as numpy 1.16 made it under TF 1.15: a 1-D object array when lengths differ."""
    if len({len(s) for s in seqs}) > 1:
        out = np.empty(len(seqs), dtype=object)
        out[:] = seqs
        return out
    return np.array(seqs)


def _check_kwargs(kwargs, num_words):
    if "nb_words" in kwargs:
        num_words = kwargs.pop("nb_words")
    if kwargs:
        raise TypeError("Unrecognized keyword arguments: " + str(kwargs))
    return num_words


def _imdb_load_data(path="imdb.npz", num_words=None, skip_top=0, maxlen=None, seed=113, start_char=1, oov_char=2,
                    index_from=3, **kwargs):
    """IMDB reviews as word-index lists (1 = start, 2 = out of vocabulary, words from index_from + 1)."""
    num_words = _check_kwargs(kwargs, num_words)
    x_train, labels_train, x_test, labels_test = _arrays(path, "imdb.npz", ["x_train", "y_train", "x_test", "y_test"])
    np.random.seed(seed)
    indices = np.arange(len(x_train))
    np.random.shuffle(indices)
    x_train, labels_train = x_train[indices], labels_train[indices]
    indices = np.arange(len(x_test))
    np.random.shuffle(indices)
    x_test, labels_test = x_test[indices], labels_test[indices]
    xs, labels = _word_sequences(list(np.concatenate([x_train, x_test])), np.concatenate([labels_train, labels_test]),
                                 num_words, skip_top, maxlen, start_char, oov_char, index_from)
    idx = len(x_train)
    return (_obj_array(xs[:idx]), np.array(labels[:idx])), (_obj_array(xs[idx:]), np.array(labels[idx:]))


def _reuters_load_data(path="reuters.npz", num_words=None, skip_top=0, maxlen=None, test_split=0.2, seed=113,
                       start_char=1, oov_char=2, index_from=3, **kwargs):
    """Reuters newswires as word-index lists and their 46 topic labels."""
    num_words = _check_kwargs(kwargs, num_words)
    xs, labels = _arrays(path, "reuters.npz", ["x", "y"])
    np.random.seed(seed)
    indices = np.arange(len(xs))
    np.random.shuffle(indices)
    xs, labels = _word_sequences(list(xs[indices]), labels[indices], num_words, skip_top, maxlen, start_char,
                                 oov_char, index_from)
    idx = int(len(xs) * (1 - test_split))
    return (_obj_array(xs[:idx]), np.array(labels[:idx])), (_obj_array(xs[idx:]), np.array(labels[idx:]))


def _word_index(path, fname):
    with open(get_file(path, origin=_ORIGIN + fname)) as f:
        return json.load(f)


def _cifar_dir(dirname, origin):
    """The extracted CIFAR folder; extracted from <dirname>.tar.gz in the cache when only that is there."""
    cache = os.path.join(os.path.expanduser("~"), ".keras", "datasets")
    path = os.path.join(cache, dirname)
    if not os.path.isdir(path):
        archive = get_file(dirname + ".tar.gz", origin=origin)
        with tarfile.open(archive) as tar:
            tar.extractall(cache, filter="data")   # no absolute paths, links out or devices
    return path


def _load_batch(fpath, label_key="labels"):
    """(data [n, 3, 32, 32], labels) of one CIFAR pickle batch."""
    with open(fpath, "rb") as f:
        d = _unpickle(f, fpath, encoding="bytes")
    d = {(k.decode("utf8") if isinstance(k, bytes) else k): v for k, v in d.items()}
    data = np.asarray(d["data"])
    return data.reshape(data.shape[0], 3, 32, 32), d[label_key]


def _cifar_out(x_train, y_train, x_test, y_test):
    y_train = np.reshape(y_train, (len(y_train), 1))
    y_test = np.reshape(y_test, (len(y_test), 1))
    if backend.image_data_format() == "channels_last":
        x_train, x_test = x_train.transpose(0, 2, 3, 1), x_test.transpose(0, 2, 3, 1)
    return (x_train, y_train), (x_test, y_test)


def _cifar10_load_data():
    """CIFAR-10 from ~/.keras/datasets/cifar-10-batches-py (data_batch_1..5, test_batch): uint8 images,
    labels [n, 1]. TF preallocates 50000 rows; this concatenates the batches (the same for the real files)."""
    path = _cifar_dir("cifar-10-batches-py", "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz")
    parts = [_load_batch(os.path.join(path, "data_batch_%d" % i)) for i in range(1, 6)]
    x_train = np.concatenate([p[0] for p in parts]).astype("uint8")
    y_train = np.concatenate([np.asarray(p[1]) for p in parts]).astype("uint8")
    x_test, y_test = _load_batch(os.path.join(path, "test_batch"))
    return _cifar_out(x_train, y_train, np.asarray(x_test).astype("uint8"), np.asarray(y_test).astype("uint8"))


def _cifar100_load_data(label_mode="fine"):
    """CIFAR-100 from ~/.keras/datasets/cifar-100-python (train, test); label_mode 'fine' or 'coarse'."""
    if label_mode not in ["fine", "coarse"]:
        raise ValueError('`label_mode` must be one of `"fine"`, `"coarse"`.')
    path = _cifar_dir("cifar-100-python", "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz")
    x_train, y_train = _load_batch(os.path.join(path, "train"), label_key=label_mode + "_labels")
    x_test, y_test = _load_batch(os.path.join(path, "test"), label_key=label_mode + "_labels")
    return _cifar_out(x_train, y_train, x_test, y_test)


mnist = types.SimpleNamespace(load_data=_mnist_load_data)
fashion_mnist = types.SimpleNamespace(load_data=_fashion_mnist_load_data)
boston_housing = types.SimpleNamespace(load_data=_boston_load_data)
imdb = types.SimpleNamespace(
    load_data=_imdb_load_data,
    get_word_index=lambda path="imdb_word_index.json": _word_index(path, "imdb_word_index.json"))
reuters = types.SimpleNamespace(
    load_data=_reuters_load_data,
    get_word_index=lambda path="reuters_word_index.json": _word_index(path, "reuters_word_index.json"))
cifar10 = types.SimpleNamespace(load_data=_cifar10_load_data)
cifar100 = types.SimpleNamespace(load_data=_cifar100_load_data)
