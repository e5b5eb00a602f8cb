"""String, parsing, queue and reader ops: host ops (ops/host_ops.py) computed in Python by the
Session's host stage, never lowered, so no OpSpec can run them through the registry tests."""
_WHERE = "host op, tested in tests/*/test_strings_%s.py"
EXEMPT = {name: _WHERE % "ops" for name in [
    "AsString", "DecodeBase64", "DecodeCSV", "DecodeRaw", "EncodeBase64", "ReduceJoin", "RegexFullMatch",
    "RegexReplace", "SparseToDense", "StringJoin", "StringLength", "StringLower", "StringSplit", "StringStrip",
    "StringToNumber", "StringUpper", "Substr", "DecodeImageHost", "EncodeImageHost"]}
EXEMPT.update({name: _WHERE % "tfrecord" for name in ["ParseExample"]})
EXEMPT.update({name: _WHERE % "queues" for name in [
    "InputProducerEpoch", "QueueCloseV2", "QueueDequeueManyV2", "QueueDequeueUpToV2", "QueueDequeueV2",
    "QueueEnqueueManyV2", "QueueEnqueueV2", "QueueIsClosedV2", "QueueSizeV2", "ReaderNumRecordsProducedV2",
    "ReaderReadUpToV2", "ReaderReadV2", "ReaderResetV2", "MatchingFiles"]})
EXEMPT.update({"ReadFile": "a host op over files: tests/api/test_read_file.py",
               "WriteFile": "a host op over files: tests/api/test_read_file.py"})
EXEMPT["DecodeImageByFormat"] = "a host op decoding encoded images: tests/api/slim/test_tfexample_decoder.py"
EXEMPT.update({name: "a host op, tested in tests/ops/test_edit_distance_hash_bucket.py"
               for name in ["EditDistance", "StringToHashBucketFast"]})
EXEMPT.update({name: "a lookup-table host op, tested in tests/api/test_lookup.py" for name in [
    "InitializeTableFromTextFileV2", "InitializeTableV2", "LookupTableFindV2", "LookupTableSizeV2",
    "LookupTableInsertV2", "LookupTableRemoveV2"]})   # DenseHashTable: test_dense_hash_table_as_tf
EXEMPT.update({name: "a host op over a per-session state: TF 1.15's values in tests/api/test_names_ops.py"
               for name in ["AccumulatorNumAccumulated", "AccumulatorSetGlobalStep", "LearnedUnigramCandidateSampler",
                            "ResourceAccumulatorApplyGradient", "ResourceAccumulatorTakeGradient",
                            "SparseAccumulatorApplyGradient", "SparseAccumulatorTakeGradient"]})
EXEMPT.update({name: "a host op, tested in tests/api/test_names_io.py" for name in [
    "DecodeJSONExample", "ParseSequenceExample", "GetSessionHandle", "GetSessionTensor", "DeleteSessionTensor"]})
