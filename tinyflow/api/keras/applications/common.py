"""What the tf.keras.applications models share (keras_applications 1.0.8, TF 1.15's): the input-shape
rules, weights handling (no downloads: a local .h5 path, or Keras' cache ~/.keras/models), ImageNet
preprocess_input / decode_predictions, and keras_applications' correct_pad."""
import json
import os

import numpy as np

from tinyflow.api.keras import backend, engine, layers
from tinyflow.api.keras.layers import ZeroPadding2D  # noqa: F401  (applications written before it was a layer)
from tinyflow.graph import errors
from tinyflow.ops.core import sequence_ops

WEIGHTS_URL = "https://github.com/fchollet/deep-learning-models/releases/download/"
CLASS_INDEX_PATH = "https://storage.googleapis.com/download.tensorflow.org/data/imagenet_class_index.json"


def correct_pad(inputs, kernel_size):
    """keras_applications' correct_pad: the ((top, bottom), (left, right)) zero padding before a stride-2
    'valid' convolution of `kernel_size` that TF's 'same' would do (one less at the start of an even size)."""
    first = 2 if backend.image_data_format() == "channels_first" else 1
    size = backend.int_shape(inputs)[first:first + 2]
    kernel_size = (kernel_size, kernel_size) if isinstance(kernel_size, int) else kernel_size
    adjust = (1, 1) if size[0] is None else (1 - size[0] % 2, 1 - size[1] % 2)
    correct = (kernel_size[0] // 2, kernel_size[1] // 2)
    return ((correct[0] - adjust[0], correct[0]), (correct[1] - adjust[1], correct[1]))


def obtain_input_shape(input_shape, default_size, min_size, data_format, require_flatten, weights=None):
    """keras_applications' _obtain_input_shape: the model's input shape, checked."""
    last = data_format != "channels_first"
    if weights != "imagenet" and input_shape and len(input_shape) == 3:
        channels = input_shape[-1] if last else input_shape[0]
        default_shape = (default_size, default_size, channels) if last else (channels, default_size, default_size)
    else:
        default_shape = (default_size, default_size, 3) if last else (3, default_size, default_size)
    if weights == "imagenet" and require_flatten:
        if input_shape is not None and input_shape != default_shape:
            raise ValueError("When setting `include_top=True` and loading `imagenet` weights, `input_shape` "
                             "should be " + str(default_shape) + ".")
        return default_shape
    if input_shape:
        if len(input_shape) != 3:
            raise ValueError("`input_shape` must be a tuple of three integers.")
        if (input_shape[-1] if last else input_shape[0]) != 3 and weights == "imagenet":
            raise ValueError("The input must have 3 channels; got `input_shape=" + str(input_shape) + "`")
        rows, cols = (input_shape[0], input_shape[1]) if last else (input_shape[1], input_shape[2])
        if (rows is not None and rows < min_size) or (cols is not None and cols < min_size):
            raise ValueError("Input size must be at least %dx%d; got `input_shape=%s`" % (min_size, min_size,
                                                                                           input_shape))
    elif require_flatten:
        input_shape = default_shape
    else:
        input_shape = (None, None, 3) if last else (3, None, None)
    if require_flatten and None in input_shape:
        raise ValueError("If `include_top` is True, you should specify a static `input_shape`. Got `input_shape="
                         + str(input_shape) + "`")
    return input_shape


def check_weights(weights, include_top, classes):
    """TF's checks; a path may also be a TF checkpoint prefix (what save_weights writes without .h5)."""
    if not (weights in {"imagenet", None} or os.path.exists(weights) or os.path.exists(weights + ".index")):
        raise ValueError("The `weights` argument should be either `None` (random initialization), `imagenet` "
                         "(pre-training on ImageNet), or the path to the weights file to be loaded.")
    if weights == "imagenet" and include_top and classes != 1000:
        raise ValueError('If using `weights` as `"imagenet"` with `include_top` as true, `classes` should be 1000')


def model_input(input_tensor, input_shape):
    if input_tensor is None:
        return engine.Input(shape=input_shape), None
    if getattr(input_tensor, "_keras_history", None) is None:   # a plain tensor: wrap it in an InputLayer
        return engine.Input(tensor=input_tensor, shape=input_shape), input_tensor
    return input_tensor, input_tensor


def pool_top(x, include_top, pooling, avg_name=None, max_name=None):
    """The headless model's optional global pooling."""
    if include_top:
        return x
    if pooling == "avg":
        return layers.GlobalAveragePooling2D(name=avg_name)(x)
    if pooling == "max":
        return layers.GlobalMaxPooling2D(name=max_name)(x)
    return x


def classifier_top(x, include_top, pooling, classes, avg_name="avg_pool"):
    """The ImageNet head (global average pooling, softmax 'predictions'), or the headless pooling."""
    if include_top:
        x = layers.GlobalAveragePooling2D(name=avg_name)(x)
        return layers.Dense(classes, activation="softmax", name="predictions")(x)
    return pool_top(x, include_top, pooling)


def weights_file(weights, fname):
    """None, the path given, or for 'imagenet' the file Keras caches in ~/.keras/models (tinyflow never
    downloads; NotFoundError naming it when absent). Called before building, it fails before any layer."""
    if weights != "imagenet":
        return weights
    path = os.path.join(os.path.expanduser("~"), ".keras", "models", fname)
    if not os.path.exists(path):
        raise errors.NotFoundError(None, None, "%s not found: tinyflow does not download weights; put the file "
                                   "there or pass weights=<path to the .h5> (Keras fetches it from the "
                                   "keras-applications releases on GitHub)" % path)
    return path


def load_weights(model, weights, fname=None):
    """weights=None: as built. A path (weights_file's answer): model.load_weights(path). 'imagenet': Keras'
    cached file `fname` (weights_file)."""
    weights = weights_file(weights, fname)
    if weights is not None:
        model.load_weights(weights)
    return model


def preprocess_input(x, data_format=None, mode="caffe", **kwargs):
    """ImageNet preprocessing of a numpy batch: 'caffe' (RGB->BGR, minus the BGR means), 'tf' (to [-1, 1])
    or 'torch' (to [0, 1], minus the means, over the stds). Float arrays are changed in place, as Keras."""
    if data_format is None:
        data_format = backend.image_data_format()
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError("Unknown data_format " + str(data_format))
    if not isinstance(x, np.ndarray):
        return _preprocess_tensor(x, data_format, mode)
    if not issubclass(x.dtype.type, np.floating):
        x = x.astype(backend.floatx(), copy=False)
    if mode == "tf":
        x /= 127.5
        x -= 1.
        return x
    if mode == "torch":
        x /= 255.
        mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
    else:
        if data_format == "channels_first":
            x = x[::-1, ...] if x.ndim == 3 else x[:, ::-1, ...]
        else:
            x = x[..., ::-1]
        mean, std = [103.939, 116.779, 123.68], None
    for c in range(3):
        idx = (c,) if (data_format == "channels_first" and x.ndim == 3) else \
            ((slice(None), c) if data_format == "channels_first" else (Ellipsis, c))
        x[idx] -= mean[c]
        if std is not None:
            x[idx] /= std[c]
    return x


def _preprocess_tensor(x, data_format, mode):
    """preprocess_input of a graph tensor (Keras' symbolic branch)."""
    if mode == "tf":
        return x / 127.5 - 1.
    if mode == "torch":
        x = x / 255.
        mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
    else:
        if data_format == "channels_first":
            x = sequence_ops.reverse(x, [0] if x.shape.ndims == 3 else [1])
        else:
            x = sequence_ops.reverse(x, [-1])
        mean, std = [103.939, 116.779, 123.68], None
    shape = [-1, 1, 1] if data_format == "channels_first" else [-1]
    x = x - np.reshape(np.array(mean, dtype=x.dtype.as_numpy_dtype), shape)
    if std is not None:
        x = x / np.reshape(np.array(std, dtype=x.dtype.as_numpy_dtype), shape)
    return x


_CLASS_INDEX = None


def decode_predictions(preds, top=5, **kwargs):
    """[(class id, name, score)] * top per row of a (samples, 1000) prediction batch, from Keras' cached
    ~/.keras/models/imagenet_class_index.json (NotFoundError naming it when absent)."""
    global _CLASS_INDEX
    if len(preds.shape) != 2 or preds.shape[1] != 1000:
        raise ValueError("`decode_predictions` expects a batch of predictions (i.e. a 2D array of shape (samples, "
                         "1000)). Found array with shape: " + str(preds.shape))
    if _CLASS_INDEX is None:
        from tinyflow.api.keras.utils import get_file
        with open(get_file("imagenet_class_index.json", CLASS_INDEX_PATH, cache_subdir="models")) as f:
            _CLASS_INDEX = json.load(f)
    results = []
    for pred in preds:
        top_indices = pred.argsort()[-top:][::-1]
        result = [tuple(_CLASS_INDEX[str(i)]) + (pred[i],) for i in top_indices]
        result.sort(key=lambda r: r[2], reverse=True)
        results.append(result)
    return results
