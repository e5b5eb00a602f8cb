"""TensorFlow's dtypes (`tf.float32`, ...) and their mapping to numpy. No JAX here."""
import numpy as np

try:  # ml_dtypes ships with jaxlib; bfloat16 needs it, nothing else does.
    import ml_dtypes
    _BF16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover
    _BF16 = None


class DType:
    """A tensor element type with TF's name and properties."""

    def __init__(self, name, np_dtype, enum):
        self._name = name
        self._np = np_dtype
        self._enum = enum

    name = property(lambda self: self._name)
    as_numpy_dtype = property(lambda self: self._np.type if self._np is not None else None)
    base_dtype = property(lambda self: self)
    real_dtype = property(lambda self: _REAL_OF.get(self._name, self))
    is_floating = property(lambda self: self._name in ("float16", "float32", "float64", "bfloat16"))
    is_integer = property(lambda self: self._name.startswith(("int", "uint")))
    is_unsigned = property(lambda self: self._name.startswith("uint"))
    is_bool = property(lambda self: self._name == "bool")
    is_complex = property(lambda self: self._name.startswith("complex"))
    is_quantized = property(lambda self: self._name.startswith(("qint", "quint")))
    as_datatype_enum = property(lambda self: self._enum)  # TF's DataType enum value
    is_numpy_compatible = property(lambda self: self._np is not None)
    size = property(lambda self: self._np.itemsize if self._np is not None else 1)

    @property
    def np(self):
        """The numpy dtype object (tinyflow's shorthand)."""
        return self._np

    @property
    def min(self):
        if self.is_complex or self.is_quantized or self._np is None or self._name == "string":
            raise TypeError("Cannot find minimum value of %s." % self)
        if self.is_floating:
            return float(ml_dtypes.finfo(self._np).min if self._name == "bfloat16" else np.finfo(self._np).min)
        if self.is_bool:
            return False
        return int(np.iinfo(self._np).min)

    @property
    def max(self):
        if self.is_complex or self.is_quantized or self._np is None or self._name == "string":
            raise TypeError("Cannot find maximum value of %s." % self)
        if self.is_floating:
            return float(ml_dtypes.finfo(self._np).max if self._name == "bfloat16" else np.finfo(self._np).max)
        if self.is_bool:
            return True
        return int(np.iinfo(self._np).max)

    @property
    def limits(self):
        """(min, max) of the type."""
        return self.min, self.max

    def is_compatible_with(self, other):
        return as_dtype(other) is self

    def __eq__(self, other):
        if isinstance(other, DType):
            return self is other
        try:
            return as_dtype(other) is self
        except TypeError:
            return False

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self._name)

    def __repr__(self):
        return "tf.%s" % self._name

    def __str__(self):
        return "<dtype: %r>" % self._name

    def __reduce__(self):
        return as_dtype, (self._name,)


float16 = half = DType("float16", np.dtype(np.float16), 19)
float32 = DType("float32", np.dtype(np.float32), 1)
float64 = double = DType("float64", np.dtype(np.float64), 2)
bfloat16 = DType("bfloat16", _BF16, 14)
int8 = DType("int8", np.dtype(np.int8), 6)
int16 = DType("int16", np.dtype(np.int16), 5)
int32 = DType("int32", np.dtype(np.int32), 3)
int64 = DType("int64", np.dtype(np.int64), 9)
uint8 = DType("uint8", np.dtype(np.uint8), 4)
uint16 = DType("uint16", np.dtype(np.uint16), 17)
uint32 = DType("uint32", np.dtype(np.uint32), 22)
uint64 = DType("uint64", np.dtype(np.uint64), 23)
bool_ = DType("bool", np.dtype(np.bool_), 10)
string = DType("string", np.dtype(object), 7)
complex64 = DType("complex64", np.dtype(np.complex64), 8)
complex128 = DType("complex128", np.dtype(np.complex128), 18)
_REAL_OF = {"complex64": float32, "complex128": float64}
# TF's quantized dtypes hold their integers in numpy's (a fetched quint8 is a uint8 array, as TF's);
# the ops of ops/quantize_ops.py produce them. resource and variant are declared only (names, enums).
qint8, quint8 = DType("qint8", np.dtype(np.int8), 11), DType("quint8", np.dtype(np.uint8), 12)
qint16, quint16 = DType("qint16", np.dtype(np.int16), 15), DType("quint16", np.dtype(np.uint16), 16)
qint32 = DType("qint32", np.dtype(np.int32), 13)
resource, variant = DType("resource", None, 20), DType("variant", None, 21)
QUANTIZED_DTYPES = frozenset([qint8, quint8, qint16, quint16, qint32])

ALL = [float16, float32, float64, bfloat16, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
       bool_, string, complex64, complex128]
_DECLARED = [qint8, quint8, qint16, quint16, qint32, resource, variant]
# Exactly the names TF 1.15's `tf.as_dtype` accepts (dtypes._NAME_TO_TF): "float" is float32 and
# "double" float64; numpy's spellings ("f4", "int", "long", "float_") are TypeErrors there, as here.
_BY_NAME = {d.name: d for d in ALL + _DECLARED}
_BY_NAME.update({"half": float16, "float": float32, "double": float64})
_BY_ENUM = {d.as_datatype_enum: d for d in ALL + _DECLARED}
_UNSUPPORTED = ()
# numpy scalar types, keyed by type as TF's _NP_TO_TF is (so np.dtype("U5").type, np.str_, is string).
_BY_NP_TYPE = {d.np.type: d for d in ALL if d.np is not None and d is not string}
_BY_NP_TYPE.update({np.object_: string, np.str_: string, np.bytes_: string})
# Python types, as TF 1.15's _PYTHON_TO_TF: `int`, `str` and `bytes` are NOT dtypes there.
_BY_PY_TYPE = {float: float32, bool: bool_, object: string}


def _cannot(value, why=""):
    return TypeError("Cannot convert value %r to a TensorFlow DType.%s" % (value, why))


def as_dtype(value):
    """Converts `value` to a DType exactly as TF 1.15's `tf.as_dtype` does.

    Accepts a DType, TF's dtype names ("float32", "float" == float32, "double", "half", "*_ref"), a
    DataType enum value, a numpy scalar type or np.dtype, and the Python types float, bool and object.
    Anything else (including `int`, `"int"`, `"f4"`) raises TypeError, as in TF.
    """
    if isinstance(value, DType):
        return value
    if isinstance(value, str):
        name = value[:-4] if value.endswith("_ref") else value  # tinyflow has no reference dtypes
        if name in _BY_NAME:
            return _BY_NAME[name]
        if name in _UNSUPPORTED:
            raise _cannot(value, " tinyflow does not support %s." % name)
        raise _cannot(value)
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        if int(value) in _BY_ENUM:
            return _BY_ENUM[int(value)]
        raise _cannot(value)
    if isinstance(value, type):
        if value in _BY_PY_TYPE:
            return _BY_PY_TYPE[value]
        if issubclass(value, np.generic):
            return _from_numpy(np.dtype(value), value)
        raise _cannot(value)
    if isinstance(value, np.dtype):
        return _from_numpy(value, value)
    as_datatype = getattr(value, "as_datatype_enum", None)  # a real TF DType (e.g. from a fixture script)
    if isinstance(as_datatype, int) and as_datatype in _BY_ENUM:
        return _BY_ENUM[as_datatype]
    raise _cannot(value)


def _from_numpy(npd, value):
    if npd.fields is None:
        if npd.type in _BY_NP_TYPE:
            return _BY_NP_TYPE[npd.type]
        for d in ALL:  # np.longlong / np.intc are distinct types with the same dtype as int64 / int32
            if d is not string and d.np == npd:
                return d
    raise _cannot(value)
