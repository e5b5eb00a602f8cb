"""tf.GradientTape: records the ops run eagerly on watched values and differentiates them with the
registry's gradient rules (OpDef.grad).

A tape records an op when one of its inputs is watched (a tensor passed to `watch`, a trainable
variable read while recording, or an output of an op already recorded); the op's outputs become
watched in turn. `gradient` walks the recorded ops backwards, as passes/gradients.py walks a
graph, calling each op's gradient rule. The rules build ops, which run eagerly too, so an outer
tape that watches the same values records the backward pass: nested tapes give second order.
"""
import contextlib

import numpy as np

from tinyflow.graph.registry import NOT_SET, get_op_def
from tinyflow.ops.core import array_ops, math_ops
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.runtime.eager.tensor import EagerResource, EagerTensor

ACTIVE = []  # the tapes recording now, innermost last


def record(op):
    """Called by the executor after an op with a gradient rule has run."""
    for tape in ACTIVE:
        tape._record(op)


def read(variable, tensor):
    """Called when an eager variable is read: tapes watching it (or all trainable ones) track `tensor`."""
    for tape in ACTIVE:
        tape._read(variable, tensor)


def _flatten(x):
    if isinstance(x, dict):
        return [leaf for k in sorted(x) for leaf in _flatten(x[k])]
    if isinstance(x, (list, tuple)):
        return [leaf for v in x for leaf in _flatten(v)]
    return [x]


def _pack(template, flat):
    it = iter(flat)

    def build(s):
        if isinstance(s, dict):
            return type(s)((k, build(s[k])) for k in sorted(s))
        if isinstance(s, tuple) and hasattr(s, "_fields"):
            return type(s)(*[build(v) for v in s])
        if isinstance(s, (list, tuple)):
            return type(s)(build(v) for v in s)
        return next(it)
    return build(template)


class GradientTape:
    """Records operations for automatic differentiation (TF 1.15's tf.GradientTape).

    persistent: allow several `gradient` calls (a plain tape frees its record after the first).
    watch_accessed_variables: watch every trainable variable read while recording (default).
    """

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = persistent
        self._watch_accessed_variables = watch_accessed_variables
        self._recording = False
        self._reset()

    def _reset(self):
        self._ops = []         # recorded ops, in the order they ran
        self._watched = set()  # ids of the tensors whose gradients are tracked
        self._keep = []        # watched tensors not kept alive by a recorded op (their ids stay theirs)
        self._variables = []   # watched variables, in the order first watched
        self._var_ids = set()
        self._reads = {}       # id(variable) -> the tensors read from it while watched

    # ---- recording ---------------------------------------------------------------------------
    def __enter__(self):
        self._push()
        return self

    def __exit__(self, *exc):
        if self._recording:
            self._pop()

    def _push(self):
        if self._ops is None:
            self._reset()
        ACTIVE.append(self)
        self._recording = True

    def _pop(self):
        ACTIVE.remove(self)
        self._recording = False

    def _record(self, op):
        watched = self._watched
        for t in op._inputs:
            if id(t) in watched:
                self._ops.append(op)
                for o in op._outputs:
                    watched.add(id(o))
                return

    def _read(self, variable, tensor):
        if id(variable) not in self._var_ids:
            if not (self._watch_accessed_variables and variable.trainable):
                return
            self._watch_variable(variable)
        self._watched.add(id(tensor))
        self._keep.append(tensor)
        self._reads[id(variable)].append(tensor)

    def _watch_variable(self, variable):
        if id(variable) not in self._var_ids:
            self._var_ids.add(id(variable))
            self._variables.append(variable)
            self._reads[id(variable)] = []

    def watch(self, tensor):
        """Tracks gradients with respect to `tensor` (a tensor, a variable, or a nest of them)."""
        if self._ops is None:
            self._reset()
        for t in _flatten(tensor):
            if isinstance(t, EagerResource):
                self._watch_variable(t)
            elif isinstance(t, EagerTensor):
                self._watched.add(id(t))
                self._keep.append(t)
            else:
                raise ValueError("Passed in object of type %s, not tf.Tensor" % type(t).__name__)

    def watched_variables(self):
        """The variables this tape watches, in the order they were first watched."""
        return tuple(self._variables)

    @contextlib.contextmanager
    def stop_recording(self):
        """Ops run inside this block are not recorded."""
        if not self._recording:
            raise ValueError("Tape is not recording.")
        self._pop()
        try:
            yield
        finally:
            self._push()

    def reset(self):
        """Forgets everything recorded so far (the tape keeps recording if it was)."""
        self._reset()

    # ---- differentiation -----------------------------------------------------------------------
    def gradient(self, target, sources, output_gradients=None, unconnected_gradients="none"):
        """The gradient of (the sum of) `target` with respect to each source, nested like `sources`.

        A source the target does not depend on gets None (or zeros with unconnected_gradients='zero').
        """
        if self._ops is None:
            raise RuntimeError("GradientTape.gradient can only be called once on non-persistent tapes.")
        if unconnected_gradients not in ("none", "zero"):
            raise ValueError("Unknown value for unconnected_gradients: %r" % (unconnected_gradients,))
        if self._recording and not self._persistent:
            self._pop()  # TF: a plain tape stops recording once differentiated
        targets = [convert_to_tensor(t) for t in _flatten(target)]
        flat_sources = _flatten(sources)
        if output_gradients is None:
            seeds = [array_ops.ones_like(t) for t in targets]
        else:
            seeds = [array_ops.ones_like(t) if g is None else convert_to_tensor(g, dtype=t.dtype)
                     for t, g in zip(targets, _flatten(output_gradients))]
        grads = {}  # id(tensor) -> partial gradients
        for t, g in zip(targets, seeds):
            grads.setdefault(id(t), []).append(g)
        for op in reversed(self._ops):
            outs = op._outputs
            out_grads = [_sum(grads.get(id(o)), math_ops) for o in outs]
            if all(g is None for g in out_grads):
                continue
            rule = op._grad or get_op_def(op._type).grad  # op._grad: a tf.custom_gradient's own
            if rule is NOT_SET:
                raise LookupError("No gradient defined for operation '%s' (op type: %s)" % (op._name, op._type))
            for o, g in zip(outs, out_grads):
                if g is not None:
                    grads[id(o)] = [g]
            out_grads = [g if g is not None else array_ops.zeros_like(o) for g, o in zip(out_grads, outs)]
            in_grads = rule(op, *out_grads)
            for t, g in zip(op._inputs, in_grads):
                if g is not None and t.dtype.is_floating:
                    grads.setdefault(id(t), []).append(g)
        result = []
        for s in flat_sources:
            if isinstance(s, EagerResource):
                parts = [g for t in self._reads.get(id(s), ()) for g in grads.get(id(t), ())]
            else:
                s = convert_to_tensor(s)
                parts = grads.get(id(s))
            g = _sum(parts, math_ops)
            if g is None and unconnected_gradients == "zero":
                g = array_ops.zeros_like(s.read_value() if isinstance(s, EagerResource) else s)
            result.append(g)
        if not self._persistent:
            self._ops = None  # frees the record
        return _pack(sources, result)

    def jacobian(self, target, sources, unconnected_gradients="none", parallel_iterations=None,
                 experimental_use_pfor=True):
        """d target[i...] / d source, of shape target.shape + source.shape: one gradient per element of
        target, seeded with a one-hot output gradient."""
        target = convert_to_tensor(target)
        shape = target.shape.as_list()
        n = int(np.prod(shape))
        persistent, self._persistent = self._persistent, True  # one record serves every row
        try:
            rows = []
            for i in range(n):
                seed = np.zeros(n, target.dtype.np)
                seed[i] = 1
                rows.append(_flatten(self.gradient(target, sources, output_gradients=seed.reshape(shape),
                                                   unconnected_gradients="zero")))
        finally:
            self._persistent = persistent
        if not persistent:
            self._ops = None
        out = [array_ops.reshape(array_ops.stack([r[j] for r in rows]), shape + r0.shape.as_list())
               for j, r0 in enumerate(rows[0])]
        return _pack(sources, out)


def _sum(parts, math_ops):
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    return math_ops.add_n(parts)
