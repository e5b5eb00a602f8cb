"""tf.py_func / tf.numpy_function: a Python function on numpy values, called from inside the
jitted function through `jax.pure_callback` (stateful=False) or `io_callback` (stateful, the default: called
even when nothing reads its outputs, as TF runs a stateful op that is run).

XLA compiles each call with fixed result shapes, so every output shape must be known when the fetch
set is traced: from the static shape of the result (set it with `.set_shape`), where a dimension
left unknown (a batch) takes the size of the same dimension of the first input of the same rank.
"""
import threading
import traceback

import jax
import numpy as np

from tinyflow.graph import errors
from tinyflow.graph import dtypes as dt
from tinyflow.graph.registry import register_op
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core.base import convert_to_tensor, make_op_raw

__all__ = ["numpy_function", "py_func"]

# The error class TF 1.15 raises for an exception inside a py_func (script_ops.py / py_func.cc);
# checked against TF 1.15: everything else is UnknownError, also a tf.errors error raised inside.
_ERROR_CLASSES = [(StopIteration, errors.OutOfRangeError), (MemoryError, errors.ResourceExhaustedError),
                  (NotImplementedError, errors.UnimplementedError), (ValueError, errors.InvalidArgumentError),
                  (TypeError, errors.InvalidArgumentError)]

_failures = []                  # (op, exception, traceback text), recorded on the host as they happen
_failures_lock = threading.Lock()
_MAX_FAILURES = 16              # only the first is raised; the rest would only hold memory


def _record_failure(op, exc):
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    with _failures_lock:
        if len(_failures) < _MAX_FAILURES:
            _failures.append((op, exc, text))


def error_for(op, exc, tb_text=""):
    """The tf.errors error TF raises when the function of py_func `op` raised `exc`: its class by
    the exception's type, its message "<Type>: <message>", the traceback and the node's name."""
    cls = next((c for t, c in _ERROR_CLASSES if isinstance(exc, t)), errors.UnknownError)
    head = "%s: %s" % (type(exc).__name__, exc)
    message = "%s\n%s\n\t [[node %s ]]" % (head, tb_text.rstrip(), op.name) if tb_text else \
        "%s\n\t [[node %s ]]" % (head, op.name)
    err = cls(op.node_def, op, message)
    err.__cause__ = exc
    return err


def pending_error():
    """The error to raise for the first py_func that failed since the last call (or None), and
    forgets every recorded failure. The Session calls it when a dispatch fails: the exception XLA
    reports for a failed host callback does not say which op failed or why."""
    with _failures_lock:
        if not _failures:
            return None
        op, exc, text = _failures[0]
        del _failures[:]
    if isinstance(exc, (KeyboardInterrupt, SystemExit)):   # not an error of the op: the user's stop
        return exc
    return error_for(op, exc, text)


def _result_shapes(op, args):
    shapes = []
    for t in op.outputs:
        dims = t.shape.as_list() if t.shape.ndims is not None else None
        if dims is not None and None in dims:
            same_rank = [a.shape for a in args if len(a.shape) == len(dims)]
            if same_rank:
                dims = [s if d is None else d for d, s in zip(dims, same_rank[0])]
            elif dims[0] is None and args and len(args[0].shape):  # a batch: the first input's
                dims[0] = args[0].shape[0]
        if dims is None or None in dims:
            raise ValueError("tinyflow: the shape of %s (%s) must be known to compile the call of tf.py_func: set it "
                             "with %s.set_shape([...])" % (t.name, t.shape, t.name.split(":")[0]))
        shapes.append(tuple(int(d) for d in dims))
    return shapes


def _py_func_lower(a, *args):
    op = a["op"]()
    shapes = _result_shapes(op, args)
    dtypes = [d.np for d in a["Tout"]]

    def host(*values):
        try:
            out = a["func"](*[np.asarray(v) for v in values])
            outs = list(out) if isinstance(out, (list, tuple)) else [out]
            if len(outs) != len(dtypes):
                raise ValueError("%s returned %d values, expected %d" % (a["func"], len(outs), len(dtypes)))
            return [np.asarray(o, d).reshape(s) for o, d, s in zip(outs, dtypes, shapes)]
        except BaseException as e:  # recorded for pending_error(); XLA only reports that a callback failed
            _record_failure(op, e)   # (Ctrl-C while the function runs too: it comes back as KeyboardInterrupt)
            raise
    results = [jax.ShapeDtypeStruct(s, d) for s, d in zip(shapes, dtypes)]
    if a.get("stateful", True):   # a side effect: XLA must call it even when no output is used (io_callback)
        from jax.experimental import io_callback
        return tuple(io_callback(host, results, *args))
    return tuple(jax.pure_callback(host, results, *args))


register_op("PyFunc", callback=True, shape=lambda s, a, v: [TensorShape(None)] * len(a["Tout"]),
            dtype=lambda d, a: list(a["Tout"]), grad=None, lower=_py_func_lower, stateful=True)


def py_func(func, inp, Tout, stateful=True, name=None):
    """func(*numpy inputs) -> numpy output(s) of dtypes Tout (a dtype or a list of them), run on the
    host each time the op runs. No gradient flows through it."""
    single = not isinstance(Tout, (list, tuple))
    touts = [dt.as_dtype(t) for t in ([Tout] if single else Tout)]
    inputs = [convert_to_tensor(x) for x in inp]
    op = make_op_raw("PyFunc", inputs, {"func": func, "Tout": touts, "stateful": bool(stateful)},
                     name=name or "PyFunc")
    op.attrs["op"] = lambda: op  # the lowering reads the outputs' static shapes (set_shape may come later)
    return op.outputs[0] if single else list(op.outputs)


def numpy_function(func, inp, Tout, name=None):
    """tf.numpy_function: py_func by its newer name."""
    return py_func(func, inp, Tout, name=name)
