"""TensorFlow's own files: V2 checkpoints (tensor bundles), GraphDef and MetaGraphDef protobufs.

The TF protobuf messages come from tensorboard (tensorboard.compat.proto), loaded only when a TF
file is read or written (protos.py). The table format (table.py) and the bundle entry message are
small and written here.
"""
