"""TF's protobuf messages, as module-like namespaces (graph_pb2().GraphDef, ...): tinyflow.formats.tf_protos,
declared in the package with TF's field numbers and built with protobuf alone (no tensorflow, no tensorboard).
"""
import types


def _module(stem):
    from tinyflow.formats import tf_protos
    return getattr(tf_protos, stem + "_pb2")


def graph_pb2():
    return _module("graph")


def node_def_pb2():
    return _module("node_def")


def meta_graph_pb2():
    return _module("meta_graph")


def saver_pb2():
    return _module("saver")


def tensor_pb2():
    return _module("tensor")


def attr_value_pb2():
    return _module("attr_value")


def tensor_shape_pb2():
    return _module("tensor_shape")


def variable_pb2():
    return _module("variable")


def event_pb2():
    return _module("event")


def summary_pb2():
    return _module("summary")


def bundle():
    """A namespace with the tensor bundle's BundleHeaderProto, BundleEntryProto and TensorSliceProto."""
    return types.SimpleNamespace(TensorSliceProto=_module("tensor_slice").TensorSliceProto,
                                 BundleHeaderProto=_module("tensor_bundle").BundleHeaderProto,
                                 BundleEntryProto=_module("tensor_bundle").BundleEntryProto)


def write_message(path, message, as_text=False):
    """Writes a protobuf message to `path` (text format or binary) through an atomic write."""
    from tinyflow.formats.checkpoint import _atomic_write
    if as_text:
        from google.protobuf import text_format
        data = text_format.MessageToString(message).encode()
    else:
        data = message.SerializeToString(deterministic=True)
    _atomic_write(path, data)


def read_message(path, make, what, binary_ok=lambda message, data: True):
    """The message in `path`, binary or text protobuf (make() gives an empty one; binary_ok says
    whether a binary parse is believable); DataLossError naming the file if it is neither."""
    from google.protobuf import text_format

    from tinyflow.graph import errors
    from tinyflow.formats import files
    data = files.read_regular(path, what)   # a regular file under files.MAX_WHOLE_FILE bytes
    message = make()
    try:
        message.ParseFromString(data)
        if binary_ok(message, data):
            return message
    except Exception:  # not binary: text, or neither
        pass
    message = make()
    try:
        text_format.Parse(data.decode("utf-8"), message)
        return message
    except Exception as e:
        raise errors.DataLossError(None, None, "Unable to parse %s %s: neither binary nor text protobuf (%s)"
                                   % (what, path, str(e)[:200])) from None

