"""tf.experimental: TF 1.15's two functional-graph switches; they change nothing in tinyflow."""
import contextlib

_STATE = {"output_all_intermediates": None}


@contextlib.contextmanager
def function_executor_type(executor_type):
    """Runs the functions made inside with `executor_type` (tinyflow has one executor: XLA)."""
    yield


def output_all_intermediates(state):
    """Whether tf.cond / tf.while_loop v2 output their intermediates (recorded; tinyflow differentiates its
    bodies itself)."""
    _STATE["output_all_intermediates"] = state
