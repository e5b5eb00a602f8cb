"""memory: liveness, inplace and a storage plan for one fetch set, at TF-op granularity. No JAX.

The lineage is NNVM's PlanMemory (MXNet's memory notes) and XLA's buffer assignment. The pass
sees the ops one fetch set runs, in run order, and the byte size of every value they compute:

1. liveness: a value is live from the step that computes it to its last reader's step (fetched
   values: to the end). Both ends count, so an op's inputs and outputs coexist at its step.
2. inplace: an op's OpDef declares (input, output) pairs it may overwrite. The output takes the
   input's buffer when this op is the input's last reader and both have the same size and dtype.
   Values that share storage this way form one Buffer.
3. storage: each Buffer gets an offset in one arena, so that buffers live at the same step never
   overlap: NNVM's greedy allocator, then XLA's best fit over live ranges (two orders); the
   smallest arena wins. A researcher can pass their own planner function instead, or register one
   (register_planner; the interface is Interval in, offsets out: docs/memory.md).

The lower bound is the most bytes live at any step: no plan of this order and these buffers
can be smaller, so reaching it ends the search.

Feeds and variables are arguments of the function, outside the arena, and so are the new values
of updated variables (XLA writes them into the donated variable buffers).

    plan = plan_memory(sub, sizes)        # sizes: {Tensor: bytes} of the values the steps compute
    plan.planned_bytes, plan.lower_bound_bytes, plan.offset(t)
"""
import bisect
import collections
import heapq

import numpy as np

from tinyflow.graph.registry import get_op_def
from tinyflow.passes.minimalloc import arena_of, exact_planner


class Buffer:
    """One storage slot: the values that share it in place, one after another, and its live range."""

    __slots__ = ("id", "size", "start", "end", "values", "offset")

    def __init__(self, id, size, start, end, values):
        self.id, self.size, self.start, self.end, self.values = id, size, start, end, values
        self.offset = None

    def __repr__(self):
        return "Buffer(%d, %d bytes, steps %d..%d, %s)" % (self.id, self.size, self.start, self.end,
                                                          ", ".join(t.name for t in self.values))


class MemoryPlan:
    """The plan of one fetch set. Sizes in bytes; steps index `steps` (the ops, in run order).

    live[t] = (first step, last step) of every arena value; buffers carry the offsets; inplace lists
    (op, input, output) reuse decisions; timeline[s] is the bytes live at step s; optimal: True when
    no plan of these buffers is smaller (the lower bound reached, or minimalloc's search proved it),
    False when a search ran out of time, None when nothing says.
    """
    optimal = None

    def __init__(self, steps, live, buffers, inplace, timeline, arena, strategy, naive, lower_bound,
                 arena_no_inplace, lower_bound_no_inplace, arguments):
        self.steps = steps
        self.live = live
        self.buffers = buffers
        self.inplace = inplace
        self.timeline = timeline
        self.strategy = strategy
        self.arguments = arguments               # {Tensor: bytes} of feeds and variables read
        self.naive_bytes = naive
        self.lower_bound_bytes = lower_bound
        self.lower_bound_bytes_no_inplace = lower_bound_no_inplace
        self.planned_bytes = arena
        self.planned_bytes_no_inplace = arena_no_inplace
        self.argument_bytes = sum(arguments.values())
        self._buffer_of = {t: b for b in buffers for t in b.values}

    def buffer_of(self, t):
        return self._buffer_of[t]

    def sizes(self):
        """{Tensor: bytes} this plan was made from (arena values and arguments)."""
        out = dict(self.arguments)
        out.update((t, b.size) for b in self.buffers for t in b.values)
        return out

    def offset(self, t):
        """Byte offset of arena value t."""
        return self._buffer_of[t].offset

    def overlaps(self):
        """Pairs of buffers live at the same step whose bytes overlap: empty for a correct plan."""
        bad = []
        order = sorted(self.buffers, key=lambda b: b.start)
        for i, a in enumerate(order):
            for b in order[i + 1:]:
                if b.start > a.end:
                    break
                if a.offset < b.offset + b.size and b.offset < a.offset + a.size and a.size and b.size:
                    bad.append((a, b))
        return bad

    def __repr__(self):
        return ("<MemoryPlan %d steps, %d values in %d buffers, naive %d, lower bound %d, planned %d (%s)>"
                % (len(self.steps), len(self.live), len(self.buffers), self.naive_bytes, self.lower_bound_bytes,
                   self.planned_bytes, self.strategy))


# ---- 0. which ops run, which values live in the arena ---------------------------------------------
def executed_ops(sub):
    """The ops whose lowering rule runs, in run order (the rule lower/jax_backend.py follows)."""
    return [op for op in sub.ops if op in sub.rule_ops]


def arena_values(op, fed):
    """The outputs of a step that live in the arena: not fed, not an updated variable's new value."""
    if get_op_def(op.type).ref_inputs:
        return []
    return [t for t in op.outputs if t not in fed]


# ---- 1. liveness ------------------------------------------------------------------------------------
def liveness(steps, fetches, fed=()):
    """{arena value: [defining step, last step it is needed]}, in definition order."""
    fed = set(fed)
    live = {}
    for s, op in enumerate(steps):
        for t in op.inputs:
            if t in live:
                live[t][1] = s
        for t in arena_values(op, fed):
            live[t] = [s, s]
    end = len(steps) - 1
    for t in fetches:
        if t in live:
            live[t][1] = end   # a fetched value is returned: live to the end
    return live


# ---- 2. inplace -------------------------------------------------------------------------------------
def assign_inplace(live, sizes, inplace=True, fetches=()):
    """Groups values into Buffers. With `inplace`, an output joins its input's buffer when the OpDef
    allows it, the input dies at this step (and is not fetched), and size and dtype agree.
    Returns (buffers, decisions): decisions are (op, input, output) triples."""
    fetched = set(fetches)
    buffers, decisions, buf_of = [], [], {}
    step, taken = None, set()          # buffers the current op already reused (two outputs cannot share one)
    for t, (start, end) in live.items():    # in definition order, i.e. step by step
        op = t.op
        if start != step:
            step, taken = start, set()
        b = None
        for i, o in (get_op_def(op.type).inplace if inplace else ()):
            if o != t.value_index or i >= len(op.inputs):
                continue
            x = op.inputs[i]
            cand = buf_of.get(x)
            if (cand is not None and cand.id not in taken and cand.values[-1] is x and live[x][1] == start
                    and x not in fetched and sizes[x] == sizes[t] and x.dtype == t.dtype):
                b = cand
                decisions.append((op, x, t))
                break
        if b is None:
            b = Buffer(len(buffers), sizes[t], start, end, [t])
            buffers.append(b)
        else:
            b.values.append(t)
            b.end = end
        taken.add(b.id)
        buf_of[t] = b
    return buffers, decisions


def live_bytes(buffers, n_steps):
    """Bytes live at each step: each buffer adds its size over its range."""
    delta = np.zeros(n_steps + 1, np.int64)
    for b in buffers:
        delta[b.start] += b.size
        delta[b.end + 1] -= b.size
    return np.cumsum(delta)[:n_steps]


# ---- 3. storage: planner(buffers) -> one offset per buffer -------------------------------------------
def nnvm_greedy(buffers, match_range=16):
    """NNVM's allocator: walk the steps; a new buffer takes the free block of closest size within
    [size / match_range, size * match_range] (the smallest one that fits, else the largest one that
    does not, which grows), else a new block. A block is free again after its buffer's last step.
    The arena is the blocks side by side."""
    blocks = []              # block id -> size
    free = []                # sorted (size, block id) of free blocks: NNVM's multimap
    busy = []                # heap of (last step, block id)
    block_of = [None] * len(buffers)
    for i in sorted(range(len(buffers)), key=lambda i: (buffers[i].start, i)):
        b = buffers[i]
        while busy and busy[0][0] < b.start:
            k = heapq.heappop(busy)[1]
            bisect.insort(free, (blocks[k], k))
        j = bisect.bisect_left(free, (b.size, -1))
        if j < len(free) and free[j][0] <= b.size * match_range:
            k = free.pop(j)[1]                                  # smallest block that fits
        elif j > 0 and free[j - 1][0] >= b.size // match_range:
            k = free.pop(j - 1)[1]                              # largest smaller block: grows
            blocks[k] = b.size
        else:
            k = len(blocks)
            blocks.append(b.size)
        heapq.heappush(busy, (b.end, k))
        block_of[i] = k
    starts = np.concatenate([[0], np.cumsum(blocks, dtype=np.int64)])
    return [int(starts[k]) for k in block_of]


def best_fit_decreasing(buffers, by="size"):
    """XLA's heap simulator (global decreasing size, best fit): place buffers largest first; each goes
    into the smallest gap left by already placed buffers that overlap it in time, else on top.
    by="area": largest size x live steps first instead (long-lived buffers settle low)."""
    n = len(buffers)
    if by == "size":
        key = lambda i: (-buffers[i].size, buffers[i].start - buffers[i].end, i)
    else:
        key = lambda i: (-buffers[i].size * (buffers[i].end - buffers[i].start + 1), i)
    order = sorted(range(n), key=key)
    # the placed buffers, kept sorted by offset: rows are first step, last step, bytes [lo, hi)
    placed = np.empty((4, n), np.int64)
    first, last, lo, hi = placed
    near, later = np.empty(n, bool), np.empty(n, bool)
    offsets = [0] * n
    for k, i in enumerate(order):
        b = buffers[i]
        # the placed buffers live at the same time as b (numpy for speed: the loop runs n times)
        np.less_equal(first[:k], b.end, out=near[:k])
        np.greater_equal(last[:k], b.start, out=later[:k])
        np.logical_and(near[:k], later[:k], out=near[:k])
        idx = np.flatnonzero(near[:k])
        offset = _best_gap(lo[idx], hi[idx], b.size) if len(idx) else 0
        j = int(np.searchsorted(lo[:k], offset, side="right"))
        placed[:, j + 1:k + 1] = placed[:, j:k]
        placed[:, j] = (b.start, b.end, offset, offset + b.size)
        offsets[i] = offset
    return offsets


def _best_gap(lo, hi, size):
    """The start of the smallest gap of at least `size` bytes between byte ranges [lo, hi) sorted by
    lo, else the top of them all."""
    reach = np.maximum.accumulate(hi)                # top of everything below each gap
    gap_at = np.concatenate(([0], reach[:-1]))
    gap = lo - gap_at
    fits = np.flatnonzero(gap >= size)
    return int(gap_at[fits[np.argmin(gap[fits])]]) if len(fits) else int(reach[-1])


def side_by_side(buffers):
    """The naive plan: every buffer its own bytes (a baseline, and a plan that is surely right)."""
    offsets, top = [], 0
    for b in buffers:
        offsets.append(top)
        top += b.size
    return offsets


def best_fit_area(buffers):
    """best_fit_decreasing ordered by size x live steps."""
    return best_fit_decreasing(buffers, by="area")


# tried in this order; the first to reach the lower bound stops the search
STRATEGIES = {"nnvm": nnvm_greedy, "best_fit": best_fit_decreasing, "best_fit_area": best_fit_area}

# ---- the planner interface (docs/memory.md) ----------------------------------------------------------
Interval = collections.namedtuple("Interval", "start end size name")
Interval.__doc__ = """One buffer to place: live from step `start` to step `end` (both included), `size` bytes,
`name` (the values it holds). Two intervals whose steps meet must not share bytes."""

PLANNERS = {}   # name -> planner(intervals) -> offsets, registered by register_planner
ON_REQUEST = set()   # registered names a report runs only when asked for (planners=[...]): slow ones


def register_planner(name, fn, default=True):
    """Registers `fn(intervals: [Interval]) -> [int offset per interval]` under `name`: memory reports
    run it beside tinyflow's own planner and XLA's figures, and prove its plan by replay (with
    default=False only when a report names it: planners=[name] or planner=name)."""
    if not callable(fn):
        raise TypeError("register_planner: %r is not callable" % (fn,))
    if name in STRATEGIES:
        raise ValueError("register_planner: %r is a built-in strategy's name" % (name,))
    PLANNERS[name] = fn
    (ON_REQUEST.discard if default else ON_REQUEST.add)(name)
    return fn


def default_planners():
    """The registered planners a report runs when it names none."""
    return [name for name in PLANNERS if name not in ON_REQUEST]


def planners_of(planner):
    """{name: function} for `planner`: None (the built-in strategies), a built-in or registered name,
    or a function."""
    if planner is None:
        return STRATEGIES
    if isinstance(planner, str):
        found = STRATEGIES.get(planner) or PLANNERS.get(planner)
        if found is None:
            raise ValueError("Unknown planner %r; the built-in ones are %s%s" % (
                planner, ", ".join(STRATEGIES), "; registered: " + ", ".join(PLANNERS) if PLANNERS else ""))
        return {planner: found}
    return {getattr(planner, "__name__", "custom"): planner}


def place(buffers, planner, lower_bound):
    """Places `buffers` with `planner` (see planners_of); returns (arena bytes, strategy name, optimal)."""
    return _place(buffers, planners_of(planner), lower_bound)


def _place(buffers, planners, lower_bound):
    """Runs the planners in turn, keeps the smallest arena and stops early at the lower bound
    (no plan can beat it). Sets each buffer's offset; returns (arena bytes, strategy name, optimal):
    optimal is True at the lower bound, else what the planner proved (its offsets' .optimal, as
    minimalloc's say), else None. Each planner sees Intervals (which the built-in ones read by
    attribute, as they read buffers)."""
    best = None
    intervals = [Interval(b.start, b.end, b.size, "+".join(getattr(t, "name", str(t)) for t in b.values))
                 for b in buffers]
    for name, planner in planners.items():
        result = planner(intervals)
        offsets = list(result)
        if len(offsets) != len(buffers):
            raise ValueError("planner %r returned %d offsets for %d buffers" % (name, len(offsets), len(buffers)))
        if any(int(o) != o or o < 0 for o in offsets):
            raise ValueError("planner %r returned an offset that is not a non-negative integer" % (name,))
        arena = max([int(o) + b.size for o, b in zip(offsets, buffers)], default=0)
        if best is None or arena < best[0]:
            best = (arena, name, offsets, True if arena <= lower_bound else getattr(result, "optimal", None))
        if arena <= lower_bound:
            break
    for b, o in zip(buffers, best[2]):
        b.offset = int(o)
    return best[0], best[1], best[3]


def plan_memory(sub, sizes, planner=None, inplace=True):
    """The MemoryPlan of Subgraph `sub`.

    sizes: {Tensor: bytes} for every value the steps compute (feeds and variables read may be
    included: they are reported as arguments). planner: None (the built-in strategies, the smaller
    arena wins), a name in STRATEGIES or PLANNERS, or a function(intervals) -> one byte offset per
    interval (Interval: .start, .end inclusive steps, .size, .name). inplace=False: no reuse in place.
    """
    fed = set(sub.feeds)
    steps = executed_ops(sub)
    live = liveness(steps, sub.fetches, fed)
    planners = planners_of(planner)
    n = len(steps)
    plain, _ = assign_inplace(live, sizes, inplace=False)     # every value its own buffer
    timeline = live_bytes(plain, n)
    lower_plain = int(timeline.max(initial=0))
    arena_plain, strategy, optimal = _place(plain, planners, lower_plain)
    buffers, decisions, arena = plain, [], arena_plain
    if inplace:
        buffers, decisions = assign_inplace(live, sizes, fetches=sub.fetches)
        timeline = live_bytes(buffers, n)
        arena, strategy, optimal = _place(buffers, planners, int(timeline.max(initial=0)))
    arguments = {t: sizes[t] for t in sizes if t not in live}
    plan = MemoryPlan(steps, {t: tuple(r) for t, r in live.items()}, buffers, decisions, [int(x) for x in timeline],
                      arena, strategy, sum(sizes[t] for t in live), int(timeline.max(initial=0)), arena_plain,
                      lower_plain, arguments)
    plan.optimal = optimal
    return plan


def static_sizes(sub):
    """{Tensor: bytes} from static shapes, for graphs whose shapes are fully known (tests, examples)."""
    sizes = {}
    fed = set(sub.feeds)
    for t in sub.feeds:
        sizes[t] = t.shape.num_elements() * t.dtype.size
    for op in executed_ops(sub):
        for t in arena_values(op, fed):
            if not t.shape.is_fully_defined():
                raise ValueError("The shape of %s is not fully known: %s" % (t.name, t.shape))
            sizes[t] = t.shape.num_elements() * t.dtype.size
    return sizes


def minimalloc(intervals):
    """The exact planner (passes/minimalloc.py), started from the best plan of the built-in strategies."""
    start = min((f(intervals) for f in STRATEGIES.values()), key=lambda offsets: arena_of(intervals, offsets))
    return exact_planner(intervals, start=start)


register_planner("minimalloc", minimalloc, default=False)   # an exact search: run when a report names it
