"""tf.contrib.memory_stats: BytesInUse / MaxBytesInUse / BytesLimit as int64 scalars read on the host when
the op runs, from JAX's allocator statistics of the first device (0 where the device reports none, as on CPU)."""
from tinyflow.api import tf_names as _tf


def _device_stat(key):
    def read():
        import jax
        import numpy as np
        stats = jax.devices()[0].memory_stats() or {}
        return np.int64(stats.get(key, 0))
    from tinyflow.ops.script_ops import py_func
    out = py_func(read, [], _tf.int64, stateful=True)
    out.set_shape([])
    return out


def BytesInUse():
    """The bytes the device allocator holds now (int64 scalar, read when the op runs)."""
    return _device_stat("bytes_in_use")


def MaxBytesInUse():
    """The peak bytes the device allocator has held (int64 scalar, read when the op runs)."""
    return _device_stat("peak_bytes_in_use")


def BytesLimit():
    """The bytes the device allocator may hold (int64 scalar)."""
    return _device_stat("bytes_limit")
