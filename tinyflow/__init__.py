"""tinyflow: TensorFlow-1 graph programs on XLA through JAX. `import tinyflow as tf`.

This file only re-exports: the `tf.` namespace. The layers are graph/ (IR), ops/ (op families),
passes/ (prune, state, gradients, memory), lower/ (JAX) and client/ (Session). Each op-family
module lists what it exports in its `__all__`.
"""
import gc as _gc

# Importing builds many long-lived objects (JAX's and the op registry): the cyclic collector would
# scan them again and again meanwhile (~50 ms of a start) and at every later full collection.
# Paused for the import; what the import made is then frozen (gc.freeze: never scanned again).
_gc_enabled = _gc.isenabled()
_gc.disable()

try:
    import jax as _jax  # noqa: E402

    _jax.config.update("jax_enable_x64", True)  # TF's dtypes: float64 and int64 must stay themselves

    from . import errors  # noqa: E402
    from .graph.dtypes import (DType, as_dtype, bfloat16, bool_ as bool, double, float16, float32, float64,  # noqa
                               half, int8, int16, int32, int64, string, uint8, uint16, uint32, uint64)
    from .graph.core import (Graph, GraphKeys, Operation, Tensor, add_to_collection, add_to_collections,  # noqa
                             control_dependencies, get_collection, get_collection_ref, get_default_graph, name_scope,
                             reset_default_graph)
    from .graph.shapes import Dimension, TensorShape  # noqa
    from .ops.base import constant, convert_to_tensor, register_tensor_conversion_function  # noqa
    from .ops.math_ops import *  # noqa
    from .ops.array_ops import *  # noqa
    from .ops.indexing_ops import *  # noqa
    from .ops.sequence_ops import *  # noqa
    from .ops.matrix_ops import *  # noqa
    from .ops.state_ops import *  # noqa
    from .ops.random_ops import *  # noqa
    from .ops.clip_ops import *  # noqa
    from .ops.control_flow_ops import *  # noqa
    from .ops.segment_ops import *  # noqa: E402,F401,F403 (segment_sum, bincount, confusion_matrix, ...)
    from .ops.dynamic_ops import *  # noqa: E402,F401,F403 (dynamic_partition, dynamic_stitch, unique_with_counts)
    from .ops.pooling_ops import depth_to_space, space_to_depth  # noqa: E402,F401 (also at tf.nn)
    from .ops import overloads as _overloads  # noqa: F401 (installs Tensor operators)
    from .passes.gradients import AggregationMethod, UnconnectedGradients, gradients, hessians  # noqa
    from .client.session import ConfigProto, InteractiveSession, Session, get_default_session  # noqa
    from . import nn, train  # noqa
    from . import compat  # noqa: E402 (tf.compat.v1 is tinyflow)
    from .ops.variable_scope import *  # noqa
    from .ops.init_ops import *  # noqa
    from . import layers, losses  # noqa
    from .ops.linalg_ops import *  # noqa
    from . import linalg, math  # noqa: E402,F401 (tf.math, tf.linalg namespaces)
    from . import image  # noqa: E402,F401 (tf.image)
    from .ops.functional_ops import *  # noqa
    from .ops.logging_ops import *  # noqa: E402,F401,F403 (tf.Assert, tf.Print, tf.print, tf.check_numerics)
    from .ops.check_ops import *  # noqa: E402,F401,F403 (tf.assert_equal, ...)
    from . import debugging  # noqa: E402,F401
    from .ops.sequence_ops import reverse_sequence  # noqa: E402,F401
    from .tinyflow_api import *  # noqa: E402,F401,F403 (TinyFlow's API: infer_variable_shapes, normal, pad)
    from .visualize import print_graph, to_dot  # noqa: E402,F401
    from .graph import serialize as _serialize  # noqa: E402,F401 (Graph.to_json / Graph.from_json)
    from . import contrib  # noqa: E402,F401 (tf.contrib.rnn, tf.contrib.layers: the parts tutorials use)
    from . import data  # noqa: E402,F401 (tf.data: Dataset and Iterator, run on the host)
    from . import distribute  # noqa: E402,F401 (tf.distribute.DataParallel: many devices and processes)
    from . import app, gfile, io, logging, metrics, summary  # noqa: E402,F401 (tf.app, tf.gfile, tf.logging, ...)
    from .app import flags  # noqa: E402,F401
    from . import sparse, strings  # noqa: E402,F401 (tf.strings, tf.sparse: string ops run on the host)
    from .ops.queue_ops import FIFOQueue, PaddingFIFOQueue, QueueBase, RandomShuffleQueue  # noqa: E402,F401
    from .ops.reader_ops import (FixedLengthRecordReader, ReaderBase, TextLineReader, TFRecordReader,  # noqa: E402,F401
                                 WholeFileReader)
    from .train.queue_runner import start_queue_runners  # noqa: E402,F401
    from .ops.reader_ops import matching_files  # noqa: E402,F401
    from .io import python_io  # noqa: E402,F401 (TFRecord files)
    from .ops.sparse import SparseTensor, SparseTensorValue, sparse_tensor_to_dense  # noqa: E402,F401
    from .ops.string_ops import (as_string, decode_base64, encode_base64, reduce_join, regex_replace,  # noqa: E402,F401
                                 string_join, string_split, string_to_number, substr)
    from .ops.parsing_ops import (FixedLenFeature, VarLenFeature, decode_csv, decode_raw, parse_example,  # noqa: E402,F401
                                  parse_single_example)
    from .template import make_template  # noqa: E402,F401
    from .ops.script_ops import numpy_function, py_func  # noqa: E402,F401
    from . import graph_util  # noqa: E402,F401 (tf.graph_util; also installs Graph.as_graph_def)
    from .tf_files.graph_util import import_graph_def  # noqa: E402,F401


    def __getattr__(name):
        """tf.GraphDef, tf.NodeDef, tf.MetaGraphDef, tf.Event, ...: TF's protobuf messages, built on first use
        (tinyflow.formats.tf_protos)."""
        if name in ("GraphDef", "NodeDef", "MetaGraphDef", "AttrValue", "TensorProto", "TensorShapeProto", "Event",
                    "SaverDef", "SessionLog", "LogMessage", "HistogramProto", "NameAttrList",
                    "VariableDef", "OpDef", "Summary", "SummaryMetadata", "TensorInfo"):
            from .formats import tf_protos
            return getattr(tf_protos, name)
        raise AttributeError("module 'tinyflow' has no attribute %r" % name)
    from .eager import (GradientTape, custom_gradient, disable_eager_execution, enable_eager_execution,  # noqa: E402,F401
                        executing_eagerly)
    from .eager import tfe as _tfe  # noqa: E402
    _tfe.install(contrib)  # tf.contrib.eager
    from . import feature_column, estimator  # noqa: E402,F401 (tf.feature_column, tf.estimator)
    from .aliases import *  # noqa: E402,F401,F403 (tf.arg_max, tf.device, ... TF1's other names)
    from . import dtypes  # noqa: E402,F401 (tf.dtypes)
    from .ops.recompute_ops import recompute_grad  # noqa: E402,F401 (and the Recompute op of checkpointed gradients)

    # The TF API level tinyflow implements (scripts compare tf.__version__ with "1.x"); tinyflow's own
    # release is TINYFLOW_VERSION.
    VERSION = __version__ = "1.15.5"
    TINYFLOW_VERSION = "0.1.0"
finally:   # (also when the import fails: the collector is the process's)
    if _gc_enabled:
        _gc.enable()
_gc.freeze()
