"""tf.keras.preprocessing.sequence: pad_sequences as Keras-Preprocessing 1.1 does it."""
import numpy as np


def pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre", truncating="pre", value=0.0):
    """A [len(sequences), maxlen] array: each sequence truncated (`truncating` 'pre' / 'post') and
    padded with `value` ('pre' / 'post') to maxlen (default: the longest)."""
    if not hasattr(sequences, "__len__"):
        raise ValueError("`sequences` must be iterable.")
    lengths, sample_shape = [], ()
    for x in sequences:
        try:
            lengths.append(len(x))
        except TypeError:
            raise ValueError("`sequences` must be a list of iterables. Found non-iterable: " + str(x))
        if len(x) and not sample_shape:
            sample_shape = np.asarray(x).shape[1:]
    if maxlen is None:
        maxlen = max(lengths) if lengths else 0
    is_str = np.issubdtype(dtype, np.str_)
    if isinstance(value, str) and dtype is not object and not is_str:
        raise ValueError("`dtype` {} is not compatible with `value`'s type: {}\nYou should set `dtype=object` for "
                         "variable length strings.".format(dtype, type(value)))
    x = np.full((len(sequences), maxlen) + sample_shape, value, dtype=dtype)
    for idx, s in enumerate(sequences):
        if not len(s):
            continue
        if truncating == "pre":
            trunc = s[-maxlen:]
        elif truncating == "post":
            trunc = s[:maxlen]
        else:
            raise ValueError('Truncating type "%s" not understood' % truncating)
        trunc = np.asarray(trunc, dtype=dtype)
        if trunc.shape[1:] != sample_shape:
            raise ValueError("Shape of sample %s of sequence at position %s is different from expected shape %s"
                             % (trunc.shape[1:], idx, sample_shape))
        if padding == "post":
            x[idx, :len(trunc)] = trunc
        elif padding == "pre":
            x[idx, -len(trunc):] = trunc
        else:
            raise ValueError('Padding type "%s" not understood' % padding)
    return x


def make_sampling_table(size, sampling_factor=1e-5):
    """word2vec's sampling probability of the i-th most common word, with Zipf's law for frequencies."""
    rank = np.arange(size)
    rank[0] = 1
    inv_fq = rank * (np.log(rank) + 0.577) + 0.5 - 1. / (12. * rank)
    f = sampling_factor * inv_fq
    return np.minimum(1., f / np.sqrt(f))


def skipgrams(sequence, vocabulary_size, window_size=4, negative_samples=1., shuffle=True, categorical=False,
              sampling_table=None, seed=None):
    """(couples, labels): (word, neighbour) pairs labelled 1 and (word, random word) pairs labelled 0,
    drawn with Python's `random` in Keras' call order (so a seed gives Keras' pairs)."""
    import random
    couples, labels = [], []
    for i, wi in enumerate(sequence):
        if not wi:
            continue
        if sampling_table is not None and sampling_table[wi] < random.random():
            continue
        for j in range(max(0, i - window_size), min(len(sequence), i + window_size + 1)):
            if j != i and sequence[j]:
                couples.append([wi, sequence[j]])
                labels.append([0, 1] if categorical else 1)
    if negative_samples > 0:
        num_negative = int(len(labels) * negative_samples)
        words = [c[0] for c in couples]
        random.shuffle(words)
        couples += [[words[i % len(words)], random.randint(1, vocabulary_size - 1)] for i in range(num_negative)]
        labels += ([[1, 0]] if categorical else [0]) * num_negative
    if shuffle:
        if seed is None:
            seed = random.randint(0, int(10e6))
        random.seed(seed)
        random.shuffle(couples)
        random.seed(seed)
        random.shuffle(labels)
    return couples, labels


def _remove_long_seq(maxlen, seq, label):
    """The (sequence, label) pairs whose sequence is shorter than maxlen."""
    new_seq, new_label = [], []
    for x, y in zip(seq, label):
        if len(x) < maxlen:
            new_seq.append(x)
            new_label.append(y)
    return new_seq, new_label


class TimeseriesGenerator:
    """Batches of (windows of `length` past steps sampled every `sampling_rate`, the target at the step after)
    over `data` / `targets`: a keras.utils.Sequence for fit_generator (TF 1.15's)."""

    def __init__(self, data, targets, length, sampling_rate=1, stride=1, start_index=0, end_index=None,
                 shuffle=False, reverse=False, batch_size=128):
        if len(data) != len(targets):
            raise ValueError("Data and targets have to be of same length. Data length is {} while target length "
                             "is {}".format(len(data), len(targets)))
        self.data, self.targets, self.length = data, targets, length
        self.sampling_rate, self.stride = sampling_rate, stride
        self.start_index = start_index + length
        self.end_index = len(data) - 1 if end_index is None else end_index
        self.shuffle, self.reverse, self.batch_size = shuffle, reverse, batch_size
        if self.start_index > self.end_index:
            raise ValueError("`start_index+length=%i > end_index=%i` is disallowed, as no part of the sequence "
                             "would be left to be used as current step." % (self.start_index, self.end_index))

    def __len__(self):
        return (self.end_index - self.start_index + self.batch_size * self.stride) // (self.batch_size * self.stride)

    def __getitem__(self, index):
        if self.shuffle:
            rows = np.random.randint(self.start_index, self.end_index + 1, size=self.batch_size)
        else:
            i = self.start_index + self.batch_size * self.stride * index
            rows = np.arange(i, min(i + self.batch_size * self.stride, self.end_index + 1), self.stride)
        samples = np.array([self.data[row - self.length:row:self.sampling_rate] for row in rows])
        targets = np.array([self.targets[row] for row in rows])
        if self.reverse:
            return samples[:, ::-1, ...], targets
        return samples, targets

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def on_epoch_end(self):
        pass

    def get_config(self):
        return {"length": self.length, "sampling_rate": self.sampling_rate, "stride": self.stride,
                "start_index": self.start_index - self.length, "end_index": self.end_index, "shuffle": self.shuffle,
                "reverse": self.reverse, "batch_size": self.batch_size}
