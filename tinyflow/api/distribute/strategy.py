"""tf.distribute's strategies (and tf.contrib.distribute's) on tinyflow's data-parallel Sessions.

A strategy names the devices to train on; tinyflow runs the unchanged graph over them with XLA's SPMD
partitioner (tf.distribute.DataParallel): the batch of every fed [None, ...] tensor is split,
variables are replicated, XLA all-reduces the gradients. So:
- `MirroredStrategy(devices)`: the devices of this process (default: all of them);
  `MultiWorkerMirroredStrategy`: every device of every worker of $TF_CONFIG's cluster (it joins
  the job as tf.train.Server does); OneDeviceStrategy and CentralStorageStrategy: as Mirrored over
  their devices.
- `with strategy.scope():` Sessions created inside are data-parallel over those devices (an
  Estimator with RunConfig(train_distribute=strategy) trains inside it). The graph is built once,
  as one replica: `experimental_run_v2(fn)` calls fn once, and a value it returns is already the
  global one (`reduce` returns it; `experimental_local_results` gives it as the one result).
- cross-device ops (AllReduceCrossDeviceOps, NcclAllReduce, ...) and CollectiveCommunication are
  accepted: XLA chooses the all-reduce.
- TPU strategies are an error naming the TPU (no TPU here).
"""
import contextlib
import enum
import json
import os
import threading

import jax

from tinyflow.graph import errors
from tinyflow.runtime import placement

_STACK = []   # the strategies whose scope() is open


class ReduceOp(enum.Enum):
    SUM = "SUM"
    MEAN = "MEAN"


class CollectiveCommunication(enum.Enum):
    """How MultiWorkerMirroredStrategy all-reduces (accepted: XLA chooses)."""
    AUTO = "AUTO"
    RING = "RING"
    NCCL = "NCCL"


class CrossDeviceOps:
    """How a strategy reduces across devices (accepted and kept: XLA inserts the all-reduce)."""

    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs


class ReductionToOneDevice(CrossDeviceOps):
    pass


class NcclAllReduce(CrossDeviceOps):
    pass


class HierarchicalCopyAllReduce(CrossDeviceOps):
    pass


class AllReduceCrossDeviceOps(CrossDeviceOps):
    """tf.contrib.distribute.AllReduceCrossDeviceOps(all_reduce_alg="nccl", num_packs=1, ...)."""


class Strategy:
    """A set of devices to train on (see the module docstring)."""

    def __init__(self, devices=None, cross_device_ops=None):
        self._devices = list(devices) if devices is not None else None
        self._cross_device_ops = cross_device_ops

    def _jax_devices(self):
        return jax.local_devices() if self._devices is None else [_device(d) for d in self._devices]

    @property
    def num_replicas_in_sync(self):
        return len(self._jax_devices())

    @property
    def extended(self):
        return self

    @property
    def worker_devices(self):
        return tuple("/replica:0/task:0/device:%s:%d" % (d.platform.upper(), d.id)
                     for d in self._jax_devices())

    parameter_devices = worker_devices

    def _data_parallel(self):
        from tinyflow.api.distribute import DataParallel
        return DataParallel(devices=self._jax_devices())

    @contextlib.contextmanager
    def scope(self):
        """Sessions created inside are data-parallel over this strategy's devices."""
        saved = placement.DEFAULT
        placement.DEFAULT = self._data_parallel()
        _STACK.append(self)
        try:
            yield self
        finally:
            _STACK.pop()
            placement.DEFAULT = saved

    def experimental_run_v2(self, fn, args=(), kwargs=None):
        """Calls fn once, in the one replica's ReplicaContext: the graph is one replica, the Session spreads
        it over the devices."""
        with ReplicaContext(self, 0):
            return fn(*args, **(kwargs or {}))

    run = experimental_run_v2

    def call_for_each_replica(self, fn, args=(), kwargs=None):
        return self.experimental_run_v2(fn, args, kwargs)

    def reduce(self, reduce_op, value, axis=None):
        """A value of the one replica graph is already global; with `axis`, reduced along it."""
        if axis is None:
            return value
        from tinyflow.ops.core import math_ops
        op = reduce_op.value if isinstance(reduce_op, ReduceOp) else str(reduce_op).upper()
        return (math_ops.reduce_sum if op == "SUM" else math_ops.reduce_mean)(value, axis=axis)

    def experimental_local_results(self, value):
        return (value,)

    unwrap = experimental_local_results

    def experimental_distribute_dataset(self, dataset):
        return dataset

    def make_dataset_iterator(self, dataset):
        return dataset.make_initializable_iterator()

    def make_input_fn_iterator(self, input_fn, replication_mode=None):
        return input_fn(None).make_initializable_iterator()

    def update_config_proto(self, config_proto):
        return config_proto

    def configure(self, session_config=None, cluster_spec=None, task_type=None, task_id=None):
        pass

    def group(self, value, name=None):
        from tinyflow.ops.state_ops import group
        return group(*value, name=name) if isinstance(value, (list, tuple)) else value

    def colocate_vars_with(self, colocate_with_variable):
        return contextlib.nullcontext()

    def __deepcopy__(self, memo):
        return self


def _device(name):
    """A jax device of this process named as TF names one ("/gpu:1", "/device:CPU:0", "GPU:0")."""
    if not isinstance(name, str):
        return name
    text = name.lower().split("device:")[-1].strip("/")
    kind, _, index = text.rpartition(":") if ":" in text else (text, "", "0")
    kind = kind.split("/")[-1]
    platform = {"gpu": "gpu", "cpu": "cpu", "xla_cpu": "cpu", "xla_gpu": "gpu"}.get(kind)
    matches = [d for d in jax.local_devices() if d.platform == platform] if platform else []
    if platform == "gpu" and not matches:
        matches = [d for d in jax.local_devices() if d.platform in ("cuda", "rocm")]
    i = int(index or 0)
    if i >= len(matches):
        raise errors.InvalidArgumentError(None, None, "tinyflow: no device %r on this machine (it has %s)"
                                          % (name, ", ".join(str(d) for d in jax.local_devices())))
    return matches[i]


class MirroredStrategy(Strategy):
    """Synchronous training over the devices of this process (default: all of them)."""


class OneDeviceStrategy(Strategy):
    def __init__(self, device):
        super().__init__([device])


class CentralStorageStrategy(Strategy):
    def __init__(self, compute_devices=None, parameter_device=None):
        super().__init__(compute_devices)


class MultiWorkerMirroredStrategy(Strategy):
    """Synchronous training over every device of every worker of $TF_CONFIG's cluster: this process
    joins the job (chief first, then the workers) as tf.train.Server does; alone without TF_CONFIG."""

    def __init__(self, communication=CollectiveCommunication.AUTO, cluster_resolver=None):
        super().__init__()
        self.communication = communication
        if cluster_resolver is not None:
            cluster, job, task = cluster_resolver.cluster_spec(), cluster_resolver.task_type, cluster_resolver.task_id
        else:
            config = json.loads(os.environ.get("TF_CONFIG", "") or "{}")
            cluster, job, task = config.get("cluster") or {}, config.get("task", {}).get("type"), \
                config.get("task", {}).get("index", 0)
        cluster = cluster.as_dict() if hasattr(cluster, "as_dict") else dict(cluster)
        order = [(j, i) for j in ("chief", "worker") for i in range(len(cluster.get(j, ())))]
        from jax._src import distributed as jax_distributed   # (asking jax.process_count() would start JAX alone)
        if len(order) > 1 and (job, int(task or 0)) in order and jax_distributed.global_state.client is None:
            from tinyflow.api import distribute
            distribute.initialize(cluster[order[0][0]][order[0][1]], len(order), order.index((job, int(task or 0))))

    @property
    def num_replicas_in_sync(self):
        return len(jax.devices())

    def _data_parallel(self):
        from tinyflow.api.distribute import DataParallel
        return DataParallel()   # every device of every process


class CollectiveAllReduceStrategy(MultiWorkerMirroredStrategy):
    """tf.contrib.distribute.CollectiveAllReduceStrategy(num_gpus_per_worker): MultiWorkerMirroredStrategy."""

    def __init__(self, num_gpus_per_worker=0, communication=CollectiveCommunication.AUTO):
        super().__init__(communication)


class ContribMirroredStrategy(MirroredStrategy):
    """tf.contrib.distribute.MirroredStrategy(num_gpus=..., devices=...): the first num_gpus GPUs."""

    def __init__(self, devices=None, num_gpus=None, num_gpus_per_worker=None, cross_device_ops=None,
                 auto_shard_dataset=False, cross_tower_ops=None):
        n = num_gpus if num_gpus is not None else num_gpus_per_worker
        if devices is None and n:
            devices = ["/gpu:%d" % i for i in range(n)]
        super().__init__(devices, cross_device_ops or cross_tower_ops)


def _no_tpu(what):
    raise errors.NotFoundError(None, None, "tinyflow: %s needs a TPU, and tinyflow runs on this machine's CPUs and "
                               "GPUs (none is a TPU): use tf.distribute.MirroredStrategy, or TPUEstimator with "
                               "use_tpu=False" % what)


class TPUStrategy(Strategy):
    """No TPU here: an error naming it (never a silent run elsewhere)."""

    def __init__(self, tpu_cluster_resolver=None, steps_per_run=None, device_assignment=None):
        _no_tpu("tf.distribute.experimental.TPUStrategy")


def initialize_tpu_system(cluster_resolver=None):
    """No TPU here: an error naming it."""
    _no_tpu("tf.tpu.experimental.initialize_tpu_system")


initialize_tpu_system.__wrapped__ = _no_tpu


def get_strategy():
    """The strategy whose scope is open, else the default (this process's default device)."""
    return _STACK[-1] if _STACK else _DEFAULT


def has_strategy():
    return bool(_STACK)


def in_cross_replica_context():
    return bool(_STACK)


class _DefaultStrategy(Strategy):
    """What tf.distribute.get_strategy() gives outside every scope: Sessions as they are."""

    @contextlib.contextmanager
    def scope(self):
        yield self

    @property
    def num_replicas_in_sync(self):
        return 1


_DEFAULT = _DefaultStrategy()


_LOCAL = threading.local()   # .replica: the ReplicaContext of the fn that strategy.run is calling


class ReplicaContext:
    """The context of the replica a function runs in (strategy.run(fn), or outside every strategy)."""

    def __init__(self, strategy, replica_id_in_sync_group):
        self._strategy, self._replica_id = strategy, replica_id_in_sync_group

    strategy = property(lambda self: self._strategy)
    replica_id_in_sync_group = property(lambda self: self._replica_id)
    num_replicas_in_sync = property(lambda self: self._strategy.num_replicas_in_sync)
    devices = property(lambda self: self._strategy.worker_devices[:1])

    def merge_call(self, merge_fn, args=(), kwargs=None):
        """merge_fn(strategy, *args, **kwargs) in the cross-replica context."""
        saved, _LOCAL.replica = getattr(_LOCAL, "replica", None), None
        try:
            return merge_fn(self._strategy, *args, **(kwargs or {}))
        finally:
            _LOCAL.replica = saved

    def all_reduce(self, reduce_op, value):
        """The value over all replicas: the one-replica graph's values are already global."""
        return value

    def __enter__(self):
        self._saved, _LOCAL.replica = getattr(_LOCAL, "replica", None), self
        return self

    def __exit__(self, *args):
        _LOCAL.replica = self._saved
