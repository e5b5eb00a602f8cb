"""segments: a Program with ops of value-dependent shape -> jitted segments around those ops.

XLA compiles static shapes only, so an op whose output shape depends on run-time values
(OpDef.dynamic_shape: Where of boolean_mask, Unique, a slice with run-time bounds, ...) cannot be
traced. Such a fetch set renders as a main function that is NOT jitted and calls, in program
order, jitted segment functions and the dynamic ops' own rules on concrete values:

    def fetch_set(rw, ro, feeds, key):
        w, = rw
        x, mask, = feeds
        (mask_1, MatMul,) = segment_1(key, mask, w, x)
        Where = Where(mask_1)  # i64[?,1]  boolean_mask/Where  dynamic shape: runs between segments
        (loss, w_new,) = segment_2(key, MatMul, Where, w)
        return (w_new,), (loss,)

    def segment_1(key, mask, w, x):   # jax.jit-ed: one compile per new input shape
        ...

A segment takes the values it reads and returns those read later. A value known while tracing in
one segment (a shape computation) is recomputed in each later segment that reads it, since a jit
argument is never known while tracing. Variables follow the same names as in one function, so
DESIGN.md's rule holds across segments, and the new values are returned only by the main function:
the Session stores them once the last segment has succeeded.
"""
from . import render as render_mod


def split(prog):
    """The steps in program order as items: a list of Steps (one segment) or one dynamic Step."""
    items, current = [], []
    for step in prog.steps:
        if step.dynamic:
            if current:
                items.append(current)
                current = []
            items.append(step)
        else:
            current.append(step)
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
    of the lines that call a rule (those of the dynamic ops and of every segment)."""
    items = split(prog)
    # the values each item must hand on: those read by later items and by the return line
    wanted = render_mod.tail_reads(prog)
    later = [None] * len(items)
    for k in range(len(items) - 1, -1, -1):
        later[k] = set(wanted)
        for s in items[k] if isinstance(items[k], list) else [items[k]]:
            wanted |= set(s.args)
    defined = set(prog.arg_names.values())
    body, parts, names = [], [], []
    for k, item in enumerate(items):
        if not isinstance(item, list):
            body.append((item, "    " + render_mod.line(item)))
            defined |= set(item.outs)
            continue
        made = {n for s in item for n in s.outs}
        out = [n for s in item for n in s.outs if n in later[k] and n not in defined]
        out = list(dict.fromkeys(out))
        if not out:      # nothing it computes is read later
            continue
        reads = sorted({a for s in item for a in s.args if a in defined and a not in made})
        fn = "segment_%d" % (len(names) + 1)
        names.append(fn)
        args = ", ".join(["key"] + reads)
        body.append((None, "    %s = %s(%s)" % (render_mod._tuple(out), fn, args)))
        parts.append((["def %s(%s):" % (fn, args)], [(s, "    " + render_mod.line(s)) for s in item],
                      ["    return %s" % render_mod._tuple(out)]))
        defined |= set(out)
    head, tail = render_mod.head_lines(prog, name), render_mod.tail_lines(prog)
    source, lines = render_mod._number(head, body, tail, parts)
    return source, lines, names
