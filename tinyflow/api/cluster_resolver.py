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
