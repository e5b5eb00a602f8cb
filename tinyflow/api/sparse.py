"""tf.sparse: the sparse tensors string splitting and VarLenFeature parsing return."""
from tinyflow.graph import dtypes as _dt
from tinyflow.ops.sparse import SparseTensor, SparseTensorValue  # noqa: F401
from tinyflow.ops.sparse import sparse_tensor_to_dense as to_dense  # noqa: F401


def placeholder(dtype, shape=None, name=None):
    """tf.sparse.placeholder / tf.sparse_placeholder: a SparseTensor of three placeholders (indices,
    values, dense_shape; a fully known `shape` makes dense_shape a constant, and a Tensor given as
    `shape` is used as dense_shape itself, as TF does), fed a SparseTensorValue."""
    from tinyflow.graph.core import Tensor
    from tinyflow.graph.shapes import TensorShape
    from tinyflow.ops.core.array_ops import placeholder as _placeholder
    from tinyflow.ops.core.base import constant, convert_to_tensor
    sub = (lambda part: name + "/" + part) if name is not None else (lambda part: None)
    if isinstance(shape, Tensor):  # e.g. tf.constant(dense_shape, tf.int64): its rank is the tensor's length
        dense_shape = convert_to_tensor(shape, _dt.int64)
        rank = TensorShape(shape.shape)[0].value if shape.shape.ndims == 1 else None
    else:
        shape = TensorShape(shape)
        rank = shape.ndims
        if shape.is_fully_defined():
            dense_shape = constant(shape.as_list(), _dt.int64, name=sub("shape") or "Const")
        else:
            dense_shape = _placeholder(_dt.int64, [rank], name=sub("shape"))
    values = _placeholder(dtype, [None], name=sub("values"))   # TF's order of creation (and so of names)
    return SparseTensor(_placeholder(_dt.int64, [None, rank], name=sub("indices")), values, dense_shape)

from tinyflow.api.sparse_ops import (sparse_concat as concat, sparse_reduce_sum as reduce_sum,  # noqa: F401,E402
                                     sparse_reduce_sum_sparse as reduce_sum_sparse, sparse_reshape as reshape,
                                     sparse_tensor_dense_matmul as sparse_dense_matmul,
                                     sparse_to_indicator as to_indicator, sparse_transpose as transpose)
from tinyflow.ops.sparse_segment_ops import (sparse_segment_mean as segment_mean,  # noqa: F401,E402
                                             sparse_segment_sqrt_n as segment_sqrt_n,
                                             sparse_segment_sum as segment_sum)
from tinyflow.api.sparse_more import (eye, expand_dims, from_dense, sparse_add as add,  # noqa: F401,E402
                                      sparse_fill_empty_rows as fill_empty_rows, sparse_mask as mask,
                                      sparse_maximum as maximum, sparse_merge as merge, sparse_minimum as minimum,
                                      sparse_reduce_max as reduce_max, sparse_reduce_max_sparse as reduce_max_sparse,
                                      sparse_reorder as reorder, sparse_reset_shape as reset_shape,
                                      sparse_retain as retain, sparse_slice as slice, sparse_softmax as softmax,
                                      sparse_split as split)
from tinyflow.api.sparse_ops import sparse_tensor_dense_matmul as matmul  # noqa: F401,E402
from tinyflow.api.accumulators import SparseConditionalAccumulator  # noqa: F401,E402
from tinyflow.api.framework import unimplemented as _unimplemented  # noqa: F401,E402


def cross(inputs, name=None):
    """tf.sparse.cross: every combination of one feature per input in each row, joined by "_X_"."""
    from tinyflow.ops.string_more_ops import sparse_cross
    return sparse_cross(inputs, name=name)


def cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
    """tf.sparse.cross_hashed: tf.sparse.cross's combinations as FarmHash fingerprints, modulo num_buckets."""
    from tinyflow.ops.string_more_ops import sparse_cross
    return sparse_cross(inputs, hashed_output=True, num_buckets=num_buckets, hash_key=hash_key, name=name)
