"""tf.sparse: the sparse tensors string splitting and VarLenFeature parsing return."""
from tinyflow.ops.sparse import SparseTensor, SparseTensorValue  # noqa: F401
from tinyflow.ops.sparse import sparse_tensor_to_dense as to_dense  # noqa: F401
