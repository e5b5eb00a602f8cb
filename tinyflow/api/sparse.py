"""tf.sparse: the sparse tensors string splitting and VarLenFeature parsing return."""
from tinyflow.ops.sparse import SparseTensor, SparseTensorValue  # noqa: F401
from tinyflow.ops.sparse import sparse_tensor_to_dense as to_dense  # noqa: F401
from tinyflow.api.sparse_ops import (sparse_concat as concat, sparse_placeholder as placeholder,  # noqa: F401
                                     sparse_reduce_sum as reduce_sum, sparse_reduce_sum_sparse as reduce_sum_sparse,
                                     sparse_reshape as reshape, sparse_tensor_dense_matmul as sparse_dense_matmul,
                                     sparse_to_indicator as to_indicator, sparse_transpose as transpose)
