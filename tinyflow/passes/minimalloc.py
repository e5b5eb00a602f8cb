"""minimalloc: an exact planner after MiniMalloc's method (Moffitt, ASPLOS '23), written here. No JAX.

The planners of passes/memory.py are heuristics; this one searches for the smallest arena and says
whether it proved it. It follows the three ideas of MiniMalloc's paper, in our own code:

- canonical solutions: some optimal plan has every buffer at offset 0 or on top of a buffer placed
  before it that overlaps it in time, the buffers placed in nondecreasing offset order. So the search
  places one buffer at a time at its floor (the highest top among the placed buffers live at its
  steps) and only buffers whose floor is the lowest of all may go next;
- spatial inference: after each placement every time section must still hold its floor plus the
  bytes of the buffers not yet placed that cross it, and every buffer its floor plus its size, within
  the capacity tried; otherwise the branch is cut;
- dominance elimination: buffers placed at the same offset that do not overlap in time commute, so a
  branch never places one that an earlier sibling branch placed at that offset (it was tried there).

The smallest arena is found by deciding capacities: first the lower bound (the most bytes live at one
step: no plan can do better), then halving the gap to the best plan known (tinyflow's own heuristics
give the first). Each decision first dives once in each of a few orders of the candidates (a plan
within the capacity is usually found at once), then searches to the end in one order for half the
time left; a search that runs out of time leaves that capacity undecided and a larger one is tried.
The time limit ends the search with the best plan found and optimal=False.

    offsets = exact_planner(intervals)            # memory.Interval list -> Offsets (a list of ints)
    offsets.optimal, offsets.lower_bound, offsets.arena
"""
import time

import numpy as np

TIME_LIMIT_S = 10.0     # per plan; minimalloc(time_limit=...) makes a planner with another


class Offsets(list):
    """One offset per interval, and what the search proved: optimal (True when no plan of these
    intervals has a smaller arena; False when the time limit came first), lower_bound (the most bytes
    live at one step), arena (max offset + size), nodes (placements tried), seconds."""
    optimal, lower_bound, arena, nodes, seconds = None, 0, 0, 0, 0.0


def peak_live(intervals):
    """The most bytes live at one step: the lower bound of every plan of these intervals."""
    delta = {}
    for iv in intervals:
        delta[iv.start] = delta.get(iv.start, 0) + iv.size
        delta[iv.end + 1] = delta.get(iv.end + 1, 0) - iv.size
    peak = live = 0
    for step in sorted(delta):
        live += delta[step]
        peak = max(peak, live)
    return peak


def arena_of(intervals, offsets):
    return max([int(o) + iv.size for o, iv in zip(offsets, intervals)], default=0)


class _Problem:
    """The intervals of nonzero size over time sections (steps between two consecutive starts or ends):
    lo..hi the sections each buffer crosses, both included."""

    def __init__(self, intervals):
        self.index = [i for i, iv in enumerate(intervals) if iv.size > 0]
        ivs = [intervals[i] for i in self.index]
        bounds = np.unique([iv.start for iv in ivs] + [iv.end + 1 for iv in ivs])
        self.lo = np.searchsorted(bounds, [iv.start for iv in ivs]).astype(np.int64)
        self.hi = np.searchsorted(bounds, [iv.end + 1 for iv in ivs]).astype(np.int64) - 1
        self.size = np.array([iv.size for iv in ivs], np.int64)
        delta = np.zeros(max(len(bounds), 1), np.int64)
        np.add.at(delta, self.lo, self.size)
        np.add.at(delta, self.hi + 1, -self.size)
        self.rest = np.cumsum(delta)[:-1] if len(bounds) else delta   # bytes crossing each section
        # orders of trying the candidates at one offset (MiniMalloc's static preorderings): most bytes x
        # sections first; largest first; in the most crowded sections first; earliest first
        width = self.hi - self.lo + 1
        crowd = np.array([self.rest[a:b + 1].max() for a, b in zip(self.lo, self.hi)], np.int64)
        self.orders = []
        for rank in (np.argsort(-self.size * width, kind="stable"), np.lexsort((-width, -self.size)),
                     np.lexsort((-self.size * width, -crowd)), np.lexsort((-self.size, self.lo))):
            priority = np.empty(len(ivs), np.int64)
            priority[rank] = np.arange(len(ivs))
            self.orders.append(priority)


def _decide(p, cap, deadline, counter, priority, nodes=None):
    """Offsets (one per buffer of p) of a plan within `cap` bytes, None when there is none, or "timeout"
    (past the deadline, or `nodes` placements tried). Candidates are tried in `priority` order."""
    n = len(p.size)
    if n == 0 or p.rest.max() > cap or p.size.max() > cap:
        return None if n else np.zeros(0, np.int64)
    floor = np.zeros(len(p.rest), np.int64)   # the top of the placed buffers, per section
    rest = p.rest.copy()                       # bytes of the unplaced buffers, per section
    mo = np.zeros(n, np.int64)                 # each buffer's floor: max of `floor` over its sections
    free = np.ones(n, bool)
    offset = np.zeros(n, np.int64)
    blocked = np.full(n, -1, np.int64)         # the offset where an earlier sibling branch placed it

    def frame():
        """[offset, candidates, next, applied placement, blocked entries to restore] of a new node."""
        m = mo[free].min()
        cand = np.flatnonzero(free & (mo == m) & (blocked != m))
        return [m, cand[np.argsort(priority[cand], kind="stable")], 0, None, []]

    def place(i, m):
        top = m + p.size[i]
        sl = slice(p.lo[i], p.hi[i] + 1)
        saved = floor[sl].copy()
        floor[sl] = top
        rest[sl] -= p.size[i]
        free[i], offset[i] = False, m
        raised = np.flatnonzero((p.lo <= p.hi[i]) & (p.hi >= p.lo[i]) & free & (mo < top))
        old = mo[raised]
        mo[raised] = top
        # spatial inference: the sections under i hold their floor and the unplaced bytes crossing
        # them, and the buffers it raised fit above their new floor
        ok = (floor[sl] + rest[sl]).max() <= cap and not (len(raised) and (top + p.size[raised]).max() > cap)
        return ok, (i, sl, saved, raised, old)

    def undo(i, sl, saved, raised, old):
        free[i] = True
        mo[raised] = old
        rest[sl] += p.size[i]
        floor[sl] = saved

    limit = counter[0] + nodes if nodes else None
    stack = [frame()]
    placed = 0
    while stack:
        top = stack[-1]
        m, cand, k, applied, restore = top
        if applied is not None:
            undo(*applied)
            placed -= 1
            top[3] = None
            # dominance: the child branches that follow do not place it at this offset again
            restore.append((applied[0], blocked[applied[0]]))
            blocked[applied[0]] = m
        if k == len(cand):
            for i, old in reversed(restore):
                blocked[i] = old
            stack.pop()
            continue
        counter[0] += 1
        if counter[0] % 256 == 0 and time.perf_counter() > deadline or counter[0] == limit:
            return "timeout"
        top[2] = k + 1
        ok, top[3] = place(int(cand[k]), m)
        placed += 1
        if not ok:
            continue
        if placed == n:
            return offset.copy()
        child = frame()
        if len(child[1]):
            stack.append(child)
    return None


def exact_planner(intervals, time_limit=None, start=None):
    """The smallest arena for `intervals` (memory.Interval: start, end inclusive, size, name), searched
    for up to `time_limit` seconds (TIME_LIMIT_S); `start`: offsets of a plan to improve on (default: one
    dive of the search with no capacity to keep; memory.py's "minimalloc" starts from tinyflow's best
    heuristic plan). Returns Offsets (see there: .optimal says whether it is proved)."""
    t0 = time.perf_counter()
    deadline = t0 + (TIME_LIMIT_S if time_limit is None else time_limit)
    p = _Problem(intervals)
    counter = [0]
    if start is None:
        start = [0] * len(intervals)
        for j, o in zip(p.index, _decide(p, int(p.size.sum()), float("inf"), counter, p.orders[0])):
            start[j] = int(o)
    best = [int(o) for o in start]
    low, high = peak_live(intervals), arena_of(intervals, best)
    cap, unknown = low, low - 1      # unknown: the highest capacity whose search ran out of time
    while low < high and time.perf_counter() < deadline:
        # each order dives with little backtracking (a plan is often found at once); then the first
        # order searches to the end (any order proves that no plan fits) for half the time left
        for priority in p.orders:
            found = _decide(p, cap, deadline, counter, priority, nodes=len(p.size) + len(p.size) // 4 + 64)
            if not isinstance(found, str):
                break
        if isinstance(found, str):
            found = _decide(p, cap, (time.perf_counter() + deadline) / 2, counter, p.orders[0])
        if isinstance(found, str):       # not decided: a larger capacity may still give a better plan
            unknown = cap
        elif found is None:
            low = cap + 1
        else:
            best = [0] * len(intervals)
            for j, o in zip(p.index, found):
                best[j] = int(o)
            high = arena_of(intervals, best)
        if max(low, unknown + 1) >= high:
            break
        cap = (max(low, unknown + 1) + high - 1) // 2
    out = Offsets(best)
    out.optimal, out.lower_bound, out.arena = low >= high, peak_live(intervals), high
    out.nodes, out.seconds = counter[0], time.perf_counter() - t0
    return out


def minimalloc(time_limit=TIME_LIMIT_S):
    """exact_planner with another time limit, as a planner function (memory.register_planner)."""
    def planner(intervals):
        return exact_planner(intervals, time_limit)
    planner.__name__ = "minimalloc"
    return planner


# ---- MiniMalloc's file format: a CSV row per buffer, id,lower,upper,size (upper excluded); a solution adds offset
def write_csv(path, buffers, offsets=True):
    """Writes `buffers` (memory.Buffer: start, end inclusive, size, offset) as MiniMalloc's CSV; ids are
    their positions. With offsets, the file is a solution."""
    with open(path, "w") as f:
        f.write("id,lower,upper,size%s\n" % (",offset" if offsets else ""))
        for i, b in enumerate(buffers):
            f.write("%d,%d,%d,%d%s\n" % (i, b.start, b.end + 1, b.size, ",%d" % b.offset if offsets else ""))
    return path


def read_csv(path):
    """{id: (lower, upper, size, offset or None)} of a MiniMalloc CSV (columns in any order)."""
    with open(path) as f:
        lines = [line.strip() for line in f if line.strip()]
    head = [h.strip() for h in lines[0].split(",")] if lines else []
    missing = [c for c in ("id", "lower", "upper", "size") if c not in head]
    if missing:
        raise ValueError("%s: not a MiniMalloc CSV (no %s column; the header is %r)"
                         % (path, ", ".join(missing), ",".join(head)))
    rows = {}
    for k, line in enumerate(lines[1:], 2):
        cells = dict(zip(head, (c.strip() for c in line.split(","))))
        try:
            rows[cells["id"]] = tuple(int(cells[c]) for c in ("lower", "upper", "size")) + (
                int(cells["offset"]) if cells.get("offset", "") != "" else None,)
        except (KeyError, ValueError):
            raise ValueError("%s, line %d: %r is not id,lower,upper,size[,offset] in integers"
                             % (path, k, line)) from None
    return rows


def same_buffers(rows, buffers):
    """Whether CSV rows (read_csv) are `buffers` (ids their positions, as write_csv writes them)."""
    return len(rows) == len(buffers) and all(rows.get(str(i), ())[:3] == (b.start, b.end + 1, b.size)
                                             for i, b in enumerate(buffers))


def solution_offsets(path, rows, buffers):
    """The offsets solution rows (read_csv of `path`, same_buffers as `buffers`) give the buffers;
    ValueError when one is missing or negative."""
    bad = [i for i in range(len(buffers)) if rows[str(i)][3] is None or rows[str(i)][3] < 0]
    if bad:
        raise ValueError("%s: buffer %d has no offset (a solution has an offset column of integers >= 0)"
                         % (path, bad[0]))
    return [rows[str(i)][3] for i in range(len(buffers))]
