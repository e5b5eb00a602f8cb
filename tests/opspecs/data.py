"""tf.data's ops: computed on the host by the Session (no lowering), so no OpSpec can run them."""
EXEMPT = {
    "IteratorGetNext": "host-side, tested in tests/api/test_data.py",
    "MakeIterator": "host-side, tested in tests/api/test_data.py",
}
EXEMPT.update({name: "host-side, tested in tests/api/test_names_io.py" for name in [
    "IteratorGetNextAsOptional", "StatsAggregatorSummary", "WrapDatasetVariant"]})
