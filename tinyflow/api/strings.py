"""tf.strings: TF 1.15's string ops, computed on the host (ops/string_ops.py)."""
from tinyflow.ops.string_ops import (as_string, length, lower, reduce_join, regex_full_match, regex_replace,  # noqa: F401
                                     string_to_number as to_number, strip, substr, upper)
from tinyflow.ops.string_ops import string_join as join  # noqa: F401
from tinyflow.ops.string_ops import encode_base64, decode_base64  # noqa: F401
from tinyflow.ops.string_ops import string_to_hash_bucket_fast as to_hash_bucket_fast  # noqa: F401


from tinyflow.ops.string_more_ops import (string_format as format, string_to_hash_bucket as to_hash_bucket,  # noqa: F401,E402
                                          string_to_hash_bucket_strong as to_hash_bucket_strong, unicode_script,
                                          unicode_transcode,
                                          unsorted_segment_join)
from tinyflow.api.strings_unicode import *  # noqa: F401,F403,E402 (unicode_decode, unicode_split, ngrams, ...)
