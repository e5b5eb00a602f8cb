"""segments: a Program with ops of value-dependent shape -> jitted segments around those ops.

(A huge Program, over pipeline.SPLIT_STEPS steps, is cut the same way into segments of equal size:
XLA's compile time grows faster than the program, see pipeline.py.)

XLA compiles static shapes only, so an op whose output shape depends on run-time values
(OpDef.dynamic_shape: Where of boolean_mask, Unique, a slice with run-time bounds, ...) cannot be
traced. Such a fetch set renders as a main function that is NOT jitted and calls, in program
order, jitted segment functions and the dynamic ops' own rules on concrete values:

    def fetch_set(rw, ro, feeds, key):
        w, = rw
        x, mask, = feeds
        (mask_1, MatMul,) = segment_1(key, mask, w, x)
        Where = Where(mask_1)  # i64[?,1]  boolean_mask/Where  dynamic shape: runs between segments
        return segment_2(key, MatMul, Where, w)

    def segment_1(key, mask, w, x):   # jax.jit-ed: one compile per new input shape
        ...
        return (mask_1, MatMul,)

    def segment_2(key, MatMul, Where, w):
        ...
        return (w_new,), (loss,)        # the function's return line (checks, `keep`) is the last segment's

A segment takes the values it reads and returns those read later. A value known while tracing in
one segment (a shape computation) is recomputed in each later segment that reads it, since a jit
argument is never known while tracing. Variables follow the same names as in one function, so
DESIGN.md's rule holds across segments, and the new values are returned only by the main function:
the Session stores them once the last segment has succeeded.
"""
from tinyflow.lower import render as render_mod


def split(prog):
    """The steps in program order as items: a list of Steps (one segment) or one dynamic Step. A
    segment holds at most `prog.split` steps when that is set (a huge fetch set, see SPLIT_STEPS)."""
    items, current = [], []
    for step in prog.steps:
        if step.dynamic:
            if current:
                items.append(current)
                current = []
            items.append(step)
        else:
            current.append(step)
            if len(current) == prog.split:
                items.append(current)
                current = []
    if current:
        items.append(current)
    return _with_static_inputs(items)


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


def render(prog, name="fetch_set"):
    """(source, lines, segment names): the main function and its segments, and {line number: Step}
    of the lines that call a rule (those of the dynamic ops and of every segment). The last segment
    also computes the return line (the checks' verdict, `keep` of each variable): one jitted call
    rather than a few small ops run one by one."""
    items = split(prog)
    if not isinstance(items[-1], list):
        items.append([])
    # the values each item must hand on: those read by later items and by the return line
    wanted = render_mod.tail_reads(prog)
    by_main = set(wanted)   # of those, what the main function's own lines read (dynamic ops, return)
    later, later_main = [None] * len(items), [None] * len(items)
    for k in range(len(items) - 1, -1, -1):
        later[k], later_main[k] = set(wanted), set(by_main)
        for s in items[k] if isinstance(items[k], list) else [items[k]]:
            wanted |= set(s.args)
            if not isinstance(items[k], list):
                by_main |= set(s.args)
    defined = set(prog.arg_names.values())
    body, parts, names = [], [], []
    for k, item in enumerate(items):
        if not isinstance(item, list):
            body.append((item, "    " + render_mod.line(item)))
            defined |= set(item.outs)
            continue
        last = k == len(items) - 1
        made = {n for s in item for n in s.outs}
        # what a later item reads; a static value only when the main function reads it (a later
        # segment recomputes its own: a jit argument is never known while tracing)
        out = list(dict.fromkeys(n for s in item for n in s.outs if n in later[k] and n not in defined
                                 and (not s.static or s.check or n in later_main[k])))
        if not out and not last:      # nothing it computes is read later
            continue
        reads = {a for s in item for a in s.args} | (render_mod.tail_reads(prog) if last else set())
        fn = "segment_%d" % (len(names) + 1)
        names.append(fn)
        args = ", ".join(["key"] + sorted(reads & defined - made))
        call = "%s(%s)" % (fn, args)
        body.append((None, "    return " + call if last else "    %s = %s" % (render_mod._tuple(out), call)))
        ret = render_mod.tail_lines(prog) if last else ["    return %s" % render_mod._tuple(out)]
        parts.append((["def %s(%s):" % (fn, args)], [(s, "    " + render_mod.line(s)) for s in item], ret))
        defined |= set(out)
    source, lines = render_mod._number(render_mod.head_lines(prog, name), body, [], parts)
    return source, lines, names
