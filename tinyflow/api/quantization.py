"""tf.quantization: fake quantization (ops/fake_quant_ops.py) and quantize_and_dequantize; the ops on
quantized dtypes (quantize, dequantize, quantized_concat) raise UnimplementedError."""
from tinyflow.api.framework import dequantize, quantize, quantized_concat  # noqa: F401
from tinyflow.ops.fake_quant_ops import *  # noqa: F401,F403
