"""tf.estimator.export (TF 1.15): serving input receivers and export outputs, and
Estimator.export_saved_model's SavedModel (tag "serve", one SignatureDef per export output)."""
import os
import time

from tinyflow.api import tf_names as _tf
from tinyflow.api.saved_model import constants as C
from tinyflow.api.saved_model import signature_def_utils as sig_utils


def _as_dict(value, default_key, what):
    if value is None:
        raise ValueError("{} must be defined.".format(what))
    out = dict(value) if isinstance(value, dict) else {default_key: value}
    for key in out:
        if not isinstance(key, str):
            raise ValueError("{} keys must be strings: {}.".format(what, key))
    return out


class ServingInputReceiver:
    """What a serving_input_receiver_fn returns: the features the model_fn gets and the tensors a server feeds."""

    def __init__(self, features, receiver_tensors, receiver_tensors_alternatives=None):
        self.features = features if isinstance(features, dict) else {"feature": features}
        self.receiver_tensors = _as_dict(receiver_tensors, "input", "receiver_tensors")
        self.receiver_tensors_alternatives = dict(receiver_tensors_alternatives or {})


class TensorServingInputReceiver(ServingInputReceiver):
    """A receiver whose features are one Tensor, given to the model_fn as it is (not a dict)."""

    def __init__(self, features, receiver_tensors, receiver_tensors_alternatives=None):
        super().__init__({"feature": features}, receiver_tensors, receiver_tensors_alternatives)
        self.features = features


def build_parsing_serving_input_receiver_fn(feature_spec, default_batch_size=None):
    """A receiver fn that parses a vector of serialized tf.Examples (receiver key "examples") by feature_spec."""
    def serving_input_receiver_fn():
        serialized = _tf.placeholder(_tf.string, [default_batch_size], name="input_example_tensor")
        features = _tf.parse_example(serialized, feature_spec)
        return ServingInputReceiver(features, {"examples": serialized})
    return serving_input_receiver_fn


def build_raw_serving_input_receiver_fn(features, default_batch_size=None):
    """A receiver fn of one placeholder per feature (the tensors' dtypes, their shapes with the batch
    dimension made default_batch_size), fed and given to the model_fn directly."""
    def serving_input_receiver_fn():
        receivers = {}
        for key, t in features.items():
            shape = [default_batch_size] + t.shape.as_list()[1:] if t.shape.ndims else [default_batch_size]
            receivers[key] = _tf.placeholder(t.dtype, shape, name=key)
        return ServingInputReceiver(dict(receivers), receivers)
    return serving_input_receiver_fn


class ExportOutput:
    """An output of an exported model; as_signature_def(receiver_tensors) gives its SignatureDef."""

    def as_signature_def(self, receiver_tensors):
        raise NotImplementedError


def _single_string(receiver_tensors, what):
    if len(receiver_tensors) != 1:
        raise ValueError("{} input must be a single string Tensor; got {}".format(what, receiver_tensors))
    (t,) = receiver_tensors.values()
    if t.dtype != _tf.string:
        raise ValueError("{} input must be a single string Tensor; got {}".format(what, receiver_tensors))
    return t


class ClassificationOutput(ExportOutput):
    """Scores (float [batch, n]) and/or classes (string [batch, n]) for TF Serving's Classify API."""

    def __init__(self, scores=None, classes=None):
        if scores is not None and not (isinstance(scores, _tf.Tensor) and scores.dtype.is_floating):
            raise ValueError("Classification scores must be a float32 Tensor; got {}".format(scores))
        if classes is not None and not (isinstance(classes, _tf.Tensor) and classes.dtype == _tf.string):
            raise ValueError("Classification classes must be a string Tensor; got {}".format(classes))
        if scores is None and classes is None:
            raise ValueError("At least one of scores and classes must be set.")
        self.scores, self.classes = scores, classes

    def as_signature_def(self, receiver_tensors):
        return sig_utils.classification_signature_def(_single_string(receiver_tensors, "Classification"),
                                                      self.classes, self.scores)


class RegressionOutput(ExportOutput):
    """Float predictions for TF Serving's Regress API."""

    def __init__(self, value):
        if not (isinstance(value, _tf.Tensor) and value.dtype.is_floating):
            raise ValueError("Regression output value must be a float32 Tensor; got {}".format(value))
        self.value = value

    def as_signature_def(self, receiver_tensors):
        return sig_utils.regression_signature_def(_single_string(receiver_tensors, "Regression"), self.value)


class PredictOutput(ExportOutput):
    """Any named tensors, for TF Serving's Predict API."""

    def __init__(self, outputs):
        self.outputs = _as_dict(outputs, "output", "Prediction outputs")
        for key, t in self.outputs.items():
            if not isinstance(t, _tf.Tensor):
                raise ValueError("Prediction output value must be a Tensor; got {} for key {}".format(t, key))

    def as_signature_def(self, receiver_tensors):
        return sig_utils.predict_signature_def(receiver_tensors, self.outputs)


def signature_defs(export_outputs, receiver):
    """{key: SignatureDef} of the export outputs for the receiver's tensors; TF leaves out (with a
    warning) an output that does not fit them, e.g. a Classify signature of raw tensor inputs."""
    out = {}
    inputs = {None: receiver.receiver_tensors}
    inputs.update(receiver.receiver_tensors_alternatives)
    for alt, tensors in inputs.items():
        tensors = _as_dict(tensors, "input", "receiver_tensors")
        for key, output in export_outputs.items():
            name = key if alt is None else "{}:{}".format(alt, key)
            try:
                out[name] = output.as_signature_def(tensors)
            except ValueError as e:
                _tf.logging.warning("Export includes no signature for %s: %s", name, e)
    if not out:
        raise ValueError("Export failed: no valid signatures for the export outputs {}".format(list(export_outputs)))
    return out


def export_saved_model(estimator, export_dir_base, serving_input_receiver_fn, assets_extra=None, as_text=False,
                       checkpoint_path=None):
    """Estimator.export_saved_model: the model_fn in PREDICT mode over the receiver's features, the
    variables of the latest checkpoint, written to export_dir_base/<timestamp>; returns that path (bytes)."""
    from tinyflow.api.estimator.model_fn import ModeKeys
    from tinyflow.api.saved_model.builder import SavedModelBuilder
    path = checkpoint_path or estimator.latest_checkpoint()
    if not path:
        raise ValueError("Couldn't find trained model at {}.".format(estimator.model_dir))
    export_dir = _timestamped_dir(export_dir_base)
    graph = estimator._new_graph()
    with graph.as_default():
        receiver = serving_input_receiver_fn()
        if not isinstance(receiver, ServingInputReceiver):
            raise TypeError("serving_input_receiver_fn must return a ServingInputReceiver, got {}".format(receiver))
        spec = estimator._call_model_fn(receiver.features, None, ModeKeys.PREDICT)
        export_outputs = spec.export_outputs or _default_outputs(spec.predictions)
        signature_def_map = signature_defs(export_outputs, receiver)
        saver = _tf.train.Saver(sharded=True, allow_empty=True)
        local_init = _tf.group(_tf.local_variables_initializer(), _tf.tables_initializer())
        with _tf.Session(graph=graph, config=estimator.config.session_config) as sess:
            saver.restore(sess, path)
            tmp = export_dir + ".tmp"
            b = SavedModelBuilder(tmp)
            b.add_meta_graph_and_variables(sess, [C.SERVING], signature_def_map,
                                           assets_collection=graph.get_collection("asset_filepaths"),
                                           main_op=local_init, saver=saver)
            b.save(as_text)
    for name, source in (assets_extra or {}).items():
        target = os.path.normpath(os.path.join(tmp, C.EXTRA_ASSETS_DIRECTORY, name))
        if not target.startswith(os.path.join(os.path.abspath(tmp), C.EXTRA_ASSETS_DIRECTORY)):
            raise ValueError("assets_extra path {} leaves the export directory".format(name))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        import shutil
        shutil.copyfile(source, target)
    os.rename(tmp, export_dir)
    return export_dir.encode()


def _default_outputs(predictions):
    tensors = predictions if isinstance(predictions, _tf.Tensor) else \
        {k: v for k, v in predictions.items() if isinstance(v, _tf.Tensor)}
    return {C.DEFAULT_SERVING_SIGNATURE_DEF_KEY: PredictOutput(tensors)}


def _timestamped_dir(export_dir_base):
    export_dir_base = os.path.abspath(os.fsdecode(export_dir_base))
    while True:
        path = os.path.join(export_dir_base, str(int(time.time())))
        if not os.path.exists(path) and not os.path.exists(path + ".tmp"):
            return path
        time.sleep(1)


# ---- exporters (EvalSpec(exporters=...)) ----------------------------------------------------------------
class Exporter:
    """Exports the model after an evaluation of train_and_evaluate: name, and
    export(estimator, export_path, checkpoint_path, eval_result, is_the_final_export) -> the export's path."""

    @property
    def name(self):
        raise NotImplementedError

    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        raise NotImplementedError


class _SavedModelExporter(Exporter):
    def __init__(self, name, serving_input_receiver_fn, assets_extra=None, as_text=False):
        if not name:
            raise ValueError("`name` must be defined.")
        self._name, self._receiver_fn = name, serving_input_receiver_fn
        self._assets_extra, self._as_text = assets_extra, as_text

    name = property(lambda self: self._name)

    def _export(self, estimator, export_path, checkpoint_path):
        return estimator.export_saved_model(export_path, self._receiver_fn, assets_extra=self._assets_extra,
                                            as_text=self._as_text, checkpoint_path=checkpoint_path)


class FinalExporter(_SavedModelExporter):
    """Exports a SavedModel of the final checkpoint only (to model_dir/export/<name>/<timestamp>)."""

    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        if not is_the_final_export:
            return None
        return self._export(estimator, export_path, checkpoint_path)


class LatestExporter(_SavedModelExporter):
    """Exports a SavedModel after every evaluation, keeping the newest exports_to_keep (None: all)."""

    def __init__(self, name, serving_input_receiver_fn, assets_extra=None, as_text=False, exports_to_keep=5):
        super().__init__(name, serving_input_receiver_fn, assets_extra, as_text)
        if exports_to_keep is not None and exports_to_keep <= 0:
            raise ValueError("`exports_to_keep`, if provided, must be a positive number. Got %s" % exports_to_keep)
        self._exports_to_keep = exports_to_keep

    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        result = self._export(estimator, export_path, checkpoint_path)
        if self._exports_to_keep is not None:
            import shutil
            stamps = sorted(int(d) for d in os.listdir(export_path) if d.isdigit())
            for old in stamps[:-self._exports_to_keep]:
                shutil.rmtree(os.path.join(export_path, str(old)), ignore_errors=True)
        return result


def check_exporters(exporters):
    """EvalSpec's exporters as a tuple of Exporters with unique names (TF's checks and messages)."""
    if exporters is None:
        return ()
    if isinstance(exporters, Exporter):
        exporters = [exporters]
    try:
        exporters = tuple(exporters)
    except TypeError:
        raise TypeError("`exporters` must be an Exporter, an iterable of Exporter, or `None`, found %s."
                        % exporters) from None
    names = set()
    for e in exporters:
        if not isinstance(e, Exporter):
            raise TypeError("`exporters` must be an Exporter, an iterable of Exporter, or `None`, found %s." % e)
        if not e.name or e.name in names:
            raise ValueError("`exporters` must have unique names. Such a name cannot be `None`. %s already exists."
                             % e.name)
        names.add(e.name)
    return exporters


def _loss_smaller(best_eval_result, current_eval_result):
    """BestExporter's default compare_fn: the current evaluation's loss is below the best one's."""
    key = "loss"
    if not best_eval_result or key not in best_eval_result:
        raise ValueError("best_eval_result cannot be empty or no loss is found in it.")
    if not current_eval_result or key not in current_eval_result:
        raise ValueError("current_eval_result cannot be empty or no loss is found in it.")
    return best_eval_result[key] > current_eval_result[key]


class BestExporter(_SavedModelExporter):
    """Exports a SavedModel when an evaluation beats the best so far (compare_fn; default: a smaller loss),
    keeping the newest exports_to_keep. The best so far starts from the eval event files already in
    model_dir (event_file_pattern), so a restarted job does not export a worse model."""

    def __init__(self, name="best_exporter", serving_input_receiver_fn=None, event_file_pattern="eval/*.tfevents.*",
                 compare_fn=_loss_smaller, assets_extra=None, as_text=False, exports_to_keep=5):
        super().__init__(name, serving_input_receiver_fn, assets_extra, as_text)
        if compare_fn is None:
            raise ValueError("`compare_fn` must not be None.")
        if exports_to_keep is not None and exports_to_keep <= 0:
            raise ValueError("`exports_to_keep`, if provided, must be a positive number. Got %s" % exports_to_keep)
        self._compare_fn, self._event_file_pattern = compare_fn, event_file_pattern
        self._exports_to_keep, self._model_dir, self._best_eval_result = exports_to_keep, None, None

    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        if self._model_dir != estimator.model_dir and self._event_file_pattern:
            self._model_dir = estimator.model_dir
            self._best_eval_result = self._best_in_events(os.path.join(self._model_dir, self._event_file_pattern))
        if self._best_eval_result is None or self._compare_fn(best_eval_result=self._best_eval_result,
                                                             current_eval_result=eval_result):
            self._best_eval_result = eval_result
            result = self._export(estimator, export_path, checkpoint_path)
            if self._exports_to_keep is not None:
                import shutil
                stamps = sorted(int(d) for d in os.listdir(export_path) if d.isdigit())
                for old in stamps[:-self._exports_to_keep]:
                    shutil.rmtree(os.path.join(export_path, str(old)), ignore_errors=True)
            return result
        return None

    def _best_in_events(self, pattern):
        """The best evaluation recorded in the event files matching `pattern` (their scalar summaries)."""
        import glob
        from tinyflow.formats.events import summary_iterator
        best = None
        for path in glob.glob(pattern):
            for event in summary_iterator(path):
                if not event.HasField("summary"):
                    continue
                result = {v.tag: v.simple_value for v in event.summary.value}
                if "loss" not in result:
                    continue
                if best is None or self._compare_fn(best_eval_result=best, current_eval_result=result):
                    best = result
        return best
