"""`tensorflow.python.*` imports under the runner (`from tensorflow.python.framework import ops`,
`from tensorflow.python.ops import array_ops`, ...). TF's internal modules are not tinyflow's
layout, so each aliased module is a plain namespace holding the tf names scripts take from it: the
whole `tf.` namespace, plus the submodule's own extras (tf.nn for nn_ops, the rnn cells for
rnn_cell_impl, ...). Scripts that reach deeper into TF's internals still fail, with ImportError."""
import sys
import types

# module under tensorflow.python -> the extra tinyflow namespace (attribute path from tinyflow) it adds
MODULES = {
    "framework": None, "framework.ops": None, "framework.dtypes": None, "framework.constant_op": None,
    "framework.tensor_shape": None, "framework.tensor_util": None, "framework.errors": "errors",
    "framework.errors_impl": "errors", "framework.graph_util": None, "framework.random_seed": None,
    "ops": None, "ops.array_ops": None, "ops.math_ops": None, "ops.nn_ops": "nn", "ops.nn": "nn",
    "ops.nn_impl": "nn", "ops.init_ops": None, "ops.variable_scope": None, "ops.variables": None,
    "ops.control_flow_ops": None, "ops.state_ops": None, "ops.random_ops": None, "ops.clip_ops": None,
    "ops.gen_array_ops": None, "ops.gen_math_ops": None, "ops.gen_nn_ops": "nn", "ops.check_ops": None,
    "ops.rnn": "nn", "ops.rnn_cell": "nn.rnn_cell", "ops.rnn_cell_impl": "nn.rnn_cell",
    "ops.embedding_ops": "nn", "ops.functional_ops": None, "ops.logging_ops": None, "ops.summary_ops": "summary",
    "ops.losses": "losses", "ops.losses.losses": "losses", "ops.image_ops": "image", "ops.data_flow_ops": None,
    "ops.standard_ops": None, "ops.special_math_ops": None, "ops.linalg_ops": "linalg", "ops.sparse_ops": None,
    "training": "train", "training.training": "train", "training.saver": "train", "training.optimizer": "train",
    "training.training_util": "train", "layers": "layers", "layers.core": "layers", "layers.layers": "layers",
    "summary": "summary", "summary.summary": "summary", "platform": None, "platform.gfile": "gfile",
    "platform.tf_logging": "logging", "platform.flags": "flags", "platform.app": "app", "client": None,
    "client.session": None, "util": None, "util.nest": "nest", "lib": None, "lib.io": None,
    "lib.io.file_io": "gfile", "pywrap_tensorflow": None, "client.device_lib": "_device_lib",
    "ops.string_ops": "strings", "ops.lookup_ops": "lookup",
    "saved_model": "saved_model", "saved_model.tag_constants": "saved_model.tag_constants",
    "saved_model.signature_constants": "saved_model.signature_constants",
    "saved_model.signature_def_utils": "saved_model.signature_def_utils",
    "saved_model.builder": "saved_model.builder", "saved_model.loader": "saved_model.loader",
    "saved_model.utils": "saved_model.utils", "saved_model.main_op": "saved_model.main_op",
}


def _extra(tinyflow, path):
    if path == "_device_lib":
        from tinyflow.api import device_lib
        return device_lib
    obj = tinyflow
    for part in path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def build(tinyflow):
    """The shim modules, keyed by their full `tensorflow.python...` name."""
    public = {k: v for k, v in vars(tinyflow).items() if not k.startswith("_")}
    modules = {"tensorflow.python": types.ModuleType("tensorflow.python")}
    modules["tensorflow.python"].__dict__.update(public)
    for name in sorted(MODULES):  # parents first, so children can be attached to them
        full = "tensorflow.python." + name
        module = types.ModuleType(full, "tinyflow's stand-in for TF's %s" % full)
        module.__dict__.update(public)
        module.__getattr__ = lambda attr: getattr(tinyflow, attr)   # the tf. names loaded on first use (tf.map_fn)
        extra = _extra(tinyflow, MODULES[name]) if MODULES[name] else None
        if extra is not None:
            module.__dict__.update({k: v for k, v in vars(extra).items() if not k.startswith("_")})
        if name == "framework.tensor_shape":
            from tinyflow.graph import shapes
            module.__dict__.update({"as_shape": shapes.as_shape, "unknown_shape": lambda rank=None: shapes.TensorShape(
                None if rank is None else [None] * rank), "dimension_value": tinyflow.dimension_value})
        if name == "framework.tensor_util":
            module.constant_value = tinyflow.get_static_value
        if name == "pywrap_tensorflow":
            module.NewCheckpointReader = tinyflow.train.NewCheckpointReader
        modules[full] = module
        parent, _, leaf = full.rpartition(".")
        setattr(modules[parent], leaf, module)
    return modules


def install(tinyflow):
    """Registers the shims in sys.modules (called by the runner's alias_tensorflow)."""
    for name, module in build(tinyflow).items():
        sys.modules.setdefault(name, module)
    if "tensorflow" in sys.modules:
        sys.modules["tensorflow"].python = sys.modules["tensorflow.python"]
