"""tf.train: optimizers, global step, learning-rate schedules, moving averages, Saver."""
from .optimizer import GradientDescentOptimizer, Optimizer
from .optimizers import (AdadeltaOptimizer, AdagradOptimizer, AdamOptimizer, FtrlOptimizer, MomentumOptimizer,
                         ProximalAdagradOptimizer, ProximalGradientDescentOptimizer, RMSPropOptimizer)
from .step import assert_global_step, create_global_step, get_global_step, get_or_create_global_step, global_step
from .schedules import (cosine_decay, cosine_decay_restarts, exponential_decay, inverse_time_decay,
                        linear_cosine_decay, natural_exp_decay, piecewise_constant, polynomial_decay)
from .moving_averages import ExponentialMovingAverage
from .saver import Saver, export_meta_graph, import_meta_graph
from .checkpoint import (CheckpointReader, CheckpointState, checkpoint_exists, get_checkpoint_state,
                         latest_checkpoint, update_checkpoint_state)
from .tf_checkpoint import (NewCheckpointReader, init_from_checkpoint, list_variables, load_checkpoint,  # noqa
                            load_variable)
from .hooks import (CheckpointSaverHook, LoggingTensorHook, NanLossDuringTrainingError, NanTensorHook,
                    SecondOrStepTimer, SessionRunArgs, SessionRunContext, SessionRunHook, SessionRunValues,
                    StopAtStepHook)
from .monitored_session import (ChiefSessionCreator, MonitoredSession, MonitoredTrainingSession, Scaffold,
                                SingularMonitoredSession)
from ..tf_files.graph_util import write_graph  # noqa: E402,F401 (GraphDef protobuf; "*.json": tinyflow's JSON)


def __getattr__(name):
    """tf.train.SaverDef (Saver(write_version=tf.train.SaverDef.V2)): TF's message, loaded on first use."""
    if name == "SaverDef":
        from ..tf_files.protos import saver_pb2
        return saver_pb2().SaverDef
    raise AttributeError("module 'tinyflow.train' has no attribute %r" % name)
