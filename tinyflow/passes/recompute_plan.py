"""plan_recompute: choose gradient checkpoints under a memory budget, predicted by tinyflow's planner.

    plan = tinyflow.memory.plan_recompute(loss, budget_bytes=16 << 20, feed_shapes={x: [1024, 256]})
    train = opt.minimize(loss, checkpoints=plan.checkpoints)
    plan.predicted_peak_bytes, plan.extra_flops, plan.fits

Each candidate set of checkpoints is built as a real gradient graph (tf.gradients with those
checkpoints, under the name scope 'plan_recompute'; never run) and planned by
passes/memory.py for the feed shapes: the prediction is the planned arena of the fetch set
{loss, gradients}, the figure `sess.memory_report` puts beside XLA's temp bytes.

Solvers:
  "greedy"  Chen et al.'s greedy segmentation for a range of thresholds (and Chen's sqrt(n) choice);
            of the candidates under the budget, the fewest extra FLOPs wins (no budget: the smallest
            peak).
  "milp"    Checkmate-style exact choice with scipy.optimize.milp (needs scipy): a binary per
            cut of the forward region (keep its values or not); minimise the recomputed FLOPs
            subject to the kept bytes plus the largest segment's recomputed bytes staying under
            the budget (a segment lies between two kept cuts, one binary per interval; a
            continuous M bounds the largest used one). Its answer is planned together with the
            greedy candidates; the best of all wins.
"""

import numpy as np

from tinyflow.graph.core import GraphKeys, Tensor
from tinyflow.passes import gradients as gradients_pass
from tinyflow.passes import memory as memory_pass
from tinyflow.passes import recompute as recompute_pass
from tinyflow.passes.infer import infer
from tinyflow.passes.prune import prune


class RecomputePlan:
    """The chosen checkpoints with tinyflow's prediction. candidates: [(n kept, peak bytes, flops)]."""

    def __init__(self, checkpoints, predicted_peak_bytes, extra_flops, fits, budget_bytes, solver, candidates):
        self.checkpoints = checkpoints
        self.predicted_peak_bytes = predicted_peak_bytes
        self.extra_flops = extra_flops
        self.fits = fits
        self.budget_bytes = budget_bytes
        self.solver = solver
        self.candidates = candidates

    def __repr__(self):
        return ("<RecomputePlan %d checkpoints, predicted arena %.2f MiB, %.3g extra GFLOPs, budget %s, fits %s, %s>"
                % (len(self.checkpoints), self.predicted_peak_bytes / 2.0 ** 20, self.extra_flops / 1e9,
                   "none" if self.budget_bytes is None else "%.2f MiB" % (self.budget_bytes / 2.0 ** 20),
                   self.fits, self.solver))


def _tensor(t):
    return t._as_graph_element() if hasattr(t, "_as_graph_element") and not isinstance(t, Tensor) else t


def predict(loss, xs, checkpoints, feed_shapes):
    """(planned arena bytes, extra FLOPs) of the fetch set {loss, gradients of loss wrt xs} with
    `checkpoints` (None: no recomputation), for the feed shapes."""
    graph = loss.graph
    with graph.as_default(), graph.name_scope("plan_recompute"):
        grads = gradients_pass.gradients(loss, xs, checkpoints=checkpoints)
    fetches = [loss] + [g for g in grads if g is not None]
    feeds = [_tensor(k) for k in feed_shapes]
    shapes = infer(fetches, {_tensor(k): v for k, v in feed_shapes.items()})
    known = {t: s for t, (s, _) in shapes.items()}

    def shape_of(t):
        s = known.get(t, t.shape)
        if not s.is_fully_defined() and t.op.type == "Recompute":   # its forward value's shape
            s = known.get(t.op.attrs["outputs"][t.value_index], s)
        if not s.is_fully_defined():
            raise ValueError("plan_recompute: shape inference with feed_shapes leaves the shape of %s (op: '%s') "
                             "not fully known (%s): its size depends on values, not on shapes"
                             % (t.name, t.op.type, s.as_proto_str()))
        return tuple(s.as_list())
    sub = prune(fetches, feeds)
    sizes = {}
    for t in feeds:
        sizes[t] = int(np.prod(shape_of(t), dtype=np.int64)) * t.dtype.size
    for op in memory_pass.executed_ops(sub):
        for t in (op.outputs if not op.op_def.ref_inputs else []):
            if t not in sizes:
                sizes[t] = int(np.prod(shape_of(t), dtype=np.int64)) * t.dtype.size
        for t in op.inputs:
            if t not in sizes and t.op.type == "VariableV2":
                sizes[t] = int(np.prod(shape_of(t), dtype=np.int64)) * t.dtype.size
    plan = memory_pass.plan_memory(sub, sizes)
    return plan.planned_bytes, recompute_pass.extra_flops(sub.ops, shape_of)


def _size_fn(loss, feed_shapes):
    """Bytes of each forward value for the feed shapes (unknown dimensions as 1)."""
    shapes = infer([loss], {_tensor(k): v for k, v in feed_shapes.items()})

    def size_of(t):
        s = shapes.get(t, (t.shape,))[0]
        dims = [1 if d is None else d for d in s.as_list()] if s.ndims is not None else [1]
        return int(np.prod(dims, dtype=np.int64)) * t.dtype.size
    return size_of


def _check_feeds(loss, feed_shapes):
    """A clear error for a placeholder the loss reads whose shape is neither static nor in feed_shapes."""
    fed = {_tensor(k) for k in feed_shapes}
    for op in prune([loss], list(fed)).ops:
        t = op.outputs[0] if op.type in ("Placeholder", "PlaceholderWithDefault") else None
        if t is not None and t not in fed and not t.shape.is_fully_defined() and op.type == "Placeholder":
            raise ValueError("plan_recompute: the shape of placeholder %s is not fully known (%s); give it in "
                             "feed_shapes" % (t.name, t.shape.as_proto_str()))


def plan_recompute(loss, budget_bytes=None, feed_shapes=None, var_list=None, solver="greedy", max_candidates=12):
    """Chooses checkpoints for the gradients of `loss` (wrt var_list, default the trainable
    variables) so that tinyflow's predicted arena stays under `budget_bytes` with the fewest
    extra FLOPs (no budget: the smallest arena). Returns a RecomputePlan (plan.checkpoints goes to
    tf.gradients / minimize's checkpoints=). feed_shapes: {placeholder: shape} for unknown dims.
    When no candidate fits, plan.fits is False and the plan is the smallest one found."""
    loss = _tensor(loss)
    feed_shapes = dict(feed_shapes or {})
    graph = loss.graph
    if var_list is None:
        var_list = graph.get_collection(GraphKeys.TRAINABLE_VARIABLES)
    xs = [_tensor(v) for v in var_list]
    if not xs:
        raise ValueError("plan_recompute: no variables to differentiate")
    _check_feeds(loss, feed_shapes)
    between = gradients_pass._between([loss], xs)
    ops = recompute_pass.forward_ops([graph._ops[i] for i in sorted(between)])
    size_of = _size_fn(loss, feed_shapes)
    if solver == "milp":
        exact = milp_checkpoints(ops, budget_bytes, size_of)   # then the greedy ones: never worse than greedy
        candidates = ([exact] if exact is not None else []) + greedy_candidates(ops, size_of, max_candidates)
    elif solver == "greedy":
        candidates = greedy_candidates(ops, size_of, max_candidates)
    else:
        raise ValueError("plan_recompute: solver must be 'greedy' or 'milp', got %r" % (solver,))
    results = []
    for kept in candidates:
        peak, flops = predict(loss, xs, kept, feed_shapes)
        results.append((kept, peak, flops))
    fitting = [r for r in results if budget_bytes is None or r[1] <= budget_bytes]
    if budget_bytes is None:
        best = min(results, key=lambda r: (r[1], r[2]))
    elif fitting:
        best = min(fitting, key=lambda r: (r[2], r[1]))
    else:
        best = min(results, key=lambda r: (r[1], r[2]))
    return RecomputePlan(list(best[0]), best[1], best[2], bool(fitting), budget_bytes, solver,
                         [(len(k), p, f) for k, p, f in results])


def greedy_candidates(ops, size_of, max_candidates=12):
    """Chen's greedy for thresholds from one value's bytes to all of them (geometric), plus sqrt(n)
    and keeping every cut; distinct sets only, at most max_candidates + 2."""
    cuts = recompute_pass.articulations(ops)
    if not cuts:
        return [[]]
    total = sum(size_of(t) for op in ops for t in op.outputs)
    lo = max(1, min(sum(size_of(t) for t in ts) for _, ts in cuts))
    out, seen = [], set()
    for th in np.geomspace(lo, max(total, lo + 1), max_candidates):
        kept = recompute_pass.chen_greedy(ops, th, size_of, cuts)
        if frozenset(kept) not in seen:
            seen.add(frozenset(kept))
            out.append(kept)
    for kept in (recompute_pass.choose("sqrt", ops), [t for _, ts in cuts for t in ts]):
        if frozenset(kept) not in seen:
            seen.add(frozenset(kept))
            out.append(kept)
    return out


def milp_checkpoints(ops, budget_bytes, size_of, max_positions=40, time_limit=10):
    """Checkmate-style exact choice over the chain of cuts (recompute.articulations; scipy.optimize.milp).

    Positions 0..n-1 are the cuts in order, with the region's start (-1) and end (n) always kept.
    Binary k_i: cut i kept. Binary s_ab (a < b): the segment between kept a and kept b, with
    nothing kept in between, is used. Each kept position starts exactly one used segment and ends
    exactly one (flow along the chain). Cost: recomputed FLOPs (elementwise count: every value in
    a segment computed again). Memory: kept bytes + the largest used segment's bytes <= budget
    (Chen's estimate, the same as recompute.estimate_peak). Chains longer than max_positions
    cuts are coarsened to every k-th cut; HiGHS stops after time_limit seconds (best found).
    """
    try:
        from scipy.optimize import Bounds, LinearConstraint, milp
    except ImportError:
        raise ImportError("plan_recompute(solver='milp') needs scipy: pip install scipy") from None
    cuts = recompute_pass.articulations(ops)
    if len(cuts) > max_positions:            # a coarser chain keeps the MILP small (HiGHS, seconds)
        step = -(-len(cuts) // max_positions)
        cuts = cuts[step - 1::step]
    n = len(cuts)
    if n == 0:
        return []
    # bytes computed between consecutive cuts (the ops after cut i-1 up to and including cut i)
    pos = {op: i for i, (op, _) in enumerate(cuts)}
    chunk = [0] * (n + 1)
    i = 0
    for op in ops:
        chunk[i] += sum(size_of(t) for t in op.outputs)
        if op in pos:
            i = pos[op] + 1
    cut_bytes = [sum(size_of(t) for t in ts) for _, ts in cuts]
    budget = float(budget_bytes) if budget_bytes is not None else float(sum(chunk))
    seg_of = {}
    for a in range(-1, n):
        for b in range(a + 1, n + 1):
            seg = sum(chunk[a + 1:b + 1]) - (cut_bytes[b] if b < n else 0)   # bytes recomputed
            if seg > budget:
                break                        # longer segments from a are larger still
            seg_of[(a, b)] = seg
    pairs = list(seg_of)
    nv = n + len(pairs) + 1                  # k (kept cuts), s (segments used), M (largest segment)
    m = nv - 1
    cost = np.zeros(nv)
    rows, lo, hi = [], [], []
    for j, ab in enumerate(pairs):
        cost[n + j] = seg_of[ab]            # FLOPs ~ values recomputed (elementwise estimate)
        row = np.zeros(nv)
        row[m], row[n + j] = 1, -seg_of[ab]  # M >= the bytes of every used segment
        rows.append(row)
        lo.append(0)
        hi.append(np.inf)
    row = np.zeros(nv)
    row[:n], row[m] = cut_bytes, 1           # kept bytes + the largest segment <= budget
    rows.append(row)
    lo.append(-np.inf)
    hi.append(budget)
    for p in range(-1, n + 1):              # flow along the chain: in == out == kept(p)
        end, start = np.zeros(nv), np.zeros(nv)
        for j, (a, b) in enumerate(pairs):
            end[n + j] = b == p
            start[n + j] = a == p
        if 0 <= p < n:
            end[p] = start[p] = -1
            rows += [end, start]
            lo += [0, 0]
            hi += [0, 0]
        else:
            rows.append(start if p == -1 else end)
            lo.append(1)
            hi.append(1)
    integrality = np.ones(nv)
    integrality[m] = 0
    ub = np.ones(nv)
    ub[m] = np.inf
    res = milp(cost, constraints=LinearConstraint(np.array(rows), lo, hi), integrality=integrality,
               bounds=Bounds(0, ub), options={"time_limit": time_limit})
    if res.x is None or res.status not in (0, 1):   # no solution found under the budget
        return None
    return [t for (_, ts), k in zip(cuts, res.x[:n]) if k > 0.5 for t in ts]
