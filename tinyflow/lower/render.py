"""render: a Program -> the Python source of its function. Pure text: nothing is executed here.

One line per op, the op type's rule (`op.MatMul`) called with its inputs and its attrs as literals,
the value's dtype and static shape and the op's TF name in a comment; a value is named after its TF
name:

    def fetch_set(rw, ro, feeds, key):
        w, = rw
        x, = feeds
        MatMul = op.MatMul(x, w, transpose_a=False, transpose_b=False)  # f32[?,3]  MatMul
        ...
        return (w_new,), (Softmax,)

An attr that has no literal form (an array, a tf.cond body) is read from the table `A`, e.g.
`op.Const(value=A['Const:value'], dtype=tf.float32)` (a small array is written out: `np.array([2,
3], 'int32')`); `tf.float32` is the dtype itself. Private attrs (`_type`) are left out of the source;
the rule still gets them (jax_backend.OpCall). A line of a value known while tracing (a shape
computation) says `static` in its comment. A run-time check is its op's `.check` rule:
`GatherV2_check = op.GatherV2.check(params, indices, batch_dims=0)`.

Big graphs are split into functions of at most MAX_LINES lines (`part_1`, `part_2`, ...), each
taking the values it reads and returning those read later: JAX looks up every traced line's
source location, and one function of 20,000 lines makes each lookup slow (issue: huge graphs).
Segmented Programs (lower/segments.py) are split the same way, into `segment_k` functions.
"""
import math

import numpy as np

from tinyflow.graph import dtypes as _dt
from tinyflow.graph.shapes import TensorShape
from tinyflow.lower import segments

MAX_LINES = 200

_SHORT = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64", "int8": "i8", "int16": "i16",
          "int32": "i32", "int64": "i64", "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
          "bool": "bool", "complex64": "c64", "complex128": "c128", "string": "str"}


def literal(value):
    """Python source for an attr value, or None when it has no literal form."""
    if value is None or isinstance(value, (bool, str, bytes)):
        return repr(value)
    if type(value) is int:
        return repr(value)
    if type(value) is float:
        return repr(value) if math.isfinite(value) else None
    if isinstance(value, _dt.DType):
        return "tf." + value.name
    if isinstance(value, TensorShape):
        return "tf.TensorShape(%s)" % ("None" if value.ndims is None else repr(value.as_list()))
    # (an empty array of rank > 1 would lose its shape as a nested list: it goes to the table)
    if isinstance(value, np.ndarray) and value.size <= 16 and value.dtype.kind in "biuf" and (
            value.size or value.ndim <= 1):
        if value.dtype.kind == "f" and not np.all(np.isfinite(value)):
            return None
        return "np.array(%s, %r)" % (_nested(value.tolist(), value.dtype.type), value.dtype.name)
    if type(value) in (list, tuple):
        parts = [literal(v) for v in value]
        if any(p is None for p in parts):
            return None
        if type(value) is tuple:
            return "(%s)" % ("".join(p + ", " for p in parts) if len(parts) == 1 else ", ".join(parts))
        return "[%s]" % ", ".join(parts)
    return None


def _nested(items, scalar):
    """A nested list's source, each number written the way its numpy type prints it (0.1, not
    0.10000000149011612 for a float32)."""
    if isinstance(items, list):
        return "[%s]" % ", ".join(_nested(i, scalar) for i in items)
    return str(scalar(items))


def table_key(op, attr):
    """The key of an attr without a literal form in the table `A`."""
    return "%s:%s" % (op.name, attr)


def attr_table(steps):
    """The table `A` the rendered source reads: every attr of these steps without a literal form."""
    return {table_key(s.op, k): v for s in steps for k, v in s.op.attrs.items()
            if not is_private(k) and literal(v) is None}


def is_private(attr):
    """Whether an attr is tinyflow's own (`_type`): left out of the source, given to the rule as it is."""
    return attr[:1] == "_"


def _attrs(op):
    parts, extra = [], {}
    for k, v in op.attrs.items():
        if is_private(k):
            continue
        src = literal(v)
        if src is None:
            src = "A[%r]" % table_key(op, k)
        if k.isidentifier():
            parts.append("%s=%s" % (k, src))
        else:
            extra[k] = src
    if extra:
        parts.append("**{%s}" % ", ".join("%r: %s" % kv for kv in extra.items()))
    return parts


def _type_of(t):
    dims = "?" if t.shape.ndims is None else ",".join("?" if d is None else str(d) for d in t.shape.as_list())
    return "%s[%s]" % (_SHORT.get(t.dtype.name, t.dtype.name), dims)


def line(step):
    """The source line of one Step (without indentation)."""
    op = step.op
    call = "op.%s%s(%s)" % (step.rule or op.type, ".check" if step.check else "",
                            ", ".join(list(step.args) + _attrs(step.like or op)))
    lhs = (", ".join(step.outs) + " = ") if step.outs else ""
    types = " ".join(_type_of(t) for t in op.outputs) if not step.check else "check"
    mark = "  static" if step.static else "  dynamic shape: runs between segments" if step.dynamic else ""
    return "%s%s  # %s  %s%s" % (lhs, call, types, op.name, mark)


def _tuple(names):
    return "(%s)" % "".join(n + ", " for n in names)


def _unpack(names, what):
    return ["    %s, = %s" % (", ".join(names), what)] if names else []


def render(prog, name="fetch_set"):
    """(source, lines): the function's source, and {line number: Step} of the lines that call a rule.
    A segmented Program, or one of more than MAX_LINES steps, is split into functions (`split`)."""
    if prog.segmented or len(prog.steps) > MAX_LINES:
        return split(prog, name)
    moved = set(gated(prog))
    body = [(s, "    " + line(s)) for s in prog.steps if s not in moved]
    return _number(head_lines(prog, name), body, tail_lines(prog))


def head_lines(prog, name="fetch_set"):
    """The function's first lines: its signature and the unpacking of its arguments."""
    head = ["def %s(rw, ro, feeds, key):" % name]
    head += _unpack([prog.arg_names[v] for v in prog.rw_vars], "rw")
    head += _unpack([prog.arg_names[v] for v in prog.ro_vars], "ro")
    head += _unpack([prog.arg_names[t] for t in prog.feeds], "feeds")
    if prog.random_block or prog.philox_ops:   # the values of its random ops (lower/program.py)
        head.append("    rand = random_block(key)")
    return head


def gated(prog):
    """The steps the checks' conditional runs (`gate`): the row updates (an update with an index check
    of its own: SparseApply*, Scatter*) that nothing but later updates reads, in program order. Under
    `lax.cond(ok, updates, kept)` a donated table is updated in place, or handed back as it was; a
    select `where(ok, new, old)` (`keep`) needs both at once, so XLA copied the whole table to update
    a few rows. Dense updates keep the select (fused into them; in place, the CNN step took 1.2x the
    CPU: docs/speed.md section 10), and so does a segmented Program (it never donates)."""
    if not prog.checks or prog.segmented:
        return []
    rw = set(prog.rw_vars)
    outside = set(prog.fetch_names) | {n for n, v in zip(prog.final_names, prog.updated) if v not in rw}
    moved = []
    for s in reversed(prog.steps):   # a step's readers come after it: all of them are decided
        if s.opdef.ref_inputs and s.opdef.check and not s.check and not outside.intersection(s.outs):
            moved.append(s)
        else:
            outside.update(s.args)
    return moved[::-1]


def tail_lines(prog):
    """The function's last lines, as (Step or None, source): the checks' verdict, the gated updates
    and the return of (finals, fetches). The fetches, and the new values of variables the step does
    not read, pass through the conditional too (zeros when a check fails: the Session keeps none of
    them): XLA copies a table updated in place unless every read of its old value comes first by data."""
    finals, fetches = list(prog.final_names), list(prog.fetch_names)
    tail = []
    if prog.checks:
        # a failed check leaves every variable as it was: the donated ones get their old value back
        checks = [s.outs[0] for s in prog.steps if s.check]
        tail.append((None, "    ok = all_ok(%s)" % ", ".join(checks)))
        rw, moved = set(prog.rw_vars), gated(prog)
        made = {n for s in moved for n in s.outs}
        news = [(n, prog.arg_names[v]) for n, v in zip(finals, prog.updated) if v in rw and n in made]
        routed = {}   # name -> its position in `after`
        if moved:
            kept = fetches + [n for n, v in zip(finals, prog.updated) if v not in rw]
            routed = {n: k for k, n in enumerate(dict.fromkeys(kept))}
            tail.append((None, "    def updates():"))
            tail += [(s, "        " + line(s)) for s in moved]
            tail.append((None, "        return %s, %s" % (_tuple([n for n, _ in news]), _tuple(routed))))
            tail.append((None, "    %s, after = gate(ok, updates, %s, %s)" % (
                _tuple([n for n, _ in news]), _tuple([old for _, old in news]), _tuple(routed))))
            fetches = ["after[%d]" % routed[n] for n in fetches]
        finals = [n if n in made else "keep(ok, %s, %s)" % (n, prog.arg_names[v]) if v in rw else
                  "after[%d]" % routed[n] if n in routed else n for n, v in zip(finals, prog.updated)]
        fetches.append("(ok, %s)" % _tuple(checks))
    tail.append((None, "    return %s, %s" % (_tuple(finals), _tuple(fetches))))
    return tail


def tail_reads(prog):
    """The names the tail lines read (the gated updates' arguments among them)."""
    names = set(prog.fetch_names) | set(prog.final_names) | {prog.arg_names[v] for v in prog.rw_vars}
    moved = gated(prog)
    names |= {a for s in moved for a in s.args} - {n for s in moved for n in s.outs}
    return names | {s.outs[0] for s in prog.steps if s.check}


def _number(head, body, tail, parts=()):
    text, lines = list(head), {}
    for step, src in list(body) + list(tail):
        text.append(src)
        if step is not None:
            lines[len(text)] = step
    for part_head, part_body, part_tail in parts:
        text += [""] + part_head
        for step, src in list(part_body) + list(part_tail):
            text.append(src)
            if step is not None:
                lines[len(text)] = step
    return "\n".join(text) + "\n", lines


def split(prog, name="fetch_set"):
    """The split form: a main function calling, in program order, functions of the steps between
    its cuts (segments.cut) and the dynamic steps' rules. Each function takes the values it reads
    and returns those read later; the last one also computes the return line (the checks' verdict,
    `keep` of each variable): one jitted call rather than a few small ops run one by one. A
    segmented Program's functions are `segment_k`, jitted one by one (jax_backend.build); the
    others are `part_k`, traced into the one jitted function."""
    jitted = prog.segmented
    moved = set(gated(prog))   # rendered in the return lines (tail_lines)
    items = segments.cut([s for s in prog.steps if s not in moved], prog.split if jitted else MAX_LINES, jitted,
                         prog.stable_cuts)
    if not isinstance(items[-1], list):
        items.append([])
    # the values each item must hand on: those read by later items and by the return line
    wanted = tail_reads(prog)
    by_main = set(wanted)   # of those, what the main function's own lines read (dynamic ops, return)
    later, later_main = [None] * len(items), [None] * len(items)
    for k in range(len(items) - 1, -1, -1):
        later[k], later_main[k] = set(wanted), set(by_main)
        for s in items[k] if isinstance(items[k], list) else [items[k]]:
            wanted |= set(s.args)
            if not isinstance(items[k], list):
                by_main |= set(s.args)
    defined = set(prog.arg_names.values()) | ({"rand"} if prog.random_block or prog.philox_ops else set())
    body, parts, k_fn = [], [], 0
    for k, item in enumerate(items):
        if not isinstance(item, list):
            body.append((item, "    " + line(item)))
            defined |= set(item.outs)
            continue
        last = k == len(items) - 1
        made = {n for s in item for n in s.outs}
        # what a later item reads; from a jitted function a static value only when the main function
        # reads it (a later one recomputes its own: a jit argument is never known while tracing)
        out = list(dict.fromkeys(n for s in item for n in s.outs if n in later[k] and n not in defined
                                 and (not jitted or not s.static or s.check or n in later_main[k])))
        if not out and not last and not any(s.opdef.callback for s in item):   # nothing it does is needed
            continue
        reads = {a for s in item for a in s.args} | (tail_reads(prog) if last else set())
        k_fn += 1
        fn = "%s_%d" % ("segment" if jitted else "part", k_fn)
        args = ", ".join(["key"] + sorted(reads & defined - made))
        call = "%s(%s)" % (fn, args)
        body.append((None, "    return " + call if last else "    %s = %s" % (_tuple(out), call)))
        ret = tail_lines(prog) if last else [(None, "    return %s" % _tuple(out))]
        parts.append((["def %s(%s):" % (fn, args)], [(s, "    " + line(s)) for s in item], ret))
        defined |= set(out)
    return _number(head_lines(prog, name), body, [], parts)
