"""The hooks the layer that owns JAX installs, so that graph/ and ops/ never import it.

graph/ and ops/ are plain Python and numpy: a student can read and test them without JAX. Two
things they need are computed by the backend (lower/, which owns JAX), the way JAX's own core
asks the current trace: evaluating an op's lowering rule on constant values (folding shape
computations while a graph is built) and turning a branch or loop body into a function (the
lowering rules of tf.cond and tf.while_loop). lower/ calls `install` when it is imported.

    backend().fold(op, values)       -> one numpy value per output, or raises NotFoldable
    backend().function(subfn, flags=False) -> f(key, *inputs) -> tuple of outputs (a lowered body;
                                        flags: and its error flag, see lower/subgraph.py)
    backend().carries(), report(flag) -> whether the body being traced hands error flags out; hand one
    backend().iteration_key(key, i)  -> the run key of loop iteration i
"""


class NotFoldable(Exception):
    """An op's value cannot be computed while building (unknown input, too big, not a number)."""


_BACKEND = None


def install(backend):
    """Installs the backend (lower/ does this on import); returns the one it replaces."""
    global _BACKEND
    old, _BACKEND = _BACKEND, backend
    return old


def backend():
    """The installed backend, or None when only graph/ (and ops/) are loaded."""
    return _BACKEND
