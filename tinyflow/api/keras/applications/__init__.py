"""tf.keras.applications: model definitions as TF 1.15 has them (keras_applications 1.0.8) with
weights=None, a local .h5 path, or 'imagenet' from Keras' cache ~/.keras/models (never downloaded), and
the per-family preprocess_input / decode_predictions modules."""
import functools
import sys
import types

from tinyflow.api.keras.applications import common
from tinyflow.api.keras.applications.models import (DenseNet121, DenseNet169, DenseNet201, InceptionV3,  # noqa: F401
                                                     ResNet50, ResNet101, ResNet152, ResNet50V2, ResNet101V2,
                                                     ResNet152V2, VGG16, VGG19)
from tinyflow.api.keras.applications.more_models import (InceptionResNetV2, NASNetLarge, NASNetMobile,  # noqa: F401
                                                          Xception)
from tinyflow.api.keras.applications.mobilenets import MobileNet, MobileNetV2  # noqa: F401


def _family(name, mode, **models):
    mod = types.ModuleType(__name__ + "." + name, "tf.keras.applications.%s" % name)
    mod.preprocess_input = functools.partial(common.preprocess_input, mode=mode)
    mod.preprocess_input.__doc__ = "ImageNet preprocessing, mode %r." % mode
    mod.decode_predictions = common.decode_predictions
    mod.__dict__.update(models)
    sys.modules[mod.__name__] = mod
    return mod


vgg16 = _family("vgg16", "caffe", VGG16=VGG16)
vgg19 = _family("vgg19", "caffe", VGG19=VGG19)
resnet50 = _family("resnet50", "caffe", ResNet50=ResNet50)
resnet = _family("resnet", "caffe", ResNet50=ResNet50, ResNet101=ResNet101, ResNet152=ResNet152)
resnet_v2 = _family("resnet_v2", "tf", ResNet50V2=ResNet50V2, ResNet101V2=ResNet101V2, ResNet152V2=ResNet152V2)
inception_v3 = _family("inception_v3", "tf", InceptionV3=InceptionV3)
densenet = _family("densenet", "torch", DenseNet121=DenseNet121, DenseNet169=DenseNet169, DenseNet201=DenseNet201)
xception = _family("xception", "tf", Xception=Xception)
inception_resnet_v2 = _family("inception_resnet_v2", "tf", InceptionResNetV2=InceptionResNetV2)
nasnet = _family("nasnet", "tf", NASNetMobile=NASNetMobile, NASNetLarge=NASNetLarge)
mobilenet = _family("mobilenet", "tf", MobileNet=MobileNet)
mobilenet_v2 = _family("mobilenet_v2", "tf", MobileNetV2=MobileNetV2)
imagenet_utils = _family("imagenet_utils", "caffe")
imagenet_utils.preprocess_input = common.preprocess_input
