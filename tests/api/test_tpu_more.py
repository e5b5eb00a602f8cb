"""The rest of the TPU names off TPU, against TF 1.15's numbers (tests/fixtures/tpu/tpu_more.json, written by
make_tpu_more.py with real TensorFlow), and the clear errors for what needs a TPU or Google Cloud."""
import json
import os
import sys

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.graph import errors

with open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "tpu", "tpu_more.json")) as _f:
    TF = json.load(_f)


def test_repeat_while_loop_and_outside_compilation_match_tf():
    with tf.Graph().as_default():
        x = tf.constant(2.0)
        r = tf.contrib.tpu.repeat(5, lambda a, b: (a * 2.0, b + 1), [x, tf.constant(3)])
        w = tf.contrib.tpu.while_loop(lambda a: a < 100.0, lambda a: a * 3.0, [x])
        v = tf.Variable(0.0)
        # TF gives TF["repeat_op_variable"]; tinyflow's while_loop bodies cannot update variables yet (engine limit)
        with pytest.raises(NotImplementedError, match="AssignAdd on variable 'Variable' inside"):
            tf.contrib.tpu.repeat(4, lambda: v.assign_add(1.5).op)
        op = tf.contrib.tpu.repeat(4, lambda: tf.no_op())
        assert isinstance(op, tf.Operation)
        oc = tf.contrib.tpu.outside_compilation(lambda a, k=1.0: a + k, x, k=5.0)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            assert [float(a) for a in s.run(r)] == TF["repeat"]
            assert float(s.run(w)[0]) == TF["while_loop"]
            s.run(op)
            assert float(s.run(oc)) == TF["outside_compilation"]


def test_while_loop_checks_arity_and_dtypes_as_tf():
    with tf.Graph().as_default():
        x = tf.constant(2.0)
        with pytest.raises(TypeError, match="loop body needs exactly 2 arguments"):
            tf.contrib.tpu.while_loop(lambda a: a < 1, lambda a, b: a, [x])
        with pytest.raises(TypeError, match="Mismatch between input types and output types"):
            tf.contrib.tpu.while_loop(lambda a: a < 1, lambda a: tf.cast(a, tf.int32), [x])


def test_tpu_embedding_column_is_an_embedding_column_off_tpu():
    with tf.Graph().as_default():
        col = tf.feature_column.categorical_column_with_identity("ids", 5)
        init = tf.constant_initializer(np.arange(15.0).reshape(5, 3))
        ec = tf.tpu.experimental.embedding_column(col, 3, initializer=init)
        assert ec.name == TF["column_name"]
        emb = tf.feature_column.input_layer({"ids": tf.constant([[1, 3], [2, 2]], tf.int64)}, [ec])
        assert [v.name for v in tf.global_variables() if "embedding" in v.name] == TF["embedding_names"]
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            np.testing.assert_allclose(s.run(emb), TF["embedding"])
        spec = tf.estimator.tpu.experimental.EmbeddingConfigSpec(
            feature_columns=[ec], optimization_parameters=tf.tpu.experimental.AdagradParameters(0.1))
        assert spec.partition_strategy == "div" and spec.optimization_parameters.initial_accumulator == 0.1
        with pytest.raises(ValueError, match="optimization_parameters"):
            tf.estimator.tpu.experimental.EmbeddingConfigSpec(feature_columns=[ec])
        adam = tf.tpu.experimental.AdamParameters(0.01)
        assert (adam.beta1, adam.beta2, adam.epsilon) == (0.9, 0.999, 1e-08)


def test_records_and_context():
    from tinyflow.api import tpu_computation as tpu_more
    tpu = tf.contrib.tpu
    cfg = tpu.python.tpu.tpu_estimator.BatchConfig(1, 2, 3, [2])
    assert cfg.max_enqueued_batches == 10
    assert tpu.python.tpu.tpu_estimator.ExportSavedModelApiVersion.V2.value == 2
    assert tpu_more.get_tpu_context().number_of_shards is None
    assert issubclass(tpu.python.tpu.async_checkpoint.AsyncCheckpointSaverHook, tf.train.CheckpointSaverHook)


def test_tensorflow_python_tpu_paths_under_the_runner():
    from tinyflow.cli.runner import alias_tensorflow
    alias_tensorflow()
    from tensorflow.python.tpu import tpu_function
    from tensorflow.python.tpu.ops import tpu_ops
    from tensorflow.contrib.tpu.python.tpu import tpu as tpu_lib
    assert tpu_function.get_tpu_context().number_of_shards is None
    assert tpu_ops.cross_replica_sum is tf.contrib.tpu.cross_replica_sum
    with pytest.raises(errors.UnimplementedError, match="needs a TPU"):
        tpu_lib.initialize_system()
    assert "tensorflow.python.tpu.tpu_function" in sys.modules


def test_what_needs_a_tpu_or_the_cloud_says_so():
    with tf.Graph().as_default():
        with pytest.raises(errors.UnimplementedError, match="infeed"):
            tf.contrib.tpu.infeed_dequeue_tuple([tf.float32], [[2]])
        with pytest.raises(errors.UnimplementedError, match="outfeed"):
            tf.contrib.tpu.outfeed_enqueue_tuple([tf.constant(1.0)])
        with pytest.raises(errors.UnimplementedError, match="Google Cloud"):
            tf.contrib.cloud.configure_gcs(None)
        with pytest.raises(errors.UnimplementedError, match="Bigtable"):
            tf.contrib.cloud.BigtableClient("p", "i")
        with pytest.raises(errors.UnimplementedError, match="TPU"):
            tf.contrib.tpu.python.tpu.tpu_estimator.model_fn_inference_on_tpu(None, None)
