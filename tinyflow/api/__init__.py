"""The `tf.` namespace: TF 1.15's names, each taken from the module that defines it.

The graph API every TF1 script uses (dtypes, Graph, the ops, Session, tf.gradients) is loaded with
`import tinyflow`; everything else (tf.train, tf.layers, tf.estimator, tf.contrib, tf.data, eager
execution, TF's files, ...) is loaded on first use (PEP 562): `LAZY_MODULES` and `LAZY_NAMES` say
where each name lives, and `tinyflow/__init__.py` asks `lazy(name)` for what it does not hold yet.
"""
import importlib
import types as _types

import jax as _jax

_jax.config.update("jax_enable_x64", True)  # TF's dtypes: float64 and int64 must stay themselves


def _with_host_platform(platforms):
    """JAX's platform list with the CPU in it: TF always has /cpu:0, and host callbacks (tf.py_func,
    summaries) run there; jax.io_callback fails without a CPU device, as under JAX_PLATFORMS=cuda."""
    names = [p for p in (platforms or "").split(",") if p]
    return ",".join(names + ["cpu"]) if names and "cpu" not in names else platforms


_jax.config.update("jax_platforms", _with_host_platform(_jax.config.jax_platforms))

from tinyflow.api import importer as _importer  # noqa: E402 (the tree's import hook: api/tree.py)
from tinyflow.graph import core as _core, errors  # noqa: E402
from tinyflow.graph.dtypes import (DType, as_dtype, bfloat16, bool_ as bool, double, float16, float32,  # noqa: E402
                                   float64, half, int8, int16, int32, int64, string, uint8, uint16, uint32, uint64,
                                   complex64, complex128, qint8, quint8, qint16, quint16, qint32, resource, variant,
                                   QUANTIZED_DTYPES)
from tinyflow.graph.core import (Graph, GraphKeys, Operation, Tensor, add_to_collection,  # noqa: E402
                                 add_to_collections, control_dependencies, get_collection, get_collection_ref,
                                 get_default_graph, name_scope, reset_default_graph)
from tinyflow.graph.shapes import Dimension, TensorShape  # noqa: E402
from tinyflow.ops.core.base import constant, convert_to_tensor, register_tensor_conversion_function  # noqa: E402
from tinyflow.ops.core.math_ops import *  # noqa: E402,F403
from tinyflow.ops.core.array_ops import *  # noqa: E402,F403
from tinyflow.ops.core.indexing_ops import *  # noqa: E402,F403
from tinyflow.ops.core.sequence_ops import *  # noqa: E402,F403
from tinyflow.ops.matrix_ops import *  # noqa: E402,F403
from tinyflow.ops.state_ops import *  # noqa: E402,F403
from tinyflow.ops.random_ops import *  # noqa: E402,F403
from tinyflow.ops.clip_ops import *  # noqa: E402,F403
from tinyflow.ops.control_flow_ops import *  # noqa: E402,F403
from tinyflow.ops.segment_ops import *  # noqa: E402,F403 (segment_sum, bincount, confusion_matrix, ...)
from tinyflow.ops.dynamic_ops import *  # noqa: E402,F403 (dynamic_partition, dynamic_stitch, unique_with_counts)
from tinyflow.ops.variable_scope import *  # noqa: E402,F403
from tinyflow.ops.init_ops import *  # noqa: E402,F403
from tinyflow.ops.linalg_ops import *  # noqa: E402,F403
from tinyflow.ops.linalg_decomp import *  # noqa: E402,F403 (cholesky, svd, self_adjoint_eig, matrix_solve, ...)
from tinyflow.ops.functional_ops import *  # noqa: E402,F403
from tinyflow.ops.logging_ops import *  # noqa: E402,F403 (tf.Assert, tf.Print, tf.print, tf.check_numerics)
from tinyflow.ops.check_ops import *  # noqa: E402,F403 (tf.assert_equal, ...)
from tinyflow.ops.complex_ops import *  # noqa: E402,F403 (tf.complex, real, imag, conj, angle, fft, ...)
from tinyflow.ops.special_ops import *  # noqa: E402,F403 (tf.igamma, betainc, zeta, ...; more at tf.math)
from tinyflow.ops.sparse_segment_ops import *  # noqa: E402,F403 (tf.sparse_segment_sum, ...)
from tinyflow.ops.random_more_ops import *  # noqa: E402,F403 (tf.random_gamma, tf.random_poisson)
from tinyflow.ops.array_more_ops import *  # noqa: E402,F403 (tensor_scatter_*, space_to_batch_nd, repeat, ...)
from tinyflow.api.framework import *  # noqa: E402,F403 (DeviceSpec, TypeSpecs, tf.Module, v2 switches, ...)
from tinyflow.ops.fake_quant_ops import (fake_quant_with_min_max_args, fake_quant_with_min_max_args_gradient,  # noqa: E402,F401
                                         fake_quant_with_min_max_vars, fake_quant_with_min_max_vars_gradient,
                                         fake_quant_with_min_max_vars_per_channel,
                                         fake_quant_with_min_max_vars_per_channel_gradient)
from tinyflow.ops.pooling_ops import depth_to_space, space_to_depth  # noqa: E402 (also at tf.nn)
from tinyflow.ops.core.sequence_ops import reverse_sequence  # noqa: E402
from tinyflow.ops import overloads as _overloads  # noqa: E402,F401 (Tensor's operators)
from tinyflow.ops import recompute_ops as _recompute_ops  # noqa: E402,F401 (the Recompute op that checkpointed gradients make)
from tinyflow.passes.gradients import AggregationMethod, UnconnectedGradients, hessians  # noqa: E402
from tinyflow.api.tensor_util import gradients  # noqa: E402 (IndexedSlices where TF gives them)
from tinyflow.runtime.config import (ConfigProto, GPUOptions, GraphOptions, OptimizerOptions, RunMetadata,  # noqa: E402
                                     RunOptions)
from tinyflow.runtime.session import InteractiveSession, Session, get_default_session  # noqa: E402
from tinyflow.api.tinyflow_api import *  # noqa: E402,F403 (TinyFlow's API: infer_variable_shapes, normal, pad)
from tinyflow.api.aliases import *  # noqa: E402,F403 (tf.arg_max, tf.device, ... TF1's other names)
from tinyflow.ops.misc_ops import *  # noqa: E402,F403 (bitcast, ensure_shape, histogram_fixed_width, ...)
from tinyflow.ops.linalg_more_ops import sqrtm as matrix_square_root  # noqa: E402,F401
from tinyflow.ops.quantize_ops import dequantize, quantize, quantize_v2, quantized_concat  # noqa: E402,F401
from tinyflow.api.composite_ops import *  # noqa: E402,F403 (batch_gather, partitioners, py_function, ...)
from tinyflow.api.sparse_ops import *  # noqa: E402,F403 (sparse_placeholder, sparse_concat, ...)
from tinyflow.api.sparse_more import *  # noqa: E402,F403 (sparse_add, sparse_slice, serialize_sparse, ...)

del random, initializers  # noqa: F821 (tf.random is the module api/random.py, loaded on first use)
del map_fn  # noqa: F821 (tf.map_fn is api/functional.py's, which runs string maps on the host; loaded on first use)



def _as_graph_def(graph, from_version=None, add_shapes=False):
    """Graph.as_graph_def: TF's GraphDef protobuf, made by api/tf_files (loaded on first use)."""
    return importlib.import_module("tinyflow.api.tf_files.export_graph").as_graph_def(graph, from_version, add_shapes)


_core.register_graph_codec("as_graph_def", _as_graph_def)

# The TF API level tinyflow implements (scripts compare tf.__version__ with "1.x"); tinyflow's own
# release is TINYFLOW_VERSION.
VERSION = __version__ = "1.15.5"
TINYFLOW_VERSION = "0.1.0"
GIT_VERSION = __git_version__ = "tinyflow-" + TINYFLOW_VERSION   # (TF's is the git tag of its build)
COMPILER_VERSION = __compiler_version__ = "XLA through JAX"
GRAPH_DEF_VERSION, GRAPH_DEF_VERSION_MIN_CONSUMER, GRAPH_DEF_VERSION_MIN_PRODUCER = 134, 0, 0   # TF 1.15's
MONOLITHIC_BUILD = 0
version = _types.SimpleNamespace(VERSION=VERSION, GIT_VERSION=GIT_VERSION, COMPILER_VERSION=COMPILER_VERSION,
                                 GRAPH_DEF_VERSION=134, GRAPH_DEF_VERSION_MIN_CONSUMER=0,
                                 GRAPH_DEF_VERSION_MIN_PRODUCER=0)

# tf.<name> -> the module that is that namespace, imported on first use
LAZY_MODULES = {
    "nn": "tinyflow.api.nn", "train": "tinyflow.api.train", "layers": "tinyflow.api.layers",
    "losses": "tinyflow.api.losses", "linalg": "tinyflow.api.linalg", "math": "tinyflow.api.math",
    "signal": "tinyflow.api.signal", "spectral": "tinyflow.api.spectral", "random": "tinyflow.api.random",
    "image": "tinyflow.api.image", "debugging": "tinyflow.api.debugging", "contrib": "tinyflow.api.contrib",
    "data": "tinyflow.api.data", "distribute": "tinyflow.api.distribute", "app": "tinyflow.api.app",
    "flags": "tinyflow.api.flags", "gfile": "tinyflow.api.gfile", "io": "tinyflow.api.io",
    "logging": "tinyflow.api.logging",
    "metrics": "tinyflow.api.metrics", "summary": "tinyflow.api.summary", "sparse": "tinyflow.api.sparse",
    "strings": "tinyflow.api.strings", "compat": "tinyflow.api.compat", "feature_column": "tinyflow.api.feature_column",
    "estimator": "tinyflow.api.estimator", "dtypes": "tinyflow.api.dtypes", "graph_util": "tinyflow.api.graph_util",
    "test": "tinyflow.api.test", "tpu": "tinyflow.api.tpu", "nest": "tinyflow.api.nest",
    "bitwise": "tinyflow.ops.bitwise_ops", "saved_model": "tinyflow.api.saved_model", "keras": "tinyflow.api.keras",
    "lookup": "tinyflow.api.lookup", "config": "tinyflow.api.config", "lite": "tinyflow.api.lite",
    "profiler": "tinyflow.api.profiler", "distributions": "tinyflow.api.distributions",
    "ragged": "tinyflow.api.ragged", "manip": "tinyflow.api.manip", "sysconfig": "tinyflow.api.sysconfig",
    "resource_loader": "tinyflow.api.resource_loader", "user_ops": "tinyflow.api.user_ops", "xla": "tinyflow.api.xla",
    "experimental": "tinyflow.api.experimental", "queue": "tinyflow.api.queue",
    "initializers": "tinyflow.api.initializers",
    "pywrap_tensorflow": "tinyflow.api.pywrap_tensorflow", "sets": "tinyflow.api.sets", "audio": "tinyflow.api.audio",
    "quantization": "tinyflow.api.quantization", "raw_ops": "tinyflow.api.raw_ops"}

# tf.<name> -> (module, attribute), imported on first use
LAZY_NAMES = {
    # the mode switch loads the eager executor (runtime/eager/), which graph programs never need
    "executing_eagerly": ("tinyflow.runtime.eager.context", "executing_eagerly"),
    "disable_eager_execution": ("tinyflow.runtime.eager.context", "disable_eager_execution"),
    "python_io": ("tinyflow.api.io", "python_io"),
    "print_graph": ("tinyflow.passes.visualize", "print_graph"),
    "to_dot": ("tinyflow.passes.visualize", "to_dot"),
    "make_template": ("tinyflow.api.template", "make_template"),
    "map_fn": ("tinyflow.api.functional", "map_fn"),
    "vectorized_map": ("tinyflow.api.functional", "map_fn"),   # (fn over the slices of elems: map_fn's values)
    "sparse_placeholder": ("tinyflow.api.sparse", "placeholder"),
    "numpy_function": ("tinyflow.ops.script_ops", "numpy_function"),
    "py_func": ("tinyflow.ops.script_ops", "py_func"),
    "import_graph_def": ("tinyflow.api.tf_files.graph_util", "import_graph_def"),
    "recompute_grad": ("tinyflow.ops.recompute_ops", "recompute_grad"),
    "random_crop": ("tinyflow.api.image_adjust", "random_crop"),
    "start_queue_runners": ("tinyflow.api.train.queue_runner", "start_queue_runners"),
    "GradientTape": ("tinyflow.api.eager", "GradientTape"),
    "RaggedTensor": ("tinyflow.api.ragged", "RaggedTensor"),
    "function": ("tinyflow.api.function", "function"), "autograph": ("tinyflow.api.function", "autograph"),
    "custom_gradient": ("tinyflow.api.gradient_registry", "custom_gradient"),
    "RegisterGradient": ("tinyflow.api.gradient_registry", "RegisterGradient"),
    "NotDifferentiable": ("tinyflow.api.gradient_registry", "NotDifferentiable"),
    "NoGradient": ("tinyflow.api.gradient_registry", "NoGradient"),
    "no_gradient": ("tinyflow.api.gradient_registry", "NoGradient"),
    "make_tensor_proto": ("tinyflow.api.tensor_util", "make_tensor_proto"),
    "make_ndarray": ("tinyflow.api.tensor_util", "make_ndarray"),
    "IndexedSlices": ("tinyflow.api.tensor_util", "IndexedSlices"),
    "IndexedSlicesValue": ("tinyflow.api.tensor_util", "IndexedSlicesValue"),
    "enable_eager_execution": ("tinyflow.api.eager", "enable_eager_execution"),
    "disable_v2_behavior": ("tinyflow.api.compat", "disable_v2_behavior"),
}
for _name in ("FIFOQueue", "PaddingFIFOQueue", "QueueBase", "RandomShuffleQueue"):
    LAZY_NAMES[_name] = ("tinyflow.ops.queue_ops", _name)
for _name in ("FixedLengthRecordReader", "IdentityReader", "ReaderBase", "TextLineReader", "TFRecordReader",
              "WholeFileReader", "matching_files", "read_file", "write_file"):
    LAZY_NAMES[_name] = ("tinyflow.ops.reader_ops", _name)
for _name in ("SparseTensor", "SparseTensorValue", "sparse_tensor_to_dense", "edit_distance"):
    LAZY_NAMES[_name] = ("tinyflow.ops.sparse", _name)
for _name in ("fingerprint", "string_to_hash_bucket", "string_to_hash_bucket_strong"):
    LAZY_NAMES[_name] = ("tinyflow.ops.string_more_ops", _name)
LAZY_NAMES["string_strip"] = ("tinyflow.ops.string_ops", "strip")
LAZY_NAMES["string_split"] = ("tinyflow.api.strings_unicode", "string_split")
LAZY_NAMES["searchsorted"] = ("tinyflow.ops.search_ops", "searchsorted")
LAZY_NAMES["decode_compressed"] = ("tinyflow.ops.compression_ops", "decode_compressed")
LAZY_NAMES["PriorityQueue"] = ("tinyflow.api.queue", "PriorityQueue")
for _name in ("ConditionalAccumulator", "ConditionalAccumulatorBase", "SparseConditionalAccumulator"):
    LAZY_NAMES[_name] = ("tinyflow.api.accumulators", _name)
LAZY_NAMES["wrap_function"] = ("tinyflow.api.tf_files.wrap_function", "wrap_function")
for _name in ("parse_single_sequence_example", "decode_json_example"):
    LAZY_NAMES[_name] = ("tinyflow.api.io", _name)
for _name in ("as_string", "decode_base64", "encode_base64", "reduce_join", "regex_replace", "string_join",
              "string_to_number", "substr", "string_to_hash_bucket_fast"):
    LAZY_NAMES[_name] = ("tinyflow.ops.string_ops", _name)
for _name in ("FixedLenFeature", "FixedLenSequenceFeature", "VarLenFeature", "decode_csv", "decode_raw",
              "parse_example", "parse_single_example"):
    LAZY_NAMES[_name] = ("tinyflow.ops.parsing_ops", _name)
# tf.GraphDef, tf.NodeDef, tf.Summary, ...: TF's protobuf messages (built on first use)
for _name in ("GraphDef", "NodeDef", "MetaGraphDef", "AttrValue", "TensorProto", "TensorShapeProto", "Event",
              "SaverDef", "Summary", "SummaryMetadata", "SessionLog", "LogMessage", "HistogramProto", "NameAttrList",
              "TensorInfo"):
    LAZY_NAMES[_name] = ("tinyflow.formats.tf_protos", _name)
del _name


def lazy(name):
    """The value of `tf.<name>` that `import tinyflow` did not load; AttributeError when there is none
    (saying so when TF 1.15 has the name: api/importer.py)."""
    if name in LAZY_MODULES:
        value = importlib.import_module(LAZY_MODULES[name])
    elif name in LAZY_NAMES:
        module, attr = LAZY_NAMES[name]
        value = getattr(importlib.import_module(module), attr)
    else:
        raise _importer.missing(_importer.ROOT_PATHS, name)
    return _importer.child(_importer.ROOT_PATHS, name, value)   # a declared namespace: with its missing names


__getattr__ = lazy   # tinyflow.api.<name> too: the frontend's own modules read the namespace here


# What `from tinyflow.api import *` gives the package root: the tf. names above, not this module's
# machinery nor the submodules the imports above attached to this package.
__all__ = sorted(n for n, v in list(globals().items())
                 if not n.startswith("_") and n not in ("importlib", "LAZY_MODULES", "LAZY_NAMES", "lazy")
                 and not (type(v) is type(importlib) and v.__name__.startswith("tinyflow.api.")))
