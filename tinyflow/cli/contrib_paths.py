"""The module paths of tf.contrib.slim and tf.contrib.framework under the runner:
`import tensorflow.contrib.slim as slim`, `from tensorflow.contrib.framework.python.ops import
arg_scope`, `from tensorflow.contrib.layers.python.layers import initializers`, ... name tinyflow's
modules (the same objects, so arg_scope's stack is one)."""
import sys
import types


def _namespace(name, members):
    module = types.ModuleType(name, "tinyflow's stand-in for TF's %s" % name)
    module.__dict__.update({k: v for k, v in members.items() if not k.startswith("_")})
    return module


def modules():
    """{full `tensorflow.contrib...` name: module}."""
    import importlib
    from tinyflow.api.contrib import framework as contrib_framework
    from tinyflow.api.contrib import slim
    from tinyflow.api.contrib.slim import initializers, layers, variables
    arg_scope = importlib.import_module("tinyflow.api.contrib.slim.arg_scope")  # slim.arg_scope is the function
    out = {"tensorflow.contrib.slim": slim, "tensorflow.contrib.framework": contrib_framework}
    for sub in ("learning", "losses", "metrics", "variables", "initializers", "utils", "regularizers"):
        out["tensorflow.contrib.slim." + sub] = getattr(slim, sub)
    out["tensorflow.contrib.slim.python"] = _namespace("tensorflow.contrib.slim.python", {})
    out["tensorflow.contrib.slim.python.slim"] = _namespace("tensorflow.contrib.slim.python.slim", {
        "learning": slim.learning})
    out["tensorflow.contrib.slim.python.slim.learning"] = slim.learning
    data = {name: getattr(slim, name) for name in ("dataset", "data_provider", "dataset_data_provider",
                                                     "parallel_reader", "tfexample_decoder", "prefetch_queue")}
    out["tensorflow.contrib.slim.python.slim.queues"] = out["tensorflow.contrib.slim.queues"] = slim.queues
    out["tensorflow.contrib.slim.python.slim.data"] = _namespace("tensorflow.contrib.slim.python.slim.data", data)
    for name, module in data.items():
        out["tensorflow.contrib.slim.python.slim.data." + name] = module
        out["tensorflow.contrib.slim." + name] = module
    from tinyflow.api.contrib.slim import nets
    out["tensorflow.contrib.slim.nets"] = nets
    out["tensorflow.contrib.slim.python.slim.nets"] = nets
    for name in ("alexnet", "inception", "inception_v1", "inception_v2", "inception_v3", "overfeat", "resnet_utils",
                 "resnet_v1", "resnet_v2", "vgg"):
        out["tensorflow.contrib.slim.nets." + name] = out["tensorflow.contrib.slim.python.slim.nets." + name] = \
            getattr(nets, name)
    out["tensorflow.contrib.framework.python"] = _namespace("tensorflow.contrib.framework.python", {})
    # TF's ops/__init__ star-imports its submodules: `ops.arg_scope` is the function there
    out["tensorflow.contrib.framework.python.ops"] = _namespace("tensorflow.contrib.framework.python.ops",
                                                                vars(contrib_framework))
    out["tensorflow.contrib.framework.python.ops.arg_scope"] = arg_scope
    out["tensorflow.contrib.framework.python.ops.variables"] = variables
    out["tensorflow.contrib.layers.python"] = _namespace("tensorflow.contrib.layers.python", {})
    out["tensorflow.contrib.layers.python.layers"] = _namespace("tensorflow.contrib.layers.python.layers", dict(
        vars(layers), initializers=initializers, regularizers=initializers, layers=layers, utils=slim.utils))
    for sub, module in (("initializers", initializers), ("regularizers", initializers), ("layers", layers),
                        ("utils", slim.utils)):
        out["tensorflow.contrib.layers.python.layers." + sub] = module
    from tinyflow.api.contrib import training as contrib_training
    from tinyflow.api import contrib
    tfe = contrib.eager   # (the namespace tfe.install builds: `import tensorflow.contrib.eager.python.tfe as tfe`)
    training = {"evaluation": contrib_training, "hparam": contrib_training, "training": contrib_training}
    out["tensorflow.contrib.training.python"] = _namespace("tensorflow.contrib.training.python", {})
    out["tensorflow.contrib.training.python.training"] = _namespace(
        "tensorflow.contrib.training.python.training", training)
    for sub, module in training.items():
        out["tensorflow.contrib.training.python.training." + sub] = module
    out["tensorflow.contrib.eager.python"] = _namespace("tensorflow.contrib.eager.python", {"tfe": tfe})
    out["tensorflow.contrib.eager.python.tfe"] = tfe
    from tinyflow.api.contrib import tensorboard as contrib_tensorboard
    out["tensorflow.contrib.tensorboard"] = contrib_tensorboard
    out["tensorflow.contrib.tensorboard.plugins"] = contrib_tensorboard.plugins
    out["tensorflow.contrib.tensorboard.plugins.projector"] = contrib_tensorboard
    out["tensorflow.contrib.tpu"] = contrib.tpu   # and its TF paths: python.tpu.tpu_estimator, python.tpu.tpu, ...
    for name, module in list(sys.modules.items()):
        if name.startswith(contrib.__name__ + ".tpu."):
            out["tensorflow" + name[len(contrib.__name__) - len(".contrib"):]] = module
    out["tensorflow.contrib.cloud"] = contrib.cloud
    out.update(_sequence_paths())
    from tinyflow.api.contrib import tensor_forest
    out["tensorflow.contrib.tensor_forest"] = tensor_forest
    out["tensorflow.contrib.tensor_forest.python"] = tensor_forest.python
    out["tensorflow.contrib.tensor_forest.python.tensor_forest"] = tensor_forest
    out["tensorflow.contrib.tensor_forest.client"] = tensor_forest.client
    out["tensorflow.contrib.tensor_forest.client.random_forest"] = tensor_forest
    return out


def _sequence_paths():
    """tf.contrib.legacy_seq2seq, seq2seq, crf and rnn, with the `python.ops.<file>` paths scripts
    import them by (`from tensorflow.contrib.seq2seq.python.ops import attention_wrapper`): each file
    names the whole namespace."""
    from tinyflow.api import contrib
    from tinyflow.api.contrib import crf as contrib_crf
    from tinyflow.api.contrib import factorization
    from tinyflow.api.contrib import legacy_seq2seq
    families = {"factorization": (factorization, ["clustering_ops", "kmeans"]),
                "legacy_seq2seq": (legacy_seq2seq, ["seq2seq"]), "crf": (contrib_crf, ["crf"]),
                "seq2seq": (contrib.seq2seq, ["attention_wrapper", "basic_decoder", "beam_search_decoder",
                                              "beam_search_ops", "decoder", "helper", "loss"]),
                "rnn": (contrib.rnn, ["rnn_cell", "core_rnn_cell", "rnn"])}
    out = {}
    for name, (module, files) in families.items():
        base = "tensorflow.contrib." + name
        out[base] = module
        out[base + ".python"] = _namespace(base + ".python", {})
        out[base + ".python.ops"] = _namespace(base + ".python.ops", {f: module for f in files})
        out.update({base + ".python.ops." + f: module for f in files})
    return out


def install():
    """Registers the paths (and their compat.v1 twins) in sys.modules, and each on its parent."""
    for name, module in modules().items():
        for full in (name, name.replace("tensorflow.", "tensorflow.compat.v1.", 1)):
            sys.modules.setdefault(full, module)
            parent = sys.modules.get(full.rpartition(".")[0])
            if parent is not None and not hasattr(parent, full.rpartition(".")[2]):
                try:
                    setattr(parent, full.rpartition(".")[2], module)
                except AttributeError:
                    pass
