"""tf.keras.utils: to_categorical, normalize, Sequence, Progbar (TF 1.15's progress bar), get_file
(the local cache only: no downloads)."""
import os
import sys
import time

import numpy as np

from tinyflow.graph import errors


def to_categorical(y, num_classes=None, dtype="float32"):
    """Integer class ids -> one-hot rows (the last axis of size 1 dropped, as Keras)."""
    y = np.array(y, dtype="int")
    input_shape = y.shape
    if input_shape and input_shape[-1] == 1 and len(input_shape) > 1:
        input_shape = tuple(input_shape[:-1])
    y = y.ravel()
    if not num_classes:
        num_classes = np.max(y) + 1
    n = y.shape[0]
    categorical = np.zeros((n, num_classes), dtype=dtype)
    categorical[np.arange(n), y] = 1
    return np.reshape(categorical, input_shape + (num_classes,))


def normalize(x, axis=-1, order=2):
    norm = np.atleast_1d(np.linalg.norm(x, order, axis))
    norm[norm == 0] = 1
    return x / np.expand_dims(norm, axis)


class Sequence:
    """Base class of a batch source: `__getitem__(index)` returns batch `index`, `__len__` the count."""

    def __getitem__(self, index):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError

    def on_epoch_end(self):
        pass

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]


def get_file(fname, origin=None, untar=False, md5_hash=None, file_hash=None, cache_subdir="datasets",
             hash_algorithm="auto", extract=False, archive_format="auto", cache_dir=None):
    """The path of `fname` in Keras' cache (~/.keras/<cache_subdir>); NotFoundError naming the file when
    it is not there (tinyflow never downloads)."""
    cache_dir = cache_dir or os.path.join(os.path.expanduser("~"), ".keras")
    path = os.path.join(cache_dir, cache_subdir, fname)
    if not os.path.exists(path):
        raise errors.NotFoundError(None, None, "%s not found: tinyflow does not download datasets; put the file "
                                   "there (it comes from %s)" % (path, origin or "the Keras dataset mirror"))
    return path


class Progbar:
    """TF 1.15's progress bar: verbose=1 redraws a bar with running averages; verbose=2 prints one
    line when the target is reached. Metrics in `stateful_metrics` are shown as given."""

    def __init__(self, target, width=30, verbose=1, interval=0.05, stateful_metrics=None, unit_name="step"):
        self.target, self.width, self.verbose, self.interval = target, width, verbose, interval
        self.unit_name = unit_name
        self.stateful_metrics = set(stateful_metrics or ())
        self._dynamic_display = ((hasattr(sys.stdout, "isatty") and sys.stdout.isatty()) or "ipykernel" in sys.modules
                                 or "posix" in sys.modules)
        self._total_width, self._seen_so_far = 0, 0
        self._values, self._values_order = {}, []
        self._start, self._last_update = time.time(), 0

    def _format_values(self, signed):
        info = ""
        for k in self._values_order:
            avg = np.mean(self._values[k][0] / max(1, self._values[k][1]))
            info += " - %s:" % k + (" %.4f" % avg if (abs(avg) if signed else avg) > 1e-3 else " %.4e" % avg)
        return info

    def update(self, current, values=None):
        for k, v in values or []:
            if k not in self._values_order:
                self._values_order.append(k)
            if k not in self.stateful_metrics:
                step = current - self._seen_so_far
                old = self._values.get(k, [0, 0])
                self._values[k] = [old[0] + v * step, old[1] + step]
            else:
                self._values[k] = [v, 1]
        self._seen_so_far = current
        now = time.time()
        info = " - %.0fs" % (now - self._start)
        done = self.target is not None and current >= self.target
        if self.verbose == 1:
            if now - self._last_update < self.interval and not done and self.target is not None:
                return
            prev_total_width = self._total_width
            sys.stdout.write(("\b" * prev_total_width + "\r") if self._dynamic_display else "\n")
            if self.target is not None:
                numdigits = int(np.log10(self.target)) + 1
                bar = ("%" + str(numdigits) + "d/%d [") % (current, self.target)
                prog_width = int(self.width * float(current) / self.target)
                if prog_width > 0:
                    bar += "=" * (prog_width - 1) + (">" if current < self.target else "=")
                bar += "." * (self.width - prog_width) + "]"
            else:
                bar = "%7d/Unknown" % current
            self._total_width = len(bar)
            sys.stdout.write(bar)
            time_per_unit = (now - self._start) / current if current else 0
            if self.target is not None and current < self.target:
                eta = time_per_unit * (self.target - current)
                if eta > 3600:
                    eta_format = "%d:%02d:%02d" % (eta // 3600, (eta % 3600) // 60, eta % 60)
                elif eta > 60:
                    eta_format = "%d:%02d" % (eta // 60, eta % 60)
                else:
                    eta_format = "%ds" % eta
                info = " - ETA: %s" % eta_format
            elif time_per_unit >= 1 or time_per_unit == 0:
                info += " %.0fs/%s" % (time_per_unit, self.unit_name)
            elif time_per_unit >= 1e-3:
                info += " %.0fms/%s" % (time_per_unit * 1e3, self.unit_name)
            else:
                info += " %.0fus/%s" % (time_per_unit * 1e6, self.unit_name)
            info += self._format_values(signed=True)
            self._total_width += len(info)
            if prev_total_width > self._total_width:
                info += " " * (prev_total_width - self._total_width)
            if done:
                info += "\n"
            sys.stdout.write(info)
            sys.stdout.flush()
        elif self.verbose == 2 and done:
            numdigits = int(np.log10(self.target)) + 1
            sys.stdout.write(("%" + str(numdigits) + "d/%d") % (current, self.target) + info
                             + self._format_values(signed=False) + "\n")
            sys.stdout.flush()
        self._last_update = now

    def add(self, n, values=None):
        self.update(self._seen_so_far + n, values)


from tinyflow.api.keras.generic_utils import (CustomObjectScope, custom_object_scope,  # noqa: E402,F401
                                              deserialize_keras_object, get_custom_objects, serialize_keras_object)


def get_source_inputs(tensor, layer=None, node_index=None):
    """The Input tensors a Keras tensor is computed from (in first-use order, each once)."""
    from tinyflow.api.keras.engine import InputLayer
    if not hasattr(tensor, "_keras_history"):
        return tensor
    if layer is None or node_index:
        layer, node_index, _ = tensor._keras_history
    if not layer._inbound_nodes or isinstance(layer, InputLayer):
        return [tensor]
    sources = []
    for x in layer._inbound_nodes[node_index].input_tensors:
        for s in get_source_inputs(x):
            if all(s is not t for t in sources):
                sources.append(s)
    return sources


def convert_kernel(kernel):
    """A convolution kernel with its spatial axes flipped (Theano's convolution <-> TF's correlation)."""
    slices = [slice(None, None, -1)] * kernel.ndim
    slices[-2:] = (slice(None, None), slice(None, None))
    return np.copy(kernel[tuple(slices)])


def convert_all_kernels_in_model(model):
    """Flips the kernels of the model's convolution layers in place (models trained with Theano)."""
    from tinyflow.api.keras import backend as K
    conv = {"Conv1D", "Conv2D", "Conv3D", "Conv2DTranspose"}
    pairs = [(layer.kernel, convert_kernel(K.get_value(layer.kernel))) for layer in model.layers
             if type(layer).__name__ in conv]
    K.batch_set_value(pairs)


def _check_pydot():
    try:
        import pydot
        pydot.Dot.create(pydot.Dot())
        return pydot
    except ImportError:
        raise ImportError("Failed to import `pydot`. Please install `pydot`. For example with `pip install pydot`.")
    except OSError:
        raise OSError("`pydot` failed to call GraphViz.Please install GraphViz (https://www.graphviz.org/) and ensure "
                      "that its executables are in the $PATH.")


def model_to_dot(model, show_shapes=False, show_layer_names=True, rankdir="TB", expand_nested=False, dpi=96,
                 subgraph=False):
    """A pydot graph of the model: one node per layer, an edge per connection (needs pydot and GraphViz)."""
    pydot = _check_pydot()
    dot = pydot.Dot()
    dot.set("rankdir", rankdir)
    dot.set("concentrate", True)
    dot.set("dpi", dpi)
    dot.set_node_defaults(shape="record")
    for layer in model.layers:
        label = type(layer).__name__
        if show_layer_names:
            label = "%s: %s" % (layer.name, label)
        if show_shapes:
            label += "\n|{input:|output:}|{{%s}|{%s}}" % (getattr(layer, "input_shape", "multiple"),
                                                         getattr(layer, "output_shape", "multiple"))
        dot.add_node(pydot.Node(str(id(layer)), label=label))
    names = {id(layer) for layer in model.layers}
    for layer in model.layers:
        for node in layer._inbound_nodes:
            for x in node.input_tensors:
                src = getattr(x, "_keras_history", (None,))[0]
                if src is not None and id(src) in names and src is not layer:
                    dot.add_edge(pydot.Edge(str(id(src)), str(id(layer))))
    return dot


def plot_model(model, to_file="model.png", show_shapes=False, show_layer_names=True, rankdir="TB",
               expand_nested=False, dpi=96):
    """Writes model_to_dot's graph to `to_file` (its extension the format)."""
    dot = model_to_dot(model, show_shapes, show_layer_names, rankdir, expand_nested, dpi)
    extension = os.path.splitext(to_file)[1][1:] or "png"
    dot.write(to_file, format=extension)


def multi_gpu_model(model, gpus, cpu_merge=True, cpu_relocation=False):
    """TF 1.15 replicates the model on `gpus` GPUs; with fewer than 2 it refuses, as here. tinyflow runs one
    XLA device per model: use the model itself (or tf.distribute.MirroredStrategy)."""
    count = len(gpus) if isinstance(gpus, (list, tuple)) else gpus
    if count <= 1:
        raise ValueError("For multi-gpu usage to be effective, call `multi_gpu_model` with `gpus >= 2`. "
                         "Received: `gpus=%s`" % gpus)
    import jax
    available = [d for d in jax.devices() if d.platform == "gpu"]
    if len(available) < count:
        raise ValueError("To call `multi_gpu_model` with `gpus=%s`, we expect the following devices to be "
                         "available: %s. However this machine only has: %s. Try reducing `gpus`."
                         % (gpus, ["/gpu:%d" % i for i in range(count)], [str(d) for d in jax.devices()]))
    raise NotImplementedError("TF 1.15 has tf.keras.utils.multi_gpu_model; tinyflow does not implement it: "
                              "use tf.distribute.MirroredStrategy")


class HDF5Matrix:
    """A dataset of an HDF5 file used like a numpy array (rows start..end, normalized by `normalizer`)."""

    refs = {}

    def __init__(self, datapath, dataset, start=0, end=None, normalizer=None):
        import h5py
        if datapath not in self.refs:
            self.refs[datapath] = h5py.File(datapath, "r")
        self.data = self.refs[datapath][dataset]
        self.start = start
        self.end = self.data.shape[0] if end is None else end
        self.normalizer = normalizer
        first = self.data[:1] if normalizer is None else normalizer(self.data[:1])
        self._base_shape, self._base_dtype = first.shape[1:], first.dtype

    def __len__(self):
        return self.end - self.start

    def __getitem__(self, key):
        if isinstance(key, slice):
            start, stop = key.start or 0, self.end - self.start if key.stop is None else key.stop
            if start + self.start > self.end or stop + self.start > self.end:
                raise IndexError
            idx = slice(start + self.start, stop + self.start)
        elif isinstance(key, (int, np.integer)):
            if key + self.start >= self.end:
                raise IndexError
            idx = key + self.start
        elif isinstance(key, (list, np.ndarray)):
            if max(key) + self.start >= self.end:
                raise IndexError
            idx = [x + self.start for x in key]
        else:
            raise IndexError
        return self.data[idx] if self.normalizer is None else self.normalizer(self.data[idx])

    shape = property(lambda self: (self.end - self.start,) + self._base_shape)
    dtype = property(lambda self: self._base_dtype)
    ndim = property(lambda self: self.data.ndim)
    size = property(lambda self: int(np.prod(self.shape)))


class SequenceEnqueuer:
    """Runs a data source on worker threads into a queue: start(workers, max_queue_size), get() yields
    its items, stop(), is_running()."""

    def __init__(self, sequence, use_multiprocessing=False):
        self.sequence, self.use_multiprocessing = sequence, use_multiprocessing
        self._threads, self._stop, self.queue = [], None, None

    def is_running(self):
        return self._stop is not None and not self._stop.is_set()

    def start(self, workers=1, max_queue_size=10):
        import queue
        import threading
        self.queue, self._stop = queue.Queue(max_queue_size), threading.Event()
        self._threads = [threading.Thread(target=self._run, daemon=True) for _ in range(1)]
        for t in self._threads:
            t.start()

    def _put(self, item):
        import queue
        while not self._stop.is_set():
            try:
                self.queue.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def stop(self, timeout=None):
        if self._stop is not None:
            self._stop.set()
        for t in self._threads:
            t.join(timeout)
        self._threads = []

    def get(self):
        import queue
        while self.is_running() or (self.queue is not None and not self.queue.empty()):
            try:
                kind, item = self.queue.get(timeout=0.1)
            except queue.Empty:
                continue
            if kind == "error":
                self.stop()
                raise item
            if kind == "end":
                return
            yield item


class OrderedEnqueuer(SequenceEnqueuer):
    """Enqueues the batches of a keras.utils.Sequence in order (shuffled per epoch when `shuffle`), epoch
    after epoch, calling its on_epoch_end."""

    def __init__(self, sequence, use_multiprocessing=False, shuffle=False):
        super().__init__(sequence, use_multiprocessing)
        self.shuffle = shuffle

    def _run(self):
        try:
            while not self._stop.is_set():
                order = list(range(len(self.sequence)))
                if self.shuffle:
                    np.random.shuffle(order)
                for i in order:
                    if not self._put(("item", self.sequence[i])):
                        return
                self.sequence.on_epoch_end()
        except Exception as e:  # handed to the consumer, as Keras does
            self._put(("error", e))


class GeneratorEnqueuer(SequenceEnqueuer):
    """Enqueues the items of a Python generator until it ends."""

    def __init__(self, generator, use_multiprocessing=False, wait_time=None, random_seed=None):
        super().__init__(generator, use_multiprocessing)

    def _run(self):
        try:
            for item in self.sequence:
                if not self._put(("item", item)):
                    return
            self._put(("end", None))
        except Exception as e:
            self._put(("error", e))
