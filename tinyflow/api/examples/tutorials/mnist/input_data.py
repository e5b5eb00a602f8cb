"""TF 1.15's MNIST reader (tensorflow/contrib/learn/python/learn/datasets/mnist.py), which 41 of 81
public tutorial scripts start with: `mnist = input_data.read_data_sets("MNIST_data/", one_hot=True)`.

It reads the four IDX .gz files from `train_dir`, downloading a file only when it is absent (with
urllib; offline, a clear error names the files and the folder to put them in). DataSet.next_batch
shuffles with numpy's global generator exactly as TF does, so a script seeded with
`numpy.random.seed` sees TF's batches.
"""
import collections
import gzip
import io
import os
import urllib.request

import numpy

from tinyflow.graph import dtypes

DEFAULT_SOURCE_URL = "https://storage.googleapis.com/cvdf-datasets/mnist/"
TRAIN_IMAGES = "train-images-idx3-ubyte.gz"
TRAIN_LABELS = "train-labels-idx1-ubyte.gz"
TEST_IMAGES = "t10k-images-idx3-ubyte.gz"
TEST_LABELS = "t10k-labels-idx1-ubyte.gz"
FILES = (TRAIN_IMAGES, TRAIN_LABELS, TEST_IMAGES, TEST_LABELS)

Datasets = collections.namedtuple("Datasets", ["train", "validation", "test"])


def _read32(stream, path):
    data = stream.read(4)
    if len(data) != 4:
        raise ValueError("Truncated MNIST file: %s" % path)
    return int(numpy.frombuffer(data, dtype=numpy.dtype(numpy.uint32).newbyteorder(">"))[0])


def _open_gz(path):
    try:
        with gzip.open(path, "rb") as stream:
            return stream.read()
    except (OSError, EOFError) as e:
        raise ValueError("Cannot read MNIST file %s: %s" % (path, e)) from None


def extract_images(path):
    """The images of an IDX3 .gz file as uint8 [index, rows, cols, 1]."""
    print("Extracting", path)
    stream = io.BytesIO(_open_gz(path))
    magic = _read32(stream, path)
    if magic != 2051:
        raise ValueError("Invalid magic number %d in MNIST image file: %s" % (magic, path))
    num, rows, cols = _read32(stream, path), _read32(stream, path), _read32(stream, path)
    buf = stream.read(rows * cols * num)
    if len(buf) != rows * cols * num:
        raise ValueError("Truncated MNIST image file: %s (%d of %d bytes)" % (path, len(buf), rows * cols * num))
    return numpy.frombuffer(buf, dtype=numpy.uint8).reshape(num, rows, cols, 1)


def dense_to_one_hot(labels_dense, num_classes):
    """Class labels [n] to one-hot float64 [n, num_classes] (as TF's helper)."""
    num_labels = labels_dense.shape[0]
    one_hot = numpy.zeros((num_labels, num_classes))
    one_hot.flat[numpy.arange(num_labels) * num_classes + labels_dense.ravel()] = 1
    return one_hot


def extract_labels(path, one_hot=False, num_classes=10):
    """The labels of an IDX1 .gz file as uint8 [index] (one-hot float64 when asked)."""
    print("Extracting", path)
    stream = io.BytesIO(_open_gz(path))
    magic = _read32(stream, path)
    if magic != 2049:
        raise ValueError("Invalid magic number %d in MNIST label file: %s" % (magic, path))
    num = _read32(stream, path)
    buf = stream.read(num)
    if len(buf) != num:
        raise ValueError("Truncated MNIST label file: %s" % path)
    labels = numpy.frombuffer(buf, dtype=numpy.uint8)
    if labels.size and labels.max() >= num_classes:
        raise ValueError("Label %d out of range [0, %d) in MNIST label file: %s" % (labels.max(), num_classes, path))
    return dense_to_one_hot(labels, num_classes) if one_hot else labels


def _seed_numpy(seed):
    """TF seeds numpy's global generator from random_seed.get_seed(seed): the op seed when given,
    else the graph seed when set, else fresh entropy."""
    if seed is None:
        from tinyflow.graph.core import get_default_graph
        seed = getattr(get_default_graph(), "seed", None)
    numpy.random.seed(seed)


class DataSet:
    """Images and labels with TF's next_batch (shuffle on the first call and at each epoch end)."""

    def __init__(self, images, labels, fake_data=False, one_hot=False, dtype=dtypes.float32, reshape=True,
                 seed=None):
        _seed_numpy(seed)
        dtype = dtypes.as_dtype(dtype).base_dtype
        if dtype not in (dtypes.uint8, dtypes.float32):
            raise TypeError("Invalid image dtype %r, expected uint8 or float32" % dtype)
        if fake_data:
            self._num_examples = 10000
            self.one_hot = one_hot
        else:
            if images.shape[0] != labels.shape[0]:
                raise ValueError("images.shape: %s labels.shape: %s" % (images.shape, labels.shape))
            self._num_examples = images.shape[0]
            if reshape:
                if images.shape[3] != 1:
                    raise ValueError("reshape=True needs images with one channel, got %s" % (images.shape,))
                images = images.reshape(images.shape[0], images.shape[1] * images.shape[2])
            if dtype == dtypes.float32:
                images = numpy.multiply(images.astype(numpy.float32), 1.0 / 255.0)
        self._images = images
        self._labels = labels
        self._epochs_completed = 0
        self._index_in_epoch = 0

    images = property(lambda self: self._images)
    labels = property(lambda self: self._labels)
    num_examples = property(lambda self: self._num_examples)
    epochs_completed = property(lambda self: self._epochs_completed)

    def next_batch(self, batch_size, fake_data=False, shuffle=True):
        """The next `batch_size` examples; an epoch's remainder is joined with the next epoch's start."""
        if fake_data:
            fake_image = [1] * 784
            fake_label = [1] + [0] * 9 if self.one_hot else 0
            return [fake_image for _ in range(batch_size)], [fake_label for _ in range(batch_size)]
        start = self._index_in_epoch
        if self._epochs_completed == 0 and start == 0 and shuffle:
            perm0 = numpy.arange(self._num_examples)
            numpy.random.shuffle(perm0)
            self._images = self.images[perm0]
            self._labels = self.labels[perm0]
        if start + batch_size > self._num_examples:
            self._epochs_completed += 1
            rest = self._num_examples - start
            images_rest, labels_rest = self._images[start:self._num_examples], self._labels[start:self._num_examples]
            if shuffle:
                perm = numpy.arange(self._num_examples)
                numpy.random.shuffle(perm)
                self._images = self.images[perm]
                self._labels = self.labels[perm]
            self._index_in_epoch = batch_size - rest
            end = self._index_in_epoch
            return (numpy.concatenate((images_rest, self._images[0:end]), axis=0),
                    numpy.concatenate((labels_rest, self._labels[0:end]), axis=0))
        self._index_in_epoch += batch_size
        end = self._index_in_epoch
        return self._images[start:end], self._labels[start:end]


def maybe_download(filename, work_directory, source_url):
    """work_directory/filename, downloaded from source_url first when absent."""
    os.makedirs(work_directory, exist_ok=True)
    path = os.path.join(work_directory, filename)
    if not os.path.exists(path):
        tmp = path + ".part"
        try:
            with urllib.request.urlopen(source_url, timeout=30) as response, open(tmp, "wb") as out:
                out.write(response.read())
        except (OSError, ValueError) as e:
            if os.path.exists(tmp):
                os.remove(tmp)
            raise IOError(
                "Cannot download %s (%s). Put the four MNIST files %s in the folder %s (from %s or any MNIST "
                "mirror) and run again." % (source_url, e, ", ".join(FILES), os.path.abspath(work_directory),
                                            source_url.rsplit("/", 1)[0] + "/")) from None
        os.replace(tmp, path)
        print("Successfully downloaded", filename, os.path.getsize(path), "bytes.")
    return path


def read_data_sets(train_dir, fake_data=False, one_hot=False, dtype=dtypes.float32, reshape=True,
                   validation_size=5000, seed=None, source_url=DEFAULT_SOURCE_URL):
    """Datasets(train, validation, test) from the four IDX .gz files in `train_dir` (the first
    `validation_size` training examples are the validation set)."""
    if fake_data:
        def fake():
            return DataSet([], [], fake_data=True, one_hot=one_hot, dtype=dtype, seed=seed)
        return Datasets(train=fake(), validation=fake(), test=fake())
    source_url = source_url or DEFAULT_SOURCE_URL
    paths = [maybe_download(name, train_dir, source_url + name) for name in FILES]
    train_images = extract_images(paths[0])
    train_labels = extract_labels(paths[1], one_hot=one_hot)
    test_images = extract_images(paths[2])
    test_labels = extract_labels(paths[3], one_hot=one_hot)
    if not 0 <= validation_size <= len(train_images):
        raise ValueError("Validation size should be between 0 and {}. Received: {}."
                         .format(len(train_images), validation_size))
    options = dict(dtype=dtype, reshape=reshape, seed=seed)
    train = DataSet(train_images[validation_size:], train_labels[validation_size:], **options)
    validation = DataSet(train_images[:validation_size], train_labels[:validation_size], **options)
    test = DataSet(test_images, test_labels, **options)
    return Datasets(train=train, validation=validation, test=test)


def load_mnist(train_dir="MNIST-data"):
    return read_data_sets(train_dir)
