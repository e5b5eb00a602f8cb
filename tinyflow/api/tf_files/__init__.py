"""TensorFlow's own files: V2 checkpoints (tensor bundles), GraphDef and MetaGraphDef protobufs.

The TF protobuf messages are tinyflow.formats.tf_protos (protos.py gives them as _pb2-like namespaces);
the table format (table.py) is written here.
"""
