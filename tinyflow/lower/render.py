"""render: a Program -> the Python source of its function. Pure text: nothing is executed here.

One line per op, the op type's rule called with its inputs and its attrs as literals, the value's
dtype and static shape and the op's TF name in a comment:

    def fetch_set(rw, ro, feeds, key):
        w, = rw
        x, = feeds
        MatMul = MatMul(x, w, transpose_a=False, transpose_b=False)  # f32[?,3]  MatMul
        ...
        return (w_new,), (Softmax,)

An attr that has no literal form (an array, a tf.cond body) is read from the table `A`, e.g.
`Const(value=A['Const:value'], dtype=tf.float32)` (a small array is written out: `np.array([2, 3],
'int32')`); `tf.float32` is the dtype itself. A line of a
value known while tracing (a shape computation) says `static` in its comment. A run-time check is
its op's `.check` rule: `GatherV2_check = GatherV2.check(params, indices, batch_dims=0)`.

Big graphs are split into functions of at most MAX_LINES lines (`part_1`, `part_2`, ...), each
taking the values it reads and returning those read later: JAX looks up every traced line's
source location, and one function of 20,000 lines makes each lookup slow (issue: huge graphs).
"""
import math

import numpy as np

from tinyflow.graph import dtypes as _dt
from tinyflow.graph.shapes import TensorShape

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
    if isinstance(value, np.ndarray) and value.size <= 16 and value.dtype.kind in "biuf":
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
    return {table_key(s.op, k): v for s in steps for k, v in s.op.attrs.items() if literal(v) is None}


def _attrs(op):
    parts, extra = [], {}
    for k, v in op.attrs.items():
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
    call = "%s%s(%s)" % (op.type, ".check" if step.check else "", ", ".join(list(step.args) + _attrs(op)))
    lhs = (", ".join(step.outs) + " = ") if step.outs else ""
    types = " ".join(_type_of(t) for t in op.outputs) if not step.check else "check"
    mark = "  static" if step.static else "  dynamic shape: runs between segments" if step.dynamic else ""
    return "%s%s  # %s  %s%s" % (lhs, call, types, op.name, mark)


def _tuple(names):
    return "(%s)" % "".join(n + ", " for n in names)


def _unpack(names, what):
    return ["    %s, = %s" % (", ".join(names), what)] if names else []


def render(prog, name="fetch_set"):
    """(source, lines): the function's source, and {line number: Step} of the lines that call a rule."""
    head, tail = head_lines(prog, name), tail_lines(prog)
    chunks = [prog.steps[i:i + MAX_LINES] for i in range(0, len(prog.steps), MAX_LINES)] or [[]]
    if len(chunks) == 1:
        body = [(s, "    " + line(s)) for s in chunks[0]]
        return _number(head, body, tail)
    return _render_parts(prog, head, chunks, tail)


def head_lines(prog, name="fetch_set"):
    """The function's first lines: its signature and the unpacking of its arguments."""
    head = ["def %s(rw, ro, feeds, key):" % name]
    head += _unpack([prog.arg_names[v] for v in prog.rw_vars], "rw")
    head += _unpack([prog.arg_names[v] for v in prog.ro_vars], "ro")
    head += _unpack([prog.arg_names[t] for t in prog.feeds], "feeds")
    return head


def tail_lines(prog):
    """The function's last lines: the checks' verdict and the return of (finals, fetches)."""
    finals, fetches = list(prog.final_names), list(prog.fetch_names)
    tail = []
    if prog.checks:
        # a failed check leaves every variable as it was: the donated ones get their old value back
        checks = [s.outs[0] for s in prog.steps if s.check]
        tail.append("    ok = all_ok(%s)" % ", ".join(checks))
        rw = set(prog.rw_vars)
        finals = ["keep(ok, %s, %s)" % (n, prog.arg_names[v]) if v in rw else n
                  for n, v in zip(finals, prog.updated)]
        fetches.append("(ok, %s)" % _tuple(checks))
    tail.append("    return %s, %s" % (_tuple(finals), _tuple(fetches)))
    return tail


def tail_reads(prog):
    """The names the tail lines read."""
    names = set(prog.fetch_names) | set(prog.final_names) | {prog.arg_names[v] for v in prog.rw_vars}
    return names | {s.outs[0] for s in prog.steps if s.check}


def _number(head, body, tail, parts=()):
    text, lines = list(head), {}
    for step, src in body:
        text.append(src)
        if step is not None:
            lines[len(text)] = step
    text += tail
    for part_head, part_body, part_tail in parts:
        text += [""] + part_head
        for step, src in part_body:
            text.append(src)
            lines[len(text)] = step
        text += part_tail
    return "\n".join(text) + "\n", lines


def _render_parts(prog, head, chunks, tail):
    """The split form: the main function calls part_1, part_2, ... in order."""
    # names read after each chunk: by later chunks and by the return line
    later = [set() for _ in chunks]
    wanted = tail_reads(prog)
    for k in range(len(chunks) - 1, -1, -1):
        later[k] = set(wanted)
        for s in chunks[k]:
            wanted |= set(s.args)
    body, parts = [], []
    defined = set(prog.arg_names.values())
    for k, chunk in enumerate(chunks):
        made = [n for s in chunk for n in s.outs]
        reads = sorted({a for s in chunk for a in s.args if a in defined and a not in made})
        out = [n for n in made if n in later[k]]
        fn = "part_%d" % (k + 1)
        body.append((None, "    %s = %s(key, %s)" % (_tuple(out), fn, ", ".join(reads))))
        part_head = ["def %s(key, %s):" % (fn, ", ".join(reads))]
        parts.append((part_head, [(s, "    " + line(s)) for s in chunk], ["    return %s" % _tuple(out)]))
        defined |= set(out)
    return _number(head, body, tail, parts)
