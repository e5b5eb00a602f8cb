"""compile / fit / evaluate / predict as TF 1.15's graph-mode Keras runs them: compile builds the loss,
the metrics and the optimizer's updates in the graph once; fit is a loop over ONE train fetch set
(loss, metrics and updates: one jitted function per step) run by the Keras session with the batch
fed; evaluate and predict are a test and a predict fetch set the same way. Epoch logs are the
batch-size weighted means of the batches' values (TF 1.15's aggregation), under TF 1.15's names."""
import numpy as np

from tinyflow.api.keras import backend as K
from tinyflow.api.keras import callbacks as cbks
from tinyflow.api.keras import losses as losses_mod
from tinyflow.api.keras import metrics as metrics_mod
from tinyflow.api.keras import optimizers
from tinyflow.graph import errors
from tinyflow.ops.core import array_ops, math_ops


def _as_list(x):
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _per_output(value, names, what):
    """A compile argument (one value, a list, or a dict by output name) as one value per output."""
    if isinstance(value, dict):
        unknown = set(value) - set(names)
        if unknown:
            raise ValueError("Unknown entries in %s dictionary: %s. Only expected following keys: %s"
                             % (what, sorted(unknown), names))
        return [value.get(n) for n in names]
    if isinstance(value, (list, tuple)) and what != "metrics":
        if len(value) != len(names):
            raise ValueError("When passing a list as %s, it should have one entry per model outputs. The model has "
                             "%d outputs, but you passed %s=%s" % (what, len(names), what, value))
        return list(value)
    return [value] * len(names)


class TrainingMixin:
    """The Model's training API (mixed into Model)."""

    def _init_training(self):
        self.optimizer, self.loss, self._compile_args = None, None, None
        self._compile_metrics = self.loss_weights = None
        self._functions = {}
        self.history, self.stop_training = cbks.History(), False
        self.metrics_names = []

    # ---- compile ----------------------------------------------------------------------------------
    def compile(self, optimizer="rmsprop", loss=None, metrics=None, loss_weights=None, sample_weight_mode=None,
                weighted_metrics=None, target_tensors=None, **kwargs):
        """The optimizer, loss(es) and metrics fit uses; the graph of the loss is built now when the
        model's outputs are known, else on the first fit / evaluate."""
        self.optimizer = optimizers.get(optimizer)
        self.loss = loss
        self._compile_metrics, self.loss_weights = (metrics if metrics is not None else []), loss_weights
        self._compile_args = (loss, metrics, loss_weights)
        self._functions = {}
        self._compile_if_pending()

    def _compile_if_pending(self):
        if self._compile_args is None or self.outputs is None:
            return
        loss, metrics, loss_weights = self._compile_args
        self._compile_args = None
        names = self.output_names
        loss_fns = [losses_mod.get(x) if x is not None else None for x in _per_output(loss, names, "loss")]
        weights = _per_output(loss_weights, names, "loss_weights") if loss_weights is not None else [1.0] * len(names)
        metric_lists = (_per_output(metrics, names, "metrics") if isinstance(metrics, dict)
                        else [_as_list(metrics)] * len(names))
        graph = self.outputs[0].graph
        self.targets, output_losses, self._metric_tensors, self._sample_weights = [], [], [], []
        self._stateful_metrics = []   # (index among the metric tensors, metric)
        self.metrics_names = ["loss"]
        multi = len(names) > 1
        with graph.name_scope(None):
            for out, name, fn, w, mets in zip(self.outputs, names, loss_fns, weights, metric_lists):
                if fn is None:
                    self.targets.append(None)
                    continue
                target = K.placeholder(ndim=out.shape.ndims, dtype=out.dtype.base_dtype, name=name + "_target")
                self.targets.append(target)
                with graph.name_scope("loss"):
                    per = (fn.call if isinstance(fn, losses_mod.Loss) else fn)(target, out)   # per sample
                    # TF 1.15: each sample's loss times its weight (1 unless fed), summed over the batch size
                    weights = array_ops.placeholder_with_default(array_ops.ones_like(per), shape=per.shape,
                                                                 name=name + "_sample_weights")
                    self._sample_weights.append(weights)
                    # an output with a mask (a masked sequence): the masked steps weigh 0 (TF 1.15)
                    mask = getattr(out, "_keras_mask", None)
                    mask = None if mask is None else math_ops.cast(mask, per.dtype)
                    per_loss = math_ops.reduce_mean(per * weights if mask is None else per * weights * mask)
                output_losses.append((name, per_loss, w))
                for m in _as_list(mets):
                    if getattr(m, "stateful", False):   # AUC, Precision, ...: updated each step, logged as is
                        with graph.name_scope("metrics"):
                            value = m(target, out)
                        self._stateful_metrics.append((len(self._metric_tensors), m))
                        self._metric_tensors.append(((name + "_" + m.name) if multi else m.name, value))
                        continue
                    mname, mfn = metrics_mod.resolve(m, fn, out.shape)
                    with graph.name_scope("metrics"):
                        value = mfn(target, out)
                        value = math_ops.reduce_mean(value) if mask is None else \
                            math_ops.reduce_sum(value * mask) / math_ops.maximum(math_ops.reduce_sum(mask), 1e-7)
                    self._metric_tensors.append(((name + "_" + mname) if multi else mname, value))
            total = None
            for _, per_loss, w in output_losses:
                term = per_loss if w == 1.0 else per_loss * w
                total = term if total is None else total + term
            for extra in self.losses:
                total = total + math_ops.cast(extra, total.dtype)
        if total is None:
            raise ValueError("The model cannot be compiled because it has no loss to optimize.")
        self.total_loss = total
        self._output_losses = [(n + "_loss", t) for n, t, _ in output_losses] if multi else []
        self.metrics_names = (["loss"] + [n for n, _ in self._output_losses] + [n for n, _ in self._metric_tensors])

    # ---- the three fetch sets ---------------------------------------------------------------------
    def _function(self, kind):
        """(fetches, targets) of the 'train', 'test' or 'predict' step, built once per model."""
        if kind not in self._functions:
            if kind == "predict":   # stateful layers carry their states on (TF 1.15's state_updates)
                self._functions[kind] = (list(self.outputs), [getattr(t, "op", t) for t in self.state_updates])
            else:
                if not hasattr(self, "total_loss"):
                    raise RuntimeError("You must compile your model before using it.")
                fetches = [self.total_loss] + [t for _, t in self._output_losses] + [t for _, t in self._metric_tensors]
                targets = []
                if kind == "train":
                    graph = self.total_loss.graph
                    with graph.name_scope(None), graph.name_scope("training"):
                        targets = list(self.optimizer.get_updates(self.total_loss, self.trainable_weights))
                    targets += self.updates
                else:
                    targets = list(self.state_updates)
                # run as ops: fetching the assigns' values would copy every weight to the host each step
                targets = [getattr(t, "op", t) for t in targets]
                self._functions[kind] = (fetches, targets)
        return self._functions[kind]

    def _run(self, kind, feeds):
        fetches, targets = self._function(kind)
        sess = K.get_session()
        if kind == "train" and not isinstance(K.learning_phase(), int):   # set_learning_phase fixes it
            feeds = dict(feeds)
            feeds[K.learning_phase()] = True
        return sess.run(fetches + targets, feed_dict=feeds)[:len(fetches)]

    # ---- data ---------------------------------------------------------------------------------------
    def _standardize(self, x, y=None):
        """x (and y) as lists of arrays matching the model's inputs (and targets)."""
        if self.outputs is None:
            if x is None:
                raise ValueError("Please provide data to the model.")
            self._set_inputs(x if not isinstance(x, dict) else list(x.values()))
        xs = self._arrays(x, self.input_names, "input")
        for a, t in zip(xs, self.inputs):
            _check_shape(a, t, "input")
        if y is None:
            return xs, None
        ys = self._arrays(y, self.output_names, "target")
        targets = getattr(self, "targets", None)
        if targets is None:
            raise RuntimeError("You must compile your model before training/testing. Use `model.compile(optimizer, "
                               "loss)`.")
        out = []
        for a, t, o in zip(ys, targets, self.outputs):
            if t is None:
                continue
            if a.ndim == o.shape.ndims - 1:
                a = a[..., None]
            _check_shape(a, t, "target", o)
            out.append(a)
        n = {len(a) for a in xs + out}
        if len(n) > 1:
            raise ValueError("Input arrays should have the same number of samples as target arrays. Found %s."
                             % sorted(n))
        return xs, out

    def _arrays(self, data, names, what):
        if isinstance(data, dict):
            missing = [n for n in names if n not in data]
            if missing:
                raise ValueError("No data provided for \"%s\". Need data for each key in: %s" % (missing[0], names))
            data = [data[n] for n in names]
        data = _as_list(data) if isinstance(data, (list, tuple)) and len(names) > 1 else [data]
        if len(data) != len(names):
            raise ValueError("Error when checking model %s: the list of Numpy arrays that you are passing to your "
                             "model is not the size the model expected. Expected to see %d array(s), but instead "
                             "got %d arrays." % (what, len(names), len(data)))
        return [np.asarray(a) for a in data]

    def _feeds(self, xs, ys, index, sws=None):
        feeds = {t: a[index] for t, a in zip(self.inputs, xs)}
        if ys is not None:
            feeds.update((t, a[index]) for t, a in zip([t for t in self.targets if t is not None], ys))
        for ph, w in zip(getattr(self, "_sample_weights", []), sws or []):
            if w is not None:
                feeds[ph] = w[index]
        return feeds

    def _weights_arrays(self, ys, sample_weight, class_weight):
        """One weight per sample for each output with a loss (None: all ones), as TF 1.15's
        standardize_weights: sample_weight (an array, a list or a dict by output name) wins over
        class_weight ({class: weight}, or a dict of those by output name), whose class is y's argmax
        (one-hot y) or y itself."""
        if sample_weight is None and class_weight is None:
            return None
        names = [n for n, t in zip(self.output_names, self.targets) if t is not None]
        out = []
        for i, (name, y) in enumerate(zip(names, ys)):
            if sample_weight is not None:
                w = sample_weight.get(name) if isinstance(sample_weight, dict) else (
                    sample_weight[i] if isinstance(sample_weight, (list, tuple)) else sample_weight)
                if w is not None:
                    w = np.asarray(w, np.float32)
                    if w.ndim != 1 or len(w) != len(y):
                        raise ValueError("Found a sample_weight array with shape %s for an input with shape %s. "
                                         "sample_weight cannot be broadcast." % (w.shape, y.shape))
                out.append(w)
                continue
            cw = class_weight.get(name, class_weight) if isinstance(class_weight, dict) and name in class_weight \
                else class_weight
            if y.ndim == 2 and y.shape[1] > 1:
                classes = np.argmax(y, axis=1)
            elif y.ndim == 2 and y.shape[1] == 1:
                classes = np.reshape(y, y.shape[0])
            else:
                classes = y
            classes = classes.astype(np.int64)
            missing = sorted(set(classes.tolist()) - set(cw))
            if missing:
                raise ValueError("`class_weight` must contain all classes in the data. The classes %s exist in the "
                                 "data but not in `class_weight`." % set(missing))
            out.append(np.asarray([cw[c] for c in classes.tolist()], np.float32))
        return out

    # ---- fit --------------------------------------------------------------------------------------
    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose=1, callbacks=None, validation_split=0.0,
            validation_data=None, shuffle=True, class_weight=None, sample_weight=None, initial_epoch=0,
            steps_per_epoch=None, validation_steps=None, validation_freq=1, **kwargs):
        """Trains for `epochs` epochs of batches of `batch_size` (32) samples; returns the History."""
        dataset = x if _is_dataset(x) else None
        if dataset is not None and (class_weight is not None or sample_weight is not None):
            raise ValueError("`sample_weight` argument is not supported when input `x` is a dataset or a dataset "
                             "iterator. Instead, youcan provide sample_weight as the third element  of yourdataset "
                             "tuple.")
        if dataset is not None:
            source = _DatasetBatches(dataset, steps_per_epoch)
            x, y = source.peek()
            batch_size = None
        batch_size = 32 if batch_size is None and steps_per_epoch is None and dataset is None else batch_size
        xs, ys = self._standardize(x, y)
        sws = self._weights_arrays(ys, sample_weight, class_weight)
        val = None
        if validation_data is not None:
            vx, vy = validation_data[0], validation_data[1]
            val = self._standardize(vx, vy)
        elif validation_split and 0.0 < validation_split < 1.0:
            if dataset is not None:
                raise ValueError("`validation_split` is only supported for Tensors or NumPy arrays, found: %s"
                                 % (dataset,))
            split = int(len(xs[0]) * (1.0 - validation_split))
            val = ([a[split:] for a in xs], [a[split:] for a in ys])
            xs, ys = [a[:split] for a in xs], [a[:split] for a in ys]
            sws = [None if w is None else w[:split] for w in sws] if sws else sws
        n = len(xs[0])
        self._fit_validation = val   # the TensorBoard callback's histograms run on the validation batches
        names = list(self.metrics_names)
        out_labels = names + (["val_" + k for k in names] if val is not None else [])
        self.history = cbks.History()
        cb_list = _as_list(callbacks) + [self.history]
        count_mode = "steps" if steps_per_epoch is not None or dataset is not None else "samples"
        if verbose:
            cb_list.append(cbks.ProgbarLogger(count_mode, stateful_metrics=names[1:] + ["val_" + k for k in names]))
        params = {"batch_size": batch_size, "epochs": epochs, "steps": steps_per_epoch,
                  "samples": n if count_mode == "samples" else None, "verbose": verbose,
                  "do_validation": val is not None, "metrics": out_labels}
        callback_list = cbks.CallbackList(cb_list, self, params)
        if verbose and count_mode == "samples":
            if val is not None:
                print("Train on %d samples, validate on %d samples" % (n, len(val[0][0])))
            else:
                print("Train on %d samples" % n)
        self._function("train")
        self.stop_training = False
        callback_list.call("on_train_begin", {})
        for epoch in range(initial_epoch, epochs):
            callback_list.call("on_epoch_begin", epoch, {})
            if dataset is not None:
                batches = source.epoch(self)
            elif steps_per_epoch is not None:   # TF 1.15: each step runs on all the arrays
                batches = ((self._feeds(xs, ys, slice(None)), n) for _ in range(steps_per_epoch))
            else:
                index = np.arange(n)
                if shuffle == "batch":
                    index = _batch_shuffle(index, batch_size)
                elif shuffle:
                    np.random.shuffle(index)
                batches = ((self._feeds(xs, ys, index[i:i + batch_size], sws), len(index[i:i + batch_size]))
                           for i in range(0, n, batch_size))
            means = self._means()
            for b, (feeds, size) in enumerate(batches):
                logs = {"batch": b, "size": size}
                callback_list.call("on_batch_begin", b, logs)
                values = self._run("train", feeds)
                running = means.add(values, size)
                logs["loss"] = values[0]
                logs.update(zip(names[1:], running[1:]))   # TF 1.15's stateful metrics: the epoch's running value
                callback_list.call("on_batch_end", b, logs)
                if self.stop_training:
                    break
            epoch_logs = dict(zip(names, means.result()))
            if val is not None and (epoch + 1) % validation_freq == 0:
                val_values = self._loop("test", val[0], val[1], batch_size or 32, steps=validation_steps)
                epoch_logs.update(("val_" + k, v) for k, v in zip(names, val_values))
            callback_list.call("on_epoch_end", epoch, epoch_logs)
            if self.stop_training:
                break
        callback_list.call("on_train_end", {})
        return self.history

    def _loop(self, kind, xs, ys, batch_size, steps=None, verbose=0, sws=None):
        """Runs the test fetch set over all batches: the batch-size weighted means of its values."""
        n = len(xs[0])
        means, progbar = self._means(), None
        if verbose == 1:
            from tinyflow.api.keras.utils import Progbar
            progbar = Progbar(target=n, stateful_metrics=self.metrics_names[1:], unit_name="sample")
        for i in range(0, n, batch_size):
            size = min(batch_size, n - i)
            running = means.add(self._run(kind, self._feeds(xs, ys, slice(i, i + batch_size), sws)), size)
            if progbar is not None:
                progbar.update(means.seen, list(zip(self.metrics_names, running)))
        return means.result()

    def _means(self):
        """The running means of an epoch (or an evaluation); stateful metrics start again from zero."""
        means = _Means(len(self.metrics_names), 1 + len(getattr(self, "_output_losses", [])))
        first = len(self.metrics_names) - len(getattr(self, "_metric_tensors", []))
        for i, metric in getattr(self, "_stateful_metrics", []):
            metric.reset_states()
            means.latest[first + i] = True
        return means

    def evaluate(self, x=None, y=None, batch_size=None, verbose=1, sample_weight=None, steps=None, callbacks=None,
                 **kwargs):
        """The loss (and metrics) over the data, in batches of `batch_size` (32): a scalar or a list."""
        if _is_dataset(x):
            x, y = _dataset_arrays(x)
        xs, ys = self._standardize(x, y)
        values = self._loop("test", xs, ys, batch_size or 32, verbose=verbose,
                            sws=self._weights_arrays(ys, sample_weight, None))
        return values[0] if len(values) == 1 else values

    def predict(self, x, batch_size=None, verbose=0, steps=None, callbacks=None, **kwargs):
        """The model's outputs on `x`, computed in batches of `batch_size` (32) and concatenated."""
        if _is_dataset(x):
            x, _ = _dataset_arrays(x)
        xs, _ = self._standardize(x)
        batch_size = batch_size or 32
        n = len(xs[0])
        outs = [self._run("predict", self._feeds(xs, None, slice(i, i + batch_size))) for i in range(0, n, batch_size)]
        results = [np.concatenate([o[j] for o in outs]) for j in range(len(self.outputs))]
        return results[0] if len(results) == 1 else results

    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None, reset_metrics=True):
        """One step on one batch: the loss (and metrics) before the update."""
        xs, ys = self._standardize(x, y)
        sws = self._weights_arrays(ys, sample_weight, class_weight)
        values = [float(v) for v in self._run("train", self._feeds(xs, ys, slice(None), sws))]
        return values[0] if len(values) == 1 else values

    def test_on_batch(self, x, y=None, sample_weight=None, reset_metrics=True):
        xs, ys = self._standardize(x, y)
        sws = self._weights_arrays(ys, sample_weight, None)
        values = [float(v) for v in self._run("test", self._feeds(xs, ys, slice(None), sws))]
        return values[0] if len(values) == 1 else values

    def predict_on_batch(self, x):
        xs, _ = self._standardize(x)
        outs = self._run("predict", self._feeds(xs, None, slice(None)))
        return outs[0] if len(outs) == 1 else outs

    def fit_generator(self, generator, steps_per_epoch=None, epochs=1, verbose=1, callbacks=None,
                      validation_data=None, validation_steps=None, initial_epoch=0, shuffle=True, **kwargs):
        """fit on (x, y) batches drawn from a generator or keras.utils.Sequence (one train step each)."""
        from tinyflow.api.keras.utils import Sequence
        if steps_per_epoch is None:
            if not isinstance(generator, Sequence):
                raise ValueError("`steps_per_epoch=None` is only valid for a generator based on the "
                                 "`keras.utils.Sequence` class.")
            steps_per_epoch = len(generator)
        it = iter(generator) if not isinstance(generator, Sequence) else None
        self._fit_validation = None   # no validation arrays for TensorBoard's histograms
        history = cbks.History()
        cb = cbks.CallbackList(_as_list(callbacks) + [history], self,
                               {"epochs": epochs, "steps": steps_per_epoch, "verbose": verbose,
                                "metrics": list(self.metrics_names)})
        cb.call("on_train_begin", {})
        self.stop_training = False
        for epoch in range(initial_epoch, epochs):
            cb.call("on_epoch_begin", epoch, {})
            means = self._means()
            for step in range(steps_per_epoch):
                batch = generator[step] if it is None else next(it)
                xs, ys = self._standardize(batch[0], batch[1])
                means.add(self._run("train", self._feeds(xs, ys, slice(None))), len(xs[0]))
                cb.call("on_batch_end", step, {"batch": step, "size": len(xs[0])})
            if not means.seen:
                raise ValueError("The generator gave no batch for epoch %d" % epoch)
            logs = dict(zip(self.metrics_names, means.result()))
            if validation_data is not None:
                vxs, vys = self._standardize(validation_data[0], validation_data[1])
                logs.update(("val_" + k, v) for k, v in zip(self.metrics_names, self._loop("test", vxs, vys, 32)))
            if it is None:
                generator.on_epoch_end()
            cb.call("on_epoch_end", epoch, logs)
            if verbose == 2:
                print("Epoch %d/%d - %s" % (epoch + 1, epochs, " - ".join("%s: %.4f" % kv for kv in logs.items())))
            if self.stop_training:
                break
        cb.call("on_train_end", {})
        self.history = history
        return history


class _Means:
    """TF 1.15's epoch values: the loss and the metrics are means over samples (batches weighted by
    their size); the per-output losses of a multi-output model are Mean metrics of the batch losses
    (each batch counts once)."""

    def __init__(self, n, per_batch_end):
        self.totals, self.counts = np.zeros(n), np.zeros(n)
        self.per_batch = np.zeros(n, bool)
        self.per_batch[1:per_batch_end] = True
        self.latest = np.zeros(n, bool)   # a stateful metric's value is already the epoch's so far
        self.seen = 0

    def add(self, values, size):
        w = np.where(self.per_batch, 1.0, float(size))
        self.totals += np.asarray(values, np.float64) * w
        self.counts += w
        self.seen += size
        self.last = np.asarray(values, np.float64)
        return self.result()

    def result(self):
        means = self.totals / np.maximum(self.counts, 1)
        if self.latest.any() and hasattr(self, "last"):
            means = np.where(self.latest, self.last, means)
        return [float(t) for t in means]


def _check_shape(a, t, what, output=None):
    shape = t.shape
    if shape.ndims is not None and a.ndim != shape.ndims:
        raise ValueError("Error when checking %s: expected %s to have %d dimensions, but got array with shape %s"
                         % (what, t.op.name, shape.ndims, a.shape))
    for i, d in enumerate(shape.as_list() if shape.ndims is not None else []):
        if i and d is not None and a.shape[i] != d:
            raise ValueError("Error when checking %s: expected %s to have shape %s but got array with shape %s"
                             % (what, t.op.name, tuple(shape.as_list()[1:]), a.shape[1:]))
    if output is not None and output.shape.ndims is not None:
        for i, (d, e) in enumerate(zip(a.shape[1:], output.shape.as_list()[1:])):
            if e is not None and d != e and d != 1:
                raise ValueError("A target array with shape %s was passed for an output of shape %s while using as "
                                 "loss. This loss expects targets to have the same shape as the output."
                                 % (a.shape, tuple(output.shape.as_list())))


def _batch_shuffle(index, batch_size):
    n_batches = len(index) // batch_size
    last = index[n_batches * batch_size:]
    index = index[:n_batches * batch_size].reshape((n_batches, batch_size))
    np.random.shuffle(index)
    return np.append(index.flatten(), last)


def _is_dataset(x):
    return type(x).__name__ in ("Dataset", "DatasetV1") or hasattr(x, "make_one_shot_iterator")


def _dataset_arrays(ds):
    """All the (x, y) batches of a finite dataset, concatenated (evaluate / predict on a Dataset)."""
    batches = list(_DatasetBatches(ds, None)._numpy_batches())
    if not batches:
        raise ValueError("The dataset %s is empty" % (ds,))

    def cat(parts):
        if isinstance(parts[0], (list, tuple)):
            return [np.concatenate([p[i] for p in parts]) for i in range(len(parts[0]))]
        if isinstance(parts[0], dict):
            return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
        return np.concatenate(parts)
    x = cat([b[0] for b in batches])
    y = cat([b[1] for b in batches]) if len(batches[0]) > 1 else None
    return x, y


class _DatasetBatches:
    """The (x, y) batches of a tf.data.Dataset, drawn through the Keras session. With steps_per_epoch
    one iterator runs on across epochs (TF 1.15); without, each epoch re-initializes it and runs the
    dataset to its end."""

    def __init__(self, dataset, steps):
        self.dataset, self.steps = dataset, steps
        self._it = dataset.make_initializable_iterator() if steps is None else dataset.make_one_shot_iterator()
        self._next = self._it.get_next()
        self._first = None

    def _get(self):
        sess = K.get_session()
        return sess.run(self._next)

    def _numpy_batches(self):
        sess = K.get_session()
        sess.run(self._it.initializer)
        while True:
            try:
                batch = sess.run(self._next)
            except errors.OutOfRangeError:
                return
            yield batch if isinstance(batch, (tuple, list)) else (batch,)

    def peek(self):
        """A first (x, y) batch, to check shapes (and build a model without inputs); kept for the first step."""
        if self.steps is None:
            K.get_session().run(self._it.initializer)
        self._first = self._get()
        if not isinstance(self._first, (tuple, list)) or len(self._first) < 2:
            raise ValueError("A dataset given to fit must give (inputs, targets) pairs")
        return self._first[0], self._first[1]

    def epoch(self, model):
        sess = K.get_session()
        if self.steps is None and self._first is None:
            sess.run(self._it.initializer)
        step = 0
        while self.steps is None or step < self.steps:
            if self._first is not None:
                batch, self._first = self._first, None
            else:
                try:
                    batch = sess.run(self._next)
                except errors.OutOfRangeError:
                    if self.steps is not None:
                        print("Your dataset ran out of data; interrupting training.")
                        model.stop_training = True
                    return
            xs, ys = model._standardize(batch[0], batch[1])
            yield model._feeds(xs, ys, slice(None)), len(xs[0])
            step += 1

