"""A tiny builder of protobuf descriptors from readable declarations, so that TF's messages need only
the `protobuf` package (no protoc, no generated _pb2 files, no tensorflow or tensorboard).

    proto_file("tensorflow/core/framework/tensor_shape.proto", [],
        message("TensorShapeProto",
                ("dim", 2, "repeated TensorShapeProto.Dim"),
                ("unknown_rank", 3, "bool"),
                message("Dim", ("size", 1, "int64"), ("name", 2, "string"))))

A field is (name, number, type) or (name, number, type, oneof name); its type is a scalar type
("int64", "bytes", ...), a message or enum named relative to the package ("AttrValue.ListValue"),
or a "google.protobuf.X" name, optionally after "repeated ", or "map<K, V>". Every file is proto3,
as TF's are. build() adds the files to a private DescriptorPool (never the default one, where
tensorboard's or TensorFlow's own copies of the same messages may live) and makes the classes.
"""
import re
import types

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_F = descriptor_pb2.FieldDescriptorProto
SCALARS = {name: getattr(_F, "TYPE_" + name.upper()) for name in (
    "double", "float", "int64", "uint64", "int32", "fixed64", "fixed32", "bool", "string", "bytes",
    "uint32", "sfixed32", "sfixed64", "sint32", "sint64")}


class Enum:
    def __init__(self, name, values):
        self.name, self.values = name, values


class Message:
    def __init__(self, name, members):
        self.name, self.members = name, members


class ProtoFile:
    def __init__(self, name, deps, package, items):
        self.name, self.deps, self.package, self.items = name, deps, package, items


def enum(name, **values):
    """An enum: enum("Endianness", LITTLE=0, BIG=1) (values in declaration order)."""
    return Enum(name, values)


def message(name, *members):
    """A message: its fields (tuples) and nested messages and enums."""
    return Message(name, members)


def proto_file(name, deps, *items, package="tensorflow"):
    """A .proto file: its name (as TF names it), the files it imports, its messages and enums."""
    return ProtoFile(name, deps, package, items)


def _enums(items, prefix, out):
    """The full names of every enum declared in `items` (nested ones included)."""
    for item in items:
        if isinstance(item, Enum):
            out.add(prefix + item.name)
        elif isinstance(item, Message):
            _enums(item.members, prefix + item.name + ".", out)
    return out


def _entry_name(field_name):
    """protoc's name of a map field's entry message: feature_list -> FeatureListEntry."""
    return "".join(part.capitalize() for part in field_name.split("_")) + "Entry"


class _Builder:
    def __init__(self, package, enums):
        self.package, self.enums = package, enums

    def type_ref(self, fd, type_name):
        if type_name in SCALARS:
            fd.type = SCALARS[type_name]
            return
        # (a name in another package is written in full: tfprof's "tensorflow.AttrValue")
        full = type_name if type_name.startswith(("google.protobuf.", "tensorflow.")) else \
            self.package + "." + type_name
        fd.type_name = "." + full
        fd.type = _F.TYPE_ENUM if full in self.enums else _F.TYPE_MESSAGE

    def add_enum(self, container, item):
        e = container.add(name=item.name)
        for value_name, number in item.values.items():
            e.value.add(name=value_name, number=number)

    def add_message(self, container, item, scope):
        m = container.add(name=item.name)
        full = scope + item.name
        oneofs = {}
        for member in item.members:
            if isinstance(member, Message):
                self.add_message(m.nested_type, member, full + ".")
            elif isinstance(member, Enum):
                self.add_enum(m.enum_type, member)
            else:
                self.add_field(m, full, member, oneofs)

    def add_field(self, m, full, member, oneofs):
        name, number, spec = member[:3]
        fd = m.field.add(name=name, number=number, label=_F.LABEL_OPTIONAL)
        if len(member) > 3:  # a oneof member
            if member[3] not in oneofs:
                oneofs[member[3]] = len(m.oneof_decl)
                m.oneof_decl.add(name=member[3])
            fd.oneof_index = oneofs[member[3]]
        mapped = re.match(r"map<(\w+),\s*([\w.]+)>$", spec)
        if mapped:  # a map: a repeated nested XxxEntry {key = 1; value = 2}, as protoc makes it
            entry = m.nested_type.add(name=_entry_name(name))
            entry.options.map_entry = True
            self.type_ref(entry.field.add(name="key", number=1, label=_F.LABEL_OPTIONAL), mapped.group(1))
            self.type_ref(entry.field.add(name="value", number=2, label=_F.LABEL_OPTIONAL), mapped.group(2))
            fd.label = _F.LABEL_REPEATED
            fd.type, fd.type_name = _F.TYPE_MESSAGE, "." + self.package + "." + full + "." + entry.name
            return
        if spec.startswith("repeated "):
            fd.label, spec = _F.LABEL_REPEATED, spec[len("repeated "):]
        self.type_ref(fd, spec)


def file_descriptor_proto(pf, enums):
    """The FileDescriptorProto of a proto_file declaration (`enums`: full names of the enums it may use)."""
    fdp = descriptor_pb2.FileDescriptorProto(name=pf.name, package=pf.package, syntax="proto3")
    fdp.dependency.extend(pf.deps)
    b = _Builder(pf.package, enums)
    for item in pf.items:
        if isinstance(item, Enum):
            b.add_enum(fdp.enum_type, item)
        else:
            b.add_message(fdp.message_type, item, "")
    return fdp


def _message_class(desc):
    if hasattr(message_factory, "GetMessageClass"):  # protobuf >= 4.21
        return message_factory.GetMessageClass(desc)
    return message_factory.MessageFactory(desc.file.pool).GetPrototype(desc)  # pragma: no cover


def build(files, module_prefix):
    """Builds `files` (dependencies first) in a new private pool. Returns {file stem: module-like
    namespace} where a namespace holds the file's messages, enums (EnumTypeWrapper) and enum values,
    as a generated foo_pb2 module does (DESCRIPTOR included); stem "graph" for ".../graph.proto"."""
    from google.protobuf import any_pb2
    from google.protobuf.internal import enum_type_wrapper
    pool = descriptor_pool.DescriptorPool()
    well_known = descriptor_pb2.FileDescriptorProto()
    any_pb2.DESCRIPTOR.CopyToProto(well_known)
    pool.Add(well_known)
    enums = set()
    out = {}
    for pf in files:
        enums |= _enums(pf.items, pf.package + ".", set())
        pool.Add(file_descriptor_proto(pf, enums))
        fd = pool.FindFileByName(pf.name)
        stem = pf.name.rsplit("/", 1)[-1][:-len(".proto")]
        ns = types.ModuleType(module_prefix + stem + "_pb2", "TF's %s messages (tinyflow.formats)" % pf.name)
        ns.DESCRIPTOR = fd
        for name, desc in fd.message_types_by_name.items():
            setattr(ns, name, _message_class(desc))
        for name, desc in fd.enum_types_by_name.items():
            setattr(ns, name, enum_type_wrapper.EnumTypeWrapper(desc))
            for value in desc.values:
                setattr(ns, value.name, value.number)
        out[stem] = ns
    return out
