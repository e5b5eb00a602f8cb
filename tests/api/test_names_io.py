"""TF 1.15's names of issue 37 item 3 against TF's recorded behaviour: tf.io's sequence and JSON examples,
tf.data.experimental's optionals, statistics and structures, AdagradDA, the cluster protobufs and resolvers,
and the tf. graph utilities (CriticalSection, IdentityReader, session handles, wrap_function, ...).
The families of tests/fixtures/names_io/cases.py run under tinyflow and are compared with what make.py
recorded under TF 1.15."""
import importlib.util
import os

import numpy as np
import pytest

import tinyflow as tf

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "names_io")
_spec = importlib.util.spec_from_file_location("names_io_cases", os.path.join(HERE, "cases.py"))
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)
F = np.load(os.path.join(HERE, "values.npz"), allow_pickle=True)


def _same(key, got, want):
    got = np.asarray(got)
    if want.dtype == object or want.dtype.kind in "SU":
        assert got.shape == want.shape, (key, got.shape, want.shape)
        np.testing.assert_array_equal(got.astype(object), want.astype(object), err_msg=key)
        return
    assert got.dtype == want.dtype, (key, got.dtype, want.dtype)
    assert got.shape == want.shape, (key, got.shape, want.shape)
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-7, err_msg=key)
    else:
        np.testing.assert_array_equal(got, want, err_msg=key)


@pytest.mark.parametrize("family", cases.FAMILIES, ids=lambda f: f.__name__[len("family_"):])
def test_family_against_tf115(family):
    name = family.__name__[len("family_"):]
    with tf.Graph().as_default():
        fetches = family(tf, np)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            runner = getattr(cases, family.__name__ + "_run", None)
            got = runner(tf, s, fetches) if runner else s.run(fetches)
    recorded = sorted(k[len(name) + 1:] for k in F.files if k.startswith(name + "/"))
    assert sorted(got) == recorded
    for k, v in got.items():
        _same(name + "/" + k, v, F[name + "/" + k])


def test_cluster_protobufs_and_resolvers(monkeypatch):
    """ClusterDef / ServerDef as TF's (field numbers from TF's descriptors, tools/gen_tf_protos.py); the
    Slurm resolver from Slurm's variables (TF 1.15's arithmetic), the union, GCE and Kubernetes with their
    clients given (TF's ImportError without them)."""
    cr = tf.distribute.cluster_resolver
    assert tf.distribute.Server is tf.train.Server
    spec = tf.train.ClusterSpec({"worker": ["a:1", "b:2"], "ps": ["c:3"]})
    cluster_def = spec.as_cluster_def()
    assert tf.train.ClusterDef.FromString(cluster_def.SerializeToString()) == cluster_def
    assert tf.train.ClusterSpec(cluster_def) == spec and cluster_def.job[0] == tf.train.JobDef(name="ps",
                                                                                              tasks={0: "c:3"})
    server = tf.train.Server(tf.train.ServerDef(cluster=cluster_def, job_name="ps", task_index=0, protocol="grpc"),
                             start=False)
    assert server.server_def.job_name == "ps" and server.target == "grpc://localhost:3"
    monkeypatch.setenv("SLURM_PROCID", "3")
    monkeypatch.setenv("SLURM_NTASKS", "4")
    monkeypatch.setenv("SLURM_NTASKS_PER_NODE", "2")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    slurm = cr.SlurmClusterResolver({"worker": 3, "ps": 1}, port_base=9000, gpus_per_node=2)
    monkeypatch.setattr(slurm, "_resolve_hostnames", lambda: ["n1", "n2"])
    assert slurm.cluster_spec().as_dict() == {"ps": ["n1:9000"], "worker": ["n1:9001", "n2:9000", "n2:9001"]}
    assert slurm.get_task_info() == ("worker", 2) and slurm.master() == "grpc://n2:9001"
    assert os.environ["CUDA_VISIBLE_DEVICES"] == "1" and slurm.num_accelerators() == {"GPU": 2}
    with pytest.raises(RuntimeError, match="more tasks"):
        cr.SlurmClusterResolver({"worker": 2}, gpus_per_node=2)
    union = cr.UnionResolver(cr.SimpleClusterResolver(tf.train.ClusterSpec({"worker": ["a:1"]})),
                             cr.SimpleClusterResolver(tf.train.ClusterSpec({"worker": ["b:1"], "ps": ["c:1"]})))
    assert union.cluster_spec().as_dict() == {"worker": ["a:1", "b:1"], "ps": ["c:1"]}
    assert union.master("ps", 0, "grpc") == "grpc://c:1"
    with pytest.raises(TypeError, match="sub-class"):
        cr.UnionResolver(object())

    class Call:
        def __init__(self, value):
            self.value = value

        def execute(self):
            return self.value

    class Compute:   # googleapiclient's compute service, two instances on one page
        def instanceGroups(self):
            return self

        def listInstances(self, **kw):
            return Call({"items": [{"instance": "x/i2"}, {"instance": "x/i1"}]})

        def listInstances_next(self, **kw):
            return None

        def instances(self):
            return self

        def get(self, instance, **kw):
            return Call({"networkInterfaces": [{"networkIP": "10.0.0." + instance[-1]}]})
    gce = cr.GCEClusterResolver("p", "z", "g", 8470, service=Compute())
    assert gce.cluster_spec().as_dict() == {"worker": ["10.0.0.1:8470", "10.0.0.2:8470"]}
    assert gce.master() == "grpc://10.0.0.1:8470"
    import types
    pods = [types.SimpleNamespace(metadata=types.SimpleNamespace(name=n), status=types.SimpleNamespace(
        phase="Running", host_ip=ip)) for n, ip in (("b", "1.1.1.2"), ("a", "1.1.1.1"))]
    client = types.SimpleNamespace(list_pod_for_all_namespaces=lambda label_selector: types.SimpleNamespace(items=pods))
    k8s = cr.KubernetesClusterResolver(override_client=client)
    assert k8s.cluster_spec().as_dict() == {"worker": ["1.1.1.1:8470", "1.1.1.2:8470"]}
    for make, message in ((lambda: cr.GCEClusterResolver("p", "z", "g", 1), "googleapiclient must be installed"),
                          (lambda: cr.KubernetesClusterResolver(), "Kubernetes Python client must be installed")):
        try:
            import googleapiclient  # noqa: F401
            import kubernetes  # noqa: F401
        except ImportError:
            with pytest.raises(ImportError, match=message):
                make()


def test_structures_and_variants():
    e = tf.data.experimental
    assert e.Structure is tf.TypeSpec and e.DatasetStructure is tf.data.DatasetSpec
    assert e.TensorStructure(tf.int32, [2]) == tf.TensorSpec([2], tf.int32)
    assert e.RaggedTensorStructure(tf.float32, [None, None], 1).ragged_rank == 1
    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_tensor_slices((np.zeros([3, 2], np.float32), np.arange(3)))
        structure = e.get_structure(ds)
        assert structure == (tf.TensorSpec([2], tf.float32), tf.TensorSpec([], tf.int64))
        assert e.from_variant(e.to_variant(ds), structure) is ds
        with pytest.raises(TypeError, match="must be a Dataset or Iterator"):
            e.get_structure(3)


def test_checkpoint_input_pipeline_hook(tmp_path):
    """The hook writes input.ckpt-<step> (state file checkpoint_input) at the first step, every
    save_checkpoints_steps and at the end; a new session with it continues where the last one stopped."""
    import types
    estimator = types.SimpleNamespace(model_dir=str(tmp_path), config=tf.estimator.RunConfig(save_checkpoints_steps=2))

    def train(steps):
        with tf.Graph().as_default():
            step = tf.train.get_or_create_global_step()
            element = tf.data.Dataset.range(100).make_one_shot_iterator().get_next()
            with tf.control_dependencies([element]):
                count = tf.assign_add(step, 1)
            hook = tf.data.experimental.CheckpointInputPipelineHook(estimator)
            with tf.train.MonitoredSession(hooks=[hook]) as sess:
                return [sess.run([element, count])[0] for _ in range(steps)]
    assert train(5) == [0, 1, 2, 3, 4]
    assert tf.train.latest_checkpoint(str(tmp_path), "checkpoint_input").endswith("input.ckpt-5")
    assert [n for n, _ in tf.train.list_variables(str(tmp_path / "input.ckpt-5"))] == ["OneShotIterator:0-state"]
    assert train(2) == [5, 6]


def test_sequence_example_errors_are_tfs():
    example = tf.train.SequenceExample()
    example.context.feature["id"].int64_list.value.append(1)
    required = {"tok": tf.io.FixedLenSequenceFeature([], tf.int64)}
    with tf.Graph().as_default():
        single = tf.io.parse_single_sequence_example(example.SerializeToString(), sequence_features=required)
        batch = tf.io.parse_sequence_example([example.SerializeToString()], sequence_features=required)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="Name: , Feature list 'tok' is required but"):
                sess.run(single)
            with pytest.raises(tf.errors.InvalidArgumentError, match="Missing feature tok in example <unknown>"):
                sess.run(batch)
        with pytest.raises(ValueError, match=r"Unsupported FixedLenFeature FixedLenFeature\(shape=\[\]"):
            tf.io.parse_single_sequence_example("", sequence_features={"x": tf.io.FixedLenFeature([], tf.int64)})
