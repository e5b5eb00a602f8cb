"""tf.signal (and tf.contrib.signal, tf.spectral) as TF 1.15 has them: hann/hamming windows, frame,
overlap_and_add, linear_to_mel_weight_matrix, dct/idct (types I-III) and mfccs_from_log_mel_spectrograms from
graph ops (gathers and matrix products, so gradients flow); the FFTs are ops/complex_ops.py's, and stft /
inverse_stft build on them."""
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import get_default_graph
from tinyflow.ops.core import array_ops, math_ops
from tinyflow.ops.core.base import constant, convert_to_tensor
from tinyflow.ops.core.indexing_ops import gather, unsorted_segment_sum
from tinyflow.ops import complex_ops
from tinyflow.ops.complex_ops import (fft, fft2d, fft3d, ifft, ifft2d, ifft3d, irfft, irfft2d, irfft3d,  # noqa: F401
                                      rfft, rfft2d, rfft3d)
from tinyflow.ops.matrix_ops import tensordot

__all__ = ["dct", "fft", "fft2d", "fft3d", "fftshift", "frame", "hamming_window", "hann_window", "idct", "ifft",
           "ifft2d", "ifft3d", "ifftshift", "inverse_stft", "inverse_stft_window_fn", "irfft", "irfft2d", "irfft3d",
           "linear_to_mel_weight_matrix", "mfccs_from_log_mel_spectrograms", "overlap_and_add", "rfft", "rfft2d",
           "rfft3d", "stft"]

_MEL_BREAK_FREQUENCY_HERTZ, _MEL_HIGH_FREQUENCY_Q = 700.0, 1127.0


def _raised_cosine(name, window_length, periodic, dtype, a, b):
    dtype = dt.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError("dtype must be a floating point type. Found %s" % dtype)
    with get_default_graph().name_scope(name):
        n_win = int(window_length)
        if n_win == 1:
            return constant(np.ones([1], dtype.np))
        npd = dtype.np.type   # TF's arithmetic, in the window's dtype
        even = 1 - n_win % 2
        n = npd(n_win + int(bool(periodic)) * even - 1)
        cos_arg = npd(2 * np.pi) * np.arange(n_win, dtype=npd) / n
        return constant((npd(a) - npd(b) * np.cos(cos_arg)).astype(npd))


def hann_window(window_length, periodic=True, dtype=dt.float32, name=None):
    """0.5 - 0.5 cos(2 pi n / N): N = window_length when periodic (for spectral analysis), else length - 1."""
    return _raised_cosine(name or "hann_window", window_length, periodic, dtype, 0.5, 0.5)


def hamming_window(window_length, periodic=True, dtype=dt.float32, name=None):
    """0.54 - 0.46 cos(2 pi n / N), N as for hann_window."""
    return _raised_cosine(name or "hamming_window", window_length, periodic, dtype, 0.54, 0.46)


def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None):
    """The frames of `signal` along `axis`: [..., num_frames, frame_length, ...], every frame_step samples
    (the end padded with pad_value to a whole last frame when pad_end)."""
    with get_default_graph().name_scope(name or "frame"):
        x = convert_to_tensor(signal, name="signal")
        rank = x.shape.ndims
        if rank is None:
            raise ValueError("frame needs the rank of %s known" % x.name)
        axis = axis % rank
        length = x.shape[axis].value
        if length is None:
            raise ValueError("frame needs the length of axis %d of %s known, got shape %s" % (axis, x.name, x.shape))
        flen, step = int(frame_length), int(frame_step)
        if pad_end:
            n_frames = -(-length // step)
            extra = max(0, (n_frames - 1) * step + flen - length)
            if extra:
                paddings = [[0, 0]] * rank
                paddings[axis] = [0, extra]
                x = array_ops.pad(x, paddings, constant_values=pad_value)
        else:
            n_frames = max(0, 1 + (length - flen) // step)
        idx = step * np.arange(n_frames)[:, None] + np.arange(flen)[None, :]
        return gather(x, constant(idx.astype(np.int32)), axis=axis)


def overlap_and_add(signal, frame_step, name=None):
    """Frames [..., frames, frame_length] added back into one signal [..., (frames - 1) * step + frame_length]."""
    with get_default_graph().name_scope(name or "overlap_and_add"):
        x = convert_to_tensor(signal, name="signal")
        shape = x.shape.as_list() if x.shape.ndims is not None else None
        if shape is None or len(shape) < 2 or None in shape[-2:]:
            raise ValueError("overlap_and_add needs the last two dimensions of %s known, got %s" % (x.name, x.shape))
        n, flen = shape[-2:]
        step = int(frame_step)
        out_len = (n - 1) * step + flen
        # each sample added to its place (a sum, as TF's: a NaN or inf stays where its frame lands)
        place = (np.arange(n)[:, None] * step + np.arange(flen)).reshape(-1).astype(np.int32)
        rows = array_ops.transpose(array_ops.reshape(x, [-1, n * flen]))
        out = array_ops.transpose(unsorted_segment_sum(rows, constant(place), out_len))
        head = shape[:-2]
        if None in head:
            return array_ops.reshape(out, array_ops.concat([array_ops.shape(x)[:-2], constant([out_len])], 0))
        return array_ops.reshape(out, head + [out_len])


def _hertz_to_mel(f):
    return _MEL_HIGH_FREQUENCY_Q * np.log(1.0 + f / _MEL_BREAK_FREQUENCY_HERTZ)


def linear_to_mel_weight_matrix(num_mel_bins=20, num_spectrogram_bins=129, sample_rate=8000, lower_edge_hertz=125.0,
                                upper_edge_hertz=3800.0, dtype=dt.float32, name=None):
    """[num_spectrogram_bins, num_mel_bins]: triangular mel filters over the linear bins of a spectrogram
    (0 to Nyquist); the DC bin gets no weight."""
    if num_mel_bins <= 0 or num_spectrogram_bins <= 0 or sample_rate <= 0:
        raise ValueError("num_mel_bins, num_spectrogram_bins and sample_rate must be positive")
    if lower_edge_hertz < 0.0 or lower_edge_hertz >= upper_edge_hertz or upper_edge_hertz > sample_rate / 2:
        raise ValueError("lower_edge_hertz %.1f and upper_edge_hertz %.1f must satisfy 0 <= lower < upper <= "
                         "sample_rate / 2 (%.1f)" % (lower_edge_hertz, upper_edge_hertz, sample_rate / 2))
    with get_default_graph().name_scope(name or "linear_to_mel_weight_matrix"):
        bins = _hertz_to_mel(np.linspace(0.0, sample_rate / 2.0, num_spectrogram_bins)[1:])[:, None]
        edges = np.linspace(_hertz_to_mel(lower_edge_hertz), _hertz_to_mel(upper_edge_hertz), num_mel_bins + 2)
        lower, center, upper = edges[:-2][None], edges[1:-1][None], edges[2:][None]
        weights = np.maximum(0.0, np.minimum((bins - lower) / (center - lower), (upper - bins) / (upper - center)))
        return constant(np.pad(weights, [[1, 0], [0, 0]]).astype(dt.as_dtype(dtype).np))


def _dct_basis(type, n_in, n, norm):
    """[n_in, n]: the matrix of the DCT of the given type (scipy's, unnormalized or "ortho") of a length-n
    signal, rows beyond the input's length dropped (zero padding adds none)."""
    k, i = np.arange(n)[None, :], np.arange(n)[:, None]
    if type == 1:
        basis = 2 * np.cos(np.pi * k * i / (n - 1))
        basis[[0, -1]] /= 2
    elif type == 2:
        basis = 2 * np.cos(np.pi * k * (2 * i + 1) / (2 * n))
        if norm == "ortho":
            basis = basis * np.where(k == 0, np.sqrt(1 / (4 * n)), np.sqrt(1 / (2 * n)))
    else:
        basis = 2 * np.cos(np.pi * (2 * k + 1) * i / (2 * n))
        basis[0] = 1
        if norm == "ortho":
            basis = basis * np.where(i == 0, np.sqrt(1 / n), np.sqrt(1 / (2 * n)))
    return basis[:n_in]


def dct(input, type=2, n=None, axis=-1, norm=None, name=None):
    """The discrete cosine transform (types I, II, III as scipy's; norm="ortho" for II and III) of the last
    axis; `n` truncates or zero-pads the input first."""
    if type not in (1, 2, 3):
        raise ValueError("Only Types I, II and III (I)DCT are supported.")
    if type == 1 and norm == "ortho":
        raise ValueError("Normalization is not supported for the Type-I DCT.")
    if axis != -1:
        raise NotImplementedError("axis must be -1. Got: %s" % axis)
    if norm not in (None, "ortho"):
        raise ValueError("Unknown normalization. Expected None or 'ortho', got: %s" % norm)
    if n is not None and n < 1:
        raise ValueError("n should be a positive integer or None")
    with get_default_graph().name_scope(name or "dct"):
        x = convert_to_tensor(input, name="input")
        size = x.shape[-1].value if x.shape.ndims else None
        if size is None:
            raise ValueError("dct needs the length of the last axis of %s known" % x.name)
        n = size if n is None else int(n)
        if type == 1 and n < 2:
            raise ValueError("The Type-I DCT requires the dimension to be greater than one.")
        basis = _dct_basis(type, min(size, n), n, norm)
        if size > n:
            x = x[..., :n]
        return tensordot(x, constant(basis.astype(x.dtype.np)), [[x.shape.ndims - 1], [0]])


def idct(input, type=2, n=None, axis=-1, norm=None, name=None):
    """The inverse DCT as TF defines it: the DCT of the inverse type (III for II, II for III, I for I),
    so idct(dct(x)) is x scaled by 2N (by 2(N-1) for type I) unless norm="ortho"."""
    return dct(input, type={1: 1, 2: 3, 3: 2}.get(type, type), n=n, axis=axis, norm=norm, name=name or "idct")


def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None):
    """MFCCs: the orthonormal-scaled type-II DCT of log-mel spectrograms [..., num_mel_bins]."""
    with get_default_graph().name_scope(name or "mfccs_from_log_mel_spectrograms"):
        x = convert_to_tensor(log_mel_spectrograms, name="log_mel_spectrograms")
        bins = x.shape[-1].value if x.shape.ndims else None
        if bins is None:
            raise ValueError("mfccs_from_log_mel_spectrograms needs num_mel_bins (the last axis) of %s known" % x.name)
        return math_ops.multiply(dct(x), constant(np.asarray(1 / np.sqrt(bins * 2.0), x.dtype.np)))


def _shift(x, axes, sign, name):
    with get_default_graph().name_scope(name):
        x = convert_to_tensor(x, name="x")
        if axes is None:
            axes = list(range(x.shape.ndims))
        # one axis: TF shifts by its static size (a negative axis counts from the end); a list: TF gathers
        # the sizes at run time (a negative one fails there, as in TF)
        axes = [int(axes) % x.shape.ndims] if np.ndim(axes) == 0 else list(axes)
        sizes = gather(array_ops.shape(x), constant(np.asarray(axes, np.int32)))
        shift = math_ops.floordiv(sizes, constant(2)) if sign > 0 else -math_ops.floordiv(sizes, constant(2))
        from tinyflow.ops.core.sequence_ops import roll
        return roll(x, shift, axes)


def fftshift(x, axes=None, name=None):
    """The zero-frequency term moved to the center: x rolled by n // 2 along `axes` (all by default)."""
    return _shift(x, axes, 1, name or "fftshift")


def ifftshift(x, axes=None, name=None):
    """The inverse of fftshift: x rolled by -(n // 2) along `axes`."""
    return _shift(x, axes, -1, name or "ifftshift")


def _fft_length(frame_length):
    return 1 << int(np.ceil(np.log2(int(frame_length))))   # TF's default: the enclosing power of 2


def stft(signals, frame_length, frame_step, fft_length=None, window_fn=hann_window, pad_end=False, name=None):
    """The short-time Fourier transform [..., frames, fft_length // 2 + 1]: frames of frame_length samples
    every frame_step, windowed by window_fn(frame_length, dtype), each rfft'd over fft_length samples."""
    with get_default_graph().name_scope(name or "stft"):
        x = convert_to_tensor(signals, name="signals")
        fft_length = _fft_length(frame_length) if fft_length is None else int(fft_length)
        framed = frame(x, frame_length, frame_step, pad_end=pad_end)
        if window_fn is not None:
            framed = math_ops.multiply(framed, window_fn(frame_length, dtype=x.dtype))
        return complex_ops.rfft(framed, [fft_length])


def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
    """A window_fn for inverse_stft that undoes forward_window_fn's scaling: the forward window divided by
    the sum of its squares over the frames that overlap each sample."""
    def inverse_window(frame_length, dtype):
        with get_default_graph().name_scope(name or "inverse_stft_window_fn"):
            forward = forward_window_fn(frame_length, dtype=dtype)
            denom = math_ops.square(forward)
            overlaps = -(-int(frame_length) // int(frame_step))
            denom = array_ops.pad(denom, [(0, overlaps * frame_step - frame_length)])
            denom = math_ops.reduce_sum(array_ops.reshape(denom, [overlaps, frame_step]), 0, keepdims=True)
            denom = array_ops.reshape(array_ops.tile(denom, [overlaps, 1]), [overlaps * frame_step])
            return math_ops.realdiv(forward, denom[:frame_length])
    return inverse_window


def inverse_stft(stfts, frame_length, frame_step, fft_length=None, window_fn=hann_window, name=None):
    """The signal back from an stft: each frame irfft'd, cut (or zero-padded) to frame_length, windowed and
    overlap-added (with inverse_stft_window_fn's window the round trip is exact)."""
    with get_default_graph().name_scope(name or "inverse_stft"):
        x = convert_to_tensor(stfts, name="stfts")
        fft_length = _fft_length(frame_length) if fft_length is None else int(fft_length)
        frames = complex_ops.irfft(x, [fft_length])[..., :frame_length]
        if frame_length > fft_length:
            rank = frames.shape.ndims
            frames = array_ops.pad(frames, [[0, 0]] * (rank - 1) + [[0, frame_length - fft_length]])
        if window_fn is not None:
            frames = math_ops.multiply(frames, window_fn(frame_length, dtype=frames.dtype))
        return overlap_and_add(frames, frame_step)
