"""hlo_memory: tinyflow's planner over the program XLA runs, after fusion. No JAX.

passes/memory.py plans at TF-op granularity: every TF op's output is a value. XLA fuses ops, and a
fused intermediate never exists. To tell a planner's quality from that difference, this pass reads the
optimized HLO of the executable (`compiled.as_text()`, a scheduled module: the entry computation's
instructions in the order they run) and plans XLA's own buffers with the same planners:

- every array an instruction defines (a fusion, custom-call, dot, copy, ...) is a buffer of its
  bytes, live from its step to its last reader's step; a tuple-shaped result also has its index
  table (8 bytes a pointer), as in XLA;
- parameter, get-tuple-element, bitcast, tuple and while results alias what they are made of
  (a while loop's state is its init operand's buffers); a dynamic-update-slice (or a fusion whose
  root is one) writes into its operand 0; an elementwise result (an elementwise op, or a loop fusion
  whose parameter only flows through elementwise ops) takes the buffer of an operand of its shape
  that dies at that step -- XLA's CanShareOperandBufferWithUser;
- parameters, constants and what the ROOT returns are XLA's argument, constant and output
  allocations, not its temp: they stay out of the arena;
- a while, conditional or call step also holds its called computations' own arena (planned the
  same way) for that step.

The result is a MemoryPlan-like HloPlan whose planned_bytes stands beside XLA's temp_size_in_bytes.

    plan = plan_hlo(compiled.as_text())       # .planned_bytes, .lower_bound_bytes, .buffers, .steps
"""
import re

from tinyflow.passes import memory as memory_pass

_BYTES = {"pred": 1, "s8": 1, "u8": 1, "s16": 2, "u16": 2, "f16": 2, "bf16": 2, "s32": 4, "u32": 4, "f32": 4,
          "s64": 8, "u64": 8, "f64": 8, "c64": 8, "c128": 16, "token": 0, "s4": 1, "u4": 1}
_ALIAS = {"get-tuple-element", "bitcast", "tuple", "parameter", "while", "opt-barrier", "add-dependency", "domain"}
_ELEMENTWISE = set("""abs add and atan2 cbrt ceil clamp compare convert cosine divide exponential exponential-minus-one
floor imag is-finite log log-plus-one logistic maximum minimum multiply negate not or popcnt power real remainder
round-nearest-afz round-nearest-even rsqrt select shift-left shift-right-arithmetic shift-right-logical sign sine
sqrt subtract tan tanh xor erf""".split())
_CALLS = re.compile(r"(?:body|condition|to_apply|true_computation|false_computation|calls)=%?([\w.\-]+)"
                    r"|branch_computations=\{([^}]*)\}")
POINTER_BYTES = 8


class Instr:
    """One HLO instruction: shape (bytes, or a list for a tuple), operand names, the text after its
    operands (attributes), whether it is its computation's ROOT, and its operands' text."""
    __slots__ = ("name", "shape", "opcode", "operands", "attrs", "root", "args")

    def __init__(self, name, shape, opcode, operands, attrs, root, args):
        self.name, self.shape, self.opcode, self.operands = name, shape, opcode, operands
        self.attrs, self.root, self.args = attrs, root, args


def _skip(s, i):
    """Past spaces, commas and /*comments*/."""
    while True:
        m = re.compile(r"[ ,]+|/\*.*?\*/").match(s, i)
        if m is None or m.end() == i:
            return i
        i = m.end()


def _parse_shape(s, i=0):
    """(shape, next index): a shape is an int (an array's bytes) or a list of shapes (a tuple)."""
    i = _skip(s, i)
    if s[i] == "(":
        out, i = [], _skip(s, i + 1)
        while s[i] != ")":
            sub, i = _parse_shape(s, i)
            out.append(sub)
            i = _skip(s, i)
        return out, i + 1
    m = re.compile(r"(\w+)\[([^\]]*)\](\{[^}]*\})?").match(s, i)
    if m is None:
        raise ValueError("hlo_memory: cannot read the shape at %r" % s[i:i + 40])
    n = 1
    for d in m.group(2).replace("<=", "").split(","):
        n *= int(d) if d.strip() else 1
    return n * _BYTES.get(m.group(1), 1 if m.group(1).startswith("f8") else 4), m.end()


def _split_call(s, i):
    """(operands text, rest) of 'opcode(...)rest' from index i at '('."""
    depth = 0
    for j in range(i, len(s)):
        depth += {"(": 1, ")": -1}.get(s[j], 0)
        if depth == 0:
            return s[i + 1:j], s[j + 1:]
    return s[i + 1:], ""


def parse_module(text):
    """{computation name: [Instr] in order}, and the entry computation's name."""
    comps, entry, cur = {}, None, None
    for line in text.splitlines():
        m = re.match(r"(ENTRY )?%?([\w.\-]+) \(.*\) -> .*\{\s*$", line)
        if m:
            cur = comps.setdefault(m.group(2), [])
            entry = m.group(2) if m.group(1) else entry
            continue
        m = re.match(r"\s*(ROOT )?%?([\w.\-]+) = ", line)
        if cur is None or m is None:
            continue
        shape, i = _parse_shape(line, m.end())
        op = re.compile(r"\s*([\w\-]+)\(").match(line, i)
        args, rest = _split_call(line, op.end() - 1)
        operands = re.findall(r"%([\w.\-]+)", args)
        cur.append(Instr(m.group(2), shape, op.group(1), operands, rest, bool(m.group(1)), args))
    return comps, entry


def _leaves(x):
    return [x] if not isinstance(x, list) else [b for e in x for b in _leaves(e)]


def _called(ins):
    out = []
    for a, b in _CALLS.findall(ins.attrs):
        out += [a] if a else re.findall(r"%?([\w.\-]+)", b)
    return out


def _inplace_operands(ins, comps):
    """Operand indices the result may overwrite: (index, always) pairs."""
    if ins.opcode in ("dynamic-update-slice", "scatter"):
        return [(0, True)]
    if ins.opcode in _ELEMENTWISE:
        return [(k, False) for k in range(len(ins.operands))]
    if ins.opcode != "fusion" or not _called(ins):
        return []
    body = comps.get(_called(ins)[0], [])
    by_name = {i.name: i for i in body}
    root = next((i for i in body if i.root), None)
    params = {i.name: int(i.args) for i in body if i.opcode == "parameter"}
    if root is not None and root.opcode in ("dynamic-update-slice", "scatter"):
        x = by_name.get(root.operands[0])
        while x is not None and x.opcode == "bitcast":
            x = by_name.get(x.operands[0])
        return [(params[x.name], True)] if x is not None and x.name in params else []
    if "kind=kLoop" not in ins.attrs:
        return []
    users = {}
    for i in body:
        for o in i.operands:
            users.setdefault(o, []).append(i)

    ok = {}     # instruction -> every path from it to the root is elementwise, shape kept (reverse order)
    for i in reversed(body):
        ok[i.name] = all(u.opcode in _ELEMENTWISE and u.shape == i.shape and ok.get(u.name, False)
                         for u in users.get(i.name, []))
    return [(k, False) for name, k in params.items() if ok[name]]


class HloPlan:
    """The plan of one computation's buffers (memory_pass.Buffer, their .values instruction names)."""

    def __init__(self, steps, buffers, timeline, arena, strategy, argument_bytes, output_bytes, inplace):
        self.steps, self.buffers, self.timeline, self.inplace = steps, buffers, timeline, inplace
        self.planned_bytes, self.strategy = arena, strategy
        self.lower_bound_bytes = max(timeline, default=0)
        self.naive_bytes = sum(b.size for b in buffers)
        self.argument_bytes, self.output_bytes = argument_bytes, output_bytes

    overlaps = memory_pass.MemoryPlan.overlaps

    def __repr__(self):
        return "<HloPlan %d steps, %d buffers, lower bound %d, planned %d (%s)>" % (
            len(self.steps), len(self.buffers), self.lower_bound_bytes, self.planned_bytes, self.strategy)


def plan_hlo(text, planner=None, align=1):
    """The HloPlan of the entry computation of an optimized, scheduled HLO module (text); `planner` as
    for memory_pass.plan_memory; sizes are rounded up to `align` bytes."""
    comps, entry = _read(parse_module, text)
    if entry is None:
        raise HloReadError("hlo_memory: no ENTRY computation in the HLO text")
    head = re.search(r"input_output_alias=\{(.*?)\}\s*(,\s*\w+=|$)", text.split("\n", 1)[0])
    donated = {int(o): int(p) for o, p in re.findall(r"\{(\d+)\}: \((\d+), \{\}", head.group(1))} if head else {}
    return _plan(comps, entry, planner, align, donated)


class _Buf:
    __slots__ = ("size", "start", "end", "names", "kind")


def _walk(comps, body, align, last_use=None, outputs=()):
    """(buffers, {instruction: its buffers, nested like its shape}, inplace pairs, steps) of one
    computation; steps: the instructions in run order, a `call`'s computation inlined. Without
    last_use nothing is shared (the pass that finds each value's last use)."""
    bufs, struct, inplace, steps = [], {}, [], []

    def new(size, step, what, kind="temp"):
        b = _Buf()
        b.size, b.start, b.end, b.names, b.kind = -(-size // align) * align, step, step, [what], kind
        bufs.append(b)
        return b

    def define(shape, step, what, kind):
        if isinstance(shape, list):
            return [new(POINTER_BYTES * len(shape), step, what, kind)] + [define(s, step, what, kind) for s in shape]
        return new(shape, step, what, kind)

    def shared_operand(ins, ops, s):
        """The operand buffer `ins` may write its result into, and that operand's index."""
        for k, always in (_inplace_operands(ins, comps) if last_use and ins.name not in outputs else ()):
            x = ops[k] if k < len(ops) else None
            if (isinstance(x, _Buf) and x.kind == "temp" and not isinstance(ins.shape, list)
                    and x.size == -(-ins.shape // align) * align and (always or last_use[x.names[-1]] == s)
                    and ins.operands.count(ins.operands[k]) == 1):
                return x, k
        return None, None

    def run(instrs, params=None):
        for ins in instrs:
            ops = [struct.get(o) for o in ins.operands]
            if None in ops:
                raise HloReadError("hlo_memory: %s reads %s before it is defined"
                                   % (ins.name, ins.operands[ops.index(None)]))
            if ins.opcode == "parameter" and params is not None:   # a called computation's: the caller's
                struct[ins.name] = params[int(ins.args)]
                continue
            callee = comps.get(_called(ins)[0]) if ins.opcode == "call" and _called(ins) else None
            if callee:             # runs in place of the call: its buffers among the caller's
                run(callee, ops)
                struct[ins.name] = struct[next((i for i in callee if i.root), callee[-1]).name]
                continue
            s = len(steps)
            steps.append(ins.name)
            if ins.opcode not in _ALIAS or ins.opcode == "while":
                for b in (b for x in ops for b in _leaves(x)):
                    b.end = s
            if ins.opcode in ("parameter", "constant"):
                kind = "argument" if ins.opcode == "parameter" else "constant"
                struct[ins.name] = define(ins.shape, s, ins.name, kind)
            elif ins.opcode == "get-tuple-element":
                struct[ins.name] = ops[0][1 + int(re.search(r"index=(\d+)", ins.attrs).group(1))]
            elif ins.opcode == "tuple":
                struct[ins.name] = [new(POINTER_BYTES * len(ops), s, ins.name)] + ops
            elif ins.opcode in _ALIAS:            # bitcast, while, opt-barrier, ...: the operand's buffers
                struct[ins.name] = ops[0]
            else:
                x, k = shared_operand(ins, ops, s)
                if x is not None:
                    x.names.append(ins.name)
                    inplace.append((ins.name, ins.operands[k]))
                    struct[ins.name] = x
                else:
                    struct[ins.name] = define(ins.shape, s, ins.name, "temp")
            scratch = max([_plan(comps, c, None, align).planned_bytes for c in _called(ins)
                           if ins.opcode in ("while", "conditional") and c in comps], default=0)
            if scratch:
                new(scratch, s, ins.name + " (called computations)")
    run(body)
    return bufs, struct, inplace, steps


class HloReadError(ValueError):
    """HLO text this pass cannot read (an instruction or shape it does not know)."""


def _read(fn, *args):
    try:
        return fn(*args)
    except HloReadError:
        raise
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as e:
        raise HloReadError("hlo_memory: cannot read the HLO module (%s: %s)" % (type(e).__name__, e)) from None


def _plan(comps, name, planner, align, donated=None):
    body = comps[name]
    root = next((i for i in body if i.root), body[-1] if body else None)
    bufs, struct, _, _ = _read(_walk, comps, body, align)
    last_use = {}
    for b in bufs:
        last_use[b.names[0]] = max(b.end, last_use.get(b.names[0], -1))
    outputs = {b.names[0] for b in _leaves(struct[root.name])} if root is not None else set()
    bufs, struct, inplace, steps = _read(_walk, comps, body, align, last_use, outputs)
    out = set(map(id, _leaves(struct[root.name]))) if root is not None else set()
    temps = [b for b in bufs if b.kind == "temp" and id(b) not in out]
    reused = _reuse_donated(temps, struct, body, root, donated, comps) if donated else []
    temps = [b for b in temps if b not in reused]
    args = sum(b.size for b in bufs if b.kind == "argument")
    outputs = sum(b.size for b in bufs if id(b) in out and b.kind == "temp")
    buffers = [memory_pass.Buffer(i, b.size, b.start, b.end, [_Name(n) for n in b.names]) for i, b in enumerate(temps)]
    timeline = [int(x) for x in memory_pass.live_bytes(buffers, len(steps))]
    arena, strategy, optimal = memory_pass.place(buffers, planner, max(timeline, default=0))
    plan = HloPlan(steps, buffers, timeline, arena, strategy, args, outputs, inplace)
    plan.optimal = optimal
    plan.in_arguments = [(b.names[0], b.size) for b in reused]
    return plan


def _reuse_donated(temps, struct, body, root, donated, comps):
    """XLA's reuse of donated parameters: the buffer of a parameter that an output aliases is free
    between the parameter's last read and the output's definition, and XLA's buffer assignment puts
    temporaries that fit there (one at a time, larger first) before it plans the rest in its temp
    allocation. Returns the temporaries placed so."""
    params = {int(i.args): struct[i.name] for i in body if i.opcode == "parameter"}
    outs = struct[root.name] if isinstance(struct[root.name], list) else [None, struct[root.name]]
    by_name = {i.name: i for i in body}
    slots = []
    for k, p in sorted(donated.items()):
        x, o = params.get(p), outs[1 + k] if 1 + k < len(outs) else None
        if isinstance(x, _Buf) and isinstance(o, _Buf):
            ins = by_name[o.names[0]]     # the output may be written over an operand that dies there
            into = {ins.operands[k] for k, _ in _inplace_operands(ins, comps) if k < len(ins.operands)}
            slots.append((x.size, [(x.start, x.end), (o.start + 1, o.end)], o.start, into))
    placed = []
    for b in sorted(temps, key=lambda b: (-b.size, b.start)):
        for size, busy, out_step, into in slots:
            if (b.size <= size and all(b.end < lo or b.start > hi for lo, hi in busy)
                    and (b.end < out_step or (b.end == out_step and b.names[-1] in into))):
                busy.append((b.start, b.end))
                placed.append(b)
                break
    return placed


class _Name(str):
    """An instruction name where memory_pass expects a value with .name."""

    @property
    def name(self):
        return str(self)
