"""tf.distribute: data-parallel Sessions over all devices and many processes.

    sess = tf.Session(config=tf.distribute.DataParallel())   # every device of every process

tinyflow scales the unchanged graph with XLA's SPMD partitioner and JAX's multi-process runtime
(runtime/placement.py says what is split and what is replicated). Many processes:

    tf.distribute.initialize("host:1234", num_processes=2, process_id=0)   # or the environment's
    TINYFLOW_COORDINATOR, TINYFLOW_NUM_PROCESSES, TINYFLOW_PROCESS_ID

after which each process feeds its own rows of the batch. A process that dies or fails makes the
others' next step raise `tf.errors.UnavailableError` naming it within 2 seconds (liveness.py: JAX's
coordination service runs in a helper process, so process 0 may die too); no process waits more than
$TINYFLOW_DISTRIBUTED_TIMEOUT seconds (default 30) for a dead one. Restart the job: a
MonitoredTrainingSession with a checkpoint_dir resumes from the last checkpoint.
"""
import os

import jax

from tinyflow.api import cluster_resolver  # noqa: F401 (tf.distribute.cluster_resolver)
from tinyflow.api.distribute import liveness
from tinyflow.api.distribute.server_lib import Server  # noqa: F401 (tf.distribute.Server is tf.train.Server)
from tinyflow.runtime import placement as _placement

from tinyflow.api.distribute.strategy import (CentralStorageStrategy, CollectiveCommunication,  # noqa: F401
                                             CrossDeviceOps, HierarchicalCopyAllReduce, MirroredStrategy,
                                             MultiWorkerMirroredStrategy, NcclAllReduce, OneDeviceStrategy, ReduceOp,
                                             ReductionToOneDevice, Strategy, TPUStrategy, get_strategy, has_strategy,
                                             in_cross_replica_context)
from tinyflow.api.distribute import strategy as _strategy
from tinyflow.api.distribute.replica import (InputContext, InputReplicationMode, ReplicaContext,  # noqa: F401
                                            experimental_set_strategy, get_loss_reduction, get_replica_context)

StrategyExtended = Strategy   # (a strategy's `extended` is the strategy itself here)

__all__ = ["DataParallel", "initialize", "process_index", "process_count", "set_default", "MirroredStrategy",
           "OneDeviceStrategy", "Strategy", "ReduceOp", "get_strategy", "has_strategy", "experimental"]


class DataParallel:
    """A Session config: split the batch of every fed [None, ...] tensor over `devices` (default:
    all devices of all processes), replicate variables (or, shard_variables="auto", split big ones
    along their first dimension)."""

    def __init__(self, devices=None, shard_variables=None):
        if shard_variables not in (None, "auto"):
            raise ValueError("shard_variables must be None or 'auto', got %r" % (shard_variables,))
        self.devices = devices
        self.shard_variables = shard_variables

    def __repr__(self):
        return "DataParallel(devices=%s, shard_variables=%r)" % (
            "all" if self.devices is None else len(self.devices), self.shard_variables)


def initialize(coordinator_address=None, num_processes=None, process_id=None):
    """Joins a multi-process job (JAX's distributed runtime; CPU collectives through gloo). Arguments
    left out come from TINYFLOW_COORDINATOR, TINYFLOW_NUM_PROCESSES and TINYFLOW_PROCESS_ID."""
    coordinator_address = coordinator_address or os.environ.get("TINYFLOW_COORDINATOR")
    if num_processes is None and "TINYFLOW_NUM_PROCESSES" in os.environ:
        num_processes = int(os.environ["TINYFLOW_NUM_PROCESSES"])
    if process_id is None and "TINYFLOW_PROCESS_ID" in os.environ:
        process_id = int(os.environ["TINYFLOW_PROCESS_ID"])
    if coordinator_address is None or num_processes is None or process_id is None:
        raise ValueError("tf.distribute.initialize needs coordinator_address, num_processes and process_id "
                         "(or TINYFLOW_COORDINATOR, TINYFLOW_NUM_PROCESSES, TINYFLOW_PROCESS_ID)")
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    # A process that dies: the others' next step raises UnavailableError naming it (liveness.py).
    # "recoverable" keeps JAX from ending the others for it; the service runs in a helper process
    # that outlives process 0 (a JAX client that loses the service aborts its process); the
    # timeouts bound how long a process waits for a dead one (JAX's defaults: 100 s, 300 s).
    timeout = _env_secs("TINYFLOW_DISTRIBUTED_TIMEOUT", 30)
    num_processes, process_id = int(num_processes), int(process_id)
    jax.config.update("jax_enable_recoverability", True)
    hub_port = None
    if process_id == 0:
        helper, hub_port = liveness.start_service(coordinator_address, num_processes, timeout)
        from jax._src.lib import _jax   # JAX starts its service in process 0: the helper's stands in for it
        real, _jax.get_distributed_runtime_service = (_jax.get_distributed_runtime_service,
                                                      lambda *a, **k: liveness._RemoteService(helper))
    try:
        jax.distributed.initialize(coordinator_address, num_processes=num_processes, process_id=process_id,
                                   heartbeat_timeout_seconds=timeout, shutdown_timeout_seconds=timeout)
    finally:
        if process_id == 0:
            _jax.get_distributed_runtime_service = real
    from jax._src import distributed as _jax_distributed
    liveness.install(liveness.Peers(_jax_distributed.global_state.client, process_id, num_processes,
                                    coordinator_address.rsplit(":", 1)[0], hub_port, timeout))


def _env_secs(name, default):
    text = os.environ.get(name, "").strip()
    try:
        value = int(text) if text else default
    except ValueError:
        raise ValueError("tinyflow: $%s must be a whole number of seconds, got %r" % (name, text)) from None
    if value < 1:
        raise ValueError("tinyflow: $%s must be at least 1 second, got %d" % (name, value))
    return value


def process_index():
    """This process's index in the job (0 when alone)."""
    return jax.process_index()


def process_count():
    """The number of processes in the job (1 when alone)."""
    return jax.process_count()


def set_default(config):
    """Makes every Session created afterwards data-parallel with `config` (None: one device again)."""
    _placement.DEFAULT = config


# tf.distribute.experimental and tf.contrib.distribute (api/contrib.py names this one)
import types as _types  # noqa: E402
experimental = _types.SimpleNamespace(
    CollectiveCommunication=CollectiveCommunication, MultiWorkerMirroredStrategy=MultiWorkerMirroredStrategy,
    CentralStorageStrategy=CentralStorageStrategy, TPUStrategy=TPUStrategy)
contrib = _types.SimpleNamespace(
    MirroredStrategy=_strategy.ContribMirroredStrategy, OneDeviceStrategy=OneDeviceStrategy,
    CollectiveAllReduceStrategy=_strategy.CollectiveAllReduceStrategy,
    AllReduceCrossDeviceOps=_strategy.AllReduceCrossDeviceOps,
    CrossDeviceOps=CrossDeviceOps, ReductionToOneDevice=ReductionToOneDevice, TPUStrategy=TPUStrategy,
    initialize_tpu_system=_strategy.initialize_tpu_system, DistributionStrategy=Strategy,
    get_distribution_strategy=get_strategy, has_distribution_strategy=has_strategy)
