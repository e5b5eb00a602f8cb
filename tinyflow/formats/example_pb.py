"""tf.train.Example and friends: TF's example.proto / feature.proto messages, built with protobuf.

The message classes are made at import from a descriptor written here (the same fields and numbers
as TF's tensorflow/core/example/{feature,example}.proto, package `tensorflow`), in a private
descriptor pool, so nothing beyond `protobuf` is needed and they never clash with other copies
(tensorboard's) in the default pool. Their wire format is TF's: files TF wrote parse here and back.
"""
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_F = descriptor_pb2.FieldDescriptorProto


def _file():
    f = descriptor_pb2.FileDescriptorProto(name="tinyflow/example.proto", package="tensorflow", syntax="proto3")

    def message(name, fields):
        m = f.message_type.add(name=name)
        for fname, number, ftype, label, type_name, packed in fields:
            fd = m.field.add(name=fname, number=number, type=ftype, label=label)
            if type_name:
                fd.type_name = type_name
            if packed:
                fd.options.packed = True
        return m

    rep, opt = _F.LABEL_REPEATED, _F.LABEL_OPTIONAL
    message("BytesList", [("value", 1, _F.TYPE_BYTES, rep, None, False)])
    message("FloatList", [("value", 1, _F.TYPE_FLOAT, rep, None, True)])
    message("Int64List", [("value", 1, _F.TYPE_INT64, rep, None, True)])
    feature = message("Feature", [("bytes_list", 1, _F.TYPE_MESSAGE, opt, ".tensorflow.BytesList", False),
                                  ("float_list", 2, _F.TYPE_MESSAGE, opt, ".tensorflow.FloatList", False),
                                  ("int64_list", 3, _F.TYPE_MESSAGE, opt, ".tensorflow.Int64List", False)])
    feature.oneof_decl.add(name="kind")
    for fd in feature.field:
        fd.oneof_index = 0
    features = message("Features", [("feature", 1, _F.TYPE_MESSAGE, rep, ".tensorflow.Features.FeatureEntry", False)])
    entry = features.nested_type.add(name="FeatureEntry")
    entry.field.add(name="key", number=1, type=_F.TYPE_STRING, label=opt)
    entry.field.add(name="value", number=2, type=_F.TYPE_MESSAGE, label=opt, type_name=".tensorflow.Feature")
    entry.options.map_entry = True
    message("FeatureList", [("feature", 1, _F.TYPE_MESSAGE, rep, ".tensorflow.Feature", False)])
    lists = message("FeatureLists", [("feature_list", 1, _F.TYPE_MESSAGE, rep,
                                      ".tensorflow.FeatureLists.FeatureListEntry", False)])
    entry = lists.nested_type.add(name="FeatureListEntry")
    entry.field.add(name="key", number=1, type=_F.TYPE_STRING, label=opt)
    entry.field.add(name="value", number=2, type=_F.TYPE_MESSAGE, label=opt, type_name=".tensorflow.FeatureList")
    entry.options.map_entry = True
    message("Example", [("features", 1, _F.TYPE_MESSAGE, opt, ".tensorflow.Features", False)])
    message("SequenceExample", [("context", 1, _F.TYPE_MESSAGE, opt, ".tensorflow.Features", False),
                                ("feature_lists", 2, _F.TYPE_MESSAGE, opt, ".tensorflow.FeatureLists", False)])
    return f


_POOL = descriptor_pool.DescriptorPool()
_POOL.Add(_file())


def _cls(name):
    return message_factory.GetMessageClass(_POOL.FindMessageTypeByName("tensorflow." + name))


BytesList = _cls("BytesList")
FloatList = _cls("FloatList")
Int64List = _cls("Int64List")
Feature = _cls("Feature")
Features = _cls("Features")
FeatureList = _cls("FeatureList")
FeatureLists = _cls("FeatureLists")
Example = _cls("Example")
SequenceExample = _cls("SequenceExample")
