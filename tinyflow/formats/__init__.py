"""TF's byte formats: protobuf messages, checkpoints' bundle, TFRecords (no graphs, no JAX)."""
