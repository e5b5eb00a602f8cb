"""tf.train.Example and friends: TF's example.proto / feature.proto messages (package `tensorflow`, TF's
field numbers), from tinyflow.formats.tf_protos: protobuf alone, in a private descriptor pool, so they
never clash with other copies (tensorboard's) in the default pool. Files TF wrote parse here and back.
"""
from tinyflow.formats.tf_protos import (BytesList, Example, Feature, FeatureList, FeatureLists, Features,  # noqa: F401
                                 FloatList, Int64List, SequenceExample)
