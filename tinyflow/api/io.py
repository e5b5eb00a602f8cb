"""tf.io (and tf.python_io): files (tf.io.gfile), TFRecord files, tf.train.Example parsing, decoders."""
import types as _types

from tinyflow.api import gfile  # noqa: F401
from tinyflow.api.tf_files.graph_util import write_graph  # noqa: E402,F401 (tf.io.write_graph)
from tinyflow.formats.tfrecord import (TFRecordCompressionType, TFRecordOptions, TFRecordWriter, tf_record_iterator)  # noqa: F401
from tinyflow.ops.parsing_ops import (FixedLenFeature, FixedLenSequenceFeature, VarLenFeature, decode_csv,  # noqa: F401
                                      decode_raw, parse_example, parse_single_example)
from tinyflow.ops.string_ops import decode_base64, encode_base64  # noqa: F401
from tinyflow.ops.reader_ops import matching_files, read_file, write_file  # noqa: F401
from tinyflow.ops.misc_ops import parse_tensor, serialize_tensor  # noqa: F401
from tinyflow.ops.image_codec_ops import (decode_and_crop_jpeg, decode_bmp, decode_gif, decode_image,  # noqa: F401
                                         decode_jpeg, decode_png, encode_jpeg, encode_png, extract_jpeg_shape)

python_io = _types.SimpleNamespace(TFRecordWriter=TFRecordWriter, tf_record_iterator=tf_record_iterator,
                                   TFRecordOptions=TFRecordOptions, TFRecordCompressionType=TFRecordCompressionType)
from tinyflow.api.sparse_more import deserialize_many_sparse, serialize_many_sparse, serialize_sparse  # noqa: F401,E402
from tinyflow.ops.queue_ops import FIFOQueue, PaddingFIFOQueue, QueueBase, RandomShuffleQueue  # noqa: F401,E402
from tinyflow.api.queue import PriorityQueue  # noqa: F401,E402
from tinyflow.api.framework import decode_json_example  # noqa: F401,E402
from tinyflow.api.image_more import is_jpeg  # noqa: F401,E402
from tinyflow.api.framework import (SparseFeature, decode_proto, encode_proto, parse_sequence_example,  # noqa: F401,E402
                                    parse_single_sequence_example)
from tinyflow.ops.compression_ops import decode_compressed  # noqa: F401,E402


def match_filenames_once(pattern, name=None):
    """The files matching pattern, as tf.train.match_filenames_once gives them."""
    from tinyflow.api import train
    return train.match_filenames_once(pattern, name=name)
