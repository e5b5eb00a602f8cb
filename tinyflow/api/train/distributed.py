"""TF1's distributed API (tf.train.ClusterSpec, Server, replica_device_setter, SyncReplicasOptimizer) on
JAX's distributed runtime.

A between-graph replication script (one process per task of a ClusterSpec: a "ps" job and a
"worker" job) runs unchanged as synchronous data-parallel training over tinyflow's processes:
- `tf.train.Server(cluster, "worker", i)` joins the job of the worker tasks (a "chief" job first,
  then "master", then "worker", each in task order: process 0 is the chief), with process 0's own
  cluster address as JAX's coordinator address (tf.distribute.initialize), and makes every Session
  data-parallel over all their devices. Each worker feeds its own rows; the global batch is the
  workers' rows in process order.
- the variables live on the workers (replicated), so a "ps" task has nothing to serve:
  `server.join()` there logs that and returns at once (TF's never returns; scripts end after it).
- replica_device_setter gives TF's device strings (tinyflow places the whole step itself).
- SyncReplicasOptimizer is its optimizer: the data-parallel step averages the workers' gradients,
  which is what TF's synchronous job computes when each worker sends one gradient per step.
- without SyncReplicasOptimizer TF's workers update asynchronously (each step of each worker
  increments global_step); here they update together, once per step: a different, deterministic run.
What cannot map is an error: a worker that join()s (in-graph replication, a client driving it), a
Server for a task the cluster does not have, replicas_to_aggregate other than the number of workers.
"""
import os

from tinyflow.api import logging as tf_logging  # noqa: F401
from tinyflow.api.distribute.server_lib import _WORKER_JOBS, ClusterSpec, Server, _worker_order  # noqa: F401
from tinyflow.graph import errors

_PS_OPS = ("Variable", "VariableV2", "AutoReloadVariable", "MutableHashTable", "MutableHashTableV2",
           "MutableHashTableOfTensors", "MutableHashTableOfTensorsV2", "MutableDenseHashTable",
           "MutableDenseHashTableV2", "VarHandleOp", "BoostedTreesEnsembleResourceHandleOp")


class _DeviceChooser:
    """TF's replica device chooser: ps ops round-robin over the ps tasks, the rest on the worker."""

    def __init__(self, ps_tasks, ps_device, worker_device, merge_devices, ps_ops, ps_strategy):
        self._ps_tasks, self._ps_device, self._worker_device = ps_tasks, ps_device, worker_device
        self._merge, self._ps_ops = merge_devices, ps_ops
        self._strategy = ps_strategy or self._round_robin
        self._next = 0

    def _round_robin(self, op):
        task = self._next
        self._next = (self._next + 1) % self._ps_tasks
        return task

    def device_function(self, op):
        current = _parse_device(getattr(op, "device", "") or "")
        if not self._merge and current:
            return op.device
        op_type = getattr(op, "type", None) or getattr(op, "op", None)
        if self._ps_device and op_type in self._ps_ops:
            spec = _parse_device(self._ps_device)
            if spec.get("job") and (not current.get("job") or current["job"] == spec["job"]):
                spec["task"] = str(self._strategy(op))
            return _device_string(dict(spec, **current))
        return _device_string(dict(_parse_device(self._worker_device or ""), **current))


def _parse_device(text):
    spec = {}
    for part in text.split("/"):
        if ":" in part:
            key, value = part.split(":", 1)
            key = key.lower()
            if key in ("job", "replica", "task"):
                spec[key] = value
            elif key == "device":
                spec["device"] = value.upper() if ":" not in value else value.split(":")[0].upper() + ":" + \
                    value.split(":")[1]
            elif key in ("cpu", "gpu"):
                spec["device"] = "%s:%s" % (key.upper(), value)
    return spec


def _device_string(spec):
    return "".join("/%s:%s" % (k, spec[k]) for k in ("job", "replica", "task", "device") if k in spec)


def replica_device_setter(ps_tasks=0, ps_device="/job:ps", worker_device="/job:worker", merge_devices=True,
                          cluster=None, ps_ops=None, ps_strategy=None):
    """TF's device function for between-graph replication: variables on the ps tasks in turn, other
    ops on `worker_device`; None when there is no ps task. tinyflow accepts it in tf.device (and
    places the whole step itself); calling it on an op gives TF's device string."""
    if cluster is not None:
        cluster_spec = cluster if isinstance(cluster, ClusterSpec) else ClusterSpec(cluster)
        ps_job = _parse_device(ps_device).get("job", "ps") if ps_device else "ps"
        ps_tasks = len(cluster_spec.as_dict().get(ps_job, ()))
    if ps_tasks == 0:
        return None
    if ps_ops is None:
        ps_ops = list(_PS_OPS)
    if not merge_devices:
        tf_logging.warning("DEPRECATION NOTE: replica_device_setter(merge_devices=False) is deprecated.")
    return _DeviceChooser(ps_tasks, ps_device, worker_device, merge_devices, ps_ops, ps_strategy).device_function


class SyncReplicasOptimizer:
    """TF's synchronous replicas: on tinyflow the data-parallel step already averages the workers'
    gradients (one update and one global_step increment per step), so this is its optimizer; the
    hook, the chief queue runner and the token op do nothing. replicas_to_aggregate must be the
    number of workers (backup workers, whose gradients TF drops, do not map)."""

    def __init__(self, opt, replicas_to_aggregate, total_num_replicas=None, variable_averages=None,
                 variables_to_average=None, use_locking=False, name="sync_replicas"):
        if total_num_replicas is None:
            total_num_replicas = replicas_to_aggregate
        tf_logging.info("SyncReplicasV2: replicas_to_aggregate=%s; total_num_replicas=%s",
                        replicas_to_aggregate, total_num_replicas)
        self._opt, self._replicas, self._total = opt, replicas_to_aggregate, total_num_replicas
        self._variable_averages, self._variables_to_average = variable_averages, variables_to_average
        self._name = name

    def _check_replicas(self):
        import jax
        workers = jax.process_count()
        if self._replicas != workers or self._total != workers:
            raise errors.UnimplementedError(
                None, None, "tinyflow: SyncReplicasOptimizer(replicas_to_aggregate=%d, total_num_replicas=%d) in a "
                "job of %d worker process(es): tinyflow's synchronous step averages the gradients of every worker, "
                "so both must be the number of workers" % (self._replicas, self._total, workers))

    def compute_gradients(self, *args, **kwargs):
        return self._opt.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        self._check_replicas()
        train_op = self._opt.apply_gradients(grads_and_vars, global_step=global_step, name=name)
        if self._variable_averages is not None:
            from tinyflow.graph.core import control_dependencies
            with control_dependencies([train_op]):
                train_op = self._variable_averages.apply(self._variables_to_average)
        return train_op

    def minimize(self, loss, global_step=None, var_list=None, gate_gradients=1, aggregation_method=None,
                 colocate_gradients_with_ops=False, name=None, grad_loss=None):
        grads = self.compute_gradients(loss, var_list=var_list, gate_gradients=gate_gradients,
                                       aggregation_method=aggregation_method,
                                       colocate_gradients_with_ops=colocate_gradients_with_ops, grad_loss=grad_loss)
        return self.apply_gradients(grads, global_step=global_step, name=name)

    def get_slot(self, *args, **kwargs):
        return self._opt.get_slot(*args, **kwargs)

    def get_slot_names(self, *args, **kwargs):
        return self._opt.get_slot_names(*args, **kwargs)

    def variables(self):
        return self._opt.variables()

    def get_chief_queue_runner(self):
        return None

    def get_init_tokens_op(self, num_tokens=-1):
        from tinyflow.ops.core.array_ops import no_op
        return no_op(name="sync_token_init")

    def make_session_run_hook(self, is_chief, num_tokens=-1):
        from tinyflow.api.train.hooks import SessionRunHook
        return SessionRunHook()


def tf_config_task():
    """(cluster, job, task) of $TF_CONFIG, or None."""
    import json
    config = json.loads(os.environ.get("TF_CONFIG", "") or "{}")
    if not config.get("cluster"):
        return None
    task = config.get("task", {})
    return ClusterSpec(config["cluster"]), task.get("type"), int(task.get("index", 0))
