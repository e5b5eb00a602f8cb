"""TF's internal modules under the runner (framework.function.Defun, control_flow_ops.with_dependencies,
inplace_ops, summary_op_util, tf_inspect, pywrap_tensorflow.EventsWriter, ...) give TF 1.15's results
(tests/fixtures/internals/record.py wrote tf115.json)."""
import json
import pytest
import os
import subprocess
import sys

from paths import TESTS

SCRIPT = r'''
import json, sys
import numpy as np
import tensorflow as tf
from tensorflow.python.framework import function, ops
from tensorflow.python.ops import control_flow_ops, control_flow_util, inplace_ops, summary_op_util
from tensorflow.python.util import tf_inspect
from tensorflow.python import pywrap_tensorflow, tf2
from tensorflow.core.util import event_pb2

out = {}
def _grad(op, dy):
    assert [t.shape.as_list() for t in op.inputs] == [[2], [2]]
    return [dy * 100.0, dy * 0.0]

@function.Defun(tf.float32, tf.float32, python_grad_func=_grad)
def cube_plus(x, y):
    return x * x * x + y

@function.Defun(tf.float32)
def double(x):
    return 2.0 * x
a, b = tf.constant([1., 2.]), tf.constant([3., 4.])
c = cube_plus(a, b)
d = double(a)
ga, gb = tf.gradients(tf.reduce_sum(c), [a, b])
gd = tf.gradients(tf.reduce_sum(d * d), a)[0]
v = tf.Variable(1.0)
inc = tf.assign_add(v, 5.0)
w = control_flow_ops.with_dependencies([inc], tf.constant(7.0))
x = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3))
up = inplace_ops.alias_inplace_update(x, [1, 3], [[-1., -2., -3.], [9., 9., 9.]])
up1 = inplace_ops.inplace_update(x, 2, [5., 5., 5.])
add = inplace_ops.inplace_add(x, [0], [[10., 10., 10.]])
sub = inplace_ops.inplace_sub(x, [0, 1], [[1., 1., 1.], [2., 2., 2.]])
with tf.name_scope("outer"):
    with summary_op_util.summary_scope("loss", family="train") as (tag1, scope1):
        pass
    with summary_op_util.summary_scope("a b", None, "dflt") as (tag2, scope2):
        pass
summary_op_util.collect(w, None, ["mine"])
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    vals = sess.run({"c": c, "d": d, "ga": ga, "gb": gb, "gd": gd, "w": w, "up": up, "up1": up1, "add": add,
                     "sub": sub})
    vals["v"] = sess.run(v)
out.update({k: np.asarray(val).tolist() for k, val in vals.items()})
out["tags"] = [tag1, scope1, tag2, scope2]
out["collected"] = len(tf.get_collection("mine"))

def f(a, b=2, *rest, **kw):
    pass
out["argspec"] = list(tf_inspect.getargspec(f))
assert ops.uid() != ops.uid() and tf2.enabled() is False and control_flow_util.IsInXLAContext(c.op) is False
writer = pywrap_tensorflow.EventsWriter(sys.argv[1].encode() + b"/events")
writer.WriteEvent(event_pb2.Event(step=5, summary=tf.Summary(value=[tf.Summary.Value(tag="t", simple_value=2.5)])))
writer.Flush(); writer.Close()
out["events"] = [(e.step, [(x.tag, x.simple_value) for x in e.summary.value], e.file_version)
                 for e in tf.train.summary_iterator(writer.FileName().decode())]
print("JSON" + json.dumps(out))
'''


@pytest.mark.slow
def test_internal_modules_match_tf(tmp_path):
    script = tmp_path / "s.py"
    script.write_text(SCRIPT)
    out = subprocess.run([sys.executable, "-m", "tinyflow", str(script), str(tmp_path)], capture_output=True,
                         text=True, timeout=180)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.split("JSON", 1)[1])
    tf115 = json.load(open(os.path.join(TESTS, "fixtures", "internals", "tf115.json")))
    events = got.pop("events")
    assert got == tf115
    assert events == [[0, [], "brain.Event:2"], [5, [["t", 2.5]], ""]]


SWITCH_SCRIPT = r'''
import numpy as np
import tensorflow as tf
from tensorflow.python.ops import control_flow_ops as cf
from tensorflow.python import debug as tf_debug
x = tf.placeholder(tf.float32, [3]); p = tf.placeholder(tf.bool, [])
f, t = cf.switch(x, p)
y, idx = cf.merge([f * 2.0, t + 10.0])
g = tf.gradients(tf.reduce_sum(y * y), x)[0]
with tf.Session() as s:
    for pv in [True, False]:
        out = s.run([y, idx, g], {x: [1., -2., 3.], p: pv})
        print("RUN", pv, [np.asarray(v).tolist() for v in out])
    try:
        tf_debug.LocalCLIDebugWrapperSession(s)
    except tf.errors.UnimplementedError as e:
        print("TFDBG", "check_numerics" in str(e))
print("FILTER", tf_debug.has_inf_or_nan(None, np.array([1.0, np.nan])), tf_debug.has_inf_or_nan(None, np.ones(2)))
try:
    cf.merge([x, x + 1])
except tf.errors.UnimplementedError as e:
    print("MERGE", "two branches of one switch" in str(e))
'''


def test_switch_merge_and_tfdbg(tmp_path):
    """TF 1.15 gave [11, 8, 13], index 1, gradient [22, 16, 26] (p True) and [2, -4, 6], 0, [8, -16, 24]."""
    script = tmp_path / "s.py"
    script.write_text(SWITCH_SCRIPT)
    out = subprocess.run([sys.executable, "-m", "tinyflow", str(script)], capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "RUN True [[11.0, 8.0, 13.0], 1, [22.0, 16.0, 26.0]]" in out.stdout
    assert "RUN False [[2.0, -4.0, 6.0], 0, [8.0, -16.0, 24.0]]" in out.stdout
    assert "TFDBG True" in out.stdout and "FILTER True False" in out.stdout and "MERGE True" in out.stdout


TIMELINE_SCRIPT = r'''
import json
import numpy as np
import tensorflow as tf
from tensorflow.python.client import timeline
ids = tf.constant([[1, 3, 0], [2, 2, 4]])
e = tf.contrib.layers.embed_sequence(ids, vocab_size=5, embed_dim=2,
                                     initializer=tf.constant_initializer(np.arange(10.).reshape(5, 2)))
e2 = tf.contrib.layers.embed_sequence(ids, scope="EmbedSequence", reuse=True)
options, metadata = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), tf.RunMetadata()
with tf.Session() as s:
    s.run(tf.global_variables_initializer())
    out = s.run(e, options=options, run_metadata=metadata)
    print("EMBED", [v.op.name for v in tf.model_variables()], out.tolist(), s.run(e2).tolist() == out.tolist())
trace = json.loads(timeline.Timeline(metadata.step_stats).generate_chrome_trace_format())
print("TRACE", trace["traceEvents"][0]["ph"])
'''


def test_embed_sequence_and_timeline(tmp_path):
    """TF 1.15 gave the variable and the embeddings asserted here; the timeline is a valid Chrome trace."""
    script = tmp_path / "s.py"
    script.write_text(TIMELINE_SCRIPT)
    out = subprocess.run([sys.executable, "-m", "tinyflow", str(script)], capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr[-3000:]
    assert ("EMBED ['EmbedSequence/embeddings'] [[[2.0, 3.0], [6.0, 7.0], [0.0, 1.0]], [[4.0, 5.0], [4.0, 5.0], "
            "[8.0, 9.0]]] True") in out.stdout
    assert "TRACE M" in out.stdout
