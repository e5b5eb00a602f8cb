"""tf.compat.v2.summary in graph mode, as TF 1.15 runs it (TF2's summary API that TF1 scripts call):
create_file_writer + `writer.as_default()`, then scalar / image / histogram(name, data, step=) build ops
that write TensorBoard's plugin values (a tensor with the "scalars", "images" or "histograms" plugin's
metadata) when run; tf.compat.v1.summary.all_v2_summary_ops() collects them. The writers and the writing
are tf.contrib.summary's (api/contrib/summary.py); only the values and the defaults differ: v2 records
unless a record_if says otherwise, and its step is `step=` or experimental.set_step's.
"""
import types

import numpy as np

from tinyflow.api.contrib import summary as _contrib
from tinyflow.formats import convert, png

create_file_writer = _contrib.create_file_writer
SummaryWriter = _contrib.SummaryWriter
_STEP = {"step": None}


def record_if(condition):
    """Summary ops built inside write only when `condition` (a bool, a bool tensor or a callable giving
    one) holds."""
    return _contrib._recording(condition() if callable(condition) else condition)


def set_step(step):
    """The default `step` of the summary ops built from now on."""
    _STEP["step"] = step


def get_step():
    return _STEP["step"]


experimental = types.SimpleNamespace(set_step=set_step, get_step=get_step)


def _plugin_value(tag, array, plugin, dtype=None):
    from tinyflow.formats.tf_protos import Summary, SummaryMetadata, TensorProto
    tensor = convert.from_numpy(array, TensorProto(), dtype)
    return Summary.Value(tag=tag, tensor=tensor, metadata=SummaryMetadata(
        plugin_data=SummaryMetadata.PluginData(plugin_name=plugin)))


def _write(name, data, step, encode):
    step = step if step is not None else _STEP["step"]
    if step is None and _contrib._DEFAULT["writer"] is not None:
        raise ValueError("No step set via 'step' argument or tf.summary.experimental.set_step()")
    return _contrib._write_op(name, data, step, encode, record_default=True)


def scalar(name, data, step=None, description=None):
    """Writes a scalar (TensorBoard's scalars plugin: a float32 tensor)."""
    return _write(name, data, step, lambda tag, v: _plugin_value(tag, np.float32(v), "scalars"))


def image(name, data, step=None, max_outputs=3, description=None):
    """Writes up to max_outputs PNGs of a [k, h, w, c] batch (floats in [0, 1] scaled to 0..255): the
    images plugin's tensor [width, height, png, ...]."""
    def encode(tag, images):
        images = images[:max_outputs]
        pixels = images if images.dtype == np.uint8 else np.clip(  # convert_image_dtype(saturate=True), as TF
            images.astype(np.float64) * 255.5, 0, 255).astype(np.uint8)
        h, w = images.shape[1:3]
        return _plugin_value(tag, np.array([str(w).encode(), str(h).encode()] + [png.encode(p) for p in pixels],
                                           object), "images", "string")
    return _write(name, data, step, encode)


def histogram(name, data, step=None, buckets=None, description=None):
    """Writes a histogram (the histograms plugin's [buckets, 3] tensor of left edge, right edge, count)."""
    return _write(name, data, step, lambda tag, v: _plugin_value(tag, _buckets(v, buckets or 30), "histograms"))


def _buckets(data, count):
    """TensorBoard's histogram buckets (summary_v2.histogram): `count` equal buckets over [min, max]."""
    data = np.asarray(data, np.float64).reshape(-1)
    if data.size == 0:
        return np.zeros([0, 3])
    lo, hi = data.min(), data.max()
    if hi == lo:
        return np.array([[lo - 0.5, hi + 0.5, float(data.size)]])
    index = np.minimum(np.floor((data - lo) / ((hi - lo) / count)).astype(np.int32), count - 1)
    edges = np.linspace(lo, hi, count + 1)
    return np.stack([edges[:-1], edges[1:], np.bincount(index, minlength=count).astype(np.float64)], 1)


def flush(writer=None, name=None):
    """An op that writes what `writer` (the default one) holds to disk."""
    return _contrib.flush(writer, name)


all_v2_summary_ops = _contrib.all_summary_ops
