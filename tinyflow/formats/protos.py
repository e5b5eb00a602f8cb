"""TF's protobuf messages, loaded lazily from tensorboard.compat.proto (the `tensorboard` extra).

What tensorboard lacks (BundleHeaderProto, BundleEntryProto, TensorSliceProto: the tensor bundle's
messages) is declared here as a descriptor, with the same field numbers as TF's
tensorflow/core/protobuf/tensor_bundle.proto and tensor_slice.proto.
"""
import functools


def _tensorboard(module):
    import importlib
    try:
        return importlib.import_module("tensorboard.compat.proto." + module)
    except ImportError as e:
        raise ImportError("tinyflow: reading or writing TensorFlow's files needs the TF protobuf messages that "
                          "the `tensorboard` package ships: pip install tensorboard (%s)" % e) from None


def graph_pb2():
    return _tensorboard("graph_pb2")


def meta_graph_pb2():
    return _tensorboard("meta_graph_pb2")


def saver_pb2():
    return _tensorboard("saver_pb2")


def tensor_pb2():
    return _tensorboard("tensor_pb2")


def attr_value_pb2():
    return _tensorboard("attr_value_pb2")


def tensor_shape_pb2():
    return _tensorboard("tensor_shape_pb2")


def event_pb2():
    return _tensorboard("event_pb2")


@functools.lru_cache(maxsize=None)
def bundle():
    """A namespace with BundleHeaderProto, BundleEntryProto and TensorSliceProto classes."""
    from google.protobuf import descriptor_pb2, descriptor_pool
    from google.protobuf import message_factory
    shape_mod = tensor_shape_pb2()
    types_mod = _tensorboard("types_pb2")
    versions_mod = _tensorboard("versions_pb2")
    pool = descriptor_pool.DescriptorPool()
    for mod in (shape_mod, types_mod, versions_mod):
        fdp = descriptor_pb2.FileDescriptorProto()
        mod.DESCRIPTOR.CopyToProto(fdp)
        pool.Add(fdp)
    F = descriptor_pb2.FieldDescriptorProto
    fdp = descriptor_pb2.FileDescriptorProto(name="tinyflow_tensor_bundle.proto", package="tensorboard",
                                             syntax="proto3")
    fdp.dependency.extend([shape_mod.DESCRIPTOR.name, types_mod.DESCRIPTOR.name, versions_mod.DESCRIPTOR.name])

    def message(name, fields, nested=()):
        m = fdp.message_type.add(name=name) if not isinstance(name, descriptor_pb2.DescriptorProto) else name
        for fname, number, ftype, label, type_name in fields:
            f = m.field.add(name=fname, number=number, type=ftype, label=label)
            if type_name:
                f.type_name = type_name
        return m
    opt, rep = F.LABEL_OPTIONAL, F.LABEL_REPEATED
    sl = message("TensorSliceProto", [("extent", 1, F.TYPE_MESSAGE, rep, ".tensorboard.TensorSliceProto.Extent")])
    ext = sl.nested_type.add(name="Extent")
    ext.oneof_decl.add(name="has_length")
    ext.field.add(name="start", number=1, type=F.TYPE_INT64, label=opt)
    ext.field.add(name="length", number=2, type=F.TYPE_INT64, label=opt, oneof_index=0)
    hdr = message("BundleHeaderProto", [("num_shards", 1, F.TYPE_INT32, opt, None),
                                        ("endianness", 2, F.TYPE_ENUM, opt,
                                         ".tensorboard.BundleHeaderProto.Endianness"),
                                        ("version", 3, F.TYPE_MESSAGE, opt, ".tensorboard.VersionDef")])
    en = hdr.enum_type.add(name="Endianness")
    en.value.add(name="LITTLE", number=0)
    en.value.add(name="BIG", number=1)
    message("BundleEntryProto", [("dtype", 1, F.TYPE_ENUM, opt, ".tensorboard.DataType"),
                                 ("shape", 2, F.TYPE_MESSAGE, opt, ".tensorboard.TensorShapeProto"),
                                 ("shard_id", 3, F.TYPE_INT32, opt, None),
                                 ("offset", 4, F.TYPE_INT64, opt, None),
                                 ("size", 5, F.TYPE_INT64, opt, None),
                                 ("crc32c", 6, F.TYPE_FIXED32, opt, None),
                                 ("slices", 7, F.TYPE_MESSAGE, rep, ".tensorboard.TensorSliceProto")])
    pool.Add(fdp)

    class NS:
        pass
    ns = NS()
    for name in ("TensorSliceProto", "BundleHeaderProto", "BundleEntryProto"):
        desc = pool.FindMessageTypeByName("tensorboard." + name)
        cls = (message_factory.GetMessageClass(desc) if hasattr(message_factory, "GetMessageClass")
               else message_factory.MessageFactory(pool).GetPrototype(desc))
        setattr(ns, name, cls)
    return ns


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
    with open(path, "rb") as f:
        data = f.read()
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

