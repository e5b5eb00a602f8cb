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

from tinyflow.api import logging as tf_logging
from tinyflow.graph import errors

_WORKER_JOBS = ("chief", "master", "worker")
_PS_OPS = ("Variable", "VariableV2", "AutoReloadVariable", "MutableHashTable", "MutableHashTableV2",
           "MutableHashTableOfTensors", "MutableHashTableOfTensorsV2", "MutableDenseHashTable",
           "MutableDenseHashTableV2", "VarHandleOp", "BoostedTreesEnsembleResourceHandleOp")


class ClusterSpec:
    """A cluster as a set of jobs, each a set of tasks (host:port), as TF's tf.train.ClusterSpec."""

    def __init__(self, cluster):
        if isinstance(cluster, ClusterSpec):
            cluster = cluster.as_dict()
        if not isinstance(cluster, dict):
            raise TypeError("`cluster` must be a dictionary mapping one or more job names to lists of network "
                            "addresses, or a `ClusterDef` protocol buffer")
        self._spec = {}
        for job, tasks in cluster.items():
            if isinstance(tasks, (list, tuple)):
                self._spec[job] = dict(enumerate(tasks))
            elif isinstance(tasks, dict):
                self._spec[job] = {int(i): t for i, t in tasks.items()}
            else:
                raise TypeError("The tasks for job %r must be a list or a dictionary from integers to strings." % job)

    def __bool__(self):
        return bool(self._spec)

    def __eq__(self, other):
        return isinstance(other, ClusterSpec) and self._spec == other._spec

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(repr(sorted(self._spec.items())))

    def __str__(self):
        return "ClusterSpec(%r)" % (self.as_dict(),)

    @property
    def jobs(self):
        return list(self._spec)

    def as_dict(self):
        """{job: [addresses]} when a job's task indices are 0..n-1, else {job: {index: address}}."""
        out = {}
        for job, tasks in self._spec.items():
            dense = sorted(tasks) == list(range(len(tasks)))
            out[job] = [tasks[i] for i in range(len(tasks))] if dense else dict(tasks)
        return out

    def _job(self, job_name):
        if job_name not in self._spec:
            raise ValueError("No such job in cluster: %r" % (job_name,))
        return self._spec[job_name]

    def num_tasks(self, job_name):
        return len(self._job(job_name))

    def task_indices(self, job_name):
        return sorted(self._job(job_name))

    def task_address(self, job_name, task_index):
        tasks = self._job(job_name)
        if task_index not in tasks:
            raise ValueError("No task with index %r in job %r" % (task_index, job_name))
        return tasks[task_index]

    def job_tasks(self, job_name):
        """The addresses of a job's tasks by index (None where an index has no task)."""
        tasks = self._job(job_name)
        return [tasks.get(i) for i in range(max(tasks) + 1)] if tasks else []


def _worker_order(cluster):
    """[(job, task)] of the tasks that train, in process order (the chief first)."""
    return [(job, i) for job in _WORKER_JOBS if job in cluster.jobs for i in cluster.task_indices(job)]


class Server:
    """A task of a cluster (TF's tf.train.Server). A training task (chief, master, worker) joins the
    data-parallel job of all training tasks (see the module docstring); others have nothing to run."""

    def __init__(self, server_or_cluster_def, job_name=None, task_index=None, protocol=None, config=None,
                 start=True):
        cluster = ClusterSpec(server_or_cluster_def)
        if job_name is None:
            if len(cluster.jobs) != 1:
                raise ValueError("Must specify an explicit `job_name`.")
            job_name = cluster.jobs[0]
        if task_index is None:
            if cluster.num_tasks(job_name) != 1:
                raise ValueError("Must specify an explicit `task_index`.")
            task_index = cluster.task_indices(job_name)[0]
        self._address = cluster.task_address(job_name, task_index)
        self._cluster, self._job, self._task = cluster, job_name, int(task_index)
        self._protocol, self._config = protocol or "grpc", config
        self._started = False
        if start:
            self.start()

    @staticmethod
    def create_local_server(config=None, start=True):
        """A one-task server on this machine (TF's: job "local", an unused port)."""
        import socket
        with socket.socket() as s:
            s.bind(("localhost", 0))
            port = s.getsockname()[1]
        return Server({"localhost": ["localhost:%d" % port]}, protocol="grpc", config=config, start=start)

    target = property(lambda self: "%s://localhost:%s" % (self._protocol, self._address.rsplit(":", 1)[-1]),
                      doc="The target a tf.Session(target) of this server names (tinyflow runs it in process).")

    def start(self):
        """Joins the data-parallel job when this task trains and the cluster has several training tasks."""
        if self._started:
            return
        self._started = True
        order = _worker_order(self._cluster)
        if (self._job, self._task) not in order or len(order) < 2:
            return
        from tinyflow.api import distribute
        first = self._cluster.task_address(*order[0])
        distribute.initialize(first, len(order), order.index((self._job, self._task)))
        distribute.set_default(distribute.DataParallel())

    def join(self):
        """A ps task: returns at once (the workers hold the variables). A training task: an error (it
        would wait for a client to run ops on it, in-graph replication, which tinyflow does not run)."""
        if self._job in _WORKER_JOBS:
            raise errors.UnimplementedError(
                None, None, "tinyflow: Server.join() on task /job:%s/task:%d waits for a client to place ops on it "
                "(in-graph replication), which tinyflow does not run: run the training script in every worker "
                "(between-graph replication) or use tf.distribute" % (self._job, self._task))
        tf_logging.info("tinyflow: /job:%s/task:%d has nothing to serve (the workers hold the variables, "
                        "data-parallel); Server.join() returns", self._job, self._task)


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
