"""Host ops: ops XLA cannot run (strings, files, queues), computed in Python around the jitted step.

An op registered here has a host rule, its OpDef's `host=Staged(rule)`: `rule(session, op, inputs) ->
[numpy value per output]` (inputs: numpy values, strings as object arrays of bytes). The Session's host stage
(runtime/host_stage.py) runs these rules between jitted steps, and feeds their numeric
results to it; a graph holding such an op marks itself for the host stage (Graph.create_op). Their
OpDef's `lower` only raises: such an op never reaches XLA.

Strings are numpy object arrays of `bytes`, as TF 1.15's Session returns them.
"""
import numpy as np

from tinyflow.graph import errors
from tinyflow.graph.core import get_default_graph
from tinyflow.graph.registry import Staged, register_op

def _host_only(attrs, *args):
    raise errors.UnimplementedError(None, None, "this op runs on the host (strings, files or queues), "
                                    "not inside the jitted step")


def register_host_op(name, shape, dtype, rule, stateful=False):
    """Registers op type `name`, computed on the host by `rule(session, op, inputs)` (a Staged HostRule)."""
    return register_op(name, shape=shape, dtype=dtype, grad=None, lower=_host_only, stateful=stateful,
                       host=Staged(rule))


def make_host_op(op_type, inputs, attrs=None, name=None):
    """Creates a host op in the default graph (which marks itself for the host stage)."""
    return get_default_graph().create_op(op_type, inputs, attrs or {}, name=name or op_type)


def to_bytes_array(value):
    """A Python/numpy value of strings as an object array of bytes (str encoded as UTF-8)."""
    a = np.asarray(value, dtype=object)
    out = np.empty(a.shape, dtype=object)
    flat_in, flat_out = a.reshape(-1), out.reshape(-1)
    for i, v in enumerate(flat_in):
        if isinstance(v, bytes):
            flat_out[i] = v
        elif isinstance(v, str):
            flat_out[i] = v.encode("utf-8")
        elif isinstance(v, np.bytes_):
            flat_out[i] = bytes(v)
        else:
            raise TypeError("Expected string, got %r of type '%s' instead." % (v, type(v).__name__))
    return out


def string_array(shape, values):
    """An object array of the given shape holding `values` (an iterable of bytes) in order."""
    out = np.empty(int(np.prod(shape, dtype=np.int64)), dtype=object)
    for i, v in enumerate(values):
        out[i] = v
    return out.reshape(shape)


def bytes_map(fn, a):
    """fn applied to each bytes element of object array `a`, as an object array of its shape."""
    return string_array(a.shape, (fn(v) for v in a.reshape(-1)))

