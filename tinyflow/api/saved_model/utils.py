"""tf.saved_model.utils: TensorInfo protos of tensors, and the tensors TensorInfos name."""
from tinyflow.formats import convert
from tinyflow.formats.protos import meta_graph_pb2
from tinyflow.graph.core import get_default_graph


def build_tensor_info(tensor):
    """The TensorInfo (name, dtype, shape) of a Tensor, or of a SparseTensor (coo_sparse)."""
    from tinyflow.ops.sparse import SparseTensor
    info = meta_graph_pb2().TensorInfo()
    if isinstance(tensor, SparseTensor):
        info.coo_sparse.values_tensor_name = tensor.values.name
        info.coo_sparse.indices_tensor_name = tensor.indices.name
        info.coo_sparse.dense_shape_tensor_name = tensor.dense_shape.name
        dtype, shape = tensor.values.dtype, tensor.get_shape() if hasattr(tensor, "get_shape") else None
    else:
        if not hasattr(tensor, "name") or not hasattr(tensor, "dtype"):
            raise TypeError("Expected a Tensor or SparseTensor, got %r" % (tensor,))
        info.name = tensor.name
        dtype, shape = tensor.dtype, tensor.shape
    info.dtype = dtype.as_datatype_enum
    if shape is not None:
        convert.shape_proto(shape, info.tensor_shape)
    return info


def get_tensor_from_tensor_info(tensor_info, graph=None, import_scope=None):
    """The Tensor (or SparseTensor) a TensorInfo names in `graph` (the default graph)."""
    graph = graph or get_default_graph()
    prefix = import_scope + "/" if import_scope else ""

    def get(name):
        return graph.get_tensor_by_name(prefix + name)
    encoding = tensor_info.WhichOneof("encoding")
    if encoding == "name":
        return get(tensor_info.name)
    if encoding == "coo_sparse":
        from tinyflow.ops.sparse import SparseTensor
        coo = tensor_info.coo_sparse
        return SparseTensor(get(coo.indices_tensor_name), get(coo.values_tensor_name),
                            get(coo.dense_shape_tensor_name))
    raise ValueError("Invalid TensorInfo.encoding: %s" % encoding)
