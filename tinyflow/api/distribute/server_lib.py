"""tf.train.ClusterSpec and tf.train.Server (= tf.distribute.Server), TF's server_lib: a cluster of jobs and
one task of it, on JAX's distributed runtime (train/distributed.py says how a between-graph replication
script maps onto it). A ClusterSpec also reads and writes TF's ClusterDef protobuf, a Server takes a
ServerDef as TF's does."""
from tinyflow.api import logging as tf_logging
from tinyflow.graph import errors

_WORKER_JOBS = ("chief", "master", "worker")

class ClusterSpec:
    """A cluster as a set of jobs, each a set of tasks (host:port), as TF's tf.train.ClusterSpec."""

    def __init__(self, cluster):
        if isinstance(cluster, ClusterSpec):
            cluster = cluster.as_dict()
        elif type(cluster).__name__ == "ClusterDef":   # TF's protobuf: {job: {index: address}}
            cluster = {job.name: dict(job.tasks) for job in cluster.job}
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

    def as_cluster_def(self):
        """The cluster as TF's ClusterDef protobuf (jobs sorted by name, as TF writes them)."""
        from tinyflow.formats.tf_protos import ClusterDef
        out = ClusterDef()
        for job in sorted(self._spec):
            out.job.add(name=job).tasks.update(self._spec[job])
        return out

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
        if type(server_or_cluster_def).__name__ == "ServerDef":   # TF's protobuf: the cluster, job and task in one
            server_def = server_or_cluster_def
            job_name = job_name if job_name is not None else server_def.job_name or None
            task_index = task_index if task_index is not None else server_def.task_index
            protocol = protocol or server_def.protocol or None
            server_or_cluster_def = server_def.cluster
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

    @property
    def server_def(self):
        """This task as TF's ServerDef protobuf."""
        from tinyflow.formats.tf_protos import ServerDef
        return ServerDef(cluster=self._cluster.as_cluster_def(), job_name=self._job, task_index=self._task,
                         protocol=self._protocol)

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
