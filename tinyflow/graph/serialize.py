"""The graph as JSON: `Graph.to_json()` and `Graph.from_json(text)`, a complete round trip. No JAX here.

What is saved: every op (type, name, inputs, control inputs, attrs, output dtypes and static
shapes), the collections (tf.Variable objects included, so tf.global_variables() and the
optimizers work after a reload), the name-scope counters and the graph seed. Nested graphs (the
branches and bodies of tf.cond / tf.while_loop) are saved once each and referred to by number.

Values are tagged JSON: {"nd": ...} a numpy array, {"dt": "float32"} a DType, {"sh": [2, null]} a
TensorShape, {"T": [graph, "name:0"]} a Tensor, {"O": [graph, "name"]} an Operation, {"G": n} a
graph, {"obj": "module:Class", "state": {...}} an object of a class registered as serializable
(its attributes).

A graph file is untrusted data. Loading never resolves a name from the file to a Python object by
import or attribute path: op types must be registered ops, objects only of the few classes
registered with `register_serializable` (Graph, the control-flow sub-graphs, Variable, Saver), attrs
only data (numbers, strings, lists, dtypes, shapes, arrays, tensors and sub-graphs of this file).
Every op is checked as it is rebuilt (name, inputs from its own graph, recorded dtypes and shapes
against what the op's rules infer); anything else is a GraphFileError naming the file and node.
"""
import base64
import binascii
import json
import os
import re
import warnings

import numpy as np

from tinyflow.graph import dtypes as _dt
from tinyflow.graph.core import _VALID_NAME, Graph, Operation, Tensor, constant_value, register_graph_codec
from tinyflow.graph.registry import get_op_def
from tinyflow.graph.shapes import TensorShape

FORMAT = "tinyflow.graph/1"
_GRAPH_FIELDS = ("_ops", "_by_name", "_names_in_use", "_control_stack", "_collections", "_finalized",
                 "seed", "_lock", "_variable_store")


class _Unencodable(TypeError):
    pass


class GraphFileError(ValueError):
    """A graph file (JSON graph or .meta) that is not a valid tinyflow graph; names the file and node."""


# "module:QualName" -> class: the only classes a graph file may describe (register_serializable).
_SAFE_CLASSES = {}
_ATTR_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def register_serializable(cls, defaults=None):
    """Allows instances of `cls` in graph files (saved as their attributes, rebuilt without calling
    __init__). Only plain data holders belong here: nothing whose methods act on what a file could
    put in its attributes (paths, callables). `defaults` {attribute: factory} are never read from a
    file: each loaded instance gets factory() instead. Returns cls."""
    if defaults:
        cls._serialize_defaults = dict(defaults)
    _SAFE_CLASSES[_class_path(cls)] = cls
    return cls


_RUNTIME_ONLY = []


class Unsaved:
    """What a loaded graph holds in place of a runtime-only object (see register_runtime_only)."""

    def __init__(self, class_name):
        self.class_name = class_name

    def __repr__(self):
        return "<unsaved %s>" % self.class_name


def register_runtime_only(cls):
    """Instances of `cls` live only in the running program (a Dataset's Python iterator, closures over
    its data): a graph file holds {"unsaved": class name} in their place, quietly, as TF keeps iterator
    state out of its graph files, and the loaded op holds an Unsaved (running it says so). Returns cls."""
    _RUNTIME_ONLY.append(cls)
    return cls


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
        if _SAFE_CLASSES.get(_class_path(cls)) is cls:
            return {"obj": _class_path(cls), "state": {k: self.value(x) for k, x in vars(v).items()}}
        if isinstance(v, tuple(_RUNTIME_ONLY)):
            return {"unsaved": cls.__name__}
        raise _Unencodable("%s is not serializable" % cls.__name__)


def _class_path(cls):
    return "%s:%s" % (cls.__module__, cls.__qualname__)


def _safe_class(path):
    """The registered class a file names, or None. A file written before the modules moved into layer
    folders names a class by its old module path (tinyflow.train.queue_runner:QueueRunner): the
    registered class with the same qualname is the one meant (with the same module file name too when
    several share the qualname; FuncGraph moved from ops/control_flow_ops.py to graph/func_graph.py)."""
    if not isinstance(path, str):
        return None
    if path in _SAFE_CLASSES:
        return _SAFE_CLASSES[path]
    module, _, qualname = path.partition(":")
    same = [c for p, c in _SAFE_CLASSES.items() if p.partition(":")[2] == qualname]
    if len(same) > 1:
        base = module.rpartition(".")[2]
        same = [c for p, c in _SAFE_CLASSES.items()
                if p.partition(":")[2] == qualname and p.partition(":")[0].rpartition(".")[2] == base]
    return same[0] if len(same) == 1 and module.startswith("tinyflow.") else None


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


def to_dict(graph):
    """The graph as a JSON-ready dict (see the module docstring)."""
    enc = _Encoder()
    enc.graph(graph)
    return {"format": FORMAT, "graphs": enc.graphs}


def to_json(graph, indent=None):
    """The whole graph as JSON text; `Graph.from_json(text)` rebuilds it."""
    return json.dumps(to_dict(graph), indent=indent)


# ---- loading: the file is data, checked as it is read ------------------------------------------------
_MAX_DEPTH = 64        # nesting of one value (a list in a tuple in a dict ...)
_MAX_RANK = 64
_MAX_FILE_BYTES = 1 << 30


def _shadows(cls, name):
    """Whether setting `name` on an instance of cls would hide its method or property (a file must
    not replace `Graph.get_operations` or `Saver.restore`): class data (None, numbers) may be set."""
    import inspect
    return hasattr(inspect.getattr_static(cls, name, None), "__get__")


class _Bad(Exception):
    """Something in the file is not what a graph file may hold (the decoder adds file and node)."""


def _expect(ok, why, *args):
    if not ok:
        raise _Bad(why % args if args else why)


def _int(x, what, low=0):
    _expect(type(x) is int and x >= low, "%s must be an integer >= %d, not %r", what, low, x)
    return x


def _dtype(name):
    _expect(isinstance(name, str) and name in _dt._BY_NAME, "unknown dtype %r", name)
    return _dt._BY_NAME[name]


def _dims(shape, unknown_ok):
    """A shape from the file: a list of sizes (None = unknown where unknown_ok), or None."""
    if shape is None and unknown_ok:
        return None
    _expect(isinstance(shape, list) and len(shape) <= _MAX_RANK, "a shape must be a list of at most %d sizes, "
            "not %r", _MAX_RANK, shape)
    for d in shape:
        _expect((d is None and unknown_ok) or (type(d) is int and d >= 0), "bad size %r in shape %r", d, shape)
    return shape


def _unarray(d):
    _expect(isinstance(d, dict) and isinstance(d.get("dtype"), str), "an array must be {dtype, shape, data}")
    shape = _dims(d["shape"], unknown_ok=False)
    count = int(np.prod(shape, dtype=object))
    if d["dtype"] == "string":
        strs, flags = d["str"], d["bytes"]
        _expect(isinstance(strs, list) and isinstance(flags, list) and len(strs) == len(flags) == count,
                "a string array of shape %s needs %d strings and flags", shape, count)
        _expect(all(isinstance(x, str) for x in strs) and all(isinstance(b, bool) for b in flags),
                "string array items must be strings")
        items = [x.encode("latin-1") if b else x for x, b in zip(strs, flags)]
        out = np.empty(count, dtype=object)
        out[:] = items
        return out.reshape(shape)
    npd = np.dtype(_dtype(d["dtype"]).np)
    _expect(isinstance(d["data"], str) and len(d["data"]) <= 4 * (count * npd.itemsize + 2) // 3 + 4,
            "array data must be base64 text of %d bytes", count * npd.itemsize)
    raw = base64.b64decode(d["data"], validate=True)
    _expect(len(raw) == count * npd.itemsize, "array data is %d bytes; %s %s needs %d", len(raw), d["dtype"],
            shape, count * npd.itemsize)
    return np.frombuffer(raw, dtype=npd).reshape(shape).copy()


def _hashable(k):
    return tuple(k) if isinstance(k, list) else k


class _Decoder:
    def __init__(self, graphs, into=None):
        _expect(isinstance(graphs, list) and graphs, "'graphs' must be a non-empty list")
        self.data = graphs
        self.graphs = {}
        self.into = into  # an empty Graph to build graph 0 in (import_meta_graph), or None
        self.where = "graph 0"

    def graph(self, gid):
        _expect(type(gid) is int and 0 <= gid < len(self.data), "no graph %r in the file", gid)
        g = self.graphs.get(gid)
        if g is not None:
            return g
        d = self.data[gid]
        self.where = "graph %d" % gid
        _expect(isinstance(d, dict), "graph %d is not an object", gid)
        if gid == 0 and self.into is not None:
            g = self.into
        else:
            cls = _safe_class(d["class"])
            _expect(isinstance(cls, type) and issubclass(cls, Graph), "graph class %r is not one a graph file "
                    "may describe", d["class"])
            g = cls.__new__(cls)
            Graph.__init__(g)
        self.graphs[gid] = g
        g.seed = d["seed"] if d["seed"] is None else _int(d["seed"], "seed", low=-2 ** 63)
        _expect(isinstance(d["ops"], list), "'ops' of graph %d is not a list", gid)
        for od in d["ops"]:
            self._op(g, gid, od)
        self.where = "graph %d" % gid
        _expect(isinstance(d["extra"], dict), "'extra' of graph %d is not an object", gid)
        for k, v in d["extra"].items():  # after the ops: a body graph's captures name its own tensors
            self.where = "graph %d attribute %r" % (gid, k)
            _expect(_ATTR_NAME.match(k) and not k.startswith("__") and k not in _GRAPH_FIELDS
                    and not _shadows(type(g), k), "a graph file may not set attribute %r", k)
            setattr(g, k, self.value(v))
        self.where = "graph %d" % gid
        names = d["names_in_use"]
        pairs = (list, tuple)  # JSON gives lists; to_dict's own output tuples
        _expect(isinstance(names, pairs) and all(isinstance(p, pairs) and len(p) == 2 and isinstance(p[0], str)
                                                 and type(p[1]) is int for p in names), "bad 'names_in_use'")
        g._names_in_use = dict((k, v) for k, v in names)
        if "collections_of" in d:
            other = self.graph(d["collections_of"])
            g._collections = other._collections
            g._variable_store = other._variable_store
        else:
            _expect(isinstance(d["collections"], dict), "'collections' of graph %d is not an object", gid)
            cols = {}
            for k, items in d["collections"].items():
                self.where = "collection %r" % k
                _expect(isinstance(items, list), "collection %r is not a list", k)
                cols[k] = [self.value(x) for x in items]
            g._collections = cols
        return g

    def _op(self, g, gid, od):
        _expect(isinstance(od, dict) and isinstance(od.get("name"), str), "an op must be an object with a name")
        name = od["name"]
        self.where = "node '%s' (graph %d)" % (name, gid)
        _expect(bool(_VALID_NAME.match(name)), "'%s' is not a valid node name", name)
        _expect(name not in g._by_name, "duplicate node name '%s'", name)
        op_type = od["op"]
        _expect(isinstance(op_type, str), "the op type must be a string")
        try:
            opdef = get_op_def(op_type)
        except KeyError as e:
            raise _Bad(e.args[0]) from None
        _expect(isinstance(od["inputs"], list) and isinstance(od["control_inputs"], list)
                and isinstance(od["attrs"], dict), "inputs, control_inputs and attrs must be lists and an object")
        inputs = [self.value(t) for t in od["inputs"]]
        self.where = "node '%s' (graph %d)" % (name, gid)
        for t in inputs:
            _expect(isinstance(t, Tensor) and t.graph is g, "input %r is not a tensor of this node's graph", t)
        for c in od["control_inputs"]:
            _expect(isinstance(c, str) and c in g._by_name, "control input %r is not an earlier op of its graph", c)
        controls = [g._by_name[c] for c in od["control_inputs"]]
        attrs = {}
        for k, v in od["attrs"].items():
            attrs[k] = self.value(v)
        self.where = "node '%s' (graph %d)" % (name, gid)
        _expect(isinstance(od["dtypes"], list) and isinstance(od["shapes"], list)
                and len(od["dtypes"]) == len(od["shapes"]), "dtypes and shapes must be lists of one length")
        dtypes = [_dtype(x) for x in od["dtypes"]]
        shapes = [TensorShape(_dims(x, unknown_ok=True)) for x in od["shapes"]]
        _check_rules(opdef, inputs, attrs, dtypes, shapes)
        op = Operation(g, op_type, name, inputs, attrs, controls)
        op._outputs = tuple(Tensor(op, i, d, s) for i, (d, s) in enumerate(zip(dtypes, shapes)))
        op._id = len(g._ops)
        g._ops.append(op)
        g._by_name[op.name] = op
        for t in inputs:
            t._consumers.append(op)

    def value(self, v, depth=0):
        _expect(depth <= _MAX_DEPTH, "values nested deeper than %d", _MAX_DEPTH)
        if v is None or isinstance(v, (bool, int, float, str)):
            return v
        if isinstance(v, list):
            return [self.value(x, depth + 1) for x in v]
        _expect(isinstance(v, dict), "unexpected value %r", v)
        if "obj" in v:  # {"obj": class, "state": {...}}
            _expect(set(v) == {"obj", "state"}, "an object is {obj, state}")
            tag, x = "obj", v
        else:
            _expect(len(v) == 1, "a tagged value has one key, not %s", sorted(v)[:5])
            (tag, x), = v.items()
        if tag in ("T", "O"):
            _expect(isinstance(x, list) and len(x) == 2 and isinstance(x[1], str), "bad %s reference %r", tag, x)
            g = self.graph(x[0])
            try:
                return g.get_tensor_by_name(x[1]) if tag == "T" else g.get_operation_by_name(x[1])
            except (KeyError, ValueError, TypeError) as e:
                raise _Bad("%s refers to nothing in graph %s: %s" % (x[1], x[0], e.args[0] if e.args else e)) from None
        if tag == "G":
            return self.graph(x)
        if tag == "dt":
            return _dtype(x)
        if tag == "sh":
            return TensorShape(_dims(x, unknown_ok=True))
        if tag == "nd":
            return _unarray(x)
        if tag == "np":
            a = _unarray(x)
            _expect(a.ndim == 0, "a numpy scalar must have shape []")
            return a[()]
        if tag == "b":
            _expect(isinstance(x, str), "bytes must be base64 text")
            return base64.b64decode(x, validate=True)
        if tag == "tuple":
            _expect(isinstance(x, list), "a tuple must be a list")
            return tuple(self.value(i, depth + 1) for i in x)
        if tag == "dict":
            _expect(isinstance(x, list) and all(isinstance(p, list) and len(p) == 2 for p in x),
                    "a dict must be a list of [key, value] pairs")
            out = {}
            for k, i in x:
                key = _hashable(self.value(k, depth + 1))
                _expect(key is None or isinstance(key, (str, int, float, bool, tuple, Tensor, Operation, _dt.DType)),
                        "unusable dict key %r", key)
                out[key] = self.value(i, depth + 1)
            return out
        if tag == "unsaved":
            _expect(isinstance(x, str) and len(x) <= 200, "unsaved must name a class")
            return Unsaved(x)
        if tag == "slice":
            _expect(isinstance(x, list) and len(x) == 3 and all(i is None or type(i) is int for i in x),
                    "a slice is [start, stop, step] of integers")
            return slice(*x)
        if tag == "obj":
            cls = _safe_class(x["obj"])
            _expect(cls is not None and not issubclass(cls, Graph), "class %r is not one a graph file may describe "
                    "(nothing is built from a name in the file)", x["obj"])
            _expect(isinstance(x["state"], dict), "an object's state must be an object")
            obj = cls.__new__(cls)
            for k, make in getattr(cls, "_serialize_defaults", {}).items():
                setattr(obj, k, make())
            for k, i in x["state"].items():
                _expect(isinstance(k, str) and _ATTR_NAME.match(k) and not k.startswith("__")
                        and not _shadows(cls, k), "a graph file may not set attribute %r", k)
                if k in getattr(cls, "_serialize_defaults", {}):
                    continue  # never taken from a file (a Saver's list of files to delete)
                setattr(obj, k, self.value(i, depth + 1))
            return obj
        raise _Bad("unknown value tag %r" % (tag,))


def _check_rules(opdef, inputs, attrs, dtypes, shapes):
    """The recorded dtypes and shapes of a node must be what its op's rules give for its inputs and
    attrs (shapes may be more or less refined, never in conflict): a file cannot make a tensor claim
    a shape the op does not produce."""
    try:
        want_dtypes = list(opdef.dtype([t.dtype for t in inputs], attrs))
        want_shapes = list(opdef.shape([t.shape for t in inputs], attrs, [constant_value(t) for t in inputs]))
    except Exception as e:  # a rule rejecting the inputs/attrs: the node is not a valid op of its type
        raise _Bad("its inputs and attrs are not valid for op %s: %s: %s" % (opdef.name, type(e).__name__, e)) from None
    _expect(len(want_shapes) == len(shapes), "it records %d outputs, op %s has %d", len(shapes), opdef.name,
            len(want_shapes))
    if len(want_dtypes) == len(dtypes):
        for i, (got, want) in enumerate(zip(dtypes, want_dtypes)):
            _expect(_dt.as_dtype(want) == got, "output %d is recorded as %s, op %s gives %s", i, got.name,
                    opdef.name, _dt.as_dtype(want).name)
    for i, (got, want) in enumerate(zip(shapes, want_shapes)):
        _expect(got.is_compatible_with(TensorShape(want) if not isinstance(want, TensorShape) else want),
                "output %d is recorded with shape %s, op %s gives %s", i, got, opdef.name, want)


_FILE_ERRORS = (_Bad, KeyError, IndexError, TypeError, ValueError, AttributeError, RecursionError, binascii.Error,
                OverflowError, UnicodeError)


def _reason(e):
    if isinstance(e, KeyError) and e.args and not (isinstance(e.args[0], str) and " " in e.args[0]):
        return "missing field %r" % (e.args[0],)
    if isinstance(e, RecursionError):
        return "nested too deeply"
    return str(e) if isinstance(e, _Bad) else "%s: %s" % (type(e).__name__, e)


def from_dict(d, into=None, source="<graph JSON>"):
    """Rebuilds a Graph from `to_dict`'s output (in the empty Graph `into` when given).

    `d` is untrusted: anything that is not a valid tinyflow graph raises GraphFileError naming
    `source` and the node at fault, and leaves `into` empty."""
    if not isinstance(d, dict) or d.get("format") != FORMAT:
        raise GraphFileError("%s is not a tinyflow graph (format %r, expected %r)"
                             % (source, d.get("format") if isinstance(d, dict) else type(d).__name__, FORMAT))
    if into is not None and into.get_operations():
        raise NotImplementedError("tinyflow: a graph can only be imported into an empty graph (this one has %d "
                                  "ops); import it under `with tf.Graph().as_default():`" % len(into.get_operations()))
    saved = dict(vars(into)) if into is not None else None
    dec = None
    try:
        dec = _Decoder(d.get("graphs"), into)
        return dec.graph(0)
    except _FILE_ERRORS as e:
        if into is not None:  # leave the graph as empty as it was
            vars(into).clear()
            vars(into).update(saved)
            into._ops, into._by_name, into._names_in_use = [], {}, dict(saved["_names_in_use"])
            into._collections = {k: list(v) for k, v in saved["_collections"].items()}
        where = dec.where if dec is not None else "top level"
        raise GraphFileError("Invalid graph file %s at %s: %s" % (source, where, _reason(e))) from None


def _parse(text, source):
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as e:
        raise GraphFileError("Invalid graph file %s: not JSON (%s)" % (source, _reason(e))) from None


def from_json(text, into=None, source="<graph JSON>"):
    """Rebuilds a Graph from `to_json`'s text: same ops, attrs, collections and variables."""
    return from_dict(_parse(text, source), into, source)


def load(path, into=None):
    """Rebuilds the graph of the JSON file at `path` (GraphFileError naming it if it is not one)."""
    if not os.path.isfile(path):
        raise GraphFileError("Invalid graph file %s: not a regular file" % path)
    if os.path.getsize(path) > _MAX_FILE_BYTES:
        raise GraphFileError("Invalid graph file %s: larger than %d bytes" % (path, _MAX_FILE_BYTES))
    with open(path, "rb") as f:
        raw = f.read(_MAX_FILE_BYTES + 1)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise GraphFileError("Invalid graph file %s: not UTF-8 text (%s)" % (path, e)) from None
    return from_json(text, into, source=path)


def write_graph(graph_or_graph_def, logdir, name, as_text=True):
    """tf.train.write_graph: writes the graph's JSON to logdir/name; returns the path."""
    g = graph_or_graph_def
    text = to_json(g, indent=1 if as_text else None)
    os.makedirs(logdir, exist_ok=True)
    path = os.path.join(logdir, name)
    with open(path, "w") as f:
        f.write(text)
    return path


register_graph_codec("to_json", to_json)
register_graph_codec("from_json", from_json)


register_serializable(Graph)
