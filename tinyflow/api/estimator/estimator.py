"""tf.estimator.Estimator (TF 1.15): train / evaluate / predict a model_fn over an input_fn.

Each call builds a fresh graph (input_fn, then model_fn in the call's mode) and runs it in a
tf.train.MonitoredTrainingSession / MonitoredSession with hooks, restoring the latest checkpoint of
model_dir first; training saves checkpoints there through tf.train.Saver, so a second train()
continues the global step. The training loop runs one fetch set (train_op, loss, and the global
step the hooks read) through the Session's jitted function, as a hand-written loop would.
"""
import contextlib
import copy
import inspect
import os
import time

import numpy as np

from tinyflow.api import metrics as metrics_lib
from tinyflow.api import tf_names as _tf
from tinyflow.api.estimator.hooks import SummarySaverHook, StopAfterNEvalsHook, write_eval_summaries
from tinyflow.api.estimator.model_fn import EstimatorSpec, ModeKeys, resolve_model_dir


def _fn_args(fn):
    try:
        return set(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return set()


def _features_labels(result):
    """input_fn's result: a Dataset (read through a one-shot iterator), (features, labels) or features."""
    if isinstance(result, _tf.data.Dataset):
        result = result.make_one_shot_iterator().get_next()
    if isinstance(result, (tuple, list)):
        if len(result) != 2:
            raise ValueError("input_fn should return (features, labels) as a len 2 tuple, got {} values."
                             .format(len(result)))
        return result[0], result[1]
    return result, None


class Estimator:
    """Trains, evaluates and predicts with a model_fn(features, labels, mode, params, config) that
    returns an EstimatorSpec. Checkpoints and summaries live in model_dir."""

    def __init__(self, model_fn, model_dir=None, config=None, params=None, warm_start_from=None):
        if not callable(model_fn):
            raise ValueError("model_fn must be provided to Estimator.")
        args = _fn_args(model_fn)
        if "features" not in args and not any(a in args for a in ("args", "kwargs")):
            raise ValueError("model_fn ({}) must include features argument.".format(model_fn))
        if params is not None and "params" not in args:
            raise ValueError("model_fn ({}) does not include params argument, but params ({}) are passed to "
                             "Estimator.".format(model_fn, params))
        self._model_fn = model_fn
        self._model_dir, self._config = resolve_model_dir(model_dir, config)
        _tf.logging.info("Using config: %s", str(vars(self._config)))
        self._params = copy.deepcopy(params or {})   # as given (a dict, an HParams ...), as TF keeps it
        self._warm_start_from = warm_start_from
        # premade estimators set these: their input_fns' numpy strings become ids on the host
        self._feature_columns_for_strings, self._label_vocabulary = None, None

    model_dir = property(lambda self: self._model_dir)
    config = property(lambda self: self._config)
    params = property(lambda self: copy.deepcopy(self._params))
    model_fn = property(lambda self: self._model_fn)

    # ---- checkpoints ---------------------------------------------------------------------------------
    def latest_checkpoint(self):
        """The path of the newest checkpoint in model_dir, or None."""
        return _tf.train.latest_checkpoint(self._model_dir)

    def eval_dir(self, name=None):
        """Where evaluate(name=...) writes its summaries: model_dir/eval or model_dir/eval_<name>."""
        return os.path.join(self._model_dir, "eval" if not name else "eval_" + name)

    def export_saved_model(self, export_dir_base, serving_input_receiver_fn, assets_extra=None, as_text=False,
                           checkpoint_path=None, experimental_mode=ModeKeys.PREDICT):
        """Writes a SavedModel (tag "serve") of the model_fn in PREDICT mode over the receiver's features
        with the latest checkpoint's variables to export_dir_base/<timestamp>; returns its path (bytes)."""
        if experimental_mode != ModeKeys.PREDICT:
            raise NotImplementedError("tinyflow: export_saved_model exports the PREDICT mode only")
        from tinyflow.api.estimator.export import export_saved_model
        return export_saved_model(self, export_dir_base, serving_input_receiver_fn, assets_extra, as_text,
                                  checkpoint_path)

    def export_savedmodel(self, export_dir_base, serving_input_receiver_fn, assets_extra=None, as_text=False,
                          checkpoint_path=None, strip_default_attrs=False):
        """TF 1.15's older name of export_saved_model."""
        return self.export_saved_model(export_dir_base, serving_input_receiver_fn, assets_extra, as_text,
                                       checkpoint_path)

    def _require_checkpoint(self):
        path = self.latest_checkpoint()
        if not path:
            raise ValueError("Could not find trained model in model_dir: {}.".format(self._model_dir))
        return path

    def get_variable_names(self):
        """The names of the variables in the latest checkpoint."""
        return [name for name, _ in _tf.train.list_variables(self._require_checkpoint())]

    def get_variable_value(self, name):
        """A variable's value (numpy) in the latest checkpoint."""
        return _tf.train.load_variable(self._require_checkpoint(), name)

    # ---- building the graph of one call -----------------------------------------------------------------
    def _call_input_fn(self, input_fn, mode):
        if not callable(input_fn):
            raise TypeError("input_fn must be callable, given: {}".format(input_fn))
        kwargs = self._optional_args(_fn_args(input_fn), mode)
        from tinyflow.api.estimator.inputs import string_columns
        with string_columns(self._feature_columns_for_strings, self._label_vocabulary):
            return _features_labels(input_fn(**kwargs))

    def _optional_args(self, args, mode):
        """The keyword arguments TF passes to an input_fn or model_fn that names them."""
        given = {"mode": mode, "params": self.params, "config": self._config}   # TF: a copy of each
        return {k: v for k, v in given.items() if k in args}

    def _call_model_fn(self, features, labels, mode):
        args = _fn_args(self._model_fn)
        kwargs = self._optional_args(args, mode)
        if "labels" in args:
            kwargs["labels"] = labels
        elif labels is not None:
            raise ValueError("model_fn does not take labels, but input_fn returns labels.")
        _tf.logging.info("Calling model_fn.")
        spec = self._model_fn(features=features, **kwargs)
        if not isinstance(spec, EstimatorSpec):
            raise ValueError("model_fn should return an EstimatorSpec. Given: {}".format(type(spec)))
        _tf.logging.info("Done calling model_fn.")
        return spec

    def _new_graph(self):
        graph = _tf.Graph()
        with graph.as_default():
            if self._config.tf_random_seed is not None:
                _tf.set_random_seed(self._config.tf_random_seed)
            _tf.train.get_or_create_global_step()
        return graph

    # ---- train ---------------------------------------------------------------------------------------
    def train(self, input_fn, hooks=None, steps=None, max_steps=None, saving_listeners=None):
        """Trains until input_fn's data ends, `steps` more steps, or the global step reaches max_steps."""
        if steps is not None and max_steps is not None:
            raise ValueError("Can not provide both steps and max_steps.")
        if steps is not None and steps <= 0:
            raise ValueError("Must specify steps > 0, given: {}".format(steps))
        if max_steps is not None and max_steps <= 0:
            raise ValueError("Must specify max_steps > 0, given: {}".format(max_steps))
        hooks = list(hooks or [])
        for h in hooks:
            if not isinstance(h, _tf.train.SessionRunHook):
                raise TypeError("All hooks must be SessionRunHook instances, given: {}".format(h))
        if max_steps is not None:
            path = self.latest_checkpoint()
            if path and int(_tf.train.load_variable(path, "global_step")) >= max_steps:
                _tf.logging.info("Skipping training since max_steps has already saved.")
                return self
        graph = self._new_graph()
        with graph.as_default():
            global_step = _tf.train.get_global_step()
            features, labels = self._call_input_fn(input_fn, ModeKeys.TRAIN)
            spec = self._call_model_fn(features, labels, ModeKeys.TRAIN)
            self._train_with_spec(spec, global_step, hooks, steps, max_steps, saving_listeners)
        return self

    def _train_with_spec(self, spec, global_step, hooks, steps, max_steps, saving_listeners):
        cfg = self._config
        if not any(op.op.name == "loss" for op in _tf.get_collection(_tf.GraphKeys.SUMMARIES)):
            _tf.summary.scalar("loss", spec.loss)
        scaffold = spec.scaffold
        if scaffold.saver is None and not graph_savers():
            saver = _tf.train.Saver(sharded=True, max_to_keep=cfg.keep_checkpoint_max,
                                    keep_checkpoint_every_n_hours=cfg.keep_checkpoint_every_n_hours)
            state = _tf.train.get_checkpoint_state(self._model_dir)
            if state is not None:  # keep counting the checkpoints of earlier calls (TF's SessionManager does)
                saver.recover_last_checkpoints(state.all_model_checkpoint_paths)
            _tf.add_to_collection(_tf.GraphKeys.SAVERS, saver)
        if self._warm_start_from is not None and not self.latest_checkpoint():
            from tinyflow.api.estimator.warm_start import warm_start_init_fn
            scaffold = _tf.train.Scaffold(init_fn=warm_start_init_fn(self._warm_start_from, scaffold.init_fn),
                                          saver=scaffold.saver, init_op=scaffold.init_op,
                                          local_init_op=scaffold.local_init_op)
        all_hooks = list(hooks) + list(spec.training_hooks)
        if steps is not None or max_steps is not None:
            all_hooks.append(_tf.train.StopAtStepHook(num_steps=steps, last_step=max_steps))
        all_hooks.append(_tf.train.NanTensorHook(spec.loss))
        if cfg.log_step_count_steps:
            with _tf.control_dependencies([spec.train_op]):  # TF logs the step this run reached
                step_after = _tf.identity(global_step)
            all_hooks.append(_tf.train.LoggingTensorHook({"loss": spec.loss, "step": step_after},
                                                         every_n_iter=cfg.log_step_count_steps))
        chief_hooks = list(spec.training_chief_hooks)
        if cfg.save_summary_steps:
            chief_hooks.append(SummarySaverHook(cfg.save_summary_steps, output_dir=self._model_dir))
        save_steps, save_secs = cfg.save_checkpoints_steps, cfg.save_checkpoints_secs
        if saving_listeners and not (save_steps or save_secs):
            raise ValueError("There should be a CheckpointSaverHook to use saving_listeners. Please set one of "
                             "the RunConfig.save_checkpoints_steps or RunConfig.save_checkpoints_secs.")
        if save_steps or save_secs:
            chief_hooks.append(_tf.train.CheckpointSaverHook(self._model_dir, save_secs=save_secs,
                                                             save_steps=save_steps, scaffold=scaffold,
                                                             listeners=saving_listeners))
        strategy = getattr(cfg, "train_distribute", None)   # a tf.distribute strategy: a data-parallel Session
        with strategy.scope() if strategy is not None else contextlib.nullcontext(), \
                _tf.train.MonitoredTrainingSession(checkpoint_dir=self._model_dir, scaffold=scaffold, hooks=all_hooks,
                                                   chief_only_hooks=chief_hooks, save_checkpoint_secs=0,
                                                   save_checkpoint_steps=0, save_summaries_steps=0,
                                                   log_step_count_steps=cfg.log_step_count_steps,
                                                   config=cfg.session_config) as sess:
            fetches, loss = [spec.train_op, spec.loss], None
            while not sess.should_stop():
                _, loss = sess.run(fetches)
        _tf.logging.info("Loss for final step: %s.", loss)

    # ---- evaluate ------------------------------------------------------------------------------------
    def evaluate(self, input_fn, steps=None, hooks=None, checkpoint_path=None, name=None):
        """Runs the EVAL graph over input_fn (until it ends, or `steps` batches) on the latest (or given)
        checkpoint; returns {metric name: value} with "loss" (the mean of the model's loss over
        batches) and "global_step"."""
        if steps is not None and steps <= 0:
            raise ValueError("Must specify steps > 0, given: {}".format(steps))
        path = checkpoint_path or self.latest_checkpoint()
        if not path:
            raise ValueError("Could not find trained model in model_dir: {}.".format(self._model_dir))
        graph = self._new_graph()
        with graph.as_default():
            global_step = _tf.train.get_global_step()
            features, labels = self._call_input_fn(input_fn, ModeKeys.EVAL)
            spec = self._call_model_fn(features, labels, ModeKeys.EVAL)
            metrics = dict(spec.eval_metric_ops)
            if "loss" not in metrics:
                metrics["loss"] = metrics_lib.mean(spec.loss)
            values = {k: v[0] for k, v in metrics.items()}
            update = _tf.group(*[v[1] for v in metrics.values()])
            all_hooks = list(hooks or []) + list(spec.evaluation_hooks)
            if steps is not None:
                all_hooks.append(StopAfterNEvalsHook(steps))
            creator = _tf.train.ChiefSessionCreator(scaffold=spec.scaffold, checkpoint_filename_with_path=path,
                                                    config=self._config.session_config)
            _tf.logging.info("Starting evaluation at " + time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
            sess = _tf.train.MonitoredSession(creator, all_hooks)
            try:
                while not sess.should_stop():
                    sess.run(update)
            except (_tf.errors.OutOfRangeError, StopIteration):
                pass
            results = sess._tf_sess().run(dict(values, global_step=global_step))
            sess.close()
            _tf.logging.info("Finished evaluation at " + time.strftime("%Y-%m-%d-%H:%M:%S", time.localtime()))
        results = {k: _scalar(v) for k, v in results.items()}
        _tf.logging.info("Saving dict for global step %d: %s", results["global_step"], ", ".join(
            "%s = %s" % (k, v) for k, v in sorted(results.items()) if not isinstance(v, bytes)))
        write_eval_summaries(self.eval_dir(name), results)
        return results

    # ---- predict -------------------------------------------------------------------------------------
    def predict(self, input_fn, predict_keys=None, hooks=None, checkpoint_path=None, yield_single_examples=True):
        """Yields the model's predictions for input_fn's features: one dict (or array) per example, or
        per batch when yield_single_examples is False. Runs until input_fn's data ends."""
        path = checkpoint_path or self.latest_checkpoint()
        graph = self._new_graph()
        with graph.as_default():
            features, _ = self._call_input_fn(input_fn, ModeKeys.PREDICT)
            spec = self._call_model_fn(features, None, ModeKeys.PREDICT)
            predictions, host, keep = _select(spec.predictions, predict_keys)
            if path:
                creator = _tf.train.ChiefSessionCreator(scaffold=spec.scaffold, checkpoint_filename_with_path=path,
                                                        config=self._config.session_config)
            else:
                _tf.logging.warning("Could not find trained model in model_dir: %s, running initialization to "
                                    "predict.", self._model_dir)
                creator = _tf.train.ChiefSessionCreator(scaffold=spec.scaffold, config=self._config.session_config)
            with _tf.train.MonitoredSession(creator, list(hooks or []) + list(spec.prediction_hooks)) as sess:
                while not sess.should_stop():
                    batch = sess.run(predictions)
                    for key, fn in host.items():
                        batch[key] = fn(batch)
                    if keep is not None:
                        batch = {k: v for k, v in batch.items() if k in keep}
                    if not yield_single_examples:
                        yield batch
                        continue
                    yield from _single_examples(batch)


def _load_global_step_from_checkpoint_dir(checkpoint_dir):
    """The global step of checkpoint_dir's latest checkpoint (0 when there is none), as TF's estimator reads it."""
    try:
        reader = _tf.train.NewCheckpointReader(_tf.train.latest_checkpoint(checkpoint_dir))
        return int(reader.get_tensor(_tf.GraphKeys.GLOBAL_STEP))
    except Exception:   # no checkpoint, or none with a global step: TF's estimator starts from 0
        return 0


def graph_savers():
    return _tf.get_collection(_tf.GraphKeys.SAVERS)


def _scalar(v):
    v = np.asarray(v)
    return v.item() if v.ndim == 0 and v.dtype.kind in "iu" else (v[()] if v.ndim == 0 else v)


def _select(predictions, predict_keys):
    """The prediction tensors to fetch, host-computed entries ({key: fn(batch) -> array}) and the keys
    to yield (None: all)."""
    if isinstance(predictions, _tf.Tensor):
        if predict_keys is not None:
            raise ValueError("predict_keys argument is not valid in case of non-dict predictions.")
        return {"__single__": predictions}, {}, None
    fetch, host = {}, {}
    for key, value in predictions.items():
        (host if callable(value) and not isinstance(value, _tf.Tensor) else fetch)[key] = value
    if predict_keys is not None:
        keys = [predict_keys] if isinstance(predict_keys, str) else list(predict_keys)
        missing = [k for k in keys if k not in predictions]
        if missing:
            raise ValueError("Expected to run at least one output from {}, provided {}.".format(
                list(predictions), missing))
        needed = set(keys) | {dep for k in keys if k in host for dep in getattr(host[k], "needs", ())}
        fetch = {k: v for k, v in fetch.items() if k in needed}
        host = {k: v for k, v in host.items() if k in keys}
        return fetch, host, set(keys)
    return fetch, host, None


def _single_examples(batch):
    if "__single__" in batch:
        yield from batch["__single__"]
        return
    sizes = {np.shape(v)[0] if np.ndim(v) else None for v in batch.values()}
    if len(sizes) != 1 or None in sizes:
        raise ValueError("Batch length of predictions should be same. %s" % {k: np.shape(v) for k, v in
                                                                               batch.items()})
    for i in range(sizes.pop()):
        yield {k: v[i] for k, v in batch.items()}


def _load_global_step_from_checkpoint_dir(checkpoint_dir):
    """The global step of the latest checkpoint of checkpoint_dir, 0 when it has none (TF 1.15's helper
    of tensorflow.python.estimator.estimator, which real code imports)."""
    try:
        return int(_tf.train.load_variable(checkpoint_dir, _tf.GraphKeys.GLOBAL_STEP))
    except (ValueError, _tf.errors.NotFoundError):
        return 0
