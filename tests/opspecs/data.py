"""tf.data's ops: computed on the host by the Session (no lowering), so no OpSpec can run them."""
EXEMPT = {
    "IteratorGetNext": "host-side, tested in tests/api/test_data.py",
    "MakeIterator": "host-side, tested in tests/api/test_data.py",
}
