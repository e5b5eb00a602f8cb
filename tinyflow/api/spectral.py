"""tf.spectral: TF 1.15's older name for the FFTs and DCTs of tf.signal."""
from tinyflow.api.signal import (dct, fft, fft2d, fft3d, idct, ifft, ifft2d, ifft3d, irfft, irfft2d, irfft3d,  # noqa: F401
                                 rfft, rfft2d, rfft3d)
