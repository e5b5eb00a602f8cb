"""Cluster resolvers (tf.contrib.cluster_resolver, tf.distribute.cluster_resolver): where a job's tasks run.

tinyflow runs on this machine's CPUs and GPUs, and a job of several processes through JAX's
distributed runtime (`python -m tinyflow --coordinator ...`). A TPU resolver is therefore an error
naming the TPU asked for; the TF_CONFIG resolver reads TF_CONFIG as TF does.
"""
import json
import os

from tinyflow.graph import errors


class ClusterResolver:
    """The interface: cluster_spec() and master()."""

    def cluster_spec(self):
        raise NotImplementedError

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        return ""

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        return {}


class SimpleClusterResolver(ClusterResolver):
    """A resolver over a given cluster spec (a dict {job: [addresses]})."""

    def __init__(self, cluster_spec, master="", task_type=None, task_id=None, environment="", num_accelerators=None,
                 rpc_layer=None):
        self._spec, self._master = cluster_spec, master
        self.task_type, self.task_id, self.environment = task_type, task_id, environment

    def cluster_spec(self):
        return self._spec

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        return self._master


class TFConfigClusterResolver(ClusterResolver):
    """The cluster, task type and task id of the TF_CONFIG environment variable (JSON)."""

    def __init__(self, task_type=None, task_id=None, rpc_layer=None, environment=None):
        config = json.loads(os.environ.get("TF_CONFIG", "{}") or "{}")
        task = config.get("task", {})
        self.task_type = task_type if task_type is not None else task.get("type")
        self.task_id = task_id if task_id is not None else task.get("index")
        self.rpc_layer = rpc_layer if rpc_layer is not None else config.get("rpc_layer")
        self.environment = environment if environment is not None else config.get("environment", "")
        self._cluster = config.get("cluster", {})

    def cluster_spec(self):
        return dict(self._cluster)

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        task_type = task_type if task_type is not None else self.task_type
        task_id = task_id if task_id is not None else self.task_id
        if task_type is None or task_id is None or task_type not in self._cluster:
            return ""
        address = self._cluster[task_type][task_id]
        layer = rpc_layer or self.rpc_layer
        return "%s://%s" % (layer, address) if layer else address


class TPUClusterResolver(ClusterResolver):
    """TF's resolver of a Cloud TPU. tinyflow has no TPU to reach: constructing one is an error."""

    def __init__(self, tpu=None, zone=None, project=None, job_name="worker", coordinator_name=None,
                 coordinator_address=None, credentials="default", service=None, discovery_url=None):
        raise errors.UnavailableError(
            None, None, "tinyflow runs on this machine's CPUs and GPUs and cannot reach the TPU %r; run the model "
                        "with use_tpu=False (TPUEstimator) instead" % (tpu or "from the environment"))


def _cluster_spec(spec):
    from tinyflow.api.distribute.server_lib import ClusterSpec
    return ClusterSpec(spec)


def _master_url(address, rpc_layer):
    return "%s://%s" % (rpc_layer, address) if rpc_layer else address


class _TaskResolver(ClusterResolver):
    """A resolver that knows its own task (task_type, task_id, rpc_layer): master() is that task's address
    in the cluster spec, or another task's when asked (TF's Slurm, GCE and Kubernetes resolvers)."""

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        task_type = task_type if task_type is not None else self.task_type
        task_id = task_id if task_id is not None else self.task_id
        if task_type is None or task_id is None:
            return ""
        return _master_url(self.cluster_spec().task_address(task_type, task_id), rpc_layer or self.rpc_layer)


class SlurmClusterResolver(_TaskResolver):
    """The cluster of a Slurm job, as TF 1.15's: this task's rank and the task count from SLURM_PROCID and
    SLURM_NTASKS (OMPI_COMM_WORLD_RANK / _SIZE under mpirun), the nodes from `scontrol show hostname`,
    `tasks_per_node` tasks per node on ports port_base, port_base+1, ...; jobs take the tasks in the order
    of their sorted names. Resolving sets CUDA_VISIBLE_DEVICES to this task's GPUs (auto_set_gpu)."""

    def __init__(self, jobs, port_base=8888, gpus_per_node=1, gpus_per_task=1, tasks_per_node=None,
                 auto_set_gpu=True, rpc_layer="grpc"):
        if "OMPI_COMM_WORLD_RANK" in os.environ:
            self._rank, num_tasks = int(os.environ["OMPI_COMM_WORLD_RANK"]), int(os.environ["OMPI_COMM_WORLD_SIZE"])
        else:
            self._rank, num_tasks = int(os.environ["SLURM_PROCID"]), int(os.environ["SLURM_NTASKS"])
        self._jobs = dict(sorted(jobs.items()))
        self._port_base = port_base
        if tasks_per_node is not None:
            self._tasks_per_node = tasks_per_node
        elif "SLURM_NTASKS_PER_NODE" in os.environ:
            self._tasks_per_node = int(os.environ["SLURM_NTASKS_PER_NODE"])
        else:
            raise RuntimeError("Neither `tasks_per_node` or SLURM_NTASKS_PER_NODE is set.")
        self._gpus_per_node, self._gpus_per_task, self._auto_set_gpu = gpus_per_node, gpus_per_task, auto_set_gpu
        self.task_type = self.task_id = None
        self.rpc_layer = rpc_layer
        self._gpu_allocation = []
        if self._tasks_per_node * self._gpus_per_task > self._gpus_per_node:
            raise RuntimeError("Requested more GPUs per node then available.")
        if sum(self._jobs.values()) != num_tasks:
            raise RuntimeError("Requested more tasks then assigned tasks.")

    def _resolve_hostnames(self):
        import subprocess
        return subprocess.check_output(["scontrol", "show", "hostname"]).decode("utf-8").strip().split("\n")

    def cluster_spec(self):
        tasks, self._gpu_allocation, cluster, start = [], [], {}, 0
        for host in self._resolve_hostnames():
            for port_offset, gpu in zip(range(self._tasks_per_node),
                                        range(0, self._gpus_per_node, self._gpus_per_task)):
                tasks.append("%s:%d" % (host, self._port_base + port_offset))
                self._gpu_allocation.append(",".join(str(g) for g in range(gpu, gpu + self._gpus_per_task)))
        for task_type, count in self._jobs.items():
            cluster[task_type] = tasks[start:start + count]
            if start <= self._rank < start + count:
                self.task_type, self.task_id = task_type, self._rank - start
            start += count
        if self._auto_set_gpu is True:
            os.environ["CUDA_VISIBLE_DEVICES"] = self._gpu_allocation[self._rank]
        return _cluster_spec(cluster)

    def get_task_info(self):
        return self.task_type, self.task_id

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        return {"GPU": self._gpus_per_node}


class UnionResolver(ClusterResolver):
    """The union of several resolvers' clusters (TF's UnionClusterResolver): a job's task lists are
    concatenated in the resolvers' order, its {index: address} dicts merged (a KeyError on a clash); the
    rest (task, environment, accelerators) is the first resolver's unless given."""

    def __init__(self, *args, **kwargs):
        self._rpc_layer = kwargs.pop("rpc_layer", None)
        self._task_type = kwargs.pop("task_type", None)
        self._task_id = kwargs.pop("task_id", None)
        if kwargs:
            raise ValueError("Unexpected kwargs provided {!r}".format(kwargs))
        if not args:
            raise ValueError("At least one ClusterResolver is required.")
        if not all(isinstance(r, ClusterResolver) for r in args):
            raise TypeError("All arguments must be a sub-class of `ClusterResolver.`")
        self._cluster_resolvers = args

    def cluster_spec(self):
        specs = [_cluster_spec(r.cluster_spec()).as_dict() for r in self._cluster_resolvers]
        merged = {}
        for spec in specs:   # a job is a list only when every resolver gives it as a list
            for job, tasks in spec.items():
                merged[job] = {} if isinstance(tasks, dict) or (job in merged and merged[job] == {}) else []
        for spec in specs:
            for job, tasks in spec.items():
                if isinstance(merged[job], list):
                    merged[job].extend(tasks)
                    continue
                tasks = dict(enumerate(tasks)) if isinstance(tasks, list) else dict(tasks)
                clash = set(tasks) & set(merged[job])
                if clash:
                    raise KeyError("Duplicate keys detected when merging two ClusterSpecs: %r" % clash)
                merged[job].update(tasks)
        return _cluster_spec(merged)

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        if task_type is not None and task_id is not None:
            return _master_url(self.cluster_spec().task_address(task_type, task_id), rpc_layer or self._rpc_layer)
        return self._cluster_resolvers[0].master(rpc_layer=rpc_layer)

    task_type = property(lambda self: self._task_type or self._cluster_resolvers[0].task_type,
                         lambda self, value: setattr(self, "_task_type", value))
    task_id = property(lambda self: self._task_id or self._cluster_resolvers[0].task_id,
                       lambda self, value: setattr(self, "_task_id", value))
    rpc_layer = property(lambda self: self._rpc_layer or getattr(self._cluster_resolvers[0], "rpc_layer", None),
                         lambda self, value: setattr(self, "_rpc_layer", value))
    environment = property(lambda self: getattr(self._cluster_resolvers[0], "environment", ""))

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        return self._cluster_resolvers[0].num_accelerators(task_type, task_id, config_proto)


class GCEClusterResolver(_TaskResolver):
    """The RUNNING instances of a Compute Engine instance group, as one job (TF's). `service` is the
    googleapiclient compute service; without one it is built from googleapiclient, which must be
    installed (ImportError otherwise, as TF's)."""

    def __init__(self, project, zone, instance_group, port, task_type="worker", task_id=0, rpc_layer="grpc",
                 credentials="default", service=None):
        self._project, self._zone, self._instance_group, self._port = project, zone, instance_group, port
        self._task_type, self._task_id, self.rpc_layer = task_type, task_id, rpc_layer
        if service is None:
            try:
                from googleapiclient import discovery
                from oauth2client.client import GoogleCredentials
            except ImportError:
                raise ImportError("googleapiclient must be installed before using the GCE cluster resolver") from None
            if credentials == "default":
                credentials = GoogleCredentials.get_application_default()
            service = discovery.build("compute", "v1", credentials=credentials)
        self._service = service

    def cluster_spec(self):
        request = self._service.instanceGroups().listInstances(
            project=self._project, zone=self._zone, instanceGroups=self._instance_group,
            body={"instanceState": "RUNNING"}, orderBy="name")
        workers = []
        while request is not None:
            response = request.execute()
            for instance in response["items"]:
                details = self._service.instances().get(project=self._project, zone=self._zone,
                                                        instance=instance["instance"].split("/")[-1]).execute()
                workers.append("%s:%s" % (details["networkInterfaces"][0]["networkIP"], self._port))
            request = self._service.instanceGroups().listInstances_next(previous_request=request,
                                                                       previous_response=response)
        return _cluster_spec({self._task_type: sorted(workers)})

    @property
    def task_type(self):
        return self._task_type

    @task_type.setter
    def task_type(self, task_type):
        raise RuntimeError("You cannot reset the task_type of the GCEClusterResolver after it has been created.")

    task_id = property(lambda self: self._task_id, lambda self, value: setattr(self, "_task_id", value))


class KubernetesClusterResolver(_TaskResolver):
    """The Running pods of each job's label selectors (TF's): job_to_label_mapping {job: [selector]}
    (default {"worker": ["job-name=tensorflow"]}), each pod at host_ip:tf_server_port. `override_client` is
    a kubernetes CoreV1Api; without one the kubernetes package must be installed (ImportError otherwise)."""

    def __init__(self, job_to_label_mapping=None, tf_server_port=8470, rpc_layer="grpc", override_client=None):
        if override_client is None:
            try:
                from kubernetes import config as k8sconfig
            except ImportError:
                raise ImportError("The Kubernetes Python client must be installed beforeusing the Kubernetes Cluster "
                                  "Resolver. To install theKubernetes Python client, run `pip install kubernetes` on "
                                  "your command line.") from None
            k8sconfig.load_kube_config()
        self._job_to_label_mapping = job_to_label_mapping or {"worker": ["job-name=tensorflow"]}
        self._tf_server_port, self._override_client = tf_server_port, override_client
        self.task_type = self.task_id = None
        self.rpc_layer = rpc_layer

    def cluster_spec(self):
        if self._override_client is None:
            from kubernetes import client as k8sclient
        client = self._override_client or k8sclient.CoreV1Api()
        cluster = {}
        for job, selectors in self._job_to_label_mapping.items():
            cluster[job] = []
            for selector in selectors:
                for pod in sorted(client.list_pod_for_all_namespaces(label_selector=selector).items,
                                  key=lambda pod: pod.metadata.name):
                    if pod.status.phase != "Running":
                        raise RuntimeError('Pod "%s" is not running; phase: "%s"' % (pod.metadata.name,
                                                                                   pod.status.phase))
                    cluster[job].append("%s:%s" % (pod.status.host_ip, self._tf_server_port))
        return _cluster_spec(cluster)
