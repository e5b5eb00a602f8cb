"""tf.saved_model (TF 1.15's v1 API): SavedModel directories written and read in TF's format.

builder.SavedModelBuilder / simple_save write them, loader.load reads them (TF's or tinyflow's);
signature_def_utils, utils, tag_constants and signature_constants are TF's helpers and names.
"""
import types as _types

from tinyflow.api.saved_model import builder as _builder_module
from tinyflow.api.saved_model import constants
from tinyflow.api.saved_model import loader as _loader_module
from tinyflow.api.saved_model import signature_def_utils as _sig
from tinyflow.api.saved_model import utils as _utils
from tinyflow.api.saved_model.constants import (ASSETS_DIRECTORY, ASSETS_KEY, LEGACY_INIT_OP_KEY,  # noqa: F401
                                                MAIN_OP_KEY, SAVED_MODEL_FILENAME_PB, SAVED_MODEL_FILENAME_PBTXT,
                                                SAVED_MODEL_SCHEMA_VERSION, VARIABLES_DIRECTORY, VARIABLES_FILENAME)
from tinyflow.api.saved_model.builder import SavedModelBuilder as _SavedModelBuilder, simple_save  # noqa: F401
from tinyflow.api.saved_model.loader import contains_saved_model, load, maybe_saved_model_directory  # noqa: F401
from tinyflow.api.saved_model.signature_def_utils import (build_signature_def,  # noqa: F401
                                                          classification_signature_def, is_valid_signature,
                                                          predict_signature_def, regression_signature_def)
from tinyflow.api.saved_model.utils import build_tensor_info, get_tensor_from_tensor_info  # noqa: F401


def _main_op():
    """The main op TF's main_op.main_op() builds: local variables and tables initialized, one group."""
    import tinyflow.api as tf
    return tf.group(tf.local_variables_initializer(), tf.tables_initializer())


def main_op_with_restore(restore_op_name):
    """main_op.main_op(), then the op named restore_op_name (TF's main_op_with_restore)."""
    import tinyflow.api as tf
    with tf.control_dependencies([_main_op()]):
        return tf.group(tf.get_default_graph().get_operation_by_name(restore_op_name), name="main_op_with_restore")


Builder = _SavedModelBuilder
builder = _types.SimpleNamespace(SavedModelBuilder=_SavedModelBuilder)
loader = _types.SimpleNamespace(load=load, maybe_saved_model_directory=maybe_saved_model_directory)
main_op = _types.SimpleNamespace(main_op=_main_op, main_op_with_restore=main_op_with_restore)
utils = _types.SimpleNamespace(build_tensor_info=build_tensor_info,
                               get_tensor_from_tensor_info=get_tensor_from_tensor_info)
signature_def_utils = _types.SimpleNamespace(
    build_signature_def=build_signature_def, classification_signature_def=classification_signature_def,
    is_valid_signature=is_valid_signature, predict_signature_def=predict_signature_def,
    regression_signature_def=regression_signature_def)
tag_constants = _types.SimpleNamespace(**{n: getattr(constants, n) for n in constants.TAG_NAMES})
signature_constants = _types.SimpleNamespace(**{n: getattr(constants, n) for n in constants.SIGNATURE_NAMES})
globals().update({n: getattr(constants, n) for n in constants.TAG_NAMES + constants.SIGNATURE_NAMES})
del _builder_module, _loader_module, _sig, _utils
