"""Complex ops and FFTs, built from real inputs (tf.complex) and read back as real values, so the gradient
check by finite differences holds TF's convention: d(real loss)/dx + i d/dy."""
import numpy as np

from opspecs import OpSpec

R = np.random.RandomState(5)
A, B = R.randn(2, 4), R.randn(2, 4)
V = R.randn(2, 3, 4)
W = R.randn(2, 3, 4)


def _parts(tf, x, y):
    z = tf.complex(x, y)
    return tf.real(z * z) + tf.imag(z) * 0.5 + tf.abs(z) + tf.angle(z) + tf.real(tf.conj(z) * z)


def _np_parts(x, y):
    z = x + 1j * y
    return (z * z).real + 0.5 * z.imag + np.abs(z) + np.angle(z) + (np.conj(z) * z).real


def _ffts(tf, x, y):
    z = tf.complex(x, y)
    outs = [tf.fft(z), tf.ifft(z), tf.fft2d(z), tf.ifft2d(z), tf.fft3d(z), tf.ifft3d(z)]
    return tf.add_n([tf.real(o) + tf.imag(o) for o in outs])


def _np_ffts(x, y):
    z = x + 1j * y
    a = [-1], [-2, -1], [-3, -2, -1]
    outs = [np.fft.fftn(z, axes=k) for k in a] + [np.fft.ifftn(z, axes=k) for k in a]
    return sum(o.real + o.imag for o in outs)


def _rffts(tf, x):
    outs = [tf.signal.irfft(tf.signal.rfft(x) * (1 + 1j), [4]), tf.signal.irfft2d(tf.signal.rfft2d(x) * (2 - 1j)),
            tf.signal.irfft3d(tf.signal.rfft3d(x) * (1j))]
    return tf.add_n(outs)


def _np_rffts(x):
    return (np.fft.irfftn(np.fft.rfftn(x, axes=[-1]) * (1 + 1j), axes=[-1])
            + np.fft.irfftn(np.fft.rfftn(x, axes=[-2, -1]) * (2 - 1j), axes=[-2, -1])
            + np.fft.irfftn(np.fft.rfftn(x, axes=[-3, -2, -1]) * 1j, axes=[-3, -2, -1]))


SPECS = [
    OpSpec("complex_parts", _parts, [A, B], _np_parts, grad=True),
    OpSpec("complex_ffts", _ffts, [V, W], _np_ffts, grad=True),
    OpSpec("real_ffts", _rffts, [V], _np_rffts, grad=True),
]
