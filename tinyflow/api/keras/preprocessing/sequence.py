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
