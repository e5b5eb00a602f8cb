"""slim.tfexample_decoder (TF 1.15): TFExampleDecoder parses one serialized tf.train.Example and turns
its features into items through handlers: Tensor (dense, or a VarLenFeature made dense), Image (an
encoded or raw image), BoundingBox ([N, 4] from ymin/xmin/ymax/xmax) and ItemHandlerCallback."""
from tinyflow.graph import dtypes as dt
from tinyflow.ops.core import array_ops
from tinyflow.ops.image_codec_ops import decode_image_by_format
from tinyflow.ops.parsing_ops import FixedLenFeature, parse_single_example
from tinyflow.ops.sparse import sparse_tensor_to_dense


class ItemHandler:
    """Turns the parsed tensors of `keys` into one item."""

    def __init__(self, keys):
        self._keys = [keys] if isinstance(keys, str) else list(keys)

    @property
    def keys(self):
        return self._keys

    def tensors_to_item(self, keys_to_tensors):
        raise NotImplementedError


class ItemHandlerCallback(ItemHandler):
    """An item made by func({key: tensor})."""

    def __init__(self, keys, func):
        super().__init__(keys)
        self._func = func

    def tensors_to_item(self, keys_to_tensors):
        return self._func(keys_to_tensors)


def _dense(tensor, default_value):
    if type(tensor).__name__ == "SparseTensor":
        return sparse_tensor_to_dense(tensor, default_value)
    return tensor


class Tensor(ItemHandler):
    """The feature tensor_key, made dense (default_value fills a VarLenFeature's gaps) and reshaped to
    `shape` or to the shape read from the features shape_keys."""

    def __init__(self, tensor_key, shape_keys=None, shape=None, default_value=0):
        if shape_keys and shape is not None:
            raise ValueError("Cannot specify both shape_keys and shape parameters.")
        if shape_keys and not isinstance(shape_keys, list):
            shape_keys = [shape_keys]
        self._tensor_key, self._shape_keys, self._shape = tensor_key, shape_keys, shape
        self._default_value = default_value
        super().__init__([tensor_key] + (shape_keys or []))

    def tensors_to_item(self, keys_to_tensors):
        tensor = _dense(keys_to_tensors[self._tensor_key], self._default_value)
        shape = self._shape
        if self._shape_keys:
            parts = [array_ops.reshape(_dense(keys_to_tensors[k], 0), [-1]) for k in self._shape_keys]
            shape = array_ops.concat(parts, 0) if len(parts) > 1 else parts[0]
        if shape is not None:
            tensor = array_ops.reshape(tensor, shape)
        return tensor


class BoundingBox(ItemHandler):
    """[num_boxes, 4] boxes from the features prefix + ymin, xmin, ymax, xmax (in that order)."""

    def __init__(self, keys=None, prefix=""):
        keys = keys or ["ymin", "xmin", "ymax", "xmax"]
        if len(keys) != 4:
            raise ValueError("BoundingBox expects 4 keys but got {}".format(len(keys)))
        self._prefix = prefix
        self._box_keys = keys
        super().__init__([prefix + k for k in keys])

    def tensors_to_item(self, keys_to_tensors):
        sides = [array_ops.expand_dims(_dense(keys_to_tensors[self._prefix + k], 0), 0) for k in self._box_keys]
        return array_ops.transpose(array_ops.concat(sides, 0))


class Image(ItemHandler):
    """The image of image_key ("image/encoded"), decoded as format_key ("image/format") says: "raw"
    bytes (reshaped to `shape`), else PNG/JPEG/GIF/BMP with `channels` channels."""

    def __init__(self, image_key=None, format_key=None, shape=None, channels=3, dtype=dt.uint8, repeated=False,
                 dct_method=""):
        if repeated:
            raise NotImplementedError("tinyflow's tfexample_decoder.Image has no repeated images")
        self._image_key = image_key or "image/encoded"
        self._format_key = format_key or "image/format"
        self._shape, self._channels, self._dtype = shape, channels, dt.as_dtype(dtype)
        super().__init__([self._image_key, self._format_key])

    def tensors_to_item(self, keys_to_tensors):
        image = decode_image_by_format(keys_to_tensors[self._image_key], keys_to_tensors[self._format_key],
                                       self._channels, self._dtype)
        if self._shape is not None:
            return array_ops.reshape(image, self._shape)
        image.set_shape([None, None, self._channels])
        return image


class TFExampleDecoder:
    """Decodes one serialized Example into items: keys_to_features is parse_single_example's feature
    map, items_to_handlers {item name: ItemHandler}."""

    def __init__(self, keys_to_features, items_to_handlers):
        self._keys_to_features = keys_to_features
        self._items_to_handlers = items_to_handlers

    def list_items(self):
        return list(self._items_to_handlers)

    def decode(self, serialized_example, items=None):
        """The tensors of `items` (all, in their order, when None)."""
        example = parse_single_example(serialized_example, self._keys_to_features)
        for k in sorted(self._keys_to_features):
            v = self._keys_to_features[k]
            if isinstance(v, FixedLenFeature):
                example[k] = array_ops.reshape(example[k], v.shape)
        outputs = []
        for item in items or self._items_to_handlers:
            handler = self._items_to_handlers[item]
            outputs.append(handler.tensors_to_item({key: example[key] for key in handler.keys}))
        return outputs
