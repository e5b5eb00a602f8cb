"""tf.train: optimizers, global step, learning-rate schedules, moving averages, Saver."""
from .optimizer import GradientDescentOptimizer, Optimizer
from .optimizers import (AdadeltaOptimizer, AdagradOptimizer, AdamOptimizer, FtrlOptimizer, MomentumOptimizer,
                         ProximalAdagradOptimizer, ProximalGradientDescentOptimizer, RMSPropOptimizer)
from .step import assert_global_step, create_global_step, get_global_step, get_or_create_global_step, global_step
from .schedules import (cosine_decay, cosine_decay_restarts, exponential_decay, inverse_time_decay,
                        linear_cosine_decay, natural_exp_decay, piecewise_constant, polynomial_decay)
from .moving_averages import ExponentialMovingAverage
from .saver import Saver, export_meta_graph, import_meta_graph
from .checkpoint import (CheckpointReader, CheckpointState, NewCheckpointReader, checkpoint_exists,
                         get_checkpoint_state, latest_checkpoint, list_variables, load_variable,
                         update_checkpoint_state)
from .hooks import (CheckpointSaverHook, LoggingTensorHook, NanLossDuringTrainingError, NanTensorHook,
                    SecondOrStepTimer, SessionRunArgs, SessionRunContext, SessionRunHook, SessionRunValues,
                    StopAtStepHook)
from .monitored_session import (ChiefSessionCreator, MonitoredSession, MonitoredTrainingSession, Scaffold,
                                SingularMonitoredSession)
from ..graph.serialize import write_graph  # noqa: E402,F401 (the graph as JSON; helper G)
from ..io_ops.example_pb import (BytesList, Example, Feature, FeatureList, FeatureLists, Features,  # noqa: E402,F401
                                FloatList, Int64List, SequenceExample)
from .coordinator import Coordinator, LooperThread  # noqa: E402,F401
from .queue_runner import QueueRunner, add_queue_runner, start_queue_runners  # noqa: E402,F401
from .input import (batch, batch_join, input_producer, limit_epochs, range_input_producer,  # noqa: E402,F401
                    shuffle_batch, shuffle_batch_join, slice_input_producer, string_input_producer)
import types as _types  # noqa: E402
queue_runner = _types.SimpleNamespace(QueueRunner=QueueRunner, add_queue_runner=add_queue_runner,
                                      start_queue_runners=start_queue_runners)
from ..ops.reader_ops import match_filenames_once  # noqa: E402,F401
