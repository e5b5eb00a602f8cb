"""tf.train: optimizers, global step, learning-rate schedules, moving averages, Saver."""
from tinyflow.api.train.optimizer import GradientDescentOptimizer, Optimizer
from tinyflow.api.train.optimizers import (AdadeltaOptimizer, AdagradDAOptimizer,  # noqa: F401
                                           AdagradOptimizer, AdamOptimizer, FtrlOptimizer,
                                           MomentumOptimizer, ProximalAdagradOptimizer,
                                           ProximalGradientDescentOptimizer, RMSPropOptimizer)
from tinyflow.api.train.step import (assert_global_step, create_global_step, get_global_step,
                                     get_or_create_global_step, global_step)
from tinyflow.api.train.schedules import (cosine_decay, cosine_decay_restarts, exponential_decay, inverse_time_decay,
                                          linear_cosine_decay, natural_exp_decay, noisy_linear_cosine_decay,
                                          piecewise_constant, polynomial_decay)
from tinyflow.api.train.schedules import piecewise_constant as piecewise_constant_decay  # noqa: F401 (TF's v1 alias)
from tinyflow.api.train.moving_averages import ExponentialMovingAverage
from tinyflow.api.train.saver import Saver, export_meta_graph, import_meta_graph
from tinyflow.formats.checkpoint import (CheckpointReader, CheckpointState, checkpoint_exists, get_checkpoint_state,
                                         latest_checkpoint, update_checkpoint_state)
from tinyflow.api.train.tf_checkpoint import (NewCheckpointReader, checkpoints_iterator, generate_checkpoint_state_proto, init_from_checkpoint, list_variables,  # noqa
                                              load_checkpoint, load_variable)
from tinyflow.api.train.hooks import (CheckpointSaverHook, LoggingTensorHook, NanLossDuringTrainingError,
                                      NanTensorHook, SecondOrStepTimer, SessionRunArgs, SessionRunContext,
                                      SessionRunHook, SessionRunValues, StepCounterHook, StopAtStepHook,
                                      SummarySaverHook)
from tinyflow.api.train.monitored_session import (ChiefSessionCreator, MonitoredSession, MonitoredTrainingSession,
                                                  Scaffold, SessionCreator, SingularMonitoredSession)
from tinyflow.api.train.session_manager import SessionManager, WorkerSessionCreator, basic_train_loop  # noqa: F401
from tinyflow.api.train.step_hooks import (CheckpointSaverListener, FeedFnHook, FinalOpsHook,  # noqa: F401
                                           GlobalStepWaiterHook)
from tinyflow.api.train.warm_starting import VocabInfo, warm_start  # noqa: F401
from tinyflow.api.train.checkpoint_management import (CheckpointManager, get_checkpoint_mtimes,  # noqa: F401
                                                      remove_checkpoint)
from tinyflow.api.train.coordinator import Coordinator, LooperThread  # noqa: E402,F401
from tinyflow.api.train.queue_runner import QueueRunner, add_queue_runner, start_queue_runners  # noqa: E402,F401
from tinyflow.api.train.input import (batch, batch_join, input_producer, limit_epochs, range_input_producer,  # noqa: E402,F401
                                      shuffle_batch, shuffle_batch_join, slice_input_producer, string_input_producer,
                                      maybe_batch, maybe_batch_join, maybe_shuffle_batch, maybe_shuffle_batch_join)
import types as _types  # noqa: E402
queue_runner = _types.SimpleNamespace(QueueRunner=QueueRunner, add_queue_runner=add_queue_runner,
                                      start_queue_runners=start_queue_runners)
from tinyflow.ops.reader_ops import match_filenames_once  # noqa: E402,F401
from tinyflow.api.tf_files.graph_util import (write_graph)  # noqa: E402,F401 (GraphDef protobuf; "*.json": tinyflow's JSON)
from tinyflow.formats.events import summary_iterator  # noqa: E402,F401 (the Events of an event file)


_EXAMPLE_MESSAGES = {"BytesList", "Example", "Feature", "FeatureList", "FeatureLists", "Features", "FloatList",
                     "Int64List", "SequenceExample"}


_DISTRIBUTED = {"ClusterSpec": "distributed", "Server": "distributed", "replica_device_setter": "distributed",
                "SyncReplicasOptimizer": "distributed", "Supervisor": "supervisor", "ProfilerHook": "profiler_hook",
                "Checkpoint": "checkpoint"}
_EXPERIMENTAL = ["LossScale", "FixedLossScale", "DynamicLossScale", "MixedPrecisionLossScaleOptimizer",
                 "enable_mixed_precision_graph_rewrite", "disable_mixed_precision_graph_rewrite"]


def __getattr__(name):
    """tf.train's distributed API (train/distributed.py, train/supervisor.py), tf.train.SaverDef
    (Saver(write_version=tf.train.SaverDef.V2)) and tf.train.Example's messages: TF's
    protobuf messages, loaded on first use."""
    if name == "SaverDef":
        from tinyflow.formats.protos import saver_pb2
        return saver_pb2().SaverDef
    if name in _DISTRIBUTED:
        import importlib
        return getattr(importlib.import_module("tinyflow.api.train." + _DISTRIBUTED[name]), name)
    if name == "experimental":   # tf.train.experimental: mixed precision's loss scaling (train/mixed_precision.py)
        from tinyflow.api.train import mixed_precision
        global experimental
        from tinyflow.api.train.checkpoint_management import PythonState
        experimental = _types.SimpleNamespace(PythonState=PythonState,
                                              **{n: getattr(mixed_precision, n) for n in _EXPERIMENTAL})
        return experimental
    if name in ("ClusterDef", "JobDef", "ServerDef"):   # TF's cluster.proto / tensorflow_server.proto
        from tinyflow.formats import tf_protos
        return getattr(tf_protos, name)
    if name in _EXAMPLE_MESSAGES:   # tf.train.Example and friends: protobuf, loaded on first use
        from tinyflow.formats import example_pb
        return getattr(example_pb, name)
    raise AttributeError("module 'tinyflow.train' has no attribute %r" % name)
