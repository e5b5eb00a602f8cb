"""tf.dtypes: the DType objects (complex, quantized, resource and variant ones included), as_dtype, cast,
saturate_cast, complex and as_string."""
from tinyflow.graph.dtypes import (DType, QUANTIZED_DTYPES, as_dtype, bfloat16, bool_ as bool, complex64,  # noqa: F401
                                   complex128, double, float16, float32, float64, half, int8, int16, int32, int64,
                                   qint8, qint16, qint32, quint8, quint16, resource, string, uint8, uint16, uint32,
                                   uint64, variant)
from tinyflow.ops.complex_ops import complex  # noqa: F401
from tinyflow.ops.core.math_ops import cast, saturate_cast  # noqa: F401
from tinyflow.ops.string_ops import as_string  # noqa: F401
