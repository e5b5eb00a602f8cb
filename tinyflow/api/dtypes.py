"""tf.dtypes: the DType objects, as_dtype, cast and saturate_cast (tinyflow has no complex,
quantized, resource or variant types)."""
from tinyflow.graph.dtypes import (DType, as_dtype, bfloat16, bool_ as bool, double, float16, float32, float64, half,  # noqa: F401
                                   int8, int16, int32, int64, string, uint8, uint16, uint32, uint64)
from tinyflow.ops.core.math_ops import cast, saturate_cast  # noqa: F401
