"""The function-style gradients of tf.contrib.eager (implicit_gradients, gradients_function, ...)
and the optimizers' compute_gradients while executing eagerly, all built on GradientTape."""
import functools

from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.runtime.eager.context import executing_eagerly
from tinyflow.runtime.eager import tape as _tape
from tinyflow.runtime.eager.execute import EagerOp
from tinyflow.runtime.eager.tape import GradientTape


def implicit_value_and_gradients(f):
    """fn(*args) -> (f(*args), [(gradient, variable)]) for the trainable variables f reads."""
    @functools.wraps(f)
    def grad_fn(*args, **kwargs):
        with GradientTape() as tape:
            value = f(*args, **kwargs)
        variables = tape.watched_variables()
        if not variables:
            raise ValueError("No trainable variables were accessed while the function was being computed.")
        grads = tape.gradient(value, list(variables))
        return value, list(zip(grads, variables))
    return grad_fn


def implicit_gradients(f):
    """fn(*args) -> [(gradient, variable)] for the trainable variables f reads."""
    value_and_grads = implicit_value_and_gradients(f)

    @functools.wraps(f)
    def grad_fn(*args, **kwargs):
        return value_and_grads(*args, **kwargs)[1]
    return grad_fn


def value_and_gradients_function(f, params=None):
    """fn(*args) -> (f(*args), [gradient of f with respect to each argument in `params`]).

    params: the positions (or names) of the arguments to differentiate; default all."""
    @functools.wraps(f)
    def grad_fn(*args, **kwargs):
        names = f.__code__.co_varnames[:f.__code__.co_argcount] if hasattr(f, "__code__") else ()
        wanted = range(len(args)) if params is None else [names.index(p) if isinstance(p, str) else p
                                                           for p in params]
        args = list(args)
        with GradientTape() as tape:
            for i in wanted:
                args[i] = convert_to_tensor(args[i])
                tape.watch(args[i])
            value = f(*args, **kwargs)
        if value is None:
            raise ValueError("Cannot differentiate a function that returns None; did you forget to return a value "
                             "from %s?" % getattr(f, "__name__", f))
        return value, tape.gradient(value, [args[i] for i in wanted])
    return grad_fn


def gradients_function(f, params=None):
    """fn(*args) -> [gradient of f with respect to each argument in `params` (default all)]."""
    value_and_grads = value_and_gradients_function(f, params)

    @functools.wraps(f)
    def grad_fn(*args, **kwargs):
        return value_and_grads(*args, **kwargs)[1]
    return grad_fn


def optimizer_gradients(optimizer, loss, var_list, grad_loss):
    """Optimizer.compute_gradients while executing eagerly (None in graph mode): `loss` is a callable
    run on a tape; the variables are var_list, or those the loss read."""
    if not executing_eagerly():
        return None
    if not callable(loss):
        raise RuntimeError("`loss` passed to Optimizer.compute_gradients should be a function when eager "
                           "execution is enabled.")
    with GradientTape() as tape:
        if var_list is not None:
            tape.watch(list(var_list))
        value = loss()
    variables = list(var_list) if var_list is not None else list(tape.watched_variables())
    if not variables:
        raise ValueError("No variables to optimize.")
    grads = tape.gradient(value, variables, output_gradients=grad_loss)
    return list(zip(grads, variables))


def custom_gradient(f):
    """tf.custom_gradient (eager mode): f(*args) returns (y, grad_fn) and tapes differentiate y with
    grad_fn(*dy) -> one gradient per argument, instead of differentiating what f did."""
    @functools.wraps(f)
    def decorated(*args, **kwargs):
        if not executing_eagerly():
            raise NotImplementedError("tinyflow's tf.custom_gradient works in eager mode only")
        args = [convert_to_tensor(a) for a in args]
        active = list(_tape.ACTIVE)
        del _tape.ACTIVE[:]  # what f does is not recorded: grad_fn stands for it
        try:
            result, grad_fn = f(*args, **kwargs)
        finally:
            _tape.ACTIVE.extend(active)
        flat = _tape._flatten(result)
        op = EagerOp(flat[0].graph, "CustomGradient", "CustomGradient", args, {})
        op._outputs = flat

        def rule(op, *dys):
            grads = grad_fn(*dys)
            return list(grads) if isinstance(grads, (list, tuple)) else [grads]
        op._grad = rule
        if _tape.ACTIVE:
            _tape.record(op)
        return result
    return decorated
