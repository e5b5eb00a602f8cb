"""tf.lite (TF 1.15): the converter's names exist; converting needs TensorFlow Lite, which tinyflow does not
have, so TFLiteConverter's constructors and Interpreter raise UnimplementedError naming it. The enums and
constants (OpsSet, Optimize, constants.*) are TF's values, so scripts that set them up import."""
import enum
import types

from tinyflow.graph import errors
from tinyflow.graph import dtypes


def _no_tflite(what):
    raise errors.UnimplementedError(None, None, "%s needs TensorFlow Lite's converter, which tinyflow does not have "
                                                "(export a SavedModel or a frozen GraphDef and convert it with "
                                                "TensorFlow's tflite_convert)" % what)


class OpsSet(enum.Enum):
    TFLITE_BUILTINS = "TFLITE_BUILTINS"
    SELECT_TF_OPS = "SELECT_TF_OPS"
    TFLITE_BUILTINS_INT8 = "TFLITE_BUILTINS_INT8"


class Optimize(enum.Enum):
    DEFAULT = "DEFAULT"
    OPTIMIZE_FOR_SIZE = "OPTIMIZE_FOR_SIZE"
    OPTIMIZE_FOR_LATENCY = "OPTIMIZE_FOR_LATENCY"


class RepresentativeDataset:
    """A generator of calibration inputs for post-training quantization (kept)."""

    def __init__(self, input_gen):
        self.input_gen = input_gen


class TargetSpec:
    def __init__(self, supported_ops=None):
        self.supported_ops = supported_ops if supported_ops is not None else {OpsSet.TFLITE_BUILTINS}


class TFLiteConverter:
    """tf.lite.TFLiteConverter: every way to make one raises UnimplementedError naming TensorFlow Lite."""

    def __init__(self, graph_def=None, input_tensors=None, output_tensors=None, input_arrays_with_shape=None,
                 output_arrays=None, experimental_debug_info_func=None):
        _no_tflite("tf.lite.TFLiteConverter")

    @classmethod
    def from_session(cls, sess, input_tensors, output_tensors):
        _no_tflite("tf.lite.TFLiteConverter.from_session")

    @classmethod
    def from_saved_model(cls, saved_model_dir, input_arrays=None, input_shapes=None, output_arrays=None,
                         tag_set=None, signature_key=None):
        _no_tflite("tf.lite.TFLiteConverter.from_saved_model")

    @classmethod
    def from_frozen_graph(cls, graph_def_file, input_arrays, output_arrays, input_shapes=None):
        _no_tflite("tf.lite.TFLiteConverter.from_frozen_graph")

    @classmethod
    def from_keras_model_file(cls, model_file, input_arrays=None, input_shapes=None, output_arrays=None,
                              custom_objects=None):
        _no_tflite("tf.lite.TFLiteConverter.from_keras_model_file")


TocoConverter = TFLiteConverter


class Interpreter:
    """tf.lite.Interpreter: running a .tflite model needs TensorFlow Lite (UnimplementedError)."""

    def __init__(self, model_path=None, model_content=None):
        _no_tflite("tf.lite.Interpreter")


# tf.lite.constants: TF 1.15's values (dtypes, and the output formats' enum numbers)
constants = types.SimpleNamespace(FLOAT=dtypes.float32, FLOAT16=dtypes.float16, INT32=dtypes.int32, INT64=dtypes.int64,
                                  STRING=dtypes.string, QUANTIZED_UINT8=dtypes.uint8, INT8=dtypes.int8,
                                  TFLITE=2, GRAPHVIZ_DOT=3)
