"""The summary ops are computed on the host from fetched values (a FromFetched host rule, OpDef.host); they are
tested in tests/api/test_app_summary.py."""
EXEMPT = {
    "ScalarSummary": "host-side, tested in tests/api/test_app_summary.py",
    "HistogramSummary": "host-side, tested in tests/api/test_app_summary.py",
    "MergeSummary": "host-side, tested in tests/api/test_app_summary.py",
    "ImageSummary": "host-side, tested in tests/api/test_idioms_summary.py",
}
EXEMPT.update({
    "AudioSummaryV2": "a host summary op: TF 1.15's bytes in tests/api/test_formats_tf115.py",
    "TensorSummaryV2": "a host summary op: TF 1.15's bytes in tests/api/test_formats_tf115.py",
    "HistogramBuckets": "the in-step histogram: tests/api/test_summary_in_step.py against TF's bucketing",
})
