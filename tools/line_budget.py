"""Lines of code per layer, and of the whole package, against a budget (tinygrad's habit): a layer
that outgrows its budget is a layer to split or simplify, not a number to raise quietly.

    python tools/line_budget.py      # prints the table; exit 1 when a layer or the total is over budget
"""
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tinyflow")
# Set when the compile pipeline landed, then once for what came with it in the same change (the host
# stage for strings and queues, data-parallel placement, the compilation cache, value-dependent
# shapes, checkpointed gradients); a later rise needs its reason in the commit. lower: 1100 -> 1200
# for issue 17 (the plan proved by replay beside execution, the flat calling convention of the
# jitted function, huge fetch sets in segments). Issue 24 (layer folders): graph gained errors.py
# (+50), passes gained recompute_plan.py and visualize.py (+350), client/ became runtime/ with the
# eager executor (+900 moved in); formats/, api/ and cli/ are budgeted for the first time, with the
# room the open issues' frontend work (Keras, slim, SavedModel, ...) needs, and so is the total.
# passes: 1650 -> 1900 for issue 29 (hlo_memory.py: tinyflow's planner over XLA's optimized HLO, ~300
# lines, and the planner interface in memory.py); runtime: 2450 -> 2500 for the same issue
# (memory_report.py prints the fused plan and every registered planner beside tinyflow's own).
# runtime: 2500 -> 2800 for issue 31 (one program per feed shape, checked against the memory there
# is before dispatch: runtime/executables.py; compilation cache entries verified on load).
# lower: 1200 -> 1260 for issue 30 (compiler_options.py: XLA options chosen per fetch set).
# Issue 24's cycles: FuncGraph and SubFn (150 lines) moved from ops/ to graph/func_graph.py, the budget with them.
# ops: 11350 -> 11700 for issue 27/30's ops (bitwise, crop_and_resize, non-max suppression, 3-D pooling,
# the in-step histogram). cli: 800 -> 1000 for saved_model_cli (TF's saved_model_cli show/run), the
# contrib import paths under the runner and the census report of the coverage tool.
# runtime: 2800 -> 2830 for issue 27's RewriterConfig record (rewriter_config_pb2; GraphOptions.rewrite_options).
# ops: 11700 -> 11710, lower: 1260 -> 1265 for issue 30's numpy rules of values known while tracing (OpDef.numpy:
# no XLA program compiled per shape computation, 0.3-0.65 s of a tutorial script's cold start).
# api: 22000 -> 30000 and total 45000 -> 53000 for the frontend families issues 27/28 bring in (slim.nets,
# seq2seq, TF1's distributed API, contrib.data/lookup, Keras saving and layers): frontend, not engine.
# Issue 24 item 5: the host stage's planning became a pass (passes/host_split.py, ~125 lines moved out of
# runtime/host_stage.py): passes 1900 -> 2035, runtime 2830 -> 2710 (each keeps the room it had); graph
# 2100 -> 2150 for OpDef's one host protocol (graph/registry.py: HostRule, its four kinds and their table).
# ops: 11700 -> 11750 for issue 27's lookup tables, hash buckets and edit distance (g5) with the host rules' classes.
# cli: 1000 -> 1100 for issue 27 item 8 (numpy_compat.py: numpy 1.x's removed names under the runner; -m MODULE).
# ops: 11750 -> 11850 and runtime: 2710 -> 2720 for issue 27 item 7 and the seq2seq family: a tf.while_loop
# whose loop variables grow runs from the host (control_flow_ops._host_loop), the GatherTree op of
# BeamSearchDecoder (beam_ops.py), feed_dict keys that are structures and Session.list_devices.
# runtime: 2720 -> 2730 for Session.reset (issue 27's census). api: 30000 -> 38000 and total 53000 -> 62000: the
# census's long tail (issue 27: tf.keras preprocessing/applications, seq2seq, TPU, ragged, distributions, ...).
# ops: 11850 -> 12450 for issue 27 item 6's long tail (g9: linalg decompositions and solvers with one shared VJP
# gradient op, conv3d, draw_bounding_boxes, the JPEG header and crop, histogram/bitcast/ensure_shape/patches, ...).
# lower: 1265 -> 1280 and runtime: 2730 -> 2740: g6's compiled-body cache of the host-driven loop (lower/subgraph.py)
# and g8's fast dispatch of a repeated feed shape (runtime/executables.py, session.py) landing together.
# ops: 12460 -> 12570, lower: 1280 -> 1315 for issue 30's cold start: a fetch set's random ops drawn in one block
# (random_ops.RandomBlock, program._random_block), tiling max-pool gradients by reductions, histogram stats.
# ops: 12570 -> 12600: the random block's keys derived for all its ops at once (random_ops._block_keys).
# ops: 12600 -> 12620, lower: 1315 -> 1325 for issue 30's whole-step profiles (MaxPool as its strided
# views; a spanning filter's forward chosen per fetch set, which jax_backend sets while tracing); lower
# 1325 -> 1330 for its review: one tracing scope (_tracing) for every trace of a fetch set.
# Issue 40: runtime 2740 -> 2790 (donation on accelerators, checked before each call: executables.for_call),
# lower 1330 -> 1335 (its rule in pipeline.py), ops 12620 -> 12660 (counted loops: control_flow_ops._trip_count
# and the scans without a conditional per iteration in while_grad.py).
# passes: 2035 -> 2320 for issue 41 (minimalloc.py: the exact planner after MiniMalloc and its CSV format,
# ~255 lines); runtime: +70 (2790 -> 2860) (memory_report.py exports both plans as CSV and takes solutions back,
# proved); cli: 1100 -> 1115 (python -m tinyflow.memory --csv, --solution, --planner NAME).
# ops: 12660 -> 12790, lower: 1335 -> 1360, runtime: +40 (2860 -> 2900) for issue 38: tf.cond as TF runs it (a branch
# that cannot be traced at the run's shapes raises only when taken, through the op's check), ResizeArea,
# GIF/BMP decoding, XLA options by what the installed jaxlib knows (numpy-1 stack), the exit gate that
# lets other threads' runs end before JAX's teardown (a clean exit with queue runners running).
# ops: +780 (12790 -> 13570), lower: +5 (1360 -> 1365), runtime: +5 (2900 -> 2905) for issue 38 items 4
# and 6: TF 1.15's Philox stream and kernels (ops/philox.py, ~230 lines: seeded ops draw TF's values,
# per-op execution counts in the run key) and growing while loops padded inside XLA (ops/padded_loop.py,
# ~400 lines: O(log n) compiles).
# api: 38000 -> 42500 (with issue 38 and the declared tree) and total +5000 for issue 37's frontend names
# (names-front: the keras backend,
# metrics, losses, schedules and layers TF 1.15 has, the estimator heads and premade estimators over a head,
# tf.train's managers and hooks, tf.metrics' remaining streaming metrics, tf.data.experimental's samplers).
# Issue 37 item 3 (TF 1.15's core names): graph 2150 -> 2190 (complex, quantized, resource and variant dtypes;
# tf.errors' code helpers), ops +2380 (13570 -> 15950: complex ops and FFTs, special functions, CTC, stateless and
# gamma/poisson random ops, tensor scatters, space/batch, sets, fake quantization, unicode strings and hashes,
# audio, more linalg, sparse segments), api +1500 to 44000 (the LinearOperator family, sparse ops, tf.Module,
# DeviceSpec, TypeSpecs, the small namespaces), total +8000.
# Issue 38's corpus: ops +30 (15950 -> 15980) (SparseTensor * and / a dense tensor, TF's SparseDenseCwise ops).
# ops: +170 (15980 -> 16150) for issue 39 (TF 1.15's edge semantics: run-time checks of integer division, pow,
# segment ids and band bounds; NaN conventions of max/min/argmax/pooling/segments; TF's floordiv/floormod;
# reshape of empty tensors, -0.0 ties of top_k).
# api: 44000 -> 44500 for issue 37's last names (tf.compat dimensions, debugging.assert_shapes, graph_util,
# ragged.range, sequence feature columns, Exponential/Laplace, DatasetSpec): coverage 96.2% -> 97.0%.
# ops: +20 (16150 -> 16170), lower: +10 (1365 -> 1375) for issue 38 item 1 in bodies: a tf.cond nested in a loop body
# or another branch fails its trace when a branch cannot be traced (lower/subgraph.in_body), never gives zeros.
# Issue 37's last core names (2026-12-04, second session): ops +1310 (16170 -> 17480: queues by priority and
# the conditional accumulators, CTC beam search, the learned unigram sampler, quantize/dequantize and the
# quantized nn ops bit for bit, fractional pools, sqrtm/logm, extract_volume_patches, glimpse, unicode_script,
# sparse cross, parse_sequence_example, session handles), api +2640 (44500 -> 47140: distributions, ragged,
# keras.experimental/ConvLSTM2D/mixed precision, data.experimental optionals and stats, wrap_function,
# cluster resolvers, profiler), formats +150 (2500 -> 2650: TF's cluster, server and tfprof protobufs,
# generated). Issue 38 item 1 in bodies: graph +10 (2190 -> 2200: OpDef.check_of_run, check_error), lower
# +30 (a cond's error number carried out of loop bodies to the step's check), ops +80. Issue 39: ops +100
# (gather batch_dims, fed confusion_matrix, einsum diagonal gradients, the corpus's fixes). Issue 40: lower +40
# (lower/program.fuse_matmul_sums: an unrolled RNN's AddN of matmuls as one matmul). Total 73000 -> 77100.
# Issue 39's batches of the corpus over every op type: ops +650 (17600 -> 18250: SparseToDense as a step op,
# TF's SparseApply* kernels, CumulativeLogsumexp, Eigen's special-function domains, RE2 rules and UTF-8 units
# in the string ops, CTC's options and checks, patches copied, pools of any rank), api +320 (47140 -> 47460).
# Issue 40 item 4: lower +45 (1445 -> 1490: the cheap first-tier options), runtime +70 (2905 -> 2975:
# tiered compilation in runtime/executables.py). Total 77100 -> 78100. formats +10 (2650 -> 2660): a save
# settling another live process's pending index no longer fails when that process commits it meanwhile.
# Issue 40 (fourth session): lower +45 (1490 -> 1535: segments cut where a long run of static shapes begins,
# so an optimizer's updates after a sparse dropout compile once), runtime +25 (2975 -> 3000: cache entries
# record their compile's seconds, so warm runs upgrade tiers when the cold run did). Total 78100 -> 78200.
# Then: lower +100 (1535 -> 1635: the first tier's older emitters where they pay, compiler_options; row updates
# under the checks' one lax.cond, render.gated / jax_backend._gate; lax forms of hot rules), ops +70 (18250 ->
# 18320: numpy rules of RealDiv/ConcatV2 values known while tracing, lax forms of the histogram, threefry, Adam
# and arithmetic rules, MaxPool as reduce-window in convolution training steps), runtime +10 (3000 -> 3010: a
# failed check keeps a variable whose update changed its shape), api +5 (47460 -> 47465). Total -> 78400.
# Fifth session (issue 40, real programs): lower +400 (1635 -> 2035: lower/specialize.py, fetch sets compiled
# for the fed values that decide their shapes, gcn 207 -> 4 compiles; lower/consteval.py, constants folded by
# one cached program per op instead of an XLA program per primitive; the first tier of little arithmetic),
# runtime +90 (3010 -> 3100: runtime/host_memory.py, glibc's thresholds so step temporaries are not faulted in
# every call; tier credit per program), ops +45 (18320 -> 18365: TensorListTakeItem, dynamic_rnn's backward
# loop in place), api +40 (47465 -> 47505: export of TakeItem, sparse_retain's mask). Total -> 78950.
BUDGET = {"graph": 2200, "formats": 2660, "passes": 2320, "ops": 18365, "lower": 2035, "runtime": 3100,
          "api": 47505, "cli": 1115}
TOTAL = 78950   # 62000 -> 63000 for the engine work of issues 38, 40 and 41; +9500 for issue 37, +500 for 39 (above)


def count(layer):
    """(files, lines) of a layer's Python files, subfolders included (blank lines and comments too:
    what a reader reads)."""
    files = [os.path.join(d, f) for d, _, fs in os.walk(os.path.join(ROOT, layer)) for f in fs if f.endswith(".py")]
    return len(files), sum(len(open(f).read().splitlines()) for f in files)


def main():
    over, total_files, total = False, 0, 0
    print("%-8s %6s %7s %7s" % ("layer", "files", "lines", "budget"))
    for layer, budget in list(BUDGET.items()) + [("(root)", None)]:
        if budget is None:
            files = [f for f in os.listdir(ROOT) if f.endswith(".py")]
            files, lines = len(files), sum(len(open(os.path.join(ROOT, f)).read().splitlines()) for f in files)
        else:
            files, lines = count(layer)
        total_files, total = total_files + files, total + lines
        bad = budget is not None and lines > budget
        over |= bad
        print("%-8s %6d %7d %7s%s" % (layer, files, lines, budget or "", "  OVER" if bad else ""))
    over |= total > TOTAL
    print("%-8s %6d %7d %7d%s" % ("total", total_files, total, TOTAL, "  OVER" if total > TOTAL else ""))
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
