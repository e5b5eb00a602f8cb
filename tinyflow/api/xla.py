"""tf.xla (TF 1.15): every fetch set tinyflow runs is already one XLA computation, so `jit_scope` marks
nothing new and `compile(computation, inputs)` builds the computation's ops in the graph (XLA compiles
them with the rest of the step)."""
import contextlib
import types

from tinyflow.graph.core import Operation, Tensor, name_scope
from tinyflow.ops.core import array_ops
from tinyflow.ops.core.base import convert_to_tensor


@contextlib.contextmanager
def jit_scope(compile_ops=True, separate_compiled_gradients=False):
    """The ops built inside are compiled by XLA: as all of tinyflow's are."""
    yield


def compile(computation, inputs=None):  # noqa: A001 (TF's name)
    """computation(*inputs) built in the graph: its tensor outputs as a list (each an Identity named
    output_<i>, as TF's), a no-op when it returns None or only ops."""
    with name_scope(None, "XlaCompile"):
        outputs = computation(*[convert_to_tensor(x) for x in (inputs or [])])
    if outputs is None or isinstance(outputs, Operation):
        return array_ops.no_op()
    flat = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    tensors = [t for t in flat if not isinstance(t, Operation)]
    if not tensors:
        return array_ops.no_op()
    return [array_ops.identity(t if isinstance(t, Tensor) else convert_to_tensor(t), name="output_%d" % i)
            for i, t in enumerate(tensors)]


experimental = types.SimpleNamespace(jit_scope=jit_scope, compile=compile)
