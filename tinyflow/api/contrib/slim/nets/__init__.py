"""tf.contrib.slim.nets (TF 1.15): the bundled networks (alexnet, inception v1-v3, overfeat, resnet v1/v2,
vgg) with TF's variable names and end_points, so checkpoints TF wrote for them restore here."""
from tinyflow.api.contrib.slim.nets import alexnet, inception, overfeat, resnet_utils, resnet_v1, resnet_v2, vgg  # noqa
from tinyflow.api.contrib.slim.nets import inception_v1, inception_v2, inception_v3  # noqa: F401
