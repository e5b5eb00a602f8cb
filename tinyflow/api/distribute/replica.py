"""tf.distribute's replica-side API (TF 1.15): ReplicaContext and get_replica_context, InputContext and
InputReplicationMode, experimental_set_strategy and get_loss_reduction. In tinyflow the graph is one
replica that the Session spreads over the strategy's devices (strategy.py), so a replica context is
that one replica: id 0 of num_replicas_in_sync, whose values are already the global ones."""
import enum

from tinyflow.api.distribute import strategy as _strategy
from tinyflow.api.distribute.strategy import _LOCAL, ReplicaContext  # noqa: F401 (tf.distribute.ReplicaContext)
from tinyflow.graph.core import get_default_graph

def get_replica_context():
    """The current ReplicaContext: inside strategy.run(fn), or the default one outside every strategy
    scope; None in a strategy's cross-replica context (its scope, outside run)."""
    current = getattr(_LOCAL, "replica", None)
    if current is not None:
        return current
    if _strategy.in_cross_replica_context():
        return None
    return ReplicaContext(_strategy.get_strategy(), 0)


class InputReplicationMode(enum.Enum):
    """How input_fn's pipelines map to replicas: one per worker."""
    PER_WORKER = "PER_WORKER"


class InputContext:
    """What an input function of a distributed job is told: how many pipelines, which one, how many
    replicas they feed."""

    def __init__(self, num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1):
        self._num_input_pipelines, self._input_pipeline_id = num_input_pipelines, input_pipeline_id
        self._num_replicas_in_sync = num_replicas_in_sync

    num_input_pipelines = property(lambda self: self._num_input_pipelines)
    input_pipeline_id = property(lambda self: self._input_pipeline_id)
    num_replicas_in_sync = property(lambda self: self._num_replicas_in_sync)

    def get_per_replica_batch_size(self, global_batch_size):
        if global_batch_size % self._num_replicas_in_sync != 0:
            raise ValueError("The `global_batch_size` %r is not divisible by `num_replicas_in_sync` %r "
                             % (global_batch_size, self._num_replicas_in_sync))
        return global_batch_size // self._num_replicas_in_sync

    def __str__(self):
        return "tf.distribute.InputContext(input pipeline id {}, total: {})".format(self._input_pipeline_id,
                                                                                   self._num_input_pipelines)


_GLOBAL_SCOPE = []


def experimental_set_strategy(strategy):
    """Enters strategy.scope() for the rest of the program (None: leaves the one entered before)."""
    while _GLOBAL_SCOPE:
        _GLOBAL_SCOPE.pop().__exit__(None, None, None)
    if strategy is not None:
        scope = strategy.scope()
        scope.__enter__()
        _GLOBAL_SCOPE.append(scope)


def get_loss_reduction():
    """ReduceOp.SUM when the graph's last tf.losses reduction was SUM, else ReduceOp.MEAN (TF 1.15)."""
    last = getattr(get_default_graph(), "_last_loss_reduction", None)
    return _strategy.ReduceOp.SUM if last == "weighted_sum" else _strategy.ReduceOp.MEAN
