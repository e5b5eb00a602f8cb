"""tf.RaggedTensor / tf.ragged in graph mode against TF 1.15 (tests/fixtures/ragged/ragged.json, written by
make_ragged.py): each constructor fetched in a session (RaggedTensorValue.to_list), to_tensor, map_flat_values."""
import json
import os

import pytest

import recorded_cases
import tinyflow as tf
from tinyflow.graph import errors

with open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "ragged", "ragged.json")) as _f:
    TF = json.load(_f)


def test_constructors_fetch_as_tf():
    with tf.Graph().as_default():
        rt = tf.ragged.constant([[1, 2], [], [3, 4, 5]])
        nested = tf.ragged.constant([[[1], [2, 3]], [[4]]])
        cases = {
            "constant": rt,
            "from_row_lengths": tf.RaggedTensor.from_row_lengths([1.0, 2.0, 3.0, 4.0], [1, 3]),
            "from_row_starts": tf.RaggedTensor.from_row_starts([1, 2, 3], [0, 2]),
            "from_row_limits": tf.RaggedTensor.from_row_limits([1, 2, 3], [1, 1, 3]),
            "from_row_splits": tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 0, 3]),
            "from_value_rowids": tf.RaggedTensor.from_value_rowids([5, 6, 7], [0, 2, 2], nrows=4),
            "from_nested_row_splits": tf.RaggedTensor.from_nested_row_splits([1, 2, 3, 4], [[0, 2, 3], [0, 1, 3, 4]]),
            "from_tensor": tf.RaggedTensor.from_tensor([[1, 2], [3, 4]]),
            "from_tensor_padding": tf.RaggedTensor.from_tensor([[1, 0, 0], [2, 3, 0]], padding=0),
            "from_sparse": tf.RaggedTensor.from_sparse(tf.SparseTensor([[0, 0], [0, 1], [2, 0]], [7, 8, 9], [3, 4])),
            "map_flat_values": tf.ragged.map_flat_values(tf.multiply, rt, 10),
            "nested": nested}
        assert [rt.ragged_rank, nested.ragged_rank] == TF["ragged_rank"]
        assert [str(rt.shape), str(nested.shape)] == TF["shape"]
        with tf.Session() as s:
            for name, value in cases.items():
                assert s.run(value).to_list() == TF[name], name
            assert s.run(rt.to_tensor(default_value=-1)).tolist() == TF["to_tensor"]
            assert s.run(nested.to_tensor()).tolist() == TF["nested_to_tensor"]
            assert s.run(rt.row_lengths()).tolist() == TF["row_lengths"]
            assert int(s.run(rt.nrows())) == TF["nrows"]


def test_run_time_partitions_work_where_shapes_allow_and_say_so_where_not():
    with tf.Graph().as_default():
        lengths = tf.placeholder(tf.int64, [2])
        rt = tf.RaggedTensor.from_row_lengths([1, 2, 3], lengths)
        with tf.Session() as s:
            assert s.run(rt, {lengths: [2, 1]}).to_list() == [[1, 2], [3]]
        with pytest.raises(errors.UnimplementedError, match="to_tensor needs the row partition known"):
            rt.to_tensor()
        with pytest.raises(errors.InvalidArgumentError, match="row_splits"):
            tf.RaggedTensor.from_row_splits([1, 2], [1, 2])


def test_stack_boolean_mask_partitions_constant_value_placeholder_as_tf():
    """tests/fixtures/ragged/make_ragged_ops.py's `record` run with tinyflow gives TF 1.15's recording
    (values, ragged ranks, dtypes, a ragged placeholder fed, partitions known only at run time)."""
    here = os.path.join(os.path.dirname(__file__), "..", "fixtures", "ragged")
    maker, want = recorded_cases.maker(here, "ragged_ops")
    with tf.Graph().as_default():
        got = json.loads(json.dumps(maker.record(tf)))
    assert got == want


def test_ragged_ops_need_a_partition_known_while_building():
    with tf.Graph().as_default():
        rows = tf.ragged.placeholder(tf.float32, 1)
        with pytest.raises(errors.UnimplementedError, match="boolean_mask"):
            tf.ragged.boolean_mask(tf.constant([[1, 2]]), tf.placeholder(tf.bool, [1, 2]))
        with pytest.raises(errors.UnimplementedError, match="stack"):
            tf.ragged.stack([rows, rows])
        with pytest.raises(ValueError, match="equal rank"):
            tf.ragged.stack([tf.ragged.constant([[1]]), tf.constant([1])])
