"""recompute: gradient checkpointing (Chen et al. 2016), a rewrite tf.gradients applies. No JAX.

tf.gradients(ys, xs, checkpoints=...) keeps only the checkpointed forward values for the backward
pass; every other forward value a gradient rule reads is recomputed from the checkpoints when the
backward pass reaches it:

1. choose the kept tensors (`choose`): a list the user gave, or a policy:
   "sqrt"   Chen's sqrt(n): every k-th of the n narrowest cuts of the forward region, k = sqrt(n);
   "memory" Chen's greedy segments, the threshold that gives the smallest estimated peak;
   "speed"  only cheap ops are recomputed: the outputs of every op that is not elementwise (an
            OpDef that declares no inplace pair) are kept.
   Ops that cannot run twice (stateful, random, host, checks, control flow) always keep theirs.
2. segments: the ops to recompute, in connected groups (`segments`). One Recompute op per group
   (ops/recompute_ops.py) recomputes its values from what it reads outside the group.
3. while tf.gradients walks back (`Rewriter`): just before the gradient rule of an op that reads
   a group's values, the group's Recompute op is made, gated on the op's incoming gradient; the
   ops the rule builds read the recomputed values instead of the forward ones. At the end each
   Recompute op keeps only the outputs something reads.

The forward values no gradient op reads any more die after the forward pass: that is the saving.
"""
import math

import numpy as np

from tinyflow.graph.registry import get_op_def

POLICIES = ("sqrt", "memory", "speed")
RECOMPUTE_GRAD_KEY = "recompute_grad_tensors"   # graph collection of tf.recompute_grad's block values

# A cost model for the extra FLOPs: op type -> flops(in_shapes, out_shapes). Ops not listed cost
# one FLOP per output element (elementwise). Like TF's RegisterStatistics("flops").
FLOPS = {
    "MatMul": lambda i, o, a: 2 * _n(o[0]) * (i[0][0] if a.get("transpose_a") else i[0][-1]),
    "BatchMatMul": lambda i, o, a: 2 * _n(o[0]) * (i[0][-2] if a.get("adj_x") else i[0][-1]),
    "BatchMatMulV2": lambda i, o, a: 2 * _n(o[0]) * (i[0][-2] if a.get("adj_x") else i[0][-1]),
    "Conv2D": lambda i, o, a: 2 * _n(o[0]) * int(np.prod(i[1][:3])),
    "DepthwiseConv2dNative": lambda i, o, a: 2 * _n(o[0]) * int(np.prod(i[1][:2])),
}


def _n(shape):
    return int(np.prod(shape, dtype=np.int64))


def op_flops(op, shape_of):
    """Estimated FLOPs of one op; shape_of(tensor) -> tuple of ints (unknown dims already filled)."""
    ins = [shape_of(t) for t in op.inputs]
    outs = [shape_of(t) for t in op.outputs]
    rule = FLOPS.get(op.type)
    try:
        return int(rule(ins, outs, op.attrs)) if rule else sum(_n(s) for s in outs)
    except (IndexError, TypeError):
        return sum(_n(s) for s in outs)


def static_shape(t, unknown=1):
    """t's static shape with unknown dimensions taken as `unknown` (an estimate for planning)."""
    if t.shape.ndims is None:
        return (unknown,)
    return tuple(unknown if d is None else d for d in t.shape.as_list())


def static_bytes(t, unknown=1):
    return _n(static_shape(t, unknown)) * t.dtype.size


# ---- 1. which ops may run twice, which tensors to keep ---------------------------------------------
def recomputable(op):
    """An op whose values can be computed again and come out the same: pure, in the jitted function."""
    d = get_op_def(op.type)
    if d.stateful or d.static or d.host is not None or d.check or d.ref_inputs:
        return False
    if d.lower is None or "body" in op.attrs or "branches" in op.attrs:
        return False   # control flow keeps its values: its gradient reads its own forward state
    return True


def forward_ops(between_ops):
    """The ops of the forward region that could be recomputed, in topological order."""
    return [op for op in between_ops if recomputable(op)]


def articulations(ops):
    """The narrowest cuts of the forward region, in order: [(op, tensors)], where `tensors` are all
    the region's values computed up to `op` and read after it, and there are few of them (see
    below). A chain (an MLP) has cuts of one tensor, an unrolled LSTM of two (c and h). Chen's
    candidates."""
    pos = {op: i for i, op in enumerate(ops)}
    last = {}
    for i, op in enumerate(ops):
        for t in op.inputs:
            if t.op in pos:
                last[t] = max(last.get(t, 0), i)
    live, found = {}, []        # live: value -> last position reading it, for values read later
    for i, op in enumerate(ops):
        for t in op.outputs:
            if last.get(t, i) > i:
                live[t] = last[t]
        for t in [t for t, end in live.items() if end <= i]:
            del live[t]
        if live:
            found.append((op, tuple(live)))
    # the narrowest width that still leaves enough cuts to choose from (sqrt(ops) of them): an
    # unrolled LSTM has cuts of one tensor only at its ends, of two (c, h) at every step
    enough = max(4, math.sqrt(len(ops)))
    width = 0
    for width in sorted({len(ts) for _, ts in found}):
        if sum(len(ts) <= width for _, ts in found) >= enough:
            break
    return [(op, ts) for op, ts in found if len(ts) <= width]


def chen_greedy(ops, threshold, size_of, cuts=None):
    """Chen's greedy: walk the cuts (default: articulations(ops)); once the values computed since
    the last kept cut pass `threshold` bytes, keep the current cut's values. Returns the kept tensors."""
    cut_at = dict(articulations(ops) if cuts is None else cuts)
    kept, acc = [], 0
    for op in ops:
        acc += sum(size_of(t) for t in op.outputs)
        if op in cut_at and acc > threshold:
            kept.extend(cut_at[op])
            acc = 0
    return kept


def estimate_peak(ops, kept, size_of):
    """Chen's estimate of the activation memory: kept values plus the largest segment recomputed."""
    kept = set(kept)
    segs = segments(ops, kept)
    biggest = max([sum(size_of(t) for op in s for t in op.outputs) for s in segs], default=0)
    return sum(size_of(t) for t in kept) + biggest


def choose(policy, ops, size_of=None):
    """The tensors to keep under a policy (see the module docstring), or the user's list."""
    size_of = size_of or static_bytes
    if not isinstance(policy, str):
        return list(policy)
    if policy not in POLICIES:
        raise ValueError("checkpoints must be None, a list of tensors or one of %s; got %r"
                         % (", ".join(repr(p) for p in POLICIES), policy))
    if policy == "speed":
        return [t for op in ops if not get_op_def(op.type).inplace for t in op.outputs]
    cuts = articulations(ops)
    if policy == "sqrt":
        k = max(1, int(round(math.sqrt(len(cuts)))))
        return [t for _, ts in cuts[k - 1::k] for t in ts]
    # "memory": thresholds from the smallest cut's bytes to all values (48, geometric: big graphs
    # stay fast); the smallest estimate wins
    total = sum(size_of(t) for op in ops for t in op.outputs)
    unit = max(1, min([sum(size_of(t) for t in ts) for _, ts in cuts], default=1))
    best = None
    for th in np.unique(np.geomspace(unit, max(total, unit), 48).astype(np.int64)):
        kept = chen_greedy(ops, th, size_of, cuts)
        est = estimate_peak(ops, kept, size_of)
        if best is None or est < best[0]:
            best = (est, kept)
    return best[1] if best else []


# ---- 2. segments -------------------------------------------------------------------------------------
def segments(ops, kept):
    """The ops to recompute (none of their outputs kept), in connected groups, each in order."""
    kept = set(kept)
    rec = [op for op in ops if not any(t in kept for t in op.outputs)]
    parent = {op: op for op in rec}

    def find(op):
        while parent[op] is not op:
            parent[op] = parent[parent[op]]
            op = parent[op]
        return op
    for op in rec:
        for t in op.inputs:
            if t.op in parent:
                parent[find(t.op)] = find(op)
    groups = {}
    for op in rec:      # rec is in topological order, and so is each group
        groups.setdefault(find(op), []).append(op)
    return list(groups.values())


# ---- 3. the rewrite, driven by tf.gradients --------------------------------------------------------------
class Rewriter:
    """Recomputes the segments of `between_ops` (the ops tf.gradients differentiates) for `checkpoints`."""

    def __init__(self, graph, between_ops, checkpoints, recompute_only=None):
        self.graph = graph
        ops = forward_ops(between_ops)
        if recompute_only is not None:      # tf.recompute_grad blocks: recompute their values only
            kept = [t for op in ops for t in op.outputs if t not in recompute_only]
        else:
            kept = choose(checkpoints, ops)
        self.segments = segments(ops, kept)
        self.segment_of = {}      # recomputed forward tensor -> segment index
        for k, seg in enumerate(self.segments):
            for op in seg:
                for t in op.outputs:
                    self.segment_of[t] = k
        self.made = {}            # segment index -> Recompute op
        self.remap = {}           # forward tensor -> recomputed tensor (segments made so far)

    def before(self, op, out_grads):
        """Makes the Recompute op of every segment `op`'s gradient rule may read, gated on out_grads."""
        touched = {self.segment_of[t] for t in (*op.inputs, *op.outputs) if t in self.segment_of}
        gate = next((g for g in out_grads if g is not None and g.dtype.is_floating), None)
        for k in sorted(touched - set(self.made)):
            if gate is not None:
                self._make(k, gate)

    def _make(self, k, gate):
        seg = self.segments[k]
        inside = {t for op in seg for t in op.outputs}
        inputs = []
        for op in seg:
            for t in op.inputs:
                if t not in inside and t not in inputs:
                    inputs.append(t)
        outputs = [t for op in seg for t in op.outputs]
        attrs = {"ops": list(seg), "inputs": inputs, "outputs": outputs, "Tout": [t.dtype for t in outputs],
                 "output_shapes": [t.shape for t in outputs]}
        r = self.graph.create_op("Recompute", [gate] + inputs, attrs, name="Recompute")
        self.made[k] = r
        self.remap.update(zip(outputs, r.outputs))

    def after(self, mark):
        """The ops made since graph._ops[mark] read recomputed values instead of forward ones."""
        for op in self.graph.ops[mark:]:
            if op.type == "Recompute":
                continue
            inputs = list(op.inputs)
            for i, t in enumerate(inputs):
                new = self.remap.get(t)
                if new is not None:
                    inputs[i] = new
                    t._consumers.remove(op)
                    new._consumers.append(op)
            op._inputs = tuple(inputs)

    def finish(self):
        """Each Recompute op keeps the outputs something reads; returns the Recompute ops."""
        for r in self.made.values():
            keep = [k for k, t in enumerate(r._outputs) if t._consumers]
            r._outputs = tuple(r._outputs[k] for k in keep)
            for j, t in enumerate(r._outputs):
                t._value_index = j
            for key in ("outputs", "Tout", "output_shapes"):
                r.attrs[key] = [r.attrs[key][k] for k in keep]
            r.attrs["ops"] = needed_ops(r.attrs["ops"], r.attrs["outputs"])
            r.attrs["flops"] = recompute_flops(r)
        return list(self.made.values())


def needed_ops(ops, outputs):
    """The ops of a segment that its outputs depend on."""
    need = set(outputs)
    keep = []
    for op in reversed(ops):
        if any(t in need for t in op.outputs):
            keep.append(op)
            need.update(op.inputs)
    return keep[::-1]


def recompute_flops(r, shape_of=None):
    """Estimated FLOPs of Recompute op r's segment (static shapes, unknown dims as 1, by default)."""
    shape_of = shape_of or static_shape
    return sum(op_flops(op, shape_of) for op in r.attrs["ops"])


def extra_flops(ops, shape_of=None):
    """The recomputation FLOPs of a fetch set's ops (the Recompute ops among them)."""
    return sum(recompute_flops(op, shape_of) for op in ops if op.type == "Recompute")
