"""Data and small helpers shared by the examples.

By default the examples train on scikit-learn's handwritten digits (`sklearn.datasets.load_digits`:
1797 grey 8x8 images of the digits 0-9, a copy of the test set of the UCI "Optical Recognition of
Handwritten Digits" data). The data ships inside scikit-learn, so nothing is downloaded; scikit-learn
is BSD-3-Clause licensed (install it with `pip install -e .[examples]`).

With `--data_dir DIR` the examples read MNIST instead, from the four IDX files in DIR
(train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte,
each optionally gzipped, as distributed by Yann LeCun's site).

`read_data_sets` returns an object with `.train` and `.test` DataSets, like the old
`tensorflow.examples.tutorials.mnist.input_data`; images are float32 in [0, 1], flattened to
[N, side*side], and labels one-hot float32 [N, 10] (or int64 class ids with one_hot=False).
"""
import argparse
import gzip
import os
import struct
import types

import numpy as np


class DataSet:
    """Images and labels with `next_batch`, reshuffled at the start of every epoch."""

    def __init__(self, images, labels, seed=0):
        assert len(images) == len(labels)
        self.images, self.labels = images, labels
        self.epochs_completed = 0
        self._order = np.arange(len(images))
        self._pos = 0
        self._rng = np.random.RandomState(seed)
        self._rng.shuffle(self._order)

    num_examples = property(lambda self: len(self.images))

    def next_batch(self, batch_size):
        """The next `batch_size` examples (the last batch of an epoch may be smaller)."""
        if self._pos >= len(self._order):
            self.epochs_completed += 1
            self._rng.shuffle(self._order)
            self._pos = 0
        idx = self._order[self._pos:self._pos + batch_size]
        self._pos += batch_size
        return self.images[idx], self.labels[idx]

    def batches(self, batch_size):
        """One epoch: every example once, in a fresh random order, in batches of `batch_size`."""
        order = self._rng.permutation(len(self.images))
        for start in range(0, len(order), batch_size):
            idx = order[start:start + batch_size]
            yield self.images[idx], self.labels[idx]
        self.epochs_completed += 1


def _one_hot(ids, n=10):
    return np.eye(n, dtype=np.float32)[ids]


def _open(path):
    """`path`, or `path.gz` gzipped."""
    if os.path.exists(path):
        return gzip.open(path, "rb") if path.endswith(".gz") else open(path, "rb")
    if os.path.exists(path + ".gz"):
        return gzip.open(path + ".gz", "rb")
    raise FileNotFoundError("MNIST file not found: %s(.gz)" % path)


def read_idx(path):
    """An IDX file (MNIST's format: magic, dims as big-endian int32, then uint8 data) as numpy."""
    with _open(path) as f:
        zero, dtype_code, ndim = struct.unpack(">HBB", f.read(4))
        if zero != 0 or dtype_code != 0x08:
            raise ValueError("%s is not an unsigned-byte IDX file" % path)
        dims = struct.unpack(">" + "I" * ndim, f.read(4 * ndim))
        data = np.frombuffer(f.read(), dtype=np.uint8)
    if data.size != int(np.prod(dims)):
        raise ValueError("%s is truncated: %d values for shape %s" % (path, data.size, dims))
    return data.reshape(dims)


def _mnist(data_dir):
    parts = {}
    for split, prefix in (("train", "train"), ("test", "t10k")):
        images = read_idx(os.path.join(data_dir, prefix + "-images-idx3-ubyte"))
        labels = read_idx(os.path.join(data_dir, prefix + "-labels-idx1-ubyte"))
        parts[split] = (images.reshape(len(images), -1).astype(np.float32) / 255.0, labels.astype(np.int64))
    return parts


def _digits(test_fraction, seed):
    from sklearn.datasets import load_digits
    d = load_digits()
    images = (d.data / 16.0).astype(np.float32)
    order = np.random.RandomState(seed).permutation(len(images))
    n_test = int(round(len(images) * test_fraction))
    test, train = order[:n_test], order[n_test:]
    return {"train": (images[train], d.target[train].astype(np.int64)),
            "test": (images[test], d.target[test].astype(np.int64))}


def read_data_sets(data_dir=None, one_hot=True, test_fraction=0.2, seed=0):
    """`.train` and `.test` DataSets (and `.side`, the image width): MNIST from the IDX files in
    `data_dir`, else scikit-learn's 8x8 digits split at random (fixed `seed`)."""
    parts = _mnist(data_dir) if data_dir else _digits(test_fraction, seed)
    sets = {}
    for split, (images, labels) in parts.items():
        sets[split] = DataSet(images, _one_hot(labels) if one_hot else labels, seed=seed)
    side = int(round(np.sqrt(sets["train"].images.shape[1])))
    return types.SimpleNamespace(train=sets["train"], test=sets["test"], side=side)


def argument_parser(description, epochs, batch_size=100):
    """The options every example takes: --data_dir, --epochs, --batch_size, --seed, --figure."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--data_dir", default=None, help="read MNIST IDX files from here instead of sklearn's digits")
    p.add_argument("--epochs", type=int, default=epochs)
    p.add_argument("--batch_size", type=int, default=batch_size)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--figure", default=None, help="also save the final figure as this PNG (needs matplotlib)")
    return p


# ---- the final figure: text in the terminal, a PNG when asked (matplotlib is optional) --------------
_SHADES = " .:-=+*#%@"


def text_images(images, side, captions=None, per_row=8):
    """Images in [0, 1] as rows of ASCII art (two characters per pixel), with a caption under each."""
    images = np.clip(np.asarray(images, np.float64), 0, 1).reshape(len(images), side, -1)
    step = max(1, side // 14)  # keep MNIST's 28x28 to 14 text rows
    lines = []
    for start in range(0, len(images), per_row):
        group = images[start:start + per_row, ::step, ::step]
        width = group.shape[2] * 2
        for r in range(group.shape[1]):
            lines.append("  ".join("".join(_SHADES[int(v * (len(_SHADES) - 1))] * 2 for v in img[r])
                                   for img in group))
        if captions is not None:
            lines.append("  ".join(str(c)[:width].center(width) for c in captions[start:start + per_row]))
        lines.append("")
    return "\n".join(lines)


def save_figure(path, images, side, captions=None, title=None):
    """Saves the images in a grid as a PNG; returns False (and says why) without matplotlib."""
    if not path:
        return False
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(matplotlib is not installed: no %s; pip install matplotlib)" % path)
        return False
    n = len(images)
    cols = min(n, 8)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(cols * 1.2, rows * 1.4), squeeze=False)
    for i, ax in enumerate(axes.flat):
        ax.axis("off")
        if i < n:
            ax.imshow(np.asarray(images[i]).reshape(side, -1), cmap="gray_r", vmin=0, vmax=1)
            if captions is not None:
                ax.set_title(str(captions[i]), fontsize=8)
    if title:
        fig.suptitle(title)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    print("figure saved to %s" % path)
    return True
