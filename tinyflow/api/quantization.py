"""tf.quantization: fake quantization (ops/fake_quant_ops.py), quantize_and_dequantize, and the ops on
quantized dtypes (quantize, dequantize, quantized_concat: ops/quantize_ops.py)."""
from tinyflow.ops.fake_quant_ops import *  # noqa: F401,F403
from tinyflow.ops.quantize_ops import dequantize, quantize, quantized_concat  # noqa: F401
