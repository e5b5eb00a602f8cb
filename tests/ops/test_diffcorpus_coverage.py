"""Which of tinyflow's op types the differential corpus reaches (tests/fixtures/diffcorpus): every
registered op type is either built by some corpus case (its forward or its gradient) or listed here
with the reason it is not a case of the corpus (state, graph plumbing, random draws: tested elsewhere).
NOT_YET lists the op types still to be added; it must only shrink (an entry the corpus reaches fails)."""
import importlib
import os
import pkgutil
import sys

from paths import TESTS

sys.path.insert(0, os.path.join(TESTS, "fixtures", "diffcorpus"))
import spec  # noqa: E402

_STATE = "stateful (variables, queues, readers, tables, iterators, accumulators, session handles, files): " \
         "its value depends on what ran before; tested in tests/api and tests/runtime"
_PLUMBING = "graph plumbing and control flow, in every program's graph; tested in tests/ops/test_control_flow.py " \
            "and tests/graph"
_RANDOM = "a random draw: JAX's stream, not TF's (docs/random.md); shapes, dtypes and statistics tested in " \
          "tests/ops/test_random.py"
_SUMMARY = "a summary: its value is a serialized Summary proto, tested in tests/api (summaries)"

EXCLUDED = {}
for _names, _why in [
    ("IsVariableInitialized ReportUninitializedVariables CountUpTo "
     "QueueCloseV2 QueueDequeueManyV2 QueueDequeueUpToV2 QueueDequeueV2 QueueEnqueueManyV2 QueueEnqueueV2 "
     "QueueIsClosedV2 QueueSizeV2 ReaderNumRecordsProducedV2 ReaderReadUpToV2 ReaderReadV2 ReaderResetV2 "
     "InitializeTableFromTextFileV2 InitializeTableV2 LookupTableFindV2 LookupTableInsertV2 LookupTableRemoveV2 "
     "LookupTableSizeV2 MakeIterator IteratorGetNext IteratorGetNextAsOptional WrapDatasetVariant InputProducerEpoch "
     "AccumulatorNumAccumulated AccumulatorSetGlobalStep ResourceAccumulatorApplyGradient "
     "ResourceAccumulatorTakeGradient SparseAccumulatorApplyGradient SparseAccumulatorTakeGradient "
     "GetSessionHandle GetSessionTensor DeleteSessionTensor ReadFile WriteFile MatchingFiles PyFunc Print PrintV2",
     _STATE),
    ("IdentityN If Case StatelessIf StatelessCase While WhileGrad Recompute", _PLUMBING),
    ("RandomUniform RandomStandardNormal TruncatedNormal RandomUniformInt RandomShuffle RandomGamma "
     "RandomGammaGrad RandomPoissonV2 Multinomial StatelessMultinomial StatelessRandomUniformInt "
     "FixedUnigramCandidateSampler UniformCandidateSampler LogUniformCandidateSampler "
     "LearnedUnigramCandidateSampler SampleDistortedBoundingBoxV2 FractionalMaxPool FractionalAvgPool "
     "FractionalMaxPoolGrad FractionalAvgPoolGrad", _RANDOM),
    ("ScalarSummary HistogramSummary ImageSummary AudioSummaryV2 TensorSummaryV2 MergeSummary "
     "StatsAggregatorSummary", _SUMMARY),
    ("HistogramBuckets", "tf.summary.histogram's numbers inside the step (tinyflow's helper of its summary op); "
     "tested through the summary in tests/api (summaries)"),
]:
    for _n in _names.split():
        EXCLUDED[_n] = _why

# Op types registered but not yet in the corpus (issue 39 emptied it: a new op type goes in a batch
# module spec_<name>.py, or, with its reason, in EXCLUDED).
NOT_YET = set()


def _import_everything():
    """Every module of tinyflow's ops and api packages: some register their op types when imported."""
    import tinyflow.api
    import tinyflow.ops
    for pkg in (tinyflow.ops, tinyflow.api):
        for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
            importlib.import_module(m.name)


def _reached():
    """The op types built by one case of every corpus op, its gradient included."""
    import tinyflow as tf
    types = set()
    for name, start, ops, _ in spec.BATCHES:
        for k in range(len(ops)):
            c = spec.case(start + k * spec.REPEAT)
            g = tf.Graph()
            with g.as_default():
                phs = [tf.placeholder(tf.as_dtype(a.dtype), a.shape) for a in c["args"]]
                try:
                    outs = spec.build(tf, c, phs)
                except (ValueError, TypeError, tf.errors.OpError):
                    continue   # a case TF refuses too; the op's other cases reach it
                if c["grad"]:
                    spec.gradients(tf, c, outs, phs, 80)
            types.update(op.type for op in g.get_operations())
    return types


def test_every_op_type_is_in_the_corpus_or_excused():
    from tinyflow.graph import registry
    _import_everything()
    registered = set(registry.registered_ops())
    reached = _reached()
    unexplained = sorted(registered - reached - set(EXCLUDED) - NOT_YET)
    assert not unexplained, "op types neither in the corpus nor excused here: %s" % unexplained
    now_reached = sorted(NOT_YET & reached)
    assert not now_reached, "the corpus reaches these now: remove them from NOT_YET: %s" % now_reached
    stale = sorted((set(EXCLUDED) | NOT_YET) - registered)
    assert not stale, "not registered op types (renamed?): %s" % stale
    assert not set(EXCLUDED) & reached, "excused but reached: %s" % sorted(set(EXCLUDED) & reached)
