"""`tensorflow.core.*_pb2` and `tensorflow.python.*` under the runner: TF's protobuf modules name tinyflow's
declarations of TF's messages, the session option records include Grappler's RewriterConfig, and a shim
module hands out tf names that load lazily."""
import subprocess
import sys

SCRIPT = r'''
import tensorflow as tf
from tensorflow.core.framework import graph_pb2, summary_pb2, types_pb2
from tensorflow.core.protobuf import config_pb2, meta_graph_pb2, rewriter_config_pb2
from tensorflow.core.example import example_pb2
from tensorflow.core.util import event_pb2
from tensorflow.python.training import checkpoint_state_pb2
from tensorflow.python.ops.math_ops import reduce_sum

x = tf.placeholder(tf.float32, [2], name="x")
y = reduce_sum(x * 2.0, name="y")
g = graph_pb2.GraphDef.FromString(tf.get_default_graph().as_graph_def().SerializeToString())
print("NODES", sorted(n.op for n in g.node))
ex = example_pb2.Example.FromString(tf.train.Example(features=tf.train.Features(feature={
    "a": tf.train.Feature(int64_list=tf.train.Int64List(value=[3, 4]))})).SerializeToString())
print("EXAMPLE", list(ex.features.feature["a"].int64_list.value), types_pb2.DT_FLOAT)
config = config_pb2.ConfigProto()
off = rewriter_config_pb2.RewriterConfig.OFF
config.graph_options.rewrite_options.arithmetic_optimization = off
config.graph_options.rewrite_options.memory_optimization = rewriter_config_pb2.RewriterConfig.NO_MEM_OPT
assert config_pb2.ConfigProto is tf.ConfigProto and summary_pb2.Summary is tf.Summary
with tf.Session(config=config) as sess:
    print("VALUE", sess.run(y, {x: [1.0, 2.0]}), rewriter_config_pb2.RewriterConfig.ON, off)
print("MSG", meta_graph_pb2.TensorInfo(name="y:0").name, event_pb2.Event(step=3).step,
      checkpoint_state_pb2.CheckpointState(model_checkpoint_path="m").model_checkpoint_path)
import tensorflow.python as tp
print("LAZY", tp.estimator is tf.estimator, tp.keras is tf.keras)
'''


def test_core_protobuf_modules_and_lazy_python_shims(tmp_path):
    script = tmp_path / "s.py"
    script.write_text(SCRIPT)
    out = subprocess.run([sys.executable, "-m", "tinyflow", str(script)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "NODES ['Const', 'Const', 'Mul', 'Placeholder', 'Sum']" in out.stdout
    assert "EXAMPLE [3, 4] 1" in out.stdout
    assert "VALUE 6.0 1 2" in out.stdout
    assert "MSG y:0 3 m" in out.stdout
    assert "LAZY True True" in out.stdout
