"""The graph as JSON: `Graph.to_json()` and `Graph.from_json(text)`, a complete round trip. No JAX here.

What is saved: every op (type, name, inputs, control inputs, attrs, output dtypes and static
shapes), the collections (tf.Variable objects included, so tf.global_variables() and the
optimizers work after a reload), the name-scope counters and the graph seed. Nested graphs (the
branches and bodies of tf.cond / tf.while_loop) are saved once each and referred to by number.

Values are tagged JSON: {"nd": ...} a numpy array, {"dt": "float32"} a DType, {"sh": [2, null]} a
TensorShape, {"T": [graph, "name:0"]} a Tensor, {"O": [graph, "name"]} an Operation, {"G": n} a
graph, {"obj": "module:Class", "state": {...}} an object of a tinyflow class (its attributes).
Loading only ever builds classes of tinyflow's own modules.
"""
import base64
import importlib
import json
import os
import warnings

import numpy as np

from . import dtypes as _dt
from .core import Graph, Operation, Tensor
from .shapes import TensorShape

FORMAT = "tinyflow.graph/1"
_GRAPH_FIELDS = ("_ops", "_by_name", "_names_in_use", "_control_stack", "_collections", "_finalized",
                 "seed", "_lock", "_variable_store")


class _Unencodable(TypeError):
    pass


class _Encoder:
    def __init__(self):
        self.graphs = []     # encoded graph dicts, by id
        self.ids = {}        # id(graph) -> graph number
        self.objects = {}    # graph number -> Graph

    def graph(self, g):
        gid = self.ids.get(id(g))
        if gid is not None:
            return gid
        gid = len(self.graphs)
        self.ids[id(g)] = gid
        self.objects[gid] = g
        self.graphs.append(None)
        self.graphs[gid] = self._graph_dict(g, gid)
        return gid

    def _graph_dict(self, g, gid):
        d = {"class": _class_path(type(g)), "seed": g.seed, "names_in_use": sorted(g._names_in_use.items())}
        d["ops"] = [self._op_dict(op) for op in g._ops]
        shared = [k for k, h in self.objects.items() if k != gid and h._collections is g._collections]
        if shared:
            d["collections_of"] = shared[0]
        else:
            cols = {}
            for key, items in g._collections.items():
                if not isinstance(key, str):
                    continue
                enc = []
                for item in items:
                    try:
                        enc.append(self.value(item))
                    except _Unencodable as e:  # as TF's export_meta_graph: skip, warn
                        warnings.warn("tinyflow.to_json: collection %r item %r is not saved (%s)" % (key, item, e))
                cols[key] = enc
            d["collections"] = cols
        extra = {}
        for k, v in vars(g).items():
            if k in _GRAPH_FIELDS:
                continue
            try:
                extra[k] = self.value(v)
            except _Unencodable as e:
                warnings.warn("tinyflow.to_json: graph attribute %r is not saved (%s)" % (k, e))
        d["extra"] = extra
        return d

    def _op_dict(self, op):
        attrs = {}
        for k, v in op.attrs.items():
            try:
                attrs[k] = self.value(v)
            except _Unencodable as e:
                raise TypeError("tinyflow.to_json: attr %r of op '%s' (op: '%s') cannot be saved: %s"
                                % (k, op.name, op.type, e)) from None
        return {"name": op.name, "op": op.type, "inputs": [self.value(t) for t in op._inputs],
                "control_inputs": [c.name for c in op._control_inputs], "attrs": attrs,
                "dtypes": [t.dtype.name for t in op._outputs], "shapes": [_shape(t.shape) for t in op._outputs]}

    def value(self, v):
        if v is None or isinstance(v, (bool, int, float, str)):
            return v
        if isinstance(v, Tensor):
            return {"T": [self.graph(v.graph), v.name]}
        if isinstance(v, Operation):
            return {"O": [self.graph(v.graph), v.name]}
        if isinstance(v, Graph):
            return {"G": self.graph(v)}
        if isinstance(v, _dt.DType):
            return {"dt": v.name}
        if isinstance(v, TensorShape):
            return {"sh": _shape(v)}
        if isinstance(v, np.ndarray):
            return {"nd": _array(v)}
        if isinstance(v, np.generic):
            return {"np": _array(np.asarray(v))}
        if isinstance(v, bytes):
            return {"b": base64.b64encode(v).decode()}
        if isinstance(v, list):
            return [self.value(x) for x in v]
        if isinstance(v, tuple):
            return {"tuple": [self.value(x) for x in v]}
        if isinstance(v, dict):
            return {"dict": [[self.value(k), self.value(x)] for k, x in v.items()]}
        if isinstance(v, slice):
            return {"slice": [v.start, v.stop, v.step]}
        cls = type(v)
        if cls.__module__.startswith("tinyflow.") and hasattr(v, "__dict__") and not callable(v):
            return {"obj": _class_path(cls), "state": {k: self.value(x) for k, x in vars(v).items()}}
        raise _Unencodable("%s is not serializable" % cls.__name__)


def _class_path(cls):
    return "%s:%s" % (cls.__module__, cls.__qualname__)


def _load_class(path):
    module, _, name = path.partition(":")
    if not module.startswith("tinyflow."):
        raise ValueError("tinyflow.from_json: refusing to build %s (not a tinyflow class)" % path)
    obj = importlib.import_module(module)
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def _shape(s):
    return None if s.ndims is None else s.as_list()


def _array(a):
    dtype = _dt.as_dtype(a.dtype) if a.dtype != object else _dt.string
    if dtype == _dt.string:
        data = [x.decode("latin-1") if isinstance(x, bytes) else str(x) for x in a.reshape(-1)]
        return {"dtype": "string", "shape": list(a.shape), "str": data,
                "bytes": [isinstance(x, bytes) for x in a.reshape(-1)]}
    return {"dtype": dtype.name, "shape": list(a.shape),
            "data": base64.b64encode(np.ascontiguousarray(a).tobytes()).decode()}


def _unarray(d):
    if d["dtype"] == "string":
        items = [s.encode("latin-1") if b else s for s, b in zip(d["str"], d["bytes"])]
        out = np.empty(len(items), dtype=object)
        out[:] = items
        return out.reshape(d["shape"])
    npd = _dt.as_dtype(d["dtype"]).np
    return np.frombuffer(base64.b64decode(d["data"]), dtype=npd).reshape(d["shape"]).copy()


def to_dict(graph):
    """The graph as a JSON-ready dict (see the module docstring)."""
    enc = _Encoder()
    enc.graph(graph)
    return {"format": FORMAT, "graphs": enc.graphs}


def to_json(graph, indent=None):
    """The whole graph as JSON text; `Graph.from_json(text)` rebuilds it."""
    return json.dumps(to_dict(graph), indent=indent)


class _Decoder:
    def __init__(self, graphs, into=None):
        self.data = graphs
        self.graphs = {}
        self.into = into  # an empty Graph to build graph 0 in (import_meta_graph), or None

    def graph(self, gid):
        g = self.graphs.get(gid)
        if g is not None:
            return g
        d = self.data[gid]
        if gid == 0 and self.into is not None:
            g = self.into
        else:
            cls = _load_class(d["class"])
            g = cls.__new__(cls)
            Graph.__init__(g)
        self.graphs[gid] = g
        g.seed = d["seed"]
        for od in d["ops"]:
            self._op(g, od)
        for k, v in d["extra"].items():  # after the ops: a body graph's captures name its own tensors
            setattr(g, k, self.value(v))
        g._names_in_use = dict((k, v) for k, v in d["names_in_use"])
        if "collections_of" in d:
            g._collections = self.graph(d["collections_of"])._collections
            g._variable_store = self.graph(d["collections_of"])._variable_store
        else:
            g._collections = {k: [self.value(x) for x in items] for k, items in d["collections"].items()}
        return g

    def _op(self, g, od):
        inputs = [self.value(t) for t in od["inputs"]]
        controls = [g._by_name[n] for n in od["control_inputs"]]
        attrs = {k: self.value(v) for k, v in od["attrs"].items()}
        op = Operation(g, od["op"], od["name"], inputs, attrs, controls)
        op._outputs = tuple(Tensor(op, i, _dt.as_dtype(d), TensorShape(s))
                            for i, (d, s) in enumerate(zip(od["dtypes"], od["shapes"])))
        op._id = len(g._ops)
        g._ops.append(op)
        g._by_name[op.name] = op
        for t in inputs:
            t._consumers.append(op)

    def value(self, v):
        if v is None or isinstance(v, (bool, int, float, str)):
            return v
        if isinstance(v, list):
            return [self.value(x) for x in v]
        if "obj" in v:  # {"obj": class, "state": {...}}
            tag, x = "obj", v
        else:
            (tag, x), = v.items()
        if tag == "T":
            return self.graph(x[0]).get_tensor_by_name(x[1])
        if tag == "O":
            return self.graph(x[0]).get_operation_by_name(x[1])
        if tag == "G":
            return self.graph(x)
        if tag == "dt":
            return _dt.as_dtype(x)
        if tag == "sh":
            return TensorShape(x)
        if tag == "nd":
            return _unarray(x)
        if tag == "np":
            return _unarray(x)[()]
        if tag == "b":
            return base64.b64decode(x)
        if tag == "tuple":
            return tuple(self.value(i) for i in x)
        if tag == "dict":
            return {_hashable(self.value(k)): self.value(i) for k, i in x}
        if tag == "slice":
            return slice(*x)
        if tag == "obj":
            cls = _load_class(x["obj"])
            obj = cls.__new__(cls)
            for k, i in x["state"].items():
                setattr(obj, k, self.value(i))
            return obj
        raise ValueError("tinyflow.from_json: unknown value tag %r" % (tag,))


def _hashable(k):
    return tuple(k) if isinstance(k, list) else k


def from_dict(d, into=None):
    """Rebuilds a Graph from `to_dict`'s output (in the empty Graph `into` when given)."""
    if d.get("format") != FORMAT:
        raise ValueError("Not a tinyflow graph (format %r, expected %r)" % (d.get("format"), FORMAT))
    if into is not None and into.get_operations():
        raise NotImplementedError("tinyflow: a graph can only be imported into an empty graph (this one has %d "
                                  "ops); import it under `with tf.Graph().as_default():`" % len(into.get_operations()))
    return _Decoder(d["graphs"], into).graph(0)


def from_json(text, into=None):
    """Rebuilds a Graph from `to_json`'s text: same ops, attrs, collections and variables."""
    return from_dict(json.loads(text), into)


def write_graph(graph_or_graph_def, logdir, name, as_text=True):
    """tf.train.write_graph: writes the graph's JSON to logdir/name; returns the path."""
    g = graph_or_graph_def
    text = to_json(g, indent=1 if as_text else None)
    os.makedirs(logdir, exist_ok=True)
    path = os.path.join(logdir, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def _graph_to_json(self, indent=None):
    """The whole graph as JSON text (ops, attrs, control deps, collections, variables)."""
    return to_json(self, indent)


Graph.to_json = _graph_to_json
Graph.from_json = staticmethod(from_json)
