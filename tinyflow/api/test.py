"""tf.test: TestCase with TF's session helpers and array assertions, gradient checks, device queries."""
import contextlib
import os
import tempfile
import unittest

import numpy as np

from tinyflow.graph.core import Graph, get_default_graph
from tinyflow.ops.core.array_ops import placeholder_with_default, reshape
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.passes.gradients import gradients
from tinyflow.runtime.session import Session, get_default_session

__all__ = ["TestCase", "main", "get_temp_dir", "is_gpu_available", "gpu_device_name", "is_built_with_cuda",
           "is_built_with_gpu_support", "is_built_with_rocm", "compute_gradient", "compute_gradient_error",
           "assert_equal_graph_def", "Benchmark"]

_TEMP_DIR = None


def get_temp_dir():
    """One temporary directory for the process (created on first use)."""
    global _TEMP_DIR
    if _TEMP_DIR is None:
        _TEMP_DIR = tempfile.mkdtemp(prefix="tinyflow_test_")
    return _TEMP_DIR


def _gpus():
    import jax
    try:
        return jax.devices("gpu")
    except RuntimeError:
        return []


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None):
    return bool(_gpus())


def gpu_device_name():
    """'/device:GPU:0' when a GPU is there, else ''."""
    return "/device:GPU:0" if _gpus() else ""


def is_built_with_cuda():
    return bool(_gpus())


is_built_with_gpu_support = is_built_with_cuda


def is_built_with_rocm():
    return False


def main(argv=None):
    """Runs the module's tests (unittest's runner, as TF's absl-based main does)."""
    return unittest.main(argv=argv)


def _flat_values(sess, tensor, feed):
    return np.asarray(sess.run(tensor, feed), np.float64).reshape(-1)


def compute_gradient(x, x_shape, y, y_shape, x_init_value=None, delta=1e-3, init_targets=None, extra_feed_dict=None):
    """(theoretical, numerical) Jacobians of y with respect to x, each [x_size, y_size]: tf.gradients
    of every element of y against central differences of step `delta`. Runs in the default session."""
    sess = get_default_session()
    if sess is None:
        raise ValueError("compute_gradient needs a default session (use `with tf.Session():` or TestCase.session)")
    if init_targets is not None:
        sess.run(init_targets)
    x_size, y_size = int(np.prod(x_shape)), int(np.prod(y_shape))
    x0 = np.asarray(x_init_value if x_init_value is not None else np.random.RandomState(0).rand(*x_shape),
                    x.dtype.as_numpy_dtype)
    feed = dict(extra_feed_dict or {})
    dy = placeholder_with_default(convert_to_tensor(np.zeros(y_shape, y.dtype.as_numpy_dtype)), list(y_shape))
    grad = gradients(y, x, grad_ys=dy)[0]
    theory = np.zeros((x_size, y_size))
    for j in range(y_size):
        seed = np.zeros(y_size, y.dtype.as_numpy_dtype)
        seed[j] = 1
        if grad is not None:
            theory[:, j] = _flat_values(sess, reshape(grad, [-1]), {**feed, x: x0, dy: seed.reshape(y_shape)})
    numeric = np.zeros((x_size, y_size))
    for i in range(x_size):
        hi, lo = x0.copy().reshape(-1), x0.copy().reshape(-1)
        hi[i] += delta
        lo[i] -= delta
        numeric[i] = (_flat_values(sess, y, {**feed, x: hi.reshape(x_shape)})
                      - _flat_values(sess, y, {**feed, x: lo.reshape(x_shape)})) / (2 * delta)
    return theory, numeric


def compute_gradient_error(x, x_shape, y, y_shape, x_init_value=None, delta=1e-3, init_targets=None,
                           extra_feed_dict=None):
    """The largest absolute difference between the theoretical and the numerical Jacobian."""
    theory, numeric = compute_gradient(x, x_shape, y, y_shape, x_init_value, delta, init_targets, extra_feed_dict)
    return float(np.max(np.abs(theory - numeric))) if theory.size else 0.0


def assert_equal_graph_def(actual, expected, checkpoint_v2=False, hash_table_shared_name=False):
    """AssertionError naming the first difference between two GraphDefs (node by node)."""
    a = {n.name: n for n in actual.node}
    e = {n.name: n for n in expected.node}
    if set(a) != set(e):
        raise AssertionError("Graphs differ in nodes: only in actual %s, only in expected %s"
                             % (sorted(set(a) - set(e)), sorted(set(e) - set(a))))
    for name in sorted(a):
        if a[name] != e[name]:
            raise AssertionError("Node %r differs:\n%s\nvs\n%s" % (name, a[name], e[name]))


class Benchmark:
    """tf.test.Benchmark: report_benchmark prints what it is given."""

    def report_benchmark(self, iters=None, cpu_time=None, wall_time=None, throughput=None, extras=None, name=None):
        print("benchmark %s: iters=%s wall_time=%s extras=%s" % (name or type(self).__name__, iters, wall_time, extras))


class TestCase(unittest.TestCase):
    """tf.test.TestCase: each test gets a fresh default graph; session helpers and numpy assertions."""

    def setUp(self):
        super().setUp()
        self._graph_context = Graph().as_default()
        self._graph_context.__enter__()
        self._cached = None

    def tearDown(self):
        if self._cached is not None:
            self._cached.close()
        self._graph_context.__exit__(None, None, None)
        super().tearDown()

    def get_temp_dir(self):
        path = os.path.join(get_temp_dir(), self.id())
        os.makedirs(path, exist_ok=True)
        return path

    @contextlib.contextmanager
    def session(self, graph=None, config=None, use_gpu=False, force_gpu=False):
        """A Session on `graph` (the test's default graph), made the default session."""
        with Session(graph=graph or get_default_graph(), config=config) as sess:
            with sess.as_default():
                yield sess

    @contextlib.contextmanager
    def cached_session(self, graph=None, config=None, use_gpu=False, force_gpu=False):
        """One Session per test, kept open across calls."""
        if self._cached is None:
            self._cached = Session(graph=graph or get_default_graph(), config=config)
        with self._cached.as_default():
            yield self._cached

    def test_session(self, graph=None, config=None, use_gpu=False, force_gpu=False):
        """TF1's name of cached_session (unittest collects it as a test: then it skips, as in TF)."""
        if self.id().endswith(".test_session"):
            self.skipTest("Not a test.")
        return self.cached_session(graph, config, use_gpu, force_gpu)

    def evaluate(self, tensors):
        """The tensors' values, in the default session (or a cached one)."""
        sess = get_default_session()
        if sess is None:
            with self.cached_session() as sess:
                return sess.run(tensors)
        return sess.run(tensors)

    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol, err_msg=msg or "")

    def assertAllCloseAccordingToType(self, a, b, rtol=1e-6, atol=1e-6, float_rtol=1e-6, float_atol=1e-6,
                                      half_rtol=1e-3, half_atol=1e-3, bfloat16_rtol=1e-2, bfloat16_atol=1e-2,
                                      msg=None):
        a, b = np.asarray(a), np.asarray(b)
        if a.dtype == np.float16 or b.dtype == np.float16:
            rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
        elif a.dtype == np.float32 or b.dtype == np.float32:
            rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
        self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertNotAllClose(self, a, b, **kwargs):
        try:
            self.assertAllClose(a, b, **kwargs)
        except AssertionError:
            return
        raise AssertionError("The two values are close at all elements")

    def assertAllEqual(self, a, b, msg=None):
        a, b = np.asarray(a), np.asarray(b)
        self.assertEqual(a.shape, b.shape, msg or "shapes differ: %s vs %s" % (a.shape, b.shape))
        np.testing.assert_array_equal(a, b, err_msg=msg or "")

    def assertNotAllEqual(self, a, b, msg=None):
        if np.array_equal(np.asarray(a), np.asarray(b)):
            raise AssertionError(msg or "Expected unequal values")

    def assertAllGreater(self, a, comparison_target):
        self.assertTrue(np.all(np.asarray(a) > comparison_target), "not all > %s" % comparison_target)

    def assertAllGreaterEqual(self, a, comparison_target):
        self.assertTrue(np.all(np.asarray(a) >= comparison_target), "not all >= %s" % comparison_target)

    def assertAllLess(self, a, comparison_target):
        self.assertTrue(np.all(np.asarray(a) < comparison_target), "not all < %s" % comparison_target)

    def assertAllLessEqual(self, a, comparison_target):
        self.assertTrue(np.all(np.asarray(a) <= comparison_target), "not all <= %s" % comparison_target)

    def assertAllInRange(self, target, lower_bound, upper_bound, open_lower_bound=False, open_upper_bound=False):
        t = np.asarray(target)
        lo = t > lower_bound if open_lower_bound else t >= lower_bound
        hi = t < upper_bound if open_upper_bound else t <= upper_bound
        self.assertTrue(np.all(lo & hi), "%s not in range [%s, %s]" % (t, lower_bound, upper_bound))

    def assertAllInSet(self, target, expected_set):
        diff = set(np.asarray(target).reshape(-1).tolist()) - set(expected_set)
        self.assertFalse(diff, "%s not in %s" % (sorted(diff), expected_set))

    def assertShapeEqual(self, np_array, tf_tensor, msg=None):
        self.assertEqual(list(np.shape(np_array)), tf_tensor.shape.as_list(), msg)

    def assertDeviceEqual(self, device1, device2, msg=None):
        self.assertEqual(str(device1 or ""), str(device2 or ""), msg)


import unittest.mock as mock  # noqa: E402 (tf.test.mock: Python's unittest.mock)


class StubOutForTesting:
    """Replaces attributes for a test and puts them back (TF's googletest.StubOutForTesting): Set /
    SmartSet an attribute, UnsetAll / SmartUnsetAll / CleanUp to restore."""

    def __init__(self):
        self.cache, self.stubs = [], []

    def __del__(self):
        self.SmartUnsetAll()
        self.UnsetAll()

    def SmartSet(self, obj, attr_name, new_attr):
        """Replaces obj.attr_name, remembering where the old value lived (the class for an inherited one)."""
        import inspect
        if inspect.ismodule(obj) or (not inspect.isclass(obj) and attr_name in obj.__dict__):
            orig_obj, orig_attr = obj, getattr(obj, attr_name)
        else:
            mro = list(inspect.getmro(obj if inspect.isclass(obj) else obj.__class__))
            orig_obj = next((c for c in mro if attr_name in c.__dict__), obj)
            orig_attr = orig_obj.__dict__[attr_name] if attr_name in orig_obj.__dict__ else getattr(obj, attr_name)
        self.stubs.append((orig_obj, attr_name, orig_attr))
        setattr(orig_obj, attr_name, new_attr)

    def SmartUnsetAll(self):
        for obj, name, value in reversed(self.stubs):
            setattr(obj, name, value)
        self.stubs = []

    def Set(self, parent, child_name, new_child):
        """parent.child_name = new_child (a staticmethod kept as one)."""
        old_child = getattr(parent, child_name)
        old_attribute = parent.__dict__.get(child_name)
        if old_attribute is not None and isinstance(old_attribute, staticmethod):
            old_child = staticmethod(old_child)
        self.cache.append((parent, old_child, child_name))
        setattr(parent, child_name, new_child)

    def UnsetAll(self):
        for parent, old_child, child_name in reversed(self.cache):
            setattr(parent, child_name, old_child)
        self.cache = []

    def CleanUp(self):
        self.SmartUnsetAll()
        self.UnsetAll()

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.CleanUp()


def benchmark_config():
    """The ConfigProto TF's benchmarks run with (TF turns its graph rewrites off; tinyflow has none to turn)."""
    from tinyflow.runtime.config import ConfigProto
    return ConfigProto()


def test_src_dir_path(relative_path):
    """The absolute path of a file given relative to the source tree's root ("tensorflow/..." in TF: here
    the directory holding the tinyflow package)."""
    import os
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return os.path.join(root, relative_path)


__all__ += ["mock", "StubOutForTesting", "benchmark_config", "test_src_dir_path"]


def create_local_cluster(num_workers, num_ps, protocol="grpc", worker_config=None, ps_config=None):
    """(workers, ps_servers): in-process tf.train.Servers of a cluster {"worker": num_workers tasks, "ps":
    num_ps tasks} on free localhost ports. As tinyflow's Servers run a Session in process, a
    tf.Session(workers[i].target) runs the graph here (its /job:ps device strings place nothing); the
    servers do not join a multi-process job (that is one Server per process: tf.train.Server)."""
    import socket
    from tinyflow.api.train.distributed import Server
    ports = []
    for _ in range(num_workers + num_ps):
        with socket.socket() as s:
            s.bind(("localhost", 0))
            ports.append(s.getsockname()[1])
    cluster = {"worker": ["localhost:%d" % p for p in ports[:num_workers]]}
    if num_ps > 0:
        cluster["ps"] = ["localhost:%d" % p for p in ports[num_workers:]]
    workers = [Server(cluster, job_name="worker", protocol=protocol, task_index=i, config=worker_config,
                      start=False) for i in range(num_workers)]
    ps_servers = [Server(cluster, job_name="ps", protocol=protocol, task_index=i, config=ps_config, start=False)
                  for i in range(num_ps)]
    return workers, ps_servers


__all__ += ["create_local_cluster"]
