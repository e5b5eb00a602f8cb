"""tf.contrib.slim / contrib.framework module paths under the runner (python -m tinyflow)."""
import subprocess
import sys

SCRIPT = r'''
import tensorflow as tf
import tensorflow.contrib.slim as slim
from tensorflow.contrib.framework.python.ops import arg_scope, add_arg_scope
from tensorflow.contrib.framework.python.ops.arg_scope import arg_scoped_arguments
from tensorflow.contrib.framework.python.ops import variables as fvars
from tensorflow.contrib.layers.python.layers import initializers, regularizers
from tensorflow.contrib.slim import learning
from tensorflow.contrib.slim.python.slim.data import parallel_reader
from tensorflow.contrib.slim import tfexample_decoder
assert parallel_reader.get_data_files is slim.parallel_reader.get_data_files
assert tfexample_decoder.TFExampleDecoder is slim.tfexample_decoder.TFExampleDecoder
import tinyflow.api.contrib.slim

assert slim is tinyflow.api.contrib.slim and learning is slim.learning
assert arg_scope is slim.arg_scope and add_arg_scope is slim.add_arg_scope
assert arg_scoped_arguments(slim.max_pool2d) == ("stride", "padding", "data_format", "outputs_collections", "scope")
assert fvars.get_variables_to_restore is slim.get_variables_to_restore
with arg_scope([slim.conv2d], weights_initializer=initializers.xavier_initializer(),
               weights_regularizer=regularizers.l2_regularizer(0.1)):
    y = slim.conv2d(tf.zeros([1, 4, 4, 2]), 3, 3)
print(y.shape.as_list(), [v.op.name for v in slim.get_model_variables()])
'''


def test_runner_resolves_slim_and_framework_paths(tmp_path):
    script = tmp_path / "uses_slim.py"
    script.write_text(SCRIPT)
    out = subprocess.run([sys.executable, "-m", "tinyflow", str(script)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines()[-1] == "[1, 4, 4, 3] ['Conv/weights', 'Conv/biases']"


SEQUENCE_SCRIPT = r'''
import tensorflow as tf
from tensorflow.contrib import legacy_seq2seq
import tensorflow.contrib.legacy_seq2seq as legacy
from tensorflow.contrib.legacy_seq2seq.python.ops import seq2seq as legacy_ops
import tensorflow.contrib.seq2seq as seq2seq
from tensorflow.contrib.seq2seq.python.ops import attention_wrapper, beam_search_decoder, helper
from tensorflow.contrib.crf import crf_log_likelihood, viterbi_decode
from tensorflow.contrib.crf.python.ops import crf
from tensorflow.contrib.rnn.python.ops import rnn_cell, core_rnn_cell
from tensorflow.contrib.rnn import LayerNormBasicLSTMCell
assert legacy is legacy_seq2seq is legacy_ops and legacy.rnn_decoder is tf.contrib.legacy_seq2seq.rnn_decoder
assert attention_wrapper.AttentionWrapper is seq2seq.AttentionWrapper is tf.contrib.seq2seq.AttentionWrapper
assert beam_search_decoder.BeamSearchDecoder is seq2seq.BeamSearchDecoder
assert helper.TrainingHelper is seq2seq.TrainingHelper and crf.crf_decode is tf.contrib.crf.crf_decode
assert crf_log_likelihood is crf.crf_log_likelihood and viterbi_decode is crf.viterbi_decode
assert rnn_cell.NASCell is tf.contrib.rnn.NASCell and core_rnn_cell.OutputProjectionWrapper is not None
assert LayerNormBasicLSTMCell is rnn_cell.LayerNormBasicLSTMCell
from tensorflow.contrib.factorization.python.ops import clustering_ops, kmeans
from tensorflow.contrib.factorization import KMeansClustering
assert clustering_ops.KMeans is tf.contrib.factorization.KMeans and kmeans.KMeansClustering is KMeansClustering
print("sequence paths ok")
'''


def test_runner_resolves_sequence_model_paths(tmp_path):
    script = tmp_path / "uses_seq2seq.py"
    script.write_text(SEQUENCE_SCRIPT)
    out = subprocess.run([sys.executable, "-m", "tinyflow", str(script)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines()[-1] == "sequence paths ok"


def test_runner_resolves_training_eager_and_layers_utils_paths(tmp_path):
    script = tmp_path / "s.py"
    script.write_text(
        "import tensorflow as tf\n"
        "from tensorflow.contrib.training.python.training import evaluation, hparam\n"
        "from tensorflow.contrib.layers.python.layers import utils\n"
        "import tensorflow.contrib.eager.python.tfe as tfe\n"
        "assert evaluation.checkpoints_iterator is tf.train.checkpoints_iterator\n"
        "h = hparam.HParams(lr=0.1)\n"
        "x = utils.collect_named_outputs(['outs'], 'block/conv/', tf.zeros([2]))\n"
        "print('OUT', h.lr, utils.get_tensor_aliases(x), len(tf.get_collection('outs')),\n"
        "      utils.get_variable_collections({'weights': ['w']}, 'weights'),\n"
        "      tfe.Variable is tf.contrib.eager.Variable)\n")
    out = subprocess.run([sys.executable, "-m", "tinyflow", str(script)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "OUT 0.1 ['block/conv'] 1 ['w'] True" in out.stdout


NETS_SCRIPT = r'''
import tensorflow as tf
import tensorflow.contrib.slim as slim
import tensorflow.contrib.slim.nets as nets
from tensorflow.contrib.slim.nets import inception, resnet_v1, vgg
from tensorflow.contrib.slim.python.slim.nets import inception_v3, resnet_utils
from tensorflow.contrib.slim.python.slim.nets.resnet_v1 import resnet_v1_block
assert nets.vgg is vgg and slim.nets.resnet_v1 is resnet_v1 and tf.contrib.slim.nets.inception is inception
assert inception_v3.inception_v3 is inception.inception_v3
assert resnet_v1.resnet_arg_scope is resnet_utils.resnet_arg_scope
with slim.arg_scope(resnet_v1.resnet_arg_scope()):
    logits, end_points = resnet_v1.resnet_v1(tf.zeros([1, 32, 32, 3]), [resnet_v1_block("block1", 4, 1, 2)],
                                             num_classes=5, scope="r")
print(logits.shape.as_list(), sorted(end_points)[:2], len(slim.get_model_variables()))
'''


def test_runner_resolves_slim_nets_paths(tmp_path):
    script = tmp_path / "uses_slim_nets.py"
    script.write_text(NETS_SCRIPT)
    out = subprocess.run([sys.executable, "-m", "tinyflow", str(script)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines()[-1] == "[1, 1, 1, 5] ['predictions', 'r/block1'] 27"
