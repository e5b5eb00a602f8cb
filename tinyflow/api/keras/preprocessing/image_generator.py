"""ImageDataGenerator and its iterators (tf.keras.preprocessing.image), as Keras-Preprocessing 1.1.

Every random number comes from numpy's global generator in Keras' order: an iterator with `seed`
reseeds it with seed + batches_seen before each batch, so a seeded flow gives TF 1.15's batches."""
import os
import threading
import warnings

import numpy as np

from tinyflow.api.keras.preprocessing.image_affine import (apply_affine_transform, apply_brightness_shift,
                                                           apply_channel_shift, array_to_img, flip_axis,
                                                           img_to_array, load_img)
from tinyflow.api.keras.utils import Sequence


class ImageDataGenerator:
    """Batches of augmented, standardized images: flow (arrays), flow_from_directory (files, needs PIL)."""

    def __init__(self, featurewise_center=False, samplewise_center=False, featurewise_std_normalization=False,
                 samplewise_std_normalization=False, zca_whitening=False, zca_epsilon=1e-6, rotation_range=0,
                 width_shift_range=0., height_shift_range=0., brightness_range=None, shear_range=0., zoom_range=0.,
                 channel_shift_range=0., fill_mode="nearest", cval=0., horizontal_flip=False, vertical_flip=False,
                 rescale=None, preprocessing_function=None, data_format="channels_last", validation_split=0.0,
                 interpolation_order=1, dtype="float32"):
        self.featurewise_center, self.samplewise_center = featurewise_center, samplewise_center
        self.featurewise_std_normalization = featurewise_std_normalization
        self.samplewise_std_normalization = samplewise_std_normalization
        self.zca_whitening, self.zca_epsilon = zca_whitening, zca_epsilon
        self.rotation_range, self.width_shift_range, self.height_shift_range = (rotation_range, width_shift_range,
                                                                                height_shift_range)
        self.shear_range, self.channel_shift_range = shear_range, channel_shift_range
        self.fill_mode, self.cval = fill_mode, cval
        self.horizontal_flip, self.vertical_flip = horizontal_flip, vertical_flip
        self.rescale, self.preprocessing_function = rescale, preprocessing_function
        self.dtype, self.interpolation_order = dtype, interpolation_order
        if data_format not in {"channels_last", "channels_first"}:
            raise ValueError('`data_format` should be `"channels_last"` (channel after row and column) or '
                             '`"channels_first"` (channel before row and column). Received: %s' % data_format)
        self.data_format = data_format
        self.channel_axis, self.row_axis, self.col_axis = (1, 2, 3) if data_format == "channels_first" else (3, 1, 2)
        if validation_split and not 0 < validation_split < 1:
            raise ValueError("`validation_split` must be strictly between 0 and 1.  Received: %s" % validation_split)
        self._validation_split = validation_split
        self.mean = self.std = self.principal_components = None
        if isinstance(zoom_range, (float, int)):
            self.zoom_range = [1 - zoom_range, 1 + zoom_range]
        elif len(zoom_range) == 2 and all(isinstance(v, (float, int)) for v in zoom_range):
            self.zoom_range = [zoom_range[0], zoom_range[1]]
        else:
            raise ValueError("`zoom_range` should be a float or a tuple or list of two floats. Received: %s"
                             % (zoom_range,))
        if zca_whitening:
            self.featurewise_center = True
            self.featurewise_std_normalization = False
        if self.featurewise_std_normalization:
            self.featurewise_center = True
        if samplewise_std_normalization:
            self.samplewise_center = True
        if brightness_range is not None and (not isinstance(brightness_range, (tuple, list))
                                             or len(brightness_range) != 2):
            raise ValueError("`brightness_range should be tuple or list of two floats. Received: %s"
                             % (brightness_range,))
        self.brightness_range = brightness_range

    def flow(self, x, y=None, batch_size=32, shuffle=True, sample_weight=None, seed=None, save_to_dir=None,
             save_prefix="", save_format="png", subset=None):
        """An iterator of (x, y[, sample_weight]) batches of the arrays, augmented and standardized."""
        return NumpyArrayIterator(x, y, self, batch_size=batch_size, shuffle=shuffle, sample_weight=sample_weight,
                                  seed=seed, data_format=self.data_format, save_to_dir=save_to_dir,
                                  save_prefix=save_prefix, save_format=save_format, subset=subset, dtype=self.dtype)

    def flow_from_directory(self, directory, target_size=(256, 256), color_mode="rgb", classes=None,
                            class_mode="categorical", batch_size=32, shuffle=True, seed=None, save_to_dir=None,
                            save_prefix="", save_format="png", follow_links=False, subset=None,
                            interpolation="nearest"):
        """An iterator over the images of directory/<class>/..., one class per subfolder (needs PIL)."""
        return DirectoryIterator(directory, self, target_size=target_size, color_mode=color_mode, classes=classes,
                                 class_mode=class_mode, data_format=self.data_format, batch_size=batch_size,
                                 shuffle=shuffle, seed=seed, save_to_dir=save_to_dir, save_prefix=save_prefix,
                                 save_format=save_format, follow_links=follow_links, subset=subset,
                                 interpolation=interpolation, dtype=self.dtype)

    def standardize(self, x):
        """preprocessing_function, rescale, sample- then feature-wise centering/normalization, ZCA (in place
        for float arrays, as Keras)."""
        if self.preprocessing_function:
            x = self.preprocessing_function(x)
        if self.rescale:
            x *= self.rescale
        if self.samplewise_center:
            x -= np.mean(x, keepdims=True)
        if self.samplewise_std_normalization:
            x /= (np.std(x, keepdims=True) + 1e-6)
        for flag, stat, what in ((self.featurewise_center, self.mean, "featurewise_center"),
                                 (self.featurewise_std_normalization, self.std, "featurewise_std_normalization"),
                                 (self.zca_whitening, self.principal_components, "zca_whitening")):
            if flag and stat is None:
                warnings.warn("This ImageDataGenerator specifies `%s`, but it hasn't been fit on any training data. "
                              "Fit it first by calling `.fit(numpy_data)`." % what)
        if self.featurewise_center and self.mean is not None:
            x -= self.mean
        if self.featurewise_std_normalization and self.std is not None:
            x /= (self.std + 1e-6)
        if self.zca_whitening and self.principal_components is not None:
            flatx = np.reshape(x, (-1, np.prod(x.shape[-3:])))
            x = np.reshape(np.dot(flatx, self.principal_components), x.shape)
        return x

    def get_random_transform(self, img_shape, seed=None):
        """The random parameters for one image, drawn in Keras' order."""
        if seed is not None:
            np.random.seed(seed)
        theta = np.random.uniform(-self.rotation_range, self.rotation_range) if self.rotation_range else 0
        tx = self._shift(self.height_shift_range, img_shape[self.row_axis - 1])
        ty = self._shift(self.width_shift_range, img_shape[self.col_axis - 1])
        shear = np.random.uniform(-self.shear_range, self.shear_range) if self.shear_range else 0
        if self.zoom_range[0] == 1 and self.zoom_range[1] == 1:
            zx, zy = 1, 1
        else:
            zx, zy = np.random.uniform(self.zoom_range[0], self.zoom_range[1], 2)
        flip_horizontal = (np.random.random() < 0.5) * self.horizontal_flip
        flip_vertical = (np.random.random() < 0.5) * self.vertical_flip
        channel_shift_intensity = None
        if self.channel_shift_range != 0:
            channel_shift_intensity = np.random.uniform(-self.channel_shift_range, self.channel_shift_range)
        brightness = None
        if self.brightness_range is not None:
            brightness = np.random.uniform(self.brightness_range[0], self.brightness_range[1])
        return {"theta": theta, "tx": tx, "ty": ty, "shear": shear, "zx": zx, "zy": zy,
                "flip_horizontal": flip_horizontal, "flip_vertical": flip_vertical,
                "channel_shift_intensity": channel_shift_intensity, "brightness": brightness}

    @staticmethod
    def _shift(rng, size):
        if not rng:
            return 0
        try:   # a list of pixel shifts, or an int: a choice and a sign
            t = np.random.choice(rng)
            t *= np.random.choice([-1, 1])
        except ValueError:   # a float: a fraction of the size
            t = np.random.uniform(-rng, rng)
        if np.max(rng) < 1:
            t *= size
        return t

    def apply_transform(self, x, transform_parameters):
        """One image (rank 3, no batch axis) warped, channel-shifted, flipped and brightened as given."""
        p = transform_parameters
        row, col, ch = self.row_axis - 1, self.col_axis - 1, self.channel_axis - 1
        x = apply_affine_transform(x, p.get("theta", 0), p.get("tx", 0), p.get("ty", 0), p.get("shear", 0),
                                   p.get("zx", 1), p.get("zy", 1), row_axis=row, col_axis=col, channel_axis=ch,
                                   fill_mode=self.fill_mode, cval=self.cval, order=self.interpolation_order)
        if p.get("channel_shift_intensity") is not None:
            x = apply_channel_shift(x, p["channel_shift_intensity"], ch)
        if p.get("flip_horizontal", False):
            x = flip_axis(x, col)
        if p.get("flip_vertical", False):
            x = flip_axis(x, row)
        if p.get("brightness") is not None:
            x = apply_brightness_shift(x, p["brightness"])
        return x

    def random_transform(self, x, seed=None):
        return self.apply_transform(x, self.get_random_transform(x.shape, seed))

    def fit(self, x, augment=False, rounds=1, seed=None):
        """Computes the featurewise mean / std / ZCA matrix of a rank-4 array (optionally augmented first)."""
        x = np.asarray(x, dtype=self.dtype)
        if x.ndim != 4:
            raise ValueError("Input to `.fit()` should have rank 4. Got array with shape: " + str(x.shape))
        if seed is not None:
            np.random.seed(seed)
        x = np.copy(x)
        if self.rescale:
            x *= self.rescale
        if augment:
            ax = np.zeros(tuple([rounds * x.shape[0]] + list(x.shape)[1:]), dtype=self.dtype)
            for r in range(rounds):
                for i in range(x.shape[0]):
                    ax[i + r * x.shape[0]] = self.random_transform(x[i])
            x = ax
        shape = [1, 1, 1]
        shape[self.channel_axis - 1] = x.shape[self.channel_axis]
        if self.featurewise_center:
            self.mean = np.reshape(np.mean(x, axis=(0, self.row_axis, self.col_axis)), shape)
            x -= self.mean
        if self.featurewise_std_normalization:
            self.std = np.reshape(np.std(x, axis=(0, self.row_axis, self.col_axis)), shape)
            x /= (self.std + 1e-6)
        if self.zca_whitening:
            flat_x = np.reshape(x, (x.shape[0], -1))
            sigma = np.dot(flat_x.T, flat_x) / flat_x.shape[0]
            u, s, _ = np.linalg.svd(sigma)   # scipy.linalg.svd in Keras; u * s_inv @ u.T is sign-free
            s_inv = 1. / np.sqrt(s[np.newaxis] + self.zca_epsilon)
            self.principal_components = (u * s_inv).dot(u.T)


class Iterator(Sequence):
    """Index batches over n samples: a Keras Sequence (indexable) and a Python iterator (endless)."""
    white_list_formats = ("png", "jpg", "jpeg", "bmp", "ppm", "tif", "tiff")

    def __init__(self, n, batch_size, shuffle, seed):
        self.n, self.batch_size, self.seed, self.shuffle = n, batch_size, seed, shuffle
        self.batch_index = self.total_batches_seen = 0
        self.lock = threading.Lock()
        self.index_array = None
        self.index_generator = self._flow_index()

    def _set_index_array(self):
        self.index_array = np.arange(self.n)
        if self.shuffle:
            self.index_array = np.random.permutation(self.n)

    def __getitem__(self, idx):
        if idx >= len(self):
            raise ValueError("Asked to retrieve element {idx}, but the Sequence has length {length}".format(
                idx=idx, length=len(self)))
        if self.seed is not None:
            np.random.seed(self.seed + self.total_batches_seen)
        self.total_batches_seen += 1
        if self.index_array is None:
            self._set_index_array()
        return self._get_batches_of_transformed_samples(self.index_array[self.batch_size * idx:
                                                                         self.batch_size * (idx + 1)])

    def __len__(self):
        return (self.n + self.batch_size - 1) // self.batch_size

    def on_epoch_end(self):
        self._set_index_array()

    def reset(self):
        self.batch_index = 0

    def _flow_index(self):
        self.reset()
        while 1:
            if self.seed is not None:
                np.random.seed(self.seed + self.total_batches_seen)
            if self.batch_index == 0:
                self._set_index_array()
            current = 0 if self.n == 0 else (self.batch_index * self.batch_size) % self.n
            self.batch_index = self.batch_index + 1 if self.n > current + self.batch_size else 0
            self.total_batches_seen += 1
            yield self.index_array[current:current + self.batch_size]

    def __iter__(self):
        return self

    def __next__(self):
        return self.next()

    def next(self):
        with self.lock:
            index_array = next(self.index_generator)
        return self._get_batches_of_transformed_samples(index_array)

    def _get_batches_of_transformed_samples(self, index_array):
        raise NotImplementedError

    def _save(self, batch_x, index_array):
        for i, j in enumerate(index_array):
            img = array_to_img(batch_x[i], self.data_format, scale=True)
            fname = "{prefix}_{index}_{hash}.{format}".format(prefix=self.save_prefix, index=j,
                                                               hash=np.random.randint(1e7), format=self.save_format)
            img.save(os.path.join(self.save_to_dir, fname))


class NumpyArrayIterator(Iterator):
    """ImageDataGenerator.flow's iterator over in-memory arrays."""

    def __init__(self, x, y, image_data_generator, batch_size=32, shuffle=False, sample_weight=None, seed=None,
                 data_format="channels_last", save_to_dir=None, save_prefix="", save_format="png", subset=None,
                 dtype="float32"):
        self.dtype = dtype
        if type(x) in (tuple, list):
            x_misc = [np.asarray(x[1])] if type(x[1]) is not list else [np.asarray(xx) for xx in x[1]]
            x = x[0]
            for xx in x_misc:
                if len(x) != len(xx):
                    raise ValueError("All of the arrays in `x` should have the same length. Found a pair with: "
                                     "len(x[0]) = %s, len(x[?]) = %s" % (len(x), len(xx)))
        else:
            x_misc = []
        if y is not None and len(x) != len(y):
            raise ValueError("`x` (images tensor) and `y` (labels) should have the same length. Found: x.shape = %s, "
                             "y.shape = %s" % (np.asarray(x).shape, np.asarray(y).shape))
        if sample_weight is not None and len(x) != len(sample_weight):
            raise ValueError("`x` (images tensor) and `sample_weight` should have the same length. Found: x.shape = "
                             "%s, sample_weight.shape = %s" % (np.asarray(x).shape, np.asarray(sample_weight).shape))
        if subset is not None:
            if subset not in {"training", "validation"}:
                raise ValueError("Invalid subset name:", subset, '; expected "training" or "validation".')
            split_idx = int(len(x) * image_data_generator._validation_split)
            if y is not None and not np.array_equal(np.unique(y[:split_idx]), np.unique(y[split_idx:])):
                raise ValueError("Training and validation subsets have different number of classes after the split. "
                                 "If your numpy arrays are sorted by the label, you might want to shuffle them.")
            part = slice(None, split_idx) if subset == "validation" else slice(split_idx, None)
            x, x_misc = x[part], [np.asarray(xx[part]) for xx in x_misc]
            y = y[part] if y is not None else None
        self.x = np.asarray(x, dtype=self.dtype)
        self.x_misc = x_misc
        if self.x.ndim != 4:
            raise ValueError("Input data in `NumpyArrayIterator` should have rank 4. You passed an array with shape",
                             self.x.shape)
        self.y = np.asarray(y) if y is not None else None
        self.sample_weight = np.asarray(sample_weight) if sample_weight is not None else None
        self.image_data_generator, self.data_format = image_data_generator, data_format
        self.save_to_dir, self.save_prefix, self.save_format = save_to_dir, save_prefix, save_format
        super().__init__(self.x.shape[0], batch_size, shuffle, seed)

    def _get_batches_of_transformed_samples(self, index_array):
        batch_x = np.zeros(tuple([len(index_array)] + list(self.x.shape)[1:]), dtype=self.dtype)
        gen = self.image_data_generator
        for i, j in enumerate(index_array):
            x = self.x[j]
            params = gen.get_random_transform(x.shape)
            batch_x[i] = gen.standardize(gen.apply_transform(x.astype(self.dtype), params))
        if self.save_to_dir:
            self._save(batch_x, index_array)
        batch_x_miscs = [xx[index_array] for xx in self.x_misc]
        output = (batch_x if batch_x_miscs == [] else [batch_x] + batch_x_miscs,)
        if self.y is None:
            return output[0]
        output += (self.y[index_array],)
        if self.sample_weight is not None:
            output += (self.sample_weight[index_array],)
        return output


class DirectoryIterator(Iterator):
    """flow_from_directory's iterator: the images of directory/<class>/** (sorted), decoded with PIL."""
    allowed_class_modes = {"categorical", "binary", "sparse", "input", None}

    def __init__(self, directory, image_data_generator, target_size=(256, 256), color_mode="rgb", classes=None,
                 class_mode="categorical", batch_size=32, shuffle=True, seed=None, data_format="channels_last",
                 save_to_dir=None, save_prefix="", save_format="png", follow_links=False, subset=None,
                 interpolation="nearest", dtype="float32"):
        self.image_data_generator, self.target_size = image_data_generator, tuple(target_size)
        if color_mode not in {"rgb", "rgba", "grayscale"}:
            raise ValueError("Invalid color mode:", color_mode, '; expected "rgb", "rgba", or "grayscale".')
        self.color_mode, self.data_format = color_mode, data_format
        depth = {"rgba": 4, "rgb": 3, "grayscale": 1}[color_mode]
        last = data_format == "channels_last"
        self.image_shape = self.target_size + (depth,) if last else (depth,) + self.target_size
        self.save_to_dir, self.save_prefix, self.save_format = save_to_dir, save_prefix, save_format
        self.interpolation = interpolation
        if subset is not None:
            if subset not in ("validation", "training"):
                raise ValueError('Invalid subset name: %s;expected "training" or "validation"' % (subset,))
            vs = image_data_generator._validation_split
            self.split = (0, vs) if subset == "validation" else (vs, 1)
        else:
            self.split = None
        self.subset, self.directory = subset, directory
        if class_mode not in self.allowed_class_modes:
            raise ValueError("Invalid class_mode: {}; expected one of: {}".format(class_mode,
                                                                                self.allowed_class_modes))
        self.class_mode, self.dtype = class_mode, dtype
        if not os.path.isdir(directory):
            from tinyflow.graph import errors
            raise errors.NotFoundError(None, None, "flow_from_directory: %s is not a directory" % directory)
        if not classes:
            classes = [d for d in sorted(os.listdir(directory)) if os.path.isdir(os.path.join(directory, d))]
        self.num_classes = len(classes)
        self.class_indices = dict(zip(classes, range(len(classes))))
        labels, self.filenames = [], []
        for subdir in classes:
            labels += self._list(os.path.join(directory, subdir), follow_links)
        self.samples = len(self.filenames)
        self.classes = np.array(labels, dtype="int32").reshape(self.samples)
        print("Found %d images belonging to %d classes." % (self.samples, self.num_classes))
        self._filepaths = [os.path.join(self.directory, f) for f in self.filenames]
        super().__init__(self.samples, batch_size, shuffle, seed)

    def _list(self, subpath, follow_links):
        files = []
        for root, _, names in sorted(os.walk(subpath, followlinks=follow_links), key=lambda x: x[0]):
            files += [(root, f) for f in sorted(names) if f.lower().endswith(self.white_list_formats)]
        if self.split:
            files = files[int(self.split[0] * len(files)):int(self.split[1] * len(files))]
        dirname = os.path.basename(subpath)
        for root, fname in files:
            self.filenames.append(os.path.join(dirname, os.path.relpath(os.path.join(root, fname), subpath)))
        return [self.class_indices[dirname]] * len(files)

    @property
    def filepaths(self):
        return self._filepaths

    @property
    def labels(self):
        return self.classes

    def _get_batches_of_transformed_samples(self, index_array):
        batch_x = np.zeros((len(index_array),) + self.image_shape, dtype=self.dtype)
        gen = self.image_data_generator
        for i, j in enumerate(index_array):
            img = load_img(self._filepaths[j], color_mode=self.color_mode, target_size=self.target_size,
                           interpolation=self.interpolation)
            x = img_to_array(img, data_format=self.data_format)
            img.close()
            if gen:
                x = gen.standardize(gen.apply_transform(x, gen.get_random_transform(x.shape)))
            batch_x[i] = x
        if self.save_to_dir:
            self._save(batch_x, index_array)
        if self.class_mode == "input":
            return batch_x, batch_x.copy()
        if self.class_mode in {"binary", "sparse"}:
            return batch_x, self.classes[index_array].astype(self.dtype)
        if self.class_mode == "categorical":
            batch_y = np.zeros((len(batch_x), len(self.class_indices)), dtype=self.dtype)
            batch_y[np.arange(len(index_array)), self.classes[index_array]] = 1.
            return batch_x, batch_y
        return batch_x
