"""The summary ops are computed on the host from fetched values (OpDef.host_compute); they are
tested in tests/api/test_app_summary.py."""
EXEMPT = {
    "ScalarSummary": "host-side, tested in tests/api/test_app_summary.py",
    "HistogramSummary": "host-side, tested in tests/api/test_app_summary.py",
    "MergeSummary": "host-side, tested in tests/api/test_app_summary.py",
    "ImageSummary": "host-side, tested in tests/api/test_idioms_summary.py",
}
