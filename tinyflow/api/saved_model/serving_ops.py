"""Importer rules for the ops TF 1.15 puts into serving graphs (the parsing receiver's ParseExample, a
classification head's AsString, ...), registered in tf_files/ops_table.py's CONVERTERS table."""
import numpy as np

from tinyflow.api.tf_files.ops_table import CONVERTERS, _tf, converts


def _text(value):
    value = np.asarray(value).reshape(()).item()
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


if "ParseExample" not in CONVERTERS:
    @converts("ParseExample")
    def _parse_example(b, node):
        """TF's ParseExample (serialized, names, sparse_keys, dense_keys, dense_defaults) as tf.parse_example;
        outputs in TF's order: every sparse key's indices, then values, then shapes, then the dense values."""
        from tinyflow.ops.parsing_ops import FixedLenFeature, VarLenFeature, parse_example
        ns, nd = b.attr("Nsparse", 0), b.attr("Ndense", 0)
        sparse_keys = [_text(b.const(2 + i)) for i in range(ns)]
        dense_keys = [_text(b.const(2 + ns + i)) for i in range(nd)]
        features = {k: VarLenFeature(t) for k, t in zip(sparse_keys, b.attr("sparse_types", []))}
        for i, (key, dtype, shape) in enumerate(zip(dense_keys, b.attr("Tdense", []), b.attr("dense_shapes", []))):
            default = np.asarray(b.const(2 + ns + nd + i))
            features[key] = FixedLenFeature(shape, dtype, default_value=None if default.size == 0 else default)
        out = parse_example(b.x(0), features, name=b.name)
        return ([out[k].indices for k in sparse_keys] + [out[k].values for k in sparse_keys]
                + [out[k].dense_shape for k in sparse_keys] + [out[k] for k in dense_keys])

if "AsString" not in CONVERTERS:
    @converts("AsString")
    def _as_string(b, node):
        return [_tf().as_string(b.x(0), precision=b.attr("precision", -1), scientific=b.attr("scientific", False),
                                shortest=b.attr("shortest", False), width=b.attr("width", -1),
                                fill=b.attr("fill", ""), name=b.name)]

if "Size" not in CONVERTERS:
    @converts("Size")
    def _size(b, node):
        return [_tf().size(b.x(0), out_type=b.attr("out_type", _tf().int32), name=b.name)]
