"""The host stage's seams: a graph marks itself for the host stage from the OpDef of an op it holds
(a Staged host rule, strings), and the stage's plans live in the Session's plan cache (bounded by
executable_cache_size, emptied by close())."""
import tinyflow as tf
from tinyflow.graph.registry import Staged, get_op_def
from tinyflow.runtime import session as _session


def _host_plans(sess):
    return [k for k in sess._plans if isinstance(k, tuple) and k and k[0] is _session._STAGED]


def test_a_host_op_marks_its_graph():
    g = tf.Graph()
    with g.as_default():
        q = tf.FIFOQueue(4, [tf.float32], shapes=[[]])
        assert not g._host_stage   # a queue object alone runs nothing
        q.enqueue([1.0])
    assert g._host_stage
    assert isinstance(get_op_def("QueueEnqueueV2").host, Staged)
    assert get_op_def("MatMul").host is None


def test_plans_are_in_the_session_lru_and_close_drops_them():
    g = tf.Graph()
    with g.as_default():
        s = tf.constant(["a", "bcd"])
        n = tf.strings.length(s)
        m = n * 2
    sess = tf.Session(graph=g)
    assert sess.run(n).tolist() == [1, 3]
    assert sess.run(m).tolist() == [2, 6]
    assert len(_host_plans(sess)) == 2
    sess.executable_cache_size = 1
    assert [v.tolist() for v in sess.run([n, m])] == [[1, 3], [2, 6]]
    assert len(sess._plans) == 1   # the host stage's plans count against the Session's bound
    sess.close()
    assert len(sess._plans) == 0
