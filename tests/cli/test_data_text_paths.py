"""Module paths of the lookup, text and data names under the runner (python -m tinyflow), as scripts
import them: tensorflow.python.ops.lookup_ops, tensorflow.contrib.learn.preprocessing, contrib.lookup,
contrib.data; and a script reading a vocabulary and file pipeline end to end."""
import subprocess
import sys

SCRIPT = r'''
import numpy as np
import tensorflow as tf
from tensorflow.python.ops import lookup_ops
from tensorflow.python.ops.functional_ops import map_fn
from tensorflow.contrib import learn
from tensorflow.contrib.learn.preprocessing import VocabularyProcessor
import tensorflow.contrib.lookup as lk
from tensorflow.contrib.data import parallel_interleave

assert VocabularyProcessor is learn.preprocessing.VocabularyProcessor and lk.HashTable is lookup_ops.HashTable
assert map_fn is tf.map_fn and parallel_interleave is tf.data.experimental.parallel_interleave
vp = VocabularyProcessor(4)
x = np.array(list(vp.fit_transform(["a b c", "b c d e f"])))
table = lookup_ops.index_table_from_tensor(["a", "b"])
ds = tf.data.Dataset.from_tensor_slices(["a b", "b z a"]).map(lambda s: table.lookup(tf.string_split([s]).values))
ds = ds.flat_map(lambda ids: tf.data.Dataset.from_tensor_slices(ids))
nxt = ds.make_initializable_iterator()
with tf.Session() as sess:
    sess.run([tf.tables_initializer(), nxt.initializer])
    ids = [int(sess.run(nxt.get_next())) for _ in range(5)]
print(x.tolist(), ids, tf.contrib.learn.ModeKeys.INFER)
'''


def test_runner_resolves_lookup_text_and_data_paths(tmp_path):
    script = tmp_path / "uses_lookup.py"
    script.write_text(SCRIPT)
    out = subprocess.run([sys.executable, "-m", "tinyflow", str(script)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines()[-1] == "[[1, 2, 3, 0], [2, 3, 4, 5]] [0, 1, 1, -1, 0] infer"
