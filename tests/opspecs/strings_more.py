"""issue 37's string ops: declared dtypes and shapes (their values against TF 1.15 in
tests/api/test_core_names.py, family strings)."""
import numpy as np

from opspecs import OpSpec

W = np.array([b"ab", b"cde"], dtype=object)

SPECS = [
    OpSpec("string_hashes", lambda tf, s: [tf.strings.to_hash_bucket(s, 10), tf.strings.to_hash_bucket_strong(
        s, 10, [1, 2]), tf.fingerprint(s)], [W]),
    OpSpec("unicode", lambda tf, s: [tf.strings.unicode_decode(s, "UTF-8").values,
                                     tf.strings.unicode_encode(tf.strings.unicode_decode(s, "UTF-8"), "UTF-8"),
                                     tf.strings.unicode_transcode(s, "UTF-8", "UTF-8")], [W]),
    OpSpec("bytes_ngrams_join", lambda tf, s: [tf.strings.bytes_split(s).values, tf.strings.ngrams(s, 2),
                                               tf.strings.unsorted_segment_join(s, [1, 1], 2, separator=",")], [W]),
    OpSpec("string_format", lambda tf, x: tf.reshape(tf.strings.format("x={}", x), [1]), [np.array([1, 2], np.int32)]),
]
