"""tf.keras.callbacks: what fit calls at the start and end of training, epochs and batches
(History, the progress bar, EarlyStopping, ModelCheckpoint, LearningRateScheduler, CSVLogger,
LambdaCallback, TerminateOnNaN, ReduceLROnPlateau, TensorBoard)."""
import csv
import os

import numpy as np

from tinyflow.api.keras import backend as K
from tinyflow.api.keras.utils import Progbar


class Callback:
    """Base class: override the on_* methods; `self.model` and `self.params` are set by fit."""

    def __init__(self):
        self.model, self.params, self.validation_data = None, {}, None

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self.model = model

    def on_epoch_begin(self, epoch, logs=None):
        pass

    def on_epoch_end(self, epoch, logs=None):
        pass

    def on_batch_begin(self, batch, logs=None):
        pass

    def on_batch_end(self, batch, logs=None):
        pass

    def on_train_begin(self, logs=None):
        pass

    def on_train_end(self, logs=None):
        pass

    on_train_batch_begin = on_batch_begin
    on_train_batch_end = on_batch_end

    def on_test_begin(self, logs=None):
        pass

    def on_test_end(self, logs=None):
        pass

    def on_predict_begin(self, logs=None):
        pass

    def on_predict_end(self, logs=None):
        pass


class CallbackList:
    """Calls each callback in turn."""

    def __init__(self, callbacks, model, params):
        self.callbacks = list(callbacks)
        for c in self.callbacks:
            c.set_model(model)
            c.set_params(params)

    def call(self, name, *args):
        for c in self.callbacks:
            getattr(c, name)(*args)


class History(Callback):
    """Records each epoch's logs: `history.history` {'loss': [...], 'acc': [...], 'val_loss': [...]}."""

    def on_train_begin(self, logs=None):
        self.epoch, self.history = [], {}

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for k, v in (logs or {}).items():
            self.history.setdefault(k, []).append(v)


class ProgbarLogger(Callback):
    """Prints "Epoch i/n" and the progress bar (verbose=1) or one line per epoch (verbose=2)."""

    def __init__(self, count_mode="samples", stateful_metrics=None):
        super().__init__()
        if count_mode not in ("samples", "steps"):
            raise ValueError("Unknown `count_mode`: " + str(count_mode))
        self.use_steps = count_mode == "steps"
        self.stateful_metrics = set(stateful_metrics or ())

    def on_train_begin(self, logs=None):
        self.verbose, self.epochs = self.params["verbose"], self.params["epochs"]

    def on_epoch_begin(self, epoch, logs=None):
        self.seen = 0
        self.target = self.params["steps"] if self.use_steps else self.params["samples"]
        if self.verbose and self.epochs > 1:
            print("Epoch %d/%d" % (epoch + 1, self.epochs))
        self.progbar = Progbar(target=self.target, verbose=self.verbose, stateful_metrics=self.stateful_metrics,
                               unit_name="step" if self.use_steps else "sample")

    def on_batch_begin(self, batch, logs=None):
        self.log_values = []

    def on_batch_end(self, batch, logs=None):
        logs = logs or {}
        self.seen += 1 if self.use_steps else logs.get("size", 0)
        self.log_values = [(k, logs[k]) for k in self.params["metrics"] if k in logs]
        if self.verbose and (self.target is None or self.seen < self.target):
            self.progbar.update(self.seen, self.log_values)

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        self.log_values += [(k, logs[k]) for k in self.params["metrics"] if k in logs]
        if self.verbose:
            self.progbar.update(self.seen, self.log_values)


def _monitor_op(mode, monitor):
    if mode not in ("auto", "min", "max"):
        mode = "auto"
    if mode == "min" or (mode == "auto" and "acc" not in monitor):
        return np.less
    return np.greater


class EarlyStopping(Callback):
    """Stops training once `monitor` has not improved by `min_delta` for `patience` epochs."""

    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0, mode="auto", baseline=None,
                 restore_best_weights=False):
        super().__init__()
        self.monitor, self.patience, self.verbose, self.baseline = monitor, patience, verbose, baseline
        self.restore_best_weights = restore_best_weights
        self.monitor_op = _monitor_op(mode, monitor)
        self.min_delta = abs(min_delta) if self.monitor_op == np.greater else -abs(min_delta)
        self.wait, self.stopped_epoch, self.best_weights = 0, 0, None

    def on_train_begin(self, logs=None):
        self.wait, self.stopped_epoch = 0, 0
        self.best = self.baseline if self.baseline is not None else (
            np.inf if self.monitor_op == np.less else -np.inf)

    def on_epoch_end(self, epoch, logs=None):
        current = (logs or {}).get(self.monitor)
        if current is None:
            print("Early stopping conditioned on metric `%s` which is not available. Available metrics are: %s"
                  % (self.monitor, ",".join(logs or {})))
            return
        if self.monitor_op(current - self.min_delta, self.best):
            self.best, self.wait = current, 0
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
        else:
            self.wait += 1
            if self.wait >= self.patience:
                self.stopped_epoch = epoch
                self.model.stop_training = True
                if self.restore_best_weights and self.best_weights is not None:
                    self.model.set_weights(self.best_weights)

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            print("Epoch %05d: early stopping" % (self.stopped_epoch + 1))


class ModelCheckpoint(Callback):
    """Saves the model's weights (TF checkpoint format, or the whole model) after each epoch; the
    filepath may hold {epoch:02d} and log keys ({val_loss:.2f})."""

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False, save_weights_only=False,
                 mode="auto", save_freq="epoch", period=1, **kwargs):
        super().__init__()
        self.filepath, self.monitor, self.verbose = filepath, monitor, verbose
        self.save_best_only, self.save_weights_only, self.period = save_best_only, save_weights_only, period
        self.monitor_op = _monitor_op(mode, monitor)
        self.best = np.inf if self.monitor_op == np.less else -np.inf
        self.epochs_since_last_save = 0

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        self.epochs_since_last_save += 1
        if self.epochs_since_last_save < self.period:
            return
        self.epochs_since_last_save = 0
        filepath = self.filepath.format(epoch=epoch + 1, **logs)
        if self.save_best_only:
            current = logs.get(self.monitor)
            if current is None or not self.monitor_op(current, self.best):
                if self.verbose > 0 and current is not None:
                    print("\nEpoch %05d: %s did not improve from %0.5f" % (epoch + 1, self.monitor, self.best))
                return
            if self.verbose > 0:
                print("\nEpoch %05d: %s improved from %0.5f to %0.5f, saving model to %s"
                      % (epoch + 1, self.monitor, self.best, current, filepath))
            self.best = current
        elif self.verbose > 0:
            print("\nEpoch %05d: saving model to %s" % (epoch + 1, filepath))
        if self.save_weights_only:
            self.model.save_weights(filepath, overwrite=True)
        else:
            self.model.save(filepath, overwrite=True)


class LearningRateScheduler(Callback):
    """Sets the optimizer's learning rate to schedule(epoch) (or schedule(epoch, lr)) before each epoch."""

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule, self.verbose = schedule, verbose

    def on_epoch_begin(self, epoch, logs=None):
        lr_var = self.model.optimizer.lr
        try:
            lr = self.schedule(epoch, float(K.get_value(lr_var)))
        except TypeError:
            lr = self.schedule(epoch)
        if not isinstance(lr, (float, np.float32, np.float64, int)):
            raise ValueError('The output of the "schedule" function should be float.')
        K.set_value(lr_var, lr)
        if self.verbose > 0:
            print("\nEpoch %05d: LearningRateScheduler reducing learning rate to %s." % (epoch + 1, lr))

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["lr"] = float(K.get_value(self.model.optimizer.lr))


class ReduceLROnPlateau(Callback):
    """Multiplies the learning rate by `factor` once `monitor` stalls for `patience` epochs."""

    def __init__(self, monitor="val_loss", factor=0.1, patience=10, verbose=0, mode="auto", min_delta=1e-4,
                 cooldown=0, min_lr=0, **kwargs):
        super().__init__()
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau does not support a factor >= 1.0.")
        self.monitor, self.factor, self.patience, self.verbose = monitor, factor, patience, verbose
        self.min_delta, self.cooldown, self.min_lr = min_delta, cooldown, min_lr
        less = _monitor_op(mode, monitor) == np.less
        self.monitor_op = ((lambda a, b: np.less(a, b - min_delta)) if less
                           else (lambda a, b: np.greater(a, b + min_delta)))
        self.best = np.inf if less else -np.inf
        self.wait = self.cooldown_counter = 0

    def on_epoch_end(self, epoch, logs=None):
        logs = logs if logs is not None else {}
        logs["lr"] = float(K.get_value(self.model.optimizer.lr))
        current = logs.get(self.monitor)
        if current is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self.monitor_op(current, self.best):
            self.best, self.wait = current, 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                old = logs["lr"]
                if old > self.min_lr:
                    new = max(old * self.factor, self.min_lr)
                    K.set_value(self.model.optimizer.lr, new)
                    if self.verbose > 0:
                        print("\nEpoch %05d: ReduceLROnPlateau reducing learning rate to %s." % (epoch + 1, new))
                    self.cooldown_counter, self.wait = self.cooldown, 0


class LambdaCallback(Callback):
    """A callback from functions: on_epoch_begin(epoch, logs), on_batch_end(batch, logs), ..."""

    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_batch_begin=None, on_batch_end=None,
                 on_train_begin=None, on_train_end=None, **kwargs):
        super().__init__()
        for name, fn in (("on_epoch_begin", on_epoch_begin), ("on_epoch_end", on_epoch_end),
                         ("on_batch_begin", on_batch_begin), ("on_batch_end", on_batch_end),
                         ("on_train_begin", on_train_begin), ("on_train_end", on_train_end)):
            if fn is not None:
                setattr(self, name, fn)


class TerminateOnNaN(Callback):
    def on_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is not None and (np.isnan(loss) or np.isinf(loss)):
            print("Batch %d: Invalid loss, terminating training" % batch)
            self.model.stop_training = True


class CSVLogger(Callback):
    """Writes one row per epoch (epoch, then the sorted log keys) to `filename`."""

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.filename, self.sep, self.append = filename, separator, append
        self.writer = self.keys = self.csv_file = None

    def on_train_begin(self, logs=None):
        append_header = not (self.append and os.path.exists(self.filename) and os.path.getsize(self.filename))
        self.csv_file = open(self.filename, "a" if self.append else "w", newline="")
        self._append_header = append_header

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if self.keys is None:
            self.keys = sorted(logs)
        if self.writer is None:
            self.writer = csv.DictWriter(self.csv_file, fieldnames=["epoch"] + self.keys, delimiter=self.sep)
            if self._append_header:
                self.writer.writeheader()
        row = {"epoch": epoch}
        row.update((k, logs.get(k, "NA")) for k in self.keys)
        self.writer.writerow(row)
        self.csv_file.flush()

    def on_train_end(self, logs=None):
        self.csv_file.close()
        self.writer = None


class TensorBoard(Callback):
    """TF 1.15's graph-mode TensorBoard callback (keras/callbacks_v1.py): writes an event file in `log_dir`
    with the graph (write_graph), the epoch's logs as scalars `epoch_<name>` (step: the epoch, or the samples
    seen when update_freq is not 'epoch'), the batch logs `batch_<name>` every `update_freq` samples
    ('batch': every batch; step: the batches seen), and every `histogram_freq` epochs histograms of each
    layer's weights (`<weight name with : as _>`) and outputs (`<layer>_out`) on the validation batches
    (step: the validation batches seen). The profiler, embeddings and write_grads/write_images are
    accepted and not written."""

    def __init__(self, log_dir="./logs", histogram_freq=0, batch_size=32, write_graph=True, write_grads=False,
                 write_images=False, embeddings_freq=0, embeddings_layer_names=None, embeddings_metadata=None,
                 embeddings_data=None, update_freq="epoch", profile_batch=2):
        super().__init__()
        self.log_dir, self.histogram_freq, self.batch_size = log_dir, histogram_freq, batch_size
        self.write_graph, self.write_grads, self.write_images = write_graph, write_grads, write_images
        self.embeddings_freq, self.embeddings_data = embeddings_freq, embeddings_data
        self.update_freq = 1 if update_freq == "batch" else update_freq
        if self.update_freq != "epoch" and not isinstance(self.update_freq, int):
            raise ValueError("update_freq must be 'batch', 'epoch' or an integer, got %r" % (update_freq,))
        self.merged, self.writer = None, None
        self._total_batches_seen = self._total_val_batches_seen = 0
        self._samples_seen = self._samples_seen_at_last_write = 0

    def set_model(self, model):
        from tinyflow.api import summary
        self.model = model
        graph = K.get_session().graph
        self.writer = summary.FileWriter(self.log_dir, graph if self.write_graph else None)
        if self.histogram_freq and self.merged is None:
            with graph.as_default():
                for layer in model.layers:
                    for weight in layer.weights:
                        summary.histogram(weight.name.replace(":", "_"), weight)
                    output = getattr(layer, "output", None)
                    if isinstance(output, (list, tuple)):
                        for i, o in enumerate(output):
                            summary.histogram("%s_out_%d" % (layer.name, i), o)
                    elif output is not None:
                        summary.histogram("%s_out" % layer.name, output)
                self.merged = summary.merge_all()

    def _write_custom_summaries(self, step, logs):
        from tinyflow.formats.tf_protos import Summary
        for name, value in logs.items():
            summary = Summary()
            summary.value.add(tag=name, simple_value=float(np.asarray(value).item()))
            self.writer.add_summary(summary, step)
        self.writer.flush()

    def on_batch_end(self, batch, logs=None):
        logs = logs or {}
        self._samples_seen += logs.get("size", 1)
        if self.update_freq != "epoch" and self._samples_seen - self._samples_seen_at_last_write >= self.update_freq:
            self._write_custom_summaries(self._total_batches_seen, {
                "batch_" + k: v for k, v in logs.items() if k not in ("batch", "size", "num_steps")})
            self._samples_seen_at_last_write = self._samples_seen
        self._total_batches_seen += 1

    on_train_batch_end = on_batch_end

    def _write_histograms(self):
        """TF runs the merged summary with the test function on each validation batch of the epoch."""
        val = getattr(self.model, "_fit_validation", None)
        if val is None or self.merged is None:
            return
        xs, ys = val
        n, size = len(xs[0]), self.params.get("batch_size") or 32
        for i in range(0, n, size):
            feeds = self.model._feeds(xs, ys, slice(i, i + size))
            self.writer.add_summary(K.get_session().run(self.merged, feed_dict=feeds), self._total_val_batches_seen)
            self._total_val_batches_seen += 1

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if self.histogram_freq and epoch % self.histogram_freq == 0 and any(k.startswith("val_") for k in logs):
            self._write_histograms()
        self._write_custom_summaries(epoch if self.update_freq == "epoch" else self._samples_seen, {
            "epoch_" + k: v for k, v in logs.items() if k not in ("batch", "size", "num_steps")})

    def on_train_end(self, logs=None):
        self.writer.close()


class BaseLogger(Callback):
    """Averages the batch logs over each epoch (weighted by batch size; stateful metrics' last value) into
    the epoch's logs."""

    def __init__(self, stateful_metrics=None):
        super().__init__()
        self.stateful_metrics = set(stateful_metrics or [])

    def on_epoch_begin(self, epoch, logs=None):
        self.seen, self.totals = 0, {}

    def on_batch_end(self, batch, logs=None):
        logs = logs or {}
        size = logs.get("size", 0)
        self.seen += size * logs.get("num_steps", 1)
        for k, v in logs.items():
            if k in ("batch", "size", "num_steps"):
                continue
            if k in self.stateful_metrics:
                self.totals[k] = v
            else:
                self.totals[k] = self.totals.get(k, 0) + v * size

    def on_epoch_end(self, epoch, logs=None):
        if logs is None:
            return
        for k in self.params.get("metrics", []):
            if k in self.totals:
                logs[k] = self.totals[k] if k in self.stateful_metrics else self.totals[k] / self.seen


class RemoteMonitor(Callback):
    """POSTs each epoch's logs to root + path (form field `field` holding JSON, or JSON itself); a server
    it cannot reach gives a warning, not an error (TF 1.15)."""

    def __init__(self, root="http://localhost:9000", path="/publish/epoch/end/", field="data", headers=None,
                 send_as_json=False):
        super().__init__()
        self.root, self.path, self.field = root, path, field
        self.headers, self.send_as_json = headers, send_as_json

    def on_epoch_end(self, epoch, logs=None):
        import json
        import urllib.parse
        import urllib.request
        from tinyflow.api import logging as tf_logging
        send = {"epoch": epoch}
        for k, v in (logs or {}).items():
            send[k] = v.item() if isinstance(v, (np.ndarray, np.generic)) else v
        if self.send_as_json:
            body, content = json.dumps(send).encode(), "application/json"
        else:
            body, content = urllib.parse.urlencode({self.field: json.dumps(send)}).encode(), \
                "application/x-www-form-urlencoded"
        request = urllib.request.Request(self.root + self.path, data=body,
                                         headers=dict(self.headers or {}, **{"Content-Type": content}))
        try:
            urllib.request.urlopen(request, timeout=5).close()
        except (OSError, ValueError):
            tf_logging.warning("Warning: could not reach RemoteMonitor root server at " + str(self.root))
