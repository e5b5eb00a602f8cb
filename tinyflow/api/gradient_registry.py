"""tf.RegisterGradient, tf.NotDifferentiable (tf.NoGradient) and tf.custom_gradient in graph mode.

A graph op takes the gradient registered under its type, or under the name a
`Graph.gradient_override_map` gave it when it was made (graph/registry.gradient_of); tf.gradients
then builds that gradient's ops like any other rule's. tf.custom_gradient is TF's own construction
on top of the two: the forward value and the arguments pass through one IdentityN op whose gradient,
registered under a fresh name, is the user's grad_fn (the ops f made get no gradient of their own).
"""
import functools
import inspect
import itertools

from tinyflow.api import nest
from tinyflow.graph.core import GraphKeys, Tensor, get_default_graph
from tinyflow.graph.registry import register_gradient
from tinyflow.ops.core.base import convert_to_tensor, make_op_raw
from tinyflow.runtime.eager import backprop
from tinyflow.runtime.eager.context import executing_eagerly

_UIDS = itertools.count(1)


class RegisterGradient:
    """Decorator: `@tf.RegisterGradient("MyGrad") def _grad(op, grad): ...` registers the gradient of op
    type "MyGrad" (or of ops made under `gradient_override_map({"Sign": "MyGrad"})`). The function gets
    the op and one gradient per output and returns one gradient (or None) per input."""

    def __init__(self, op_type):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, f):
        register_gradient(self._op_type, f)
        return f


def NotDifferentiable(op_type):
    """Declares ops of type `op_type` to have no gradient: tf.gradients passes over them."""
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    register_gradient(op_type, None)


NoGradient = NotDifferentiable


def custom_gradient(f):
    """Decorator: f(*args) returns (y, grad_fn), and gradients of y are grad_fn(*dy) (one per arg)
    instead of the derivative of what f computed. A grad_fn with a `variables` keyword argument also
    gets the variables f read and returns (input grads, variable grads)."""
    eager = backprop.custom_gradient(f)

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        if executing_eagerly():
            return eager(*args, **kwargs)
        return _graph_mode(f, args, kwargs)
    return decorated


def _graph_mode(f, args, kwargs):
    graph = get_default_graph()
    args = [convert_to_tensor(a) for a in args]
    mark = len(graph._ops)
    result, grad_fn = f(*args, **kwargs)
    spec = inspect.getfullargspec(grad_fn)
    variables = _variables_read(graph, graph._ops[mark:], args) if (
        "variables" in spec.args or "variables" in spec.kwonlyargs or spec.varkw) else []
    flat = [convert_to_tensor(t) for t in nest.flatten(result)]

    def grad(*grads):
        if variables:
            input_grads, variable_grads = grad_fn(*grads, variables=variables)
            if len(variable_grads) != len(variables):
                raise ValueError("Must return gradient for each variable from @custom_gradient grad_fn.")
        else:
            input_grads, variable_grads = grad_fn(*grads), []
        input_grads = nest.flatten(input_grads)
        if len(input_grads) != len(args):
            raise ValueError("custom_gradient's grad_fn returned %d gradients for %d arguments"
                             % (len(input_grads), len(args)))
        return list(input_grads) + list(variable_grads)
    return nest.pack_sequence_as(result, with_gradient(flat, args + [v.value() for v in variables], grad))


def with_gradient(outputs, inputs, grad):
    """`outputs` again, differentiated as grad(*output grads) -> one gradient per input: outputs and
    inputs pass through one IdentityN op whose gradient (registered under a fresh name) gives None to
    the outputs' own computation and grad's results to the inputs."""
    name = "CustomGradient-%d" % next(_UIDS)
    register_gradient(name, lambda op, *grads: [None] * len(outputs) + list(grad(*grads[:len(outputs)])))
    with get_default_graph().gradient_override_map({"IdentityN": name}):
        return make_op_raw("IdentityN", list(outputs) + list(inputs)).outputs[:len(outputs)]


def _variables_read(graph, ops, args):
    """The variables whose values the ops f made read (directly or through a read Identity)."""
    by_op = {v.op: v for v in graph.get_collection(GraphKeys.GLOBAL_VARIABLES) + graph.get_collection(
        GraphKeys.LOCAL_VARIABLES)}
    found = []
    for op in ops:
        for t in op.inputs:
            source = t.op.inputs[0].op if t.op.type == "Identity" and t.op.inputs else t.op
            v = by_op.get(source)
            if v is not None and isinstance(t, Tensor) and t not in args and v not in found:
                found.append(v)
    return found
