"""The graph layer: dtypes, shapes, the IR and the op registry (numpy only, never JAX). The JSON form
of a graph (serialize.py) is loaded with it: Graph.to_json / from_json call it."""
from tinyflow.graph.core import (Graph, GraphKeys, Operation, ShapeError, Tensor, add_to_collection,
                                 add_to_collections, constant_value, control_dependencies, get_collection,
                                 get_collection_ref, get_default_graph, name_scope, reset_default_graph)
from tinyflow.graph.registry import NOT_SET, OpDef, get_op_def, register_op, registered_ops
from tinyflow.graph.shapes import Dimension, TensorShape, as_shape
from tinyflow.graph import serialize  # noqa: F401,E402 (registers Graph.to_json / from_json)
