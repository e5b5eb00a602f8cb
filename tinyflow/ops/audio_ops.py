"""tf.audio: WAV files (16-bit PCM, as TF's codec) decoded to float32 samples in [-1, 1) and encoded back,
on the host."""
import io
import wave

import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph import errors
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.host_ops import make_host_op, register_host_op, string_array

__all__ = ["decode_wav", "encode_wav"]


def _decode(session, op, inputs):
    data = inputs[0].reshape(-1)[0] if inputs[0].size else b""
    try:
        with wave.open(io.BytesIO(bytes(data))) as w:
            if w.getsampwidth() != 2:
                raise errors.InvalidArgumentError(op.node_def, op, "Can only read 16-bit WAV files, but received %d"
                                                  % (8 * w.getsampwidth()))
            rate, channels = w.getframerate(), w.getnchannels()
            data = w.readframes(w.getnframes())
            if len(data) < w.getnframes() * 2 * channels:
                raise errors.InvalidArgumentError(op.node_def, op, "Data too short when trying to read string")
            frames = np.frombuffer(data, "<i2").reshape(-1, channels)
    except (wave.Error, EOFError) as e:
        raise errors.InvalidArgumentError(op.node_def, op, "Bad WAV data: %s" % e)
    audio = frames.astype(np.float32) / 32768.0
    want_ch, want_n = op.attrs["desired_channels"], op.attrs["desired_samples"]
    if want_ch >= 0 and want_ch != channels:   # TF: channels cut, or the first one repeated
        audio = audio[:, :want_ch] if want_ch < channels else np.repeat(audio[:, :1], want_ch, axis=1)
    if want_n >= 0:     # -1: all (0 is an empty result)
        audio = audio[:want_n] if want_n <= len(audio) else np.pad(audio, [(0, want_n - len(audio)), (0, 0)])
    return [audio, np.int32(rate)]


register_host_op("DecodeWav", lambda s, a, v: [TensorShape([a["desired_samples"] if a["desired_samples"] >= 0 else None,
                                                            a["desired_channels"] if a["desired_channels"] >= 0
                                                            else None]), TensorShape([])],
                 lambda d, a: [dt.float32, dt.int32], _decode)


def decode_wav(contents, desired_channels=-1, desired_samples=-1, name=None):
    """(audio [samples, channels] float32 in [-1, 1), sample_rate int32) of a 16-bit PCM WAV file's bytes."""
    contents = convert_to_tensor(contents, dt.string, name="contents")
    op = make_host_op("DecodeWav", [contents], {"desired_channels": int(desired_channels),
                                                 "desired_samples": int(desired_samples)}, name=name or "DecodeWav")
    return tuple(op.outputs)


def _encode(session, op, inputs):
    audio, rate = inputs
    scaled = np.asarray(audio, np.float32) * np.float32(32768.0)   # TF: roundf (halves away from zero), clamped
    pcm = np.clip(np.sign(scaled) * np.floor(np.abs(scaled) + 0.5), -32768, 32767).astype("<i2")
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(pcm.shape[1])
        w.setsampwidth(2)
        w.setframerate(int(rate))
        w.writeframes(pcm.tobytes())
    return [string_array((), [buf.getvalue()])]


register_host_op("EncodeWav", lambda s, a, v: [TensorShape([])], lambda d, a: [dt.string], _encode)


def encode_wav(audio, sample_rate, name=None):
    """The bytes of a 16-bit PCM WAV file of audio [samples, channels] (float32 in [-1, 1])."""
    audio = convert_to_tensor(audio, dt.float32, name="audio")
    rate = convert_to_tensor(sample_rate, dt.int32, name="sample_rate")
    return make_host_op("EncodeWav", [audio, rate], name=name or "EncodeWav").outputs[0]
