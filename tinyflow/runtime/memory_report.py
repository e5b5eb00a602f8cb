"""sess.memory_report(fetches, feed_dict): tinyflow's memory plan and XLA's, side by side.

For one fetch set and its feeds: the concrete shape of every value (traced the way jit traces
it), the MemoryPlan of passes/memory.py, the plan proved in one arena by lower/reference.py
(`replay`) and compared with the jitted function (`verified`), and what XLA did with the same function: the fields of
`compiled.memory_analysis()` and its buffer assignment (allocations with their sizes and the TF ops
whose values they hold), read from XLA's dump; tinyflow's planner on the optimized HLO that executable
runs (passes/hlo_memory.py: XLA's buffers after fusion), and every registered planner beside
tinyflow's own (memory_pass.register_planner), each proved by replay.
"""
import copy
import glob
import os
import re
import shutil
import tempfile
import warnings

import jax
import numpy as np

from tinyflow.lower import reference
from tinyflow.passes import hlo_memory
from tinyflow.passes import memory as memory_pass
from tinyflow.passes import minimalloc
from tinyflow.passes import recompute as recompute_pass

_MiB = 1024.0 * 1024.0
_XLA_FIELDS = ("argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes", "temp_size_in_bytes",
               "peak_memory_in_bytes", "generated_code_size_in_bytes")


class MemoryReport:
    """One fetch set's memory figures, in bytes. `print(report)` shows them in MiB with XLA's beside.

    plan: the MemoryPlan; xla: memory_analysis() fields (None if not compiled; on the CPU XLA's
    peak_memory_in_bytes leaves temp out, see xla_total_bytes); xla_allocations: XLA's
    buffer assignment ([{'index', 'size', 'kind', 'values': [(hlo name, tf op, size, offset)]}]) when
    its dump could be read; verified: True once the reference executor proved the plan and matched the
    jitted result (None when not checked).
    """

    def __init__(self, plan, xla=None, xla_allocations=None, verified=None, name="", fused=None, planners=()):
        self.plan = plan
        self.fused = fused               # passes/hlo_memory.HloPlan: tinyflow's planner on XLA's fused program
        self.planners = list(planners)   # [(name, TF-op MemoryPlan, verified, HloPlan or None)] registered ones
        self.xla = xla
        self.xla_allocations = xla_allocations
        self.verified = verified
        self.name = name
        self.naive_bytes = plan.naive_bytes
        self.lower_bound_bytes = plan.lower_bound_bytes
        self.planned_bytes = plan.planned_bytes
        self.planned_bytes_no_inplace = plan.planned_bytes_no_inplace
        self.argument_bytes = plan.argument_bytes
        self.planned_total_bytes = plan.planned_bytes + plan.argument_bytes
        self.recompute_flops = 0     # estimated FLOPs of the gradient checkpointing's recomputation

    def rows(self):
        """(label, tinyflow bytes or None, XLA label, XLA bytes or None) for the table."""
        x = self.xla or {}
        return [
            ("naive", self.naive_bytes, "", None),
            ("lower bound", self.lower_bound_bytes, "", None),
            ("planned arena", self.planned_bytes, "temp", x.get("temp_size_in_bytes")),
            ("planned, no inplace", self.planned_bytes_no_inplace, "", None),
            ("planned, fused HLO", self.fused and self.fused.planned_bytes, "temp", x.get("temp_size_in_bytes")),
            ("arguments", self.argument_bytes, "arguments", x.get("argument_size_in_bytes")),
            ("", None, "outputs (aliased)", x.get("output_size_in_bytes")),
            ("planned total", self.planned_total_bytes, "args+temp+out-alias", self.xla_total_bytes),
            ("", None, "peak (XLA's figure)", x.get("peak_memory_in_bytes")),
        ]

    @property
    def xla_total_bytes(self):
        """XLA's arguments + temp + outputs not aliased to arguments: comparable to planned_total_bytes."""
        x = self.xla
        if not x:
            return None
        return (x["argument_size_in_bytes"] + x["temp_size_in_bytes"] + x["output_size_in_bytes"]
                - x["alias_size_in_bytes"])

    def __str__(self):
        mib = lambda v: "" if v is None else "%.4f" % (v / _MiB)
        lines = ["memory report%s: %d ops, %d values, %d inplace, strategy %s, verified %s"
                 % (" of " + self.name if self.name else "", len(self.plan.steps), len(self.plan.live),
                    len(self.plan.inplace), self.plan.strategy, self.verified),
                 "%-22s %12s   %-18s %12s" % ("tinyflow", "MiB", "XLA", "MiB")]
        for a, va, b, vb in self.rows():
            lines.append("%-22s %12s   %-18s %12s" % (a, mib(va), b, mib(vb)))
        if self.fused is not None:
            lines.append("fused HLO: %d instructions, %d temp buffers, lower bound %s MiB, %d in donated arguments"
                         % (len(self.fused.steps), len(self.fused.buffers), mib(self.fused.lower_bound_bytes),
                            len(self.fused.in_arguments)))
        if self.planners:
            temp = (self.xla or {}).get("temp_size_in_bytes")
            lines.append("%-28s %10s %9s %10s %11s  %s" % ("planner", "TF-op MiB", "verified", "fused MiB",
                                                            "/ XLA temp", "optimal (TF ops, fused)"))
            for label, plan, ok, fused in [("tinyflow (" + self.plan.strategy + ")", self.plan, self.verified,
                                            self.fused)] + self.planners:
                ratio = "%.3f" % (fused.planned_bytes / temp) if fused is not None and temp else ""
                proved = "%s, %s" % (plan and plan.optimal, fused and fused.optimal)
                lines.append("%-28s %10s %9s %10s %11s  %s" % (label[:28], mib(plan and plan.planned_bytes), ok,
                                                               mib(fused and fused.planned_bytes), ratio, proved))
        if self.recompute_flops:
            lines.append("recompute: %d segments, %.4g extra GFLOPs (gradient checkpointing)"
                         % (sum(op.type == "Recompute" for op in self.plan.steps), self.recompute_flops / 1e9))
        if self.xla_allocations:
            lines.append("XLA buffer assignment: %d allocations, %d temp bytes"
                         % (len(self.xla_allocations),
                            sum(a["size"] for a in self.xla_allocations if "temp" in a["kind"])))
        return "\n".join(lines)

    __repr__ = __str__

    def details(self, top=10):
        """The `top` largest tinyflow buffers (offset, size, live steps, values) and XLA allocations."""
        lines = ["tinyflow buffers (largest first): offset, KiB, steps, values"]
        for b in sorted(self.plan.buffers, key=lambda b: -b.size)[:top]:
            lines.append("  %10d %10.1f  %4d..%-4d %s" % (b.offset, b.size / 1024.0, b.start, b.end,
                                                        " -> ".join(t.name for t in b.values)))
        if self.plan.inplace:
            lines.append("inplace: " + ", ".join("%s reuses %s" % (o.name, i.name) for _, i, o in self.plan.inplace))
        if self.xla_allocations:
            lines.append("XLA allocations (largest first): KiB, kind, TF ops of its values")
            for a in sorted(self.xla_allocations, key=lambda a: -a["size"])[:top]:
                ops = sorted({v[1] for v in a["values"] if v[1]})
                lines.append("  %10.1f  %-28s %s" % (a["size"] / 1024.0, a["kind"][:28], ", ".join(ops[:6])
                                                     + (" ..." if len(ops) > 6 else "")))
        return "\n".join(lines)

    def export_csv(self, directory):
        """Writes the buffers of both plans in MiniMalloc's CSV (id,lower,upper,size: steps, upper
        excluded, bytes): tf_ops.csv and fused_hlo.csv, the problems; and each plan's solution (an offset
        column): tf_ops.<planner>.solution.csv, fused_hlo.<planner>.solution.csv. Returns the paths."""
        os.makedirs(directory, exist_ok=True)
        paths = []
        for what, index in (("tf_ops", 1), ("fused_hlo", 3)):
            rows = [("tinyflow", self.plan if index == 1 else self.fused)] + [(r[0], r[index]) for r in self.planners]
            if rows[0][1] is None:
                continue
            paths.append(minimalloc.write_csv(os.path.join(directory, what + ".csv"), rows[0][1].buffers, False))
            for label, plan in rows:
                if plan is not None:
                    name = "".join(c if c.isalnum() or c in "-_" else "_" for c in label)
                    paths.append(minimalloc.write_csv(os.path.join(directory, "%s.%s.solution.csv" % (what, name)),
                                                      plan.buffers))
        return paths

    def check_solution(self, path):
        """Takes a MiniMalloc solution CSV (of tf_ops.csv or fused_hlo.csv, see export_csv) as a plan: at
        TF-op granularity proved by replay (lower/reference.py), for XLA's fused buffers checked for
        overlaps. Adds it to `planners` (labelled by the file's name) and returns that row; a ValueError
        names the file and two buffers whose bytes meet while both are live."""
        rows = minimalloc.read_csv(path)
        found = [(k, p) for k, p in ((1, self.plan), (3, self.fused))
                 if p is not None and minimalloc.same_buffers(rows, p.buffers)]
        if not found:
            raise ValueError("%s: its %d buffers are neither the TF-op plan's %d (tf_ops.csv) nor the fused HLO "
                             "plan's %s" % (path, len(rows), len(self.plan.buffers),
                                "%d (fused_hlo.csv)" % len(self.fused.buffers) if self.fused else "(none)"))
        index, plan = found[0]
        offsets = minimalloc.solution_offsets(path, rows, plan.buffers)
        mine = copy.copy(plan)
        mine.buffers = [memory_pass.Buffer(b.id, b.size, b.start, b.end, b.values) for b in plan.buffers]
        for b, o in zip(mine.buffers, offsets):
            b.offset = o
        mine._buffer_of = {t: b for b in mine.buffers for t in b.values}
        mine.planned_bytes = max([b.offset + b.size for b in mine.buffers], default=0)
        mine.strategy = os.path.basename(path)
        mine.optimal = True if mine.planned_bytes <= plan.lower_bound_bytes else None
        bad = mine.overlaps()
        if bad:
            a, b = bad[0]
            name = lambda x: "%d (%s)" % (mine.buffers.index(x), "+".join(getattr(v, "name", str(v)) for v in x.values))
            raise ValueError("%s: buffers %s and %s overlap: both live at step %d, bytes [%d, %d) and [%d, %d)"
                             % (path, name(a), name(b), max(a.start, b.start), a.offset, a.offset + a.size,
                                b.offset, b.offset + b.size))
        verified = None
        if index == 1 and getattr(self, "lowered", None) is not None:
            if not self.check and not self.lowered.program.segmented:   # computed once for every solution
                self.check = {"expected": reference.run_jitted(self.lowered, self.args),
                              "values": reference.all_values(self.lowered, self.args)}
            verified = reference.verify(self.lowered, mine, self.args, **self.check)
        label = os.path.basename(path)
        row = (label, mine, verified, None) if index == 1 else (label, None, None, mine)
        self.planners.append(row)
        return row

    def plot(self, path):
        """Draws the live bytes per step with the arena, XLA's temp and XLA's peak as lines."""
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            raise ImportError("report.plot needs matplotlib: pip install matplotlib") from None
        panels = [("TF ops", self.plan)] + ([("XLA's fused program", self.fused)] if self.fused else [])
        fig, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 4), squeeze=False)
        for ax, (what, plan) in zip(axes[0], panels):
            ax.step(np.arange(len(plan.timeline)), np.asarray(plan.timeline) / _MiB, where="post", label="live bytes")
            ax.axhline(plan.planned_bytes / _MiB, color="C1", label="tinyflow's arena")
            ax.axhline(plan.lower_bound_bytes / _MiB, color="C2", linestyle=":", label="lower bound")
            for k, row in enumerate(self.planners):   # each registered planner's arena at this granularity
                mine = row[1] if plan is self.plan else row[3]
                if mine is not None:
                    ax.axhline(mine.planned_bytes / _MiB, color="C%d" % (5 + k % 5), linewidth=0.8,
                               label=row[0][:24])
            if self.xla:
                ax.axhline(self.xla["temp_size_in_bytes"] / _MiB, color="C3", linestyle="--", label="XLA temp")
                ax.axhline(self.xla["peak_memory_in_bytes"] / _MiB, color="C4", linestyle="-.", label="XLA peak")
            ax.set_xlabel("step (%s, in run order)" % what)
            ax.set_ylabel("MiB")
            ax.set_title("%s: %s" % (self.name or "fetch set", what), fontsize=9)
            ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(path, dpi=80)
        plt.close(fig)
        return path


def plan_for(lowered, args, planner=None, inplace=True):
    """The MemoryPlan of a Lowered fetch set for concrete arguments (see jax_backend.example_args)."""
    shapes = reference.concrete_shapes(lowered, args)
    sizes = {t: int(np.prod(s, dtype=np.int64)) * d.itemsize for t, (s, d) in shapes.items()}
    rw, ro, feeds, _ = args
    for v, val in zip(list(lowered.rw_vars) + list(lowered.ro_vars), list(rw) + list(ro)):
        sizes[v.outputs[0]] = int(np.asarray(val).nbytes)
    for t, val in zip(lowered.sub.feeds, feeds):
        sizes[t] = int(np.asarray(val).nbytes)
    return memory_pass.plan_memory(lowered.sub, sizes, planner=planner, inplace=inplace)


def _tf_op_of(op_name, op_names):
    """The TF op of an HLO instruction's metadata op_name 'jit(fetch_set)/scope/.../primitive': the
    longest leading part of the path that names an op of the fetch set (the lowering's named scope)."""
    parts = [p for p in op_name.split("/") if not p.startswith(("jit(", "pjit("))]
    for k in range(len(parts), 0, -1):
        if "/".join(parts[:k]) in op_names:
            return "/".join(parts[:k])
    return None


def _read_buffer_assignment(text, hlo_text, op_names):
    """XLA's buffer-assignment dump -> allocations; values named by the TF op of their metadata."""
    tf_op = {}
    for m in re.finditer(r"%?([\w.\-]+) = .*?op_name=\"([^\"]+)\"", hlo_text):
        tf_op[m.group(1)] = _tf_op_of(m.group(2), op_names)
    allocs = []
    for line in text.splitlines():
        m = re.match(r"allocation (\d+): size (\d+), (.*):$", line)
        if m:
            allocs.append({"index": int(m.group(1)), "size": int(m.group(2)), "kind": m.group(3), "values": []})
            continue
        m = re.match(r"\s*value: <\d+ ([\w.\-]+) @[\w{}, ]*> \(size=(\d+),offset=(\d+)\)", line)
        if m and allocs:
            allocs[-1]["values"].append((m.group(1), tf_op.get(m.group(1)), int(m.group(2)), int(m.group(3))))
    return allocs


def xla_memory(lowered, args, buffers=False, jitted=None):
    """(memory_analysis fields, buffer assignment or None, optimized HLO text) of the jitted fetch set. The
    figures come from the executable the Session runs (JAX's cache: no second compile); XLA's
    buffer assignment, with the TF ops of its values, only when `buffers` (it needs a compile of
    its own, with XLA's dump options)."""
    traced = (jitted or lowered.jitted).lower(*lowered.flat_args(*args))
    if not buffers:
        compiled = traced.compile()
        stats = compiled.memory_analysis()
        return {f: int(getattr(stats, f, 0) or 0) for f in _XLA_FIELDS}, None, compiled.as_text()
    tmp = tempfile.mkdtemp(prefix="tinyflow_xla_")
    try:
        try:
            compiled = traced.compile(compiler_options={"xla_dump_to": tmp, "xla_dump_hlo_as_text": True})
        except Exception:  # a backend without these options: the figures alone
            compiled = traced.compile()
        stats = compiled.memory_analysis()
        fields = {f: int(getattr(stats, f, 0) or 0) for f in _XLA_FIELDS}
        allocs = None
        found = sorted(glob.glob(os.path.join(tmp, "*after_optimizations-buffer-assignment.txt")))
        if found:
            with open(found[-1]) as f:
                op_names = {op.name for op in lowered.sub.ops}
                allocs = _read_buffer_assignment(f.read(), compiled.as_text() or "", op_names)
        return fields, allocs, compiled.as_text()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# Bytes each buffer of XLA's program is rounded up to when tinyflow plans it: XLA GPU aligns its
# buffers to 256 bytes (kXlaAllocatedBufferAlignBytes); on the CPU the plans match without padding.
HLO_ALIGN = {"gpu": 256, "cuda": 256, "rocm": 256}

# Verification compiles one function returning every value (about the step's own compile, with XLA's
# slow optimizations off) and holds them all at once: on by default up to this many ops.
VERIFY_MAX_OPS = 2000


def build_report(lowered, args, planner=None, verify="auto", xla=True, name="", jitted=None, planners=None):
    """A MemoryReport of a Lowered fetch set for concrete arguments. verify: True, False, or "auto"
    (prove the plan by executing it when the fetch set has at most VERIFY_MAX_OPS ops); xla: True
    (XLA's figures and tinyflow's plan of XLA's optimized HLO), "buffers" (also XLA's buffer
    assignment, one more compile) or False. planners: names of planners (memory_pass.register_planner)
    planned, proved and printed beside tinyflow's own (default: every registered one)."""
    plan = plan_for(lowered, args, planner)
    if lowered.program.segmented:   # segments: no one XLA program to report on
        xla = False
    fields, allocs, hlo = xla_memory(lowered, args, xla == "buffers", jitted) if xla else (None, None, None)
    align = HLO_ALIGN.get(jax.default_backend(), 1)
    try:
        fused = hlo_memory.plan_hlo(hlo, planner, align) if hlo else None
    except hlo_memory.HloReadError as e:   # a program this reader does not know: the other figures stand
        fused, hlo = None, None
        warnings.warn(str(e))
    if verify == "auto":
        verify = len(lowered.program.steps) <= VERIFY_MAX_OPS
    planners = memory_pass.default_planners() if planners is None else planners
    check = {}
    if verify and not lowered.program.segmented:   # one replay's values serve every plan
        check = {"expected": reference.run_jitted(lowered, args), "values": reference.all_values(lowered, args)}
    verified = reference.verify(lowered, plan, args, **check) if verify else None
    rows = []
    for label in planners:
        mine = memory_pass.plan_memory(lowered.sub, plan.sizes(), planner=label)   # the same sizes
        rows.append((label, mine, reference.verify(lowered, mine, args, **check) if verify else None,
                     hlo_memory.plan_hlo(hlo, label, align) if hlo else None))
    report = MemoryReport(plan, fields, allocs, verified, name, fused, rows)
    report.lowered, report.args, report.check = lowered, args, check    # what check_solution replays
    report.recompute_flops = recompute_flops(lowered, args)
    return report


def recompute_flops(lowered, args):
    """Estimated extra FLOPs of the Recompute ops a fetch set runs, for the shapes of `args`."""
    if not any(op.type == "Recompute" for op in lowered.sub.ops):
        return 0
    shapes = reference.concrete_shapes(lowered, args)
    return recompute_pass.extra_flops(lowered.sub.ops, lambda t: shapes[t][0] if t in shapes
                                      else recompute_pass.static_shape(t))


def memory_report(session, fetches, feed_dict=None, planner=None, verify="auto", xla=True, planners=None):
    """The MemoryReport of `session.run(fetches, feed_dict)` (nothing is run, no variable changes)."""
    bound = session.lowered(fetches, feed_dict)
    names = [getattr(t, "name", str(t)) for t in bound.function.sub.fetches + bound.function.sub.targets]
    return build_report(bound.function, bound.args, planner, verify, xla, name=", ".join(names),
                        jitted=bound.jitted, planners=planners)
