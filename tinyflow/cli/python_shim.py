"""`tensorflow.python.*` imports under the runner (`from tensorflow.python.framework import ops`,
`from tensorflow.python.ops import array_ops`, ...). TF's internal modules are not tinyflow's
layout, so each aliased module is a plain namespace holding the tf names scripts take from it: the
whole `tf.` namespace, plus the submodule's own extras (tf.nn for nn_ops, the rnn cells for
rnn_cell_impl, ...). Scripts that reach deeper into TF's internals still fail, with ImportError.

`tensorflow.core.*_pb2` (`from tensorflow.core.framework import graph_pb2`) name the protobuf messages
tinyflow declares (formats/tf_protos.py); config_pb2 and rewriter_config_pb2 the session option records."""
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
    "ops.string_ops": "strings", "ops.lookup_ops": "lookup", "ops.resources": None,
    "saved_model": "saved_model", "saved_model.tag_constants": "saved_model.tag_constants",
    "saved_model.signature_constants": "saved_model.signature_constants",
    "saved_model.signature_def_utils": "saved_model.signature_def_utils",
    "saved_model.builder": "saved_model.builder", "saved_model.loader": "saved_model.loader",
    "saved_model.utils": "saved_model.utils", "saved_model.main_op": "saved_model.main_op",
    "ops.control_flow_util": None, "ops.summary_op_util": None, "ops.inplace_ops": None, "ops.gradients": None,
    "ops.gradients_impl": None, "ops.gen_image_ops": "image", "ops.resource_variable_ops": None,
    "framework.function": None, "framework.sparse_tensor": "sparse", "layers.base": "layers",
    "lib.io.tf_record": "python_io", "util.tf_inspect": None, "tf2": None, "distribute": None,
    "distribute.summary_op_util": None, "feature_column": "_feature_column",
    "feature_column.feature_column": "_feature_column", "feature_column.feature_column_v2": "_feature_column",
    "tpu": None, "tpu.tpu_function": None, "tpu.ops": None, "tpu.ops.tpu_ops": None, "tpu.tpu": None,
    "tpu.training_loop": None, "tpu.async_checkpoint": None, "tpu.tpu_estimator": None, "tpu.tpu_config": None,
}
# names TF's internal modules hold beyond the tf. namespace: module -> {name: attribute of api/internals.py}
OWN = {
    "framework.ops": ["uid"], "ops.control_flow_ops": ["with_dependencies", "switch", "merge"],
    "ops.control_flow_util": ["ENABLE_CONTROL_FLOW_V2", "enable_control_flow_v2", "EnableControlFlowV2",
                              "IsInXLAContext", "GetContainingXLAContext"],
    "framework.function": ["Defun"], "ops.summary_op_util": ["collect", "clean_tag", "summary_scope"],
    "distribute.summary_op_util": ["skip_summary"],
    "ops.inplace_ops": ["inplace_update", "inplace_add", "inplace_sub", "alias_inplace_update",
                        "alias_inplace_add", "alias_inplace_sub"],
    "tf2": ["enabled"], "pywrap_tensorflow": ["EventsWriter"],
    "ops.resources": ["shared_resources", "local_resources", "initialize_resources", "report_uninitialized_resources"],
}


def _extra(tinyflow, path):
    if path in ("_device_lib", "_feature_column"):
        import importlib
        return importlib.import_module({"_device_lib": "tinyflow.api.device_lib",
                                        "_feature_column": "tinyflow.api.feature_column"}[path])
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
    def lazy(name):   # tf names not loaded yet (PEP 562 on each shim module): tinyflow loads them on use
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(tinyflow, name)

    def lazy_tpu(name):   # tensorflow.python.tpu.*: the TPU names (api/tpu.py, loaded on first use), then tf's
        if name.startswith("__"):
            raise AttributeError(name)
        from tinyflow.api import tpu
        from tinyflow.api import tpu_computation as tpu_more
        for source in (tpu_more, tpu):
            if hasattr(source, name):
                return getattr(source, name)
        return getattr(tinyflow, name)
    modules["tensorflow.python"].__dict__.update(public, __getattr__=lazy)
    for name in sorted(MODULES):  # parents first, so children can be attached to them
        full = "tensorflow.python." + name
        module = types.ModuleType(full, "tinyflow's stand-in for TF's %s" % full)
        module.__dict__.update(public, __getattr__=lazy_tpu if name.startswith("tpu") else lazy)
        extra = _extra(tinyflow, MODULES[name]) if MODULES[name] else None
        if extra is not None:
            module.__dict__.update({k: v for k, v in vars(extra).items() if not k.startswith("_")})
        if name in OWN or name == "util.tf_inspect":
            from tinyflow.api import internals
            module.__dict__.update({k: getattr(internals, k) for k in OWN.get(name, ())})
            if name == "util.tf_inspect":
                module.__dict__.update(vars(internals.tf_inspect))
        if name in ("ops.math_ops", "ops.gen_math_ops"):   # gen_math_ops's raw names, which math_ops star-imports
            module.__dict__.update(mul=tinyflow.multiply, sub=tinyflow.subtract, neg=tinyflow.negative)
        if name == "ops.resource_variable_ops":
            module.__dict__.update(ResourceVariable=tinyflow.Variable, resource_scatter_add=tinyflow.scatter_add,
                                   is_resource_variable=lambda v: isinstance(v, tinyflow.Variable))
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


def core_modules():
    """`tensorflow.core.<dir>.<file>_pb2` -> tinyflow's declarations of TF's messages, with their parents."""
    from tinyflow.formats import tf_protos
    from tinyflow.runtime import config
    modules = {}
    for pf in tf_protos.FILES:
        folder, _, file = pf.name[:-len(".proto")].rpartition("/")
        if not folder.startswith(("tensorflow/core/", "tensorflow/python/")):
            continue   # (the projector's config is tf.contrib.tensorboard's: api/contrib_tensorboard.py)
        modules[folder.replace("/", ".") + "." + file + "_pb2"] = tf_protos._MODULES[file]
    records = types.ModuleType("tensorflow.core.protobuf.config_pb2", "TF's session options (runtime/config.py)")
    records.__dict__.update({k: v for k, v in vars(config).items() if isinstance(v, type) and k[:1] != "_"})
    rewriter = types.ModuleType("tensorflow.core.protobuf.rewriter_config_pb2", "Grappler's switches (accepted)")
    rewriter.RewriterConfig = config.RewriterConfig
    modules.update({"tensorflow.core.protobuf.config_pb2": records,
                    "tensorflow.core.protobuf.rewriter_config_pb2": rewriter})
    for name in sorted(modules):   # the folders as packages: tensorflow.core, tensorflow.core.framework, ...
        parent = name.rpartition(".")[0]
        while parent not in ("tensorflow", "tensorflow.python") and parent not in modules:
            modules[parent] = types.ModuleType(parent, "tinyflow's stand-in for TF's %s" % parent)
            parent = parent.rpartition(".")[0]
    return modules


def install(tinyflow):
    """Registers the shims in sys.modules (called by the runner's alias_tensorflow)."""
    modules = build(tinyflow)
    modules.update({k: v for k, v in core_modules().items() if k not in modules})
    from tinyflow.api import internals
    modules["tensorflow.python.debug"] = internals.debug   # tfdbg (`from tensorflow.python import debug as tf_debug`)
    modules["tensorflow.python.client.timeline"] = internals.timeline
    for name, module in sorted(modules.items()):
        parent, _, leaf = name.rpartition(".")
        if parent in sys.modules and not hasattr(sys.modules[parent], leaf):
            setattr(sys.modules[parent], leaf, module)
        sys.modules.setdefault(name, module)
    if "tensorflow" in sys.modules:
        sys.modules["tensorflow"].python = sys.modules["tensorflow.python"]
