"""segments: where a Program is cut into functions (render.split renders the cut form).

A Program with ops of value-dependent shape runs as jitted segments around those ops; a huge one,
over pipeline.SPLIT_STEPS steps, is cut the same way into segments of equal size (XLA's compile
time grows faster than the program, see pipeline.py). A Program of more than render.MAX_LINES
steps that is neither is cut into functions `part_k` traced into its one jitted function.

XLA compiles static shapes only, so an op whose output shape depends on run-time values
(OpDef.dynamic_shape: Where of boolean_mask, Unique, a slice with run-time bounds, ...) cannot be
traced. Such a fetch set renders as a main function that is NOT jitted and calls, in program
order, jitted segment functions and the dynamic ops' own rules on concrete values:

    def fetch_set(rw, ro, feeds, key):
        w, = rw
        x, mask, = feeds
        (mask_1, MatMul,) = segment_1(key, mask, w, x)
        boolean_mask_Where = op.Where(mask_1)  # i64[?,1]  boolean_mask/Where  dynamic shape: runs between segments
        return segment_2(key, MatMul, boolean_mask_Where, w)

    def segment_1(key, mask, w, x):   # jax.jit-ed: one compile per new input shape
        ...
        return (mask_1, MatMul,)

    def segment_2(key, MatMul, boolean_mask_Where, w):
        ...
        return (w_new,), (loss,)        # the function's return line (checks, `keep`) is the last segment's

A segment takes the values it reads and returns those read later. A value known while tracing in
one segment (a shape computation) is recomputed in each later segment that reads it, since a jit
argument is never known while tracing. Variables follow the same names as in one function, so
DESIGN.md's rule holds across segments, and the new values are returned only by the main function:
the Session stores them once the last segment has succeeded.
"""


# A run of at least this many steps whose shapes no dynamic op decides becomes a segment of its own
# (see varying()); a shorter one stays in the segment around it (a cut costs a call and fusion).
STABLE_RUN = 8


def cut(steps, size=0, jitted=True, stable=True):
    """The steps in program order as items: a list of Steps (one function) or one dynamic Step. A
    list holds at most `size` steps when size > 0 (Program.split, or render.MAX_LINES). Functions
    jitted one by one recompute the static values they read (see the module docstring), and are
    also cut where a long run of steps begins or ends whose shapes no dynamic op decides: such a
    segment compiles once, while one reading a value of run-time shape compiles again for each new
    shape (gcn's sparse dropout: its backward pass and Adam were compiled again at every step), unless
    not `stable` (counts that never change: each cut is one more program to compile, lower/specialize.py)."""
    items, current = [], []
    moving = varying(steps) if jitted and stable and any(s.dynamic for s in steps) else set()
    for step in steps:
        if step.dynamic:
            if current:
                items.append(current)
                current = []
            items.append(step)
        else:
            current.append(step)
            if len(current) == size:
                items.append(current)
                current = []
    if current or not items:
        items.append(current)
    if moving:
        items = [part for item in items for part in (_by_shapes(item, moving) if isinstance(item, list) else [item])]
    return _with_static_inputs(items) if jitted else items


def varying(steps):
    """The steps whose compile depends on a shape decided at run time: those reading a value a
    dynamic op made, or one of unknown shape made by such a step."""
    moving_names, moving = set(), set()
    for s in steps:
        if not (s.dynamic or any(a in moving_names for a in s.args)):
            continue
        moving.add(s)
        outs = s.op.outputs if not s.check and len(s.outs) == len(s.op.outputs) else [None] * len(s.outs)
        moving_names.update(n for n, t in zip(s.outs, outs) if t is None or not t.shape.is_fully_defined())
    return moving


def _by_shapes(item, moving):
    """`item` cut where a run of at least STABLE_RUN steps outside `moving` begins or ends."""
    runs = []
    for s in item:
        stable = s not in moving
        if runs and runs[-1][0] == stable:
            runs[-1][1].append(s)
        else:
            runs.append((stable, [s]))
    parts = []   # (a long stable run, its steps)
    for stable, run in runs:
        long_run = stable and len(run) >= STABLE_RUN
        if parts and not long_run and not parts[-1][0]:
            parts[-1][1].extend(run)
        else:
            parts.append((long_run, list(run)))
    return [run for _, run in parts]


def _with_static_inputs(items):
    """Each segment with the static steps of earlier segments it reads (transitively) put first."""
    made_static = {}           # name -> static Step that made it
    result = []
    for item in items:
        if not isinstance(item, list):
            result.append(item)
            continue
        own = {n for s in item for n in s.outs}
        pulled = []

        def pull(name):
            step = made_static.get(name)
            if step is None or name in own or step in pulled:
                return
            for a in step.args:
                pull(a)
            pulled.append(step)

        for s in item:
            for a in s.args:
                pull(a)
        result.append(pulled + item)
        for s in item:
            if s.static and not s.check:
                made_static.update((n, s) for n in s.outs)
    return result
