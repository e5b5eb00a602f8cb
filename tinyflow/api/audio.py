"""tf.audio: WAV decoding and encoding (ops/audio_ops.py)."""
from tinyflow.ops.audio_ops import decode_wav, encode_wav  # noqa: F401
