"""tf.keras.preprocessing.image: ImageDataGenerator, its iterators and the image functions, as
Keras-Preprocessing 1.1 (TF 1.15's). Random parameters are drawn with numpy's global generator in Keras'
order, so a seeded iterator gives TF's draws; the affine warp is scipy.ndimage's, written in numpy
(image_affine.py); PIL is needed only for files and brightness shifts."""
from tinyflow.api.keras.preprocessing.image_affine import (  # noqa: F401
    apply_affine_transform, apply_brightness_shift, apply_channel_shift, array_to_img, flip_axis, img_to_array,
    load_img, random_brightness, random_channel_shift, random_rotation, random_shear, random_shift, random_zoom,
    save_img, transform_matrix_offset_center)
from tinyflow.api.keras.preprocessing.image_generator import (  # noqa: F401
    DirectoryIterator, ImageDataGenerator, Iterator, NumpyArrayIterator)
