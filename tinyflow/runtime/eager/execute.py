"""Runs one op now, on the values of its inputs: the eager executor behind `EagerGraph.create_op`.

Each op runs through its OpDef's own lowering rule, compiled with `jax.jit` once per signature
(op type, attrs, input shapes and dtypes) and kept in `_KERNELS`, so a training loop dispatches one
compiled XLA call per op. The registry's dtype and shape rules run when a signature is first seen:
a bad shape raises TF's eager error (InvalidArgumentError, "... [Op:MatMul]") before anything runs.

Some lowering rules need an input's value while tracing (Reshape's shape, Sum's axes): when tracing
fails, the op type's small integer inputs become part of the signature ("static"), and as a last
resort the rule runs un-jitted on concrete arrays ("nojit"). Random ops get their seeds and a
per-execution counter as arguments, so one kernel serves every call.
"""
import jax
import jax.numpy as jnp
import numpy as np

from tinyflow.graph import errors
from tinyflow.graph.core import Graph, GraphKeys, Operation, ShapeError, Tensor
from tinyflow.graph.registry import get_op_def
from tinyflow.graph.shapes import TensorShape
from tinyflow.lower.jax_backend import tf_precision
from tinyflow.ops.random_ops import run_key
from tinyflow.runtime.eager import tape as _tape
from tinyflow.runtime.eager.tensor import EagerTensor

_KERNELS = {}  # signature -> _Kernel
_MODE = {}     # op type -> "static" or "nojit" once plain jit failed for it
_STATIC_MAX = 64  # integer inputs up to this many elements may be baked into a kernel
_counter = [0]    # random ops: folded into each execution's key


# Collections TF does not fill while executing eagerly (their ops have already run); keeping
# them would make an eager training loop grow a list every step.
_NOT_COLLECTED = {GraphKeys.TRAIN_OP, GraphKeys.UPDATE_OPS, GraphKeys.LOSSES, GraphKeys.SUMMARIES,
                  GraphKeys.ACTIVATIONS, GraphKeys.REGULARIZATION_LOSSES}


class EagerGraph(Graph):
    """The default graph in eager mode: holds no ops; `create_op` executes (see execute.py).

    Names are not made unique (TF's eager tensors have no names); collections work except the
    ones TF leaves empty in eager mode.
    """

    _eager = True

    def create_op(self, op_type, inputs, attrs=None, name=None, dtypes=None):
        return execute(self, op_type, inputs, attrs, name, dtypes)

    def unique_name(self, name, mark_as_used=True):
        return self._name_stack + "/" + name if self._name_stack else name

    def add_to_collection(self, name, value):
        if name not in _NOT_COLLECTED:
            Graph.add_to_collection(self, name, value)

    def get_collection_ref(self, name):
        if name in _NOT_COLLECTED:
            return []
        return Graph.get_collection_ref(self, name)

    def __repr__(self):
        return "<tinyflow.EagerGraph>"


class EagerOp(Operation):
    """An op that has run: its type, attrs, inputs and outputs, what a gradient rule reads."""

    _grad = None  # a gradient rule of this op alone (tf.custom_gradient), else the registry's

    def __init__(self, graph, op_type, name, inputs, attrs):  # no Graph bookkeeping: nothing is recorded
        self._graph = graph
        self._type = op_type
        self._name = name
        self._inputs = inputs
        self.attrs = attrs
        self._control_inputs = ()
        self._outputs = []
        self._id = -1

    def __repr__(self):
        return "<tf.Operation '%s' type=%s (eager)>" % (self._name, self._type)


def execute(graph, op_type, inputs, attrs, name, dtypes):
    """Runs `op_type` on eager `inputs` and returns the EagerOp, its outputs holding the results."""
    opdef = get_op_def(op_type)
    attrs = dict(attrs) if attrs else {}
    inputs = list(inputs)
    for t in inputs:
        if not isinstance(t, EagerTensor):
            if isinstance(t, Tensor):
                raise ValueError("Tensor %s is a graph tensor; it cannot be an input of op '%s' run eagerly "
                                 "(create it inside `with tf.Graph().as_default():` and run it in a Session)"
                                 % (t.name, op_type))
            raise TypeError("Input to op '%s' must be a Tensor, got %r" % (op_type, t))
    op = EagerOp(graph, op_type, graph.unique_name(name or op_type), inputs, attrs)
    if op_type == "Const":
        value = attrs["value"]
        if value.flags.writeable:  # the caller's numpy array: later changes to it must not show
            value = value.copy()
            value.flags.writeable = False
        out = EagerTensor(value if value.dtype.kind in "USO" else jnp.asarray(value), attrs["dtype"], op)
        out._np = value
        op._outputs = [out]
        return op
    if op_type in _PYTHON_OPS:
        op._outputs = _PYTHON_OPS[op_type](op)
        return op
    if opdef.host is not None:
        raise errors.UnimplementedError(None, op, "%s runs on the host in a Session; tinyflow's eager mode "
                                                  "cannot run it [Op:%s]" % (op_type, op_type))
    if opdef.lower is None and opdef.check is None:  # NoOp (a group of updates that already ran)
        if opdef.ref_inputs or opdef.dtype([t.dtype for t in inputs], attrs):
            raise errors.UnimplementedError(None, op, "op %s cannot run eagerly [Op:%s]" % (op_type, op_type))
        return op
    kernel = _kernel(opdef, op, dtypes)
    results = kernel.run(op)
    op._outputs = [EagerTensor(v, d, op, i) for i, (v, d) in enumerate(zip(results, kernel.dtypes))]
    for pos, new in zip(opdef.ref_inputs, results):
        inputs[pos]._handle._value = new
    if _tape.ACTIVE and opdef.grad is not None:
        _tape.record(op)
    return op


def _py_func(op):
    """tf.py_func eagerly: the Python function on numpy values, its results as tensors of Tout."""
    values = op.attrs["func"](*[t.numpy() for t in op._inputs])
    touts = op.attrs["Tout"]
    values = list(values) if isinstance(values, (list, tuple)) else [values]
    if len(values) != len(touts):
        raise errors.InvalidArgumentError(None, op, "pyfunc returned %d values, but expects %d [Op:PyFunc]"
                                          % (len(values), len(touts)))
    return [EagerTensor(jnp.asarray(np.asarray(v, d.np)), d, op, i) for i, (v, d) in enumerate(zip(values, touts))]


def _placeholder(op):
    raise RuntimeError("tf.placeholder() is not compatible with eager execution.")


# Ops that run as Python, not through a lowering rule, when executed eagerly.
_PYTHON_OPS = {"PyFunc": _py_func, "Placeholder": _placeholder}


def _np_value(t):
    """An input's value as numpy (cached on the tensor: a Const's value is known already)."""
    v = t._np
    if v is None:
        v = t._np = np.asarray(t._value)
    return v


def _kernel(opdef, op, dtypes):
    """The compiled kernel for this op's signature, built (and the op's rules checked) on a miss."""
    mode = _MODE.get(op._type, "jit")
    static = _static_positions(op._inputs) if mode == "static" else ()
    key = _signature(opdef, op, static)
    kernel = _KERNELS.get(key) if key is not None else None
    if kernel is None:
        out_dtypes = dtypes or _check_rules(opdef, op)
        kernel = _Kernel(opdef, op, out_dtypes, static, mode)
        kernel.key = key
        if key is not None:
            _KERNELS[key] = kernel
    return kernel


def _static_positions(inputs):
    return tuple(i for i, t in enumerate(inputs)
                 if t._value.dtype.kind in "iub" and t._value.size <= _STATIC_MAX)


def _signature(opdef, op, static):
    try:
        attrs = op.attrs
        if opdef.needs_key:  # seeds are arguments of the kernel, not part of it
            attrs = {k: (True if k == "_stream" else v) for k, v in attrs.items() if k not in ("seed", "seed2")}
        parts = [op._type, _freeze(attrs)]
        for i, t in enumerate(op._inputs):
            v = t._value
            parts.append((v.shape, v.dtype))
            if i in static:
                parts.append(_np_value(t).tobytes())
        return tuple(parts)
    except TypeError:  # an attr that cannot be a dict key: run this op uncached
        return None


def _freeze(x):
    """attrs as a hashable key (TypeError for what cannot be one)."""
    if isinstance(x, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in x.items()))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__,) + tuple(_freeze(v) for v in x)
    if isinstance(x, np.ndarray):
        if x.size > 1024 or x.dtype.kind == "O":
            raise TypeError("large array attr")
        return ("nd", x.dtype.str, x.shape, x.tobytes())
    if isinstance(x, TensorShape):
        return ("shape", None if x.ndims is None else tuple(x.as_list()))
    hash(x)
    return x


def _check_rules(opdef, op):
    """The registry's dtype and shape rules on this op's inputs: TF's errors for bad inputs."""
    inputs = op._inputs
    try:
        out_dtypes = opdef.dtype([t.dtype for t in inputs], op.attrs)
    except TypeError as e:  # TF's eager kernels reject mismatched dtypes with InvalidArgumentError
        raise errors.InvalidArgumentError(None, op, "%s [Op:%s]" % (e, op._type)) from None
    values = [_np_value(t) if t._value.size <= 4096 else None for t in inputs]
    try:
        opdef.shape([t.shape for t in inputs], op.attrs, values)
    except ShapeError as e:
        raise errors.InvalidArgumentError(None, op, "%s with input shapes: %s. [Op:%s]" % (
            str(e).rstrip("."), ", ".join(t.shape.as_proto_str() for t in inputs), op._type)) from None
    return out_dtypes


class _Kernel:
    """One op signature's compiled function: fn(*seed args, *non-static inputs) -> (outputs, check)."""

    def __init__(self, opdef, op, out_dtypes, static, mode):
        self.opdef = opdef
        self.dtypes = list(out_dtypes)
        self.static = static
        self.mode = mode
        self.traced = False
        attrs = op.attrs
        n_in = len(op._inputs)
        static_vals = {i: _np_value(op._inputs[i]) for i in static}
        dynamic = [i for i in range(n_in) if i not in static_vals]
        n_results = len(opdef.ref_inputs) or len(out_dtypes)
        lower, check, needs_key = opdef.lower, opdef.check, opdef.needs_key

        def fn(*args):
            a = attrs
            if needs_key:
                a = dict(attrs, seed=args[0], seed2=args[1])
                if "_stream" in attrs:   # an unseeded op's stream: an argument too (random_ops._key)
                    a["_stream"] = (args[2], args[3])
                counter, args = args[4], args[5:]
            full = [None] * n_in
            for i, v in static_vals.items():
                full[i] = v
            for i, v in zip(dynamic, args):
                full[i] = v
            if lower is None:  # Assert: only a check
                return (), check(a, *full)
            if opdef.check_of_run:   # the rule hands what its check reads on after its outputs
                a = dict(a, _check=True)
            with tf_precision():
                out = lower(a, counter, *full) if needs_key else lower(a, *full)
            if opdef.check_of_run:
                return tuple(out[:-1]), check(a, out[-1])
            if n_results == 1 and isinstance(out, (list, tuple)):
                out = out[0]
            out = tuple(out) if isinstance(out, (list, tuple)) else (out,)
            return out, (check(a, *full) if check is not None else None)

        self.fn = fn if mode == "nojit" else jax.jit(fn)

    def run(self, op):
        args = [op._inputs[i]._value for i in range(len(op._inputs)) if i not in self.static]
        if self.opdef.needs_key:
            _counter[0] += 1
            stream = op.attrs.get("_stream", (0, 0))
            args = [np.int64(op.attrs["seed"]), np.int64(op.attrs["seed2"]), np.int64(stream[0]), np.int64(stream[1]),
                    run_key(_counter[0])] + args
        if self.traced:
            out, check = self.fn(*args)
        else:
            try:
                out, check = self.fn(*args)
            except errors.OpError:
                raise
            except Exception as e:
                return self._retry(op, e)
            self.traced = True
        if self.mode == "nojit":
            out = tuple(jnp.asarray(v) for v in out)
        if check is not None and not bool(check[0]):
            raise self.opdef.check_error(None, op, "%s [Op:%s]" % (
                self.opdef.check_message(op, *[np.asarray(d) for d in check[1:]]), op._type))
        return out

    def _retry(self, op, error):
        """Plain jit could not trace the rule: the next mode for this op type (static ints, then no
        jit). If the rule fails in every mode, the inputs are at fault: the error is raised and the
        op type keeps its mode."""
        nxt = {"jit": "static", "static": "nojit"}.get(self.mode)
        if nxt is None:
            raise self.opdef.check_error(None, op, "%s [Op:%s]" % (error, op._type)) from error
        _KERNELS.pop(self.key, None)
        old = _MODE.get(op._type)
        _MODE[op._type] = nxt
        try:
            return _kernel(self.opdef, op, self.dtypes).run(op)
        except errors.InvalidArgumentError:
            if old is None:
                _MODE.pop(op._type, None)
            else:
                _MODE[op._type] = old
            raise
