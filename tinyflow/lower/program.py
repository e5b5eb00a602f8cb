"""plan: a pruned Subgraph and its state analysis -> a Program, one record per op.

The Program is what the generated function computes, as data: for each op its rule's arguments
and results as Python names. `render.py` prints it as source (what `jax.jit` traces), and the
reference executor (`reference.py`) runs the same records op by op in a memory plan's arena.

Names: a value gets a readable identifier from its TF name (ASCII letters, digits and '_', unique in
the function, never a Python keyword or one of the function's own names); rules are reached as
`op.MatMul`, so a value may be called `MatMul`. A variable's value
is its start value until an update in this run; then readers ordered after the update see the
update's result (passes/state.py decides which, DESIGN.md's rule).
"""
import keyword
import re
from collections import Counter
from dataclasses import dataclass, field, replace

from tinyflow.graph.core import Graph, Operation
from tinyflow.graph.registry import get_op_def
from tinyflow.ops.core.math_ops import matmul_sum
from tinyflow.ops.random_ops import block_spec, philox_op

STATIC_MAX = 1000   # a bigger value of constants alone is XLA's to compute (not a constant made while tracing)
# Names the generated function uses itself: no value may be called one of these.
RESERVED = {"rw", "ro", "feeds", "key", "A", "op", "tf", "np", "all_ok", "keep", "gate", "updates", "after", "ok",
            "fetch_set", "static", "rand", "random_block"}
# and the functions of the split form (render.py: part_k, or segment_k when jitted one by one)
_FUNCTION_NAME = re.compile(r"(part|segment)_[0-9]+")


@dataclass(frozen=True)
class Step:
    """One line of the generated function: `outs = OpType(args, **attrs)`, or the op's check."""
    op: Operation
    args: tuple       # names of the values the rule reads ("key" first for a random op; "None": no value)
    outs: tuple       # names it assigns (several for an op updating several variables; () for none)
    static: bool      # computed while tracing (depends only on shapes and constants)
    check: bool = False  # this line is the op's run-time check (OpDef.check), giving (ok, *data)
    dynamic: bool = False  # its output shape depends on run-time values: it runs between jitted segments
    with_check: bool = False  # its last name is what its check reads (OpDef.check_of_run; rule: attrs `_check`)
    rule: str = ""    # a rule of FUSED computing op's outputs from `args` instead of op's own rule
    like: Operation = None   # the op whose attrs that rule takes

    @property
    def opdef(self):
        return get_op_def(self.op.type)


# rules that compute an op's outputs from the inputs of the ops before it (see fuse_matmul_sums), and
# a specialized feed's value (lower/specialize.py: read from the table `A`, known while tracing)
FUSED = {"MatMulSum": matmul_sum, "FedValue": lambda attrs, value: value}


@dataclass
class Program:
    """A fetch set as records. The function it describes:

        fetch_set(rw, ro, feeds, key) -> (finals, fetches)

    rw: start values of the variables the run reads and updates (donatable), ro: of those it only
    reads, feeds: fed values, key: the run counter (random ops) or None. finals are the new values
    of `updated`, whose first len(rw) entries are the rw variables in the same order (so a donated
    buffer pairs with its own new value); fetches end with (ok, check results) when `checks`.
    """
    sub: object
    rw_vars: list
    ro_vars: list
    updated: list
    arg_names: dict                  # VariableV2 op or fed Tensor -> name of its argument
    steps: list = field(default_factory=list)
    fetch_names: list = field(default_factory=list)
    final_names: list = field(default_factory=list)
    checks: list = field(default_factory=list)      # ops whose check runs, in step order
    needs_key: bool = False
    callbacks: bool = False          # some op calls back into Python (py_func, Print), maybe in a body
    split: int = 0                   # > 0: a huge fetch set, run as jitted segments of at most this many steps
    random_block: list = field(default_factory=list)   # block_spec of the ops drawing from `rand` (see plan)
    philox_ops: list = field(default_factory=list)     # seeded ops drawing TF's Philox values from `rand`
    known: set = field(default_factory=set)            # tensors whose values are known while tracing
    constants: dict = field(default_factory=dict)      # table key -> a specialized feed's value (lower/specialize.py)
    stable_cuts: bool = True   # segments: runs of steps no dynamic op decides are cut out (segments.varying)

    @property
    def feeds(self):
        return self.sub.feeds

    @property
    def dynamic(self):
        """Whether some op's output shape depends on run-time values (it runs between jitted segments)."""
        return any(s.dynamic for s in self.steps)

    @property
    def segmented(self):
        """Whether it runs as jitted segments (lower/segments.py) rather than as one jitted function."""
        return self.split > 0 or self.dynamic


class Names:
    """Unique, valid Python identifiers for TF names (any TF-legal name, ASCII only: Python folds
    Unicode identifiers by NFKC, so two distinct names could become one)."""

    def __init__(self):
        self.used = set(RESERVED)

    def new(self, name):
        base = re.sub(r"[^A-Za-z0-9_]", "_", name)
        if not base or base[0].isdigit():
            base = "_" + base
        if keyword.iskeyword(base) or base in RESERVED:
            base += "_"
        cand, i = base, 1
        while cand in self.used or _FUNCTION_NAME.fullmatch(cand):
            cand = "%s_%d" % (base, i)
            i += 1
        self.used.add(cand)
        return cand


def _tensor_name(t):
    return t.op.name if t.value_index == 0 else "%s_%d" % (t.op.name, t.value_index)


def has_callbacks(ops):
    """Whether any op (or any op of a tf.cond / tf.while_loop body among them) calls back into Python."""
    for op in ops:
        if get_op_def(op.type).callback:
            return True
        for value in op.attrs.values():
            for body in value if isinstance(value, list) else [value]:
                g = getattr(body, "graph", None)   # a tf.cond / tf.while_loop body: a graph of its own
                if isinstance(g, Graph) and g is not op.graph and has_callbacks(g.ops):
                    return True
    return False


def is_dynamic(op, known):
    """Whether op's output shape depends on values not known while tracing (OpDef.dynamic_shape;
    known[i]: input i's value is known while tracing)."""
    rule = get_op_def(op.type).dynamic_shape
    if not rule or all(known):
        return False
    return rule is True or bool(rule(op, known))


def plan(sub, analysis, checks=True, segments=True, split_steps=0, constants=None):
    """The Program of Subgraph `sub` (state `analysis` from passes/state.py). checks=False leaves run-time
    checks out (tf.cond / tf.while_loop bodies: their results cannot leave lax). segments=False keeps
    ops of value-dependent shape inline (a body traced by lax: their rules then ask for constants).
    A Program of more than `split_steps` steps (> 0) runs as jitted segments of equal size, at most
    a fifth of it each (see pipeline.SPLIT_STEPS). constants: {fed Tensor: its value} of the feeds
    this Program is specialized on (lower/specialize.py): known while tracing, as a constant is."""
    constants = constants or {}
    fed = set(sub.feeds)
    unknown_fed = fed - set(constants)   # fed values that are not known while tracing
    names = Names()
    variable_of = analysis.variable_of
    start = analysis.needs_start + [v for v in analysis.fetched if v not in analysis.needs_start]
    rw = [v for v in analysis.updated if v in start]
    ro = [v for v in start if v not in analysis.final]
    prog = Program(sub, rw, ro, rw + [v for v in analysis.updated if v not in rw], {})
    for v in rw + ro:
        prog.arg_names[v] = names.new(v.name)
    values = {}                      # Tensor -> name
    for t in sub.feeds:
        values[t] = prog.arg_names[t] = names.new(_tensor_name(t))
    after = {}                       # (update op, VariableV2 op) -> name of the new value
    static = prog.known              # tensors known while tracing
    for t, value in constants.items():   # `x_value = op.FedValue(A['fed:x'], ...)`, first of all
        values[t] = name = names.new(_tensor_name(t) + "_value")
        prog.constants["fed:" + name] = value
        prog.steps.append(Step(t.op, ("A['fed:%s']" % name,), (name,), True, rule="FedValue"))
        static.add(t)

    def value_of(op, i, t):
        if t in values:
            return values[t]
        var = variable_of(t)
        if var is None:
            raise ValueError("Tensor %s is used by %s but was not computed" % (t.name, op.name))
        if (op, i) in analysis.current:       # an update's own reference: the current value
            prev = analysis.current[(op, i)]
            if prev is None:
                return "None" if get_op_def(op.type).overwrites else prog.arg_names[var]
            return after[(prev, var)]
        u = analysis.sees.get((op, i))
        return after[(u, var)] if u is not None else prog.arg_names[var]

    checked = set(sub.checked) if checks else set()
    for op in sub.ops:
        opdef = get_op_def(op.type)
        is_static = opdef.static or (not opdef.stateful and all(t in static for t in op.inputs)
                                     and not any(t in unknown_fed for t in op.inputs) and not (op.inputs and
                                     any((t.shape.num_elements() or 0) > STATIC_MAX for t in op.outputs)))
        args = tuple(value_of(op, i, t) for i, t in enumerate(op.inputs))
        check = Step(op, args, (names.new(op.name + "_check"),), is_static, check=True) if op in checked else None
        if check and not opdef.check_of_run:
            prog.steps.append(check)
            prog.checks.append(op)
        if op not in sub.rule_ops:
            continue
        if opdef.needs_key:
            args = ("key",) + args
            prog.needs_key = True
        outs = []
        for t in op.outputs:
            outs.append(names.new(_tensor_name(t)))
            if t not in fed:
                values[t] = outs[-1]
        if opdef.ref_inputs:            # the new values of the variables it updates
            refs = [variable_of(op.inputs[i]) for i in opdef.ref_inputs]
            outs = outs[:1] + [names.new("%s_%s" % (op.name, v.name)) for v in refs[1:]]
            for v, nm in zip(refs, outs):
                after[(op, v)] = nm
        if is_static:
            static.update(op.outputs)
        dynamic = segments and not is_static and is_dynamic(op, [t in static and t not in unknown_fed
                                                                 for t in op.inputs])
        step = Step(op, args, tuple(outs), is_static, dynamic=dynamic)
        if check and opdef.check_of_run:   # its check reads what this step hands on after the outputs
            flag = names.new(op.name + "_flag")
            prog.steps += [replace(step, outs=step.outs + (flag,), with_check=True), replace(check, args=(flag,))]
            prog.checks.append(op)
        else:
            prog.steps.append(step)
    for t in sub.fetches:
        prog.fetch_names.append(values[t] if t in values else prog.arg_names[variable_of(t)])
    prog.final_names = [after[(analysis.final[v], v)] for v in prog.updated]
    prog.callbacks = has_callbacks(sub.ops)
    if segments and split_steps and len(prog.steps) > split_steps:   # huge: equal segments
        parts = -(-len(prog.steps) // max(1, split_steps // 5))
        prog.split = -(-len(prog.steps) // parts)
    _random_block(prog)
    return prog


def _random_block(prog):
    """The random ops' `rand`: two or more random ops of static shape in one jitted function draw
    their values together (ops/random_ops.RandomBlock: one threefry kernel, the same values), and a
    seeded op draws TF's Philox values at its own execution count, which the key carries
    (`philox_ops`, in program order: the Session counts each op's runs). Their key argument becomes
    `rand`, the block the function makes from `key` first."""
    if prog.segmented:   # a block cannot cross a jitted segment's boundary
        return
    keyed = [i for i, s in enumerate(prog.steps) if not s.check and not s.static and s.args[:1] == ("key",)]
    seeded = [i for i in keyed if philox_op(prog.steps[i].op)]
    picked = [i for i in keyed if block_spec(prog.steps[i].op) is not None]
    picked = picked if len(picked) >= 2 else []
    for i in sorted(seeded + picked):
        prog.steps[i] = replace(prog.steps[i], args=("rand",) + prog.steps[i].args[1:])
    prog.random_block.extend(block_spec(prog.steps[i].op) for i in picked)
    prog.philox_ops.extend(prog.steps[i].op for i in seeded)


def fuse_matmul_sums(prog):
    """`prog` as the jitted function is rendered from it: each AddN of MatMuls whose products nothing else
    reads (same transposes, float, static shapes, operands no bigger than the products) is one MatMul of
    the concatenated operands (math_ops.matmul_sum): an unrolled RNN's weight gradient (docs/speed.md
    section 8). The reference executor and memory planner keep the graph's ops. Not when segmented."""
    if prog.segmented:
        return prog
    made = {n: i for i, s in enumerate(prog.steps) for n in s.outs}
    reads = Counter(a for s in prog.steps for a in s.args)
    reads.update(prog.fetch_names + prog.final_names)
    drop, steps = set(), list(prog.steps)
    for k, s in enumerate(prog.steps):
        if s.op.type != "AddN" or s.static or s.check or len(s.args) < 2:
            continue
        mms = [prog.steps[made[a]] if a in made else None for a in s.args]
        if not all(m is not None and m.op.type == "MatMul" and not m.static and reads[a] == 1
                   for m, a in zip(mms, s.args)):
            continue
        flags = {(m.op.attrs["transpose_a"], m.op.attrs["transpose_b"]) for m in mms}
        shapes = [t.shape for m in mms for t in m.op.inputs]
        if len(flags) > 1 or not s.op.outputs[0].dtype.is_floating or not all(x.is_fully_defined() for x in shapes):
            continue
        if sum(x.num_elements() for x in shapes) > len(mms) * s.op.outputs[0].shape.num_elements():
            continue   # concatenating would copy more than the products it saves
        drop.update(made[a] for a in s.args)
        steps[k] = replace(s, args=tuple(m.args[0] for m in mms) + tuple(m.args[1] for m in mms),
                           rule="MatMulSum", like=mms[0].op)
    if not drop:
        return prog
    return replace(prog, steps=[s for i, s in enumerate(steps) if i not in drop])
