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
