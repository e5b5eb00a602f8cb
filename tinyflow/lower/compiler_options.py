"""XLA compiler options chosen per fetch set from what it holds (issue 30), passed to its own
`jax.jit(..., compiler_options=...)`: the user's XLA_FLAGS stay as they are, other fetch sets are
untouched, and the options are part of JAX's (persistent) cache key. CPU only: on an accelerator
these XLA:CPU options mean nothing and none are passed.

* A fetch set holding a Conv2DBackpropFilter (a convolution's training step): XLA:CPU hands
  convolutions to YNNPACK by default, whose filter-gradient convolution on small kernels is 1.5-2.1x
  TF's; XLA's own (Eigen) convolution runs that HLO 1.3-2.1x faster. So YNNPACK keeps its dots and
  reductions, not the convolutions (`xla_cpu_experimental_ynn_fusion_type`). Not for forward-only
  fetch sets: there YNNPACK's convolution is the faster one (1.3-2.6x).
* A run-once fetch set (an initializer: Assigns of constants and random numbers, no feeds, no
  variable read): compile time is all its cost, so XLA's cheaper backend optimization level 1
  (random initializers of a CNN: 2.7-3.1 s of compile at the default level, 0.8 s at level 1), one
  LLVM module, and XLA:CPU's older fusion emitters (`RUN_ONCE_OPTIONS`: the tutorial scripts'
  initializers compile 25-45% faster and run 1.2-4x faster: the CNN's 39 -> 9 ms, deep MNIST's
  150-180 -> 50-60 ms; the same numbers, bit for bit).
* Tiers (runtime/executables.py): a fetch set's first program is compiled with `FIRST_TIER` added,
  backend optimization level 1 and one LLVM module: 5-30% less XLA compile on the tutorial scripts'
  steps at the same step time, values within float32 rounding (docs/speed.md section 9). The
  program with the fetch set's own options replaces it, compiled in the background, once the fetch
  set has run for `tier_ratio()` times the first one's compile time. $TINYFLOW_TIERED=0 compiles the
  fetch set's own options at once; a number sets the ratio (default 3).
* The first tier also takes XLA:CPU's older fusion emitters (`OLDER_EMITTERS`) where
  `older_emitters_pay` says so from the fetch set's ops: 40-65% less compile for small steps and
  evaluations at the same step time (where not, and why: that function's doc).

An option the installed jaxlib does not know (YNNPACK's came with jaxlib 0.8; numpy-1 stacks run
jaxlib 0.7) is left out: XLA would refuse the whole compile ("No such compile option").

Each decision is re-checked on the installed jaxlib by benchmarks/compiler_options.py, which says
whether it still helps. $TINYFLOW_COMPILER_OPTIONS=0 turns them all off; an option the user sets
in $XLA_FLAGS is never overridden.
"""
import os

YNN_FLAG = "xla_cpu_experimental_ynn_fusion_type"
# jaxlib 0.10's default list is {INDIVIDUAL_DOT, INDIVIDUAL_CONVOLUTION, REDUCE} (found by compiling
# with each list: benchmarks/compiler_options.py checks it still is); this is it without convolutions
YNN_NO_CONV = "LIBRARY_FUSION_TYPE_INDIVIDUAL_DOT,LIBRARY_FUSION_TYPE_REDUCE"
OPT_LEVEL_FLAG = "xla_backend_optimization_level"
FIRST_TIER = {OPT_LEVEL_FLAG: 1, "xla_cpu_parallel_codegen_split_count": 1}
OLDER_EMITTERS = {"xla_cpu_use_fusion_emitters": False}
RUN_ONCE_OPTIONS = {**FIRST_TIER, **OLDER_EMITTERS}
# what older_emitters_pay measures a fetch set by: a program of more ops than this (loop bodies counted)
# keeps the new emitters in its first tier (the tutorial steps that gain: 160-200 ops; seq2seq's: 735)
BIG_PROGRAM = 400
# ... and a step of fewer ops than this keeps them too: it has few fusions, so the older emitters save
# nothing measurable of its compile (the anchors' MLP step, 67 ops: 0.31 s against 0.26-0.35 s), while
# its dense kernels ran 33% slower on them (4.4 against 3.3 ms; the tutorial steps that gain: 103-160 ops)
SMALL_STEP = 80
SLOW_WITH_OLDER_EMITTERS = frozenset({"LRN", "LRNGrad", "HistogramBuckets"})
# A first tier of little arithmetic (`work` at most SMALL_WORK) also takes backend optimization level 0
# (LLVM's code unoptimized) with the older emitters: char-rnn's step (1,207 ops, 2.8e6 of work) compiles
# in 0.6 s instead of 3.8 s and runs in 1.2 ms instead of 0.65; the tutorial steps (5e8-1e10) would run
# 1.4-3x slower there, so they keep FIRST_TIER (docs/speed.md, "rnnspeed").
SMALL_WORK = 5e7
LEVEL0 = {OPT_LEVEL_FLAG: 0}
# a level-0 program's compile is a fourth to a sixth of the optimized one's: its Tier counts that much
# more run time before the upgrade (else a run of a few seconds would pay the optimized compile)
LEVEL0_COMPILE_SHARE = 4

CONV_GRADIENTS = frozenset({"Conv2DBackpropFilter", "Conv3DBackpropFilterV2", "DepthwiseConv2dNativeBackpropFilter"})
# what a TF1 initializer runs: the variables, their assigns, constant and random values and the
# arithmetic of initializers (scale and shift of a random draw, glorot's limits)
RUN_ONCE = frozenset({"Assign", "VariableV2", "NoOp", "Const", "Fill", "Identity", "Mul", "Add", "AddV2", "Sub",
                      "RealDiv", "Reshape", "Shape", "RandomUniform", "RandomStandardNormal", "TruncatedNormal",
                      "RandomUniformInt"})


_KNOWN = {}   # option -> whether this jaxlib's XLA accepts it (asked once, by compiling a scalar)


def known(option, value):
    """Whether the installed XLA knows `option`: an unknown one fails every compile that passes it.
    Every option of this module is asked in one compile first (each costs 20-30 ms of a cold start)."""
    if option not in _KNOWN:
        every = {**RUN_ONCE_OPTIONS, YNN_FLAG: YNN_NO_CONV}
        if option in every and not _KNOWN and _compiles(every):
            _KNOWN.update(dict.fromkeys(every, True))
        else:
            _KNOWN[option] = _compiles({option: value})
    return _KNOWN[option]


def _compiles(options):
    import jax
    import numpy as np
    try:
        jax.jit(lambda x: x + 1, compiler_options=options).lower(np.float32(0)).compile()
        return True
    except Exception as e:   # XLA's message: "No such compile option: '<name>'"
        if "No such compile option" not in str(e) and not any(k in str(e) for k in options):
            raise
        return False


def enabled():
    return os.environ.get("TINYFLOW_COMPILER_OPTIONS", "1").strip().lower() not in ("0", "off", "false", "no")


def tier_ratio():
    """$TINYFLOW_TIERED: how many times its first tier's compile time a fetch set runs before its
    optimized program is compiled (0, off: no tiers)."""
    text = os.environ.get("TINYFLOW_TIERED", "3").strip().lower()
    if text in ("off", "false", "no"):
        return 0.0
    try:
        return max(float(text or 3), 0.0)
    except ValueError:
        raise ValueError("tinyflow: $TINYFLOW_TIERED must be a number (0: off), got %r" % text) from None


def first_tier(options, platform="cpu", ops=(), updates=True, jaxpr=None):
    """The options added to a fetch set's `options` for its first program ({}: no tiers): FIRST_TIER,
    and XLA:CPU's older fusion emitters where older_emitters_pay(its ops, whether it updates variables);
    level 0 with the older emitters where its traced `jaxpr` does little arithmetic (SMALL_WORK)."""
    if platform != "cpu" or not tier_ratio():
        return {}
    user = os.environ.get("XLA_FLAGS", "")
    if jaxpr is not None and work(jaxpr) <= SMALL_WORK:
        first = {**RUN_ONCE_OPTIONS, **LEVEL0}
    else:
        first = {**FIRST_TIER, **(OLDER_EMITTERS if older_emitters_pay(ops, updates) else {})}
    return {k: v for k, v in first.items() if options.get(k) != v and "--" + k not in user and known(k, v)}


def older_emitters_pay(ops, updates):
    """Whether a first tier on XLA:CPU's older fusion emitters saves more than it costs (docs/speed.md
    section 9, "Per-fetch-set first tiers"). They emit plain LLVM loops, without the new emitters'
    MLIR pipeline of fixed cost per fusion: LSTM classifier step 1.6-1.9 -> 0.7-0.8 s, text CNN step
    2.2 -> 1.05 s (steps the same within 5%), evaluations 0.4-0.7 -> 0.15-0.3 s. But not where
      * the program is large (over BIG_PROGRAM ops, loop bodies counted): LLVM unrolls each kernel's
        inner dimension with its math inlined, so their code grows with the kernels: the seq2seq
        step (735 ops) compiles 15-30% longer (3.3 -> 3.8-4.3 s; a log over [32, 20] alone is 268 KB
        of LLVM IR, its fused index checks 0.6-0.9 s);
      * a step (it updates variables: a short script's warm run runs all its steps on the first
        tier) holds kernels they run slower: overlapping pooling windows and LRN (CNN step 138 ->
        172 ms), histograms (their counts scatter-added by a loop: deep MNIST step 149 -> 175 ms):
        20 steps lose more than the 0.2-0.9 s of compile saved;
      * a step is small (under SMALL_STEP ops): no compile to save, and its dense kernels ran slower.
    A fetch set that updates nothing (an evaluation) runs rarely, or long enough to be upgraded."""
    from tinyflow.ops.control_flow_ops import bodies   # a loop's or a conditional's function graphs
    ops, seen, count, slow = list(ops), set(), 0, False
    while ops:
        op = ops.pop()
        count += 1
        if count > BIG_PROGRAM:
            return False
        slow = slow or op.type in SLOW_WITH_OLDER_EMITTERS or "Pool" in op.type and _overlaps(op)
        for body in bodies(op):
            if id(body) not in seen:
                seen.add(id(body))
                ops.extend(body.graph.ops)
    return not (updates and (slow or count < SMALL_STEP))


def _overlaps(op):
    """Whether a pooling op's windows overlap: a stride smaller than the window, and more than one
    window along that dimension (a text CNN's max over time is one window: two reductions, no scan)."""
    dims = op.inputs[0].shape.as_list() if op.inputs and op.inputs[0].shape.ndims is not None else []
    same = op.attrs.get("padding") in ("SAME", b"SAME")
    for i, (k, s) in enumerate(zip(op.attrs.get("ksize") or (), op.attrs.get("strides") or ())):
        n = dims[i] if i < len(dims) else None
        if k > s and (n is None or (-(-n // s) if same else (n - k) // s + 1) > 1):
            return True
    return False


def choose(program, platform="cpu"):
    """The compiler options of this Program's jitted function: a dict (empty: XLA's defaults)."""
    if platform != "cpu" or not enabled():
        return {}
    types = {op.type for op in program.sub.ops}
    options = {}
    if types & CONV_GRADIENTS:
        options[YNN_FLAG] = YNN_NO_CONV
    elif "Assign" in types and types <= RUN_ONCE and not program.feeds and not program.ro_vars \
            and not program.rw_vars:
        options.update(RUN_ONCE_OPTIONS)
    user = os.environ.get("XLA_FLAGS", "")
    return {k: v for k, v in options.items() if "--" + k not in user and known(k, v)}


def work(jaxpr, loop=1000):
    """A rough count of the arithmetic of one run of a jaxpr (its shapes concrete): a contraction by
    its multiply-adds, any other equation by its output elements; a scan's body times its length, a
    while loop's (bound unknown) times `loop`, a conditional's costliest branch."""
    import numpy as np
    jaxpr = getattr(jaxpr, "jaxpr", jaxpr)   # a ClosedJaxpr's own
    total = 0.0
    for e in jaxpr.eqns:
        name, params = e.primitive.name, e.params
        inner = [v for k, v in params.items() if k in ("jaxpr", "call_jaxpr", "fun_jaxpr")]
        if name == "scan":
            total += params["length"] * work(params["jaxpr"], loop)
        elif name == "while":
            total += loop * (work(params["body_jaxpr"], loop) + work(params["cond_jaxpr"], loop))
        elif name == "cond":
            total += max(work(b, loop) for b in params["branches"])
        elif inner:
            total += work(inner[0], loop)
        elif name == "dot_general":
            (contracted, _), _ = params["dimension_numbers"]
            k = np.prod([e.invars[0].aval.shape[d] for d in contracted])
            total += 2.0 * k * np.prod(e.outvars[0].aval.shape)
        elif name == "conv_general_dilated":
            kernel = e.invars[1].aval.shape   # its output features times (window x input features)
            per_output = np.prod(kernel) / kernel[params["dimension_numbers"].rhs_spec[0]]
            total += 2.0 * per_output * np.prod(e.outvars[0].aval.shape) / params["feature_group_count"]
        else:
            total += sum(float(np.prod(getattr(v.aval, "shape", ()))) for v in e.outvars)
    return total
