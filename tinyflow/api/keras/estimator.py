"""tf.keras.estimator.model_to_estimator: an Estimator whose model_fn rebuilds the compiled Keras model
from its config on the input_fn's features and trains it with a copy of its optimizer and its loss, as
TF 1.15 does (keras/estimator + tensorflow_estimator's keras.py): the Keras model's current weights are
saved first to model_dir/keras/keras_model.ckpt and warm-start the Estimator; the optimizer's
`iterations` is the global step; evaluate reports the loss and the compiled metrics under Keras' names
and predict a dict keyed by the output layers' names."""
import os
import tempfile

from tinyflow.api.keras import backend as K
from tinyflow.api.keras import losses as losses_mod
from tinyflow.api.keras import metrics as metrics_mod
from tinyflow.api.keras import optimizers
from tinyflow.ops.core import math_ops


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _inputs(features, names):
    """The features in the order of the model's inputs: a dict keyed by input layer name, a list, or one tensor."""
    if isinstance(features, dict):
        missing = [n for n in names if n not in features]
        if missing:
            raise KeyError("The dictionary passed into features does not have the expected inputs keys defined in "
                           "the keras model.\n\tExpected keys: {}\n\tfeatures keys: {}".format(
                               set(names), set(features)))
        return [features[n] for n in names]
    features = _as_list(features)
    if len(features) != len(names):
        raise ValueError("The model has %d inputs (%s) but %d feature tensors were given."
                         % (len(names), names, len(features)))
    return features


def _model_fn(keras_model):
    config = keras_model._updated_config()
    opt = keras_model.optimizer
    # a tf.train optimizer (TFOptimizer) is used itself, its steps counted by the global step, as TF 1.15 does
    opt_config = None if isinstance(opt, optimizers.TFOptimizer) else {"class_name": type(opt).__name__,
                                                                       "config": opt.get_config()}
    loss, metrics, loss_weights = keras_model.loss, keras_model._compile_metrics, keras_model.loss_weights
    in_names, out_names = list(keras_model.input_names), list(keras_model.output_names)

    def model_fn(features, labels, mode):
        from tinyflow.api import estimator as estimator_api
        from tinyflow.api import metrics as metrics_api
        from tinyflow.api import tf_names as tf
        from tinyflow.api.keras.models import model_from_config
        from tinyflow.api.keras.training import _per_output
        training = mode == estimator_api.ModeKeys.TRAIN
        K.set_learning_phase(1 if training else 0)
        model = model_from_config(config)
        outputs = _as_list(model(_inputs(features, in_names) if len(in_names) > 1
                                 else _inputs(features, in_names)[0]))
        predictions = dict(zip(out_names, outputs))
        if mode == estimator_api.ModeKeys.PREDICT:
            return estimator_api.EstimatorSpec(mode, predictions=predictions)
        labels = _inputs(labels, out_names) if isinstance(labels, dict) or len(out_names) > 1 else [labels]
        fns = [losses_mod.get(x) if x is not None else None for x in _per_output(loss, out_names, "loss")]
        weights = _per_output(loss_weights, out_names, "loss_weights") if loss_weights is not None \
            else [1.0] * len(out_names)
        metric_lists = (_per_output(metrics, out_names, "metrics") if isinstance(metrics, dict)
                        else [_as_list(metrics or [])] * len(out_names))
        total, metric_ops = None, {}
        for name, out, y, fn, w, mets in zip(out_names, outputs, labels, fns, weights, metric_lists):
            if fn is None:
                continue
            y = tf.cast(y, out.dtype.base_dtype)
            if y.shape.ndims is not None and out.shape.ndims is not None and y.shape.ndims == out.shape.ndims - 1:
                y = tf.expand_dims(y, -1)
            term = math_ops.reduce_mean(fn(y, out)) * w
            total = term if total is None else total + term
            for m in mets:
                mname, mfn = metrics_mod.resolve(m, fn, out.shape)
                key = (name + "_" + mname) if len(out_names) > 1 else mname
                metric_ops[key] = metrics_api.mean(mfn(y, out))
        for extra in model.losses:
            total = total + tf.cast(extra, total.dtype)
        train_op = None
        if training:
            if opt_config is None:
                optimizer = optimizers.TFOptimizer(opt.optimizer, tf.train.get_or_create_global_step())
            else:
                optimizer = optimizers.deserialize(opt_config)
                optimizer.iterations = tf.train.get_or_create_global_step()   # TF: the global step counts the steps
                optimizer._build_hypers()
            with tf.name_scope("training"):
                train_op = tf.group(*optimizer.get_updates(total, model.trainable_weights), *model.updates)
        return estimator_api.EstimatorSpec(mode, predictions=predictions, loss=total, train_op=train_op,
                                          eval_metric_ops=metric_ops)
    return model_fn


def model_to_estimator(keras_model=None, keras_model_path=None, custom_objects=None, model_dir=None, config=None,
                       checkpoint_format="saver"):
    """An Estimator training, evaluating and predicting with the compiled Keras model, warm-started from its
    current weights (saved to model_dir/keras/keras_model.ckpt)."""
    from tinyflow.api import estimator as estimator_api
    from tinyflow.api import tf_names as tf
    if not (keras_model or keras_model_path):
        raise ValueError("Either `keras_model` or `keras_model_path` needs to be provided.")
    if keras_model and keras_model_path:
        raise ValueError("Please specity either `keras_model` or `keras_model_path`, but not both.")
    if checkpoint_format not in ("saver", "checkpoint"):
        raise ValueError("Unknown checkpoint format: %s" % (checkpoint_format,))
    if keras_model is None:
        from tinyflow.api.keras.models import load_model
        keras_model = load_model(keras_model_path, custom_objects=custom_objects)
    if not getattr(keras_model, "_is_graph_network", False):
        raise ValueError("model_to_estimator: only Sequential and functional models (with a config) can be "
                         "converted; %s is a subclassed model." % keras_model.name)
    if getattr(keras_model, "optimizer", None) is None or not hasattr(keras_model, "total_loss"):
        raise ValueError("The given keras model has not been compiled yet. Please compile the model with "
                         "`model.compile()` before calling model_to_estimator().")
    if model_dir is None:
        model_dir = getattr(config, "model_dir", None) or tempfile.mkdtemp()
    keras_dir = os.path.join(model_dir, "keras")
    os.makedirs(keras_dir, exist_ok=True)
    sess = K.get_session()
    with sess.graph.as_default():
        ckpt = tf.train.Saver(keras_model.weights).save(sess, os.path.join(keras_dir, "keras_model.ckpt"))
    warm = estimator_api.WarmStartSettings(ckpt_to_initialize_from=ckpt,
                                          vars_to_warm_start=[w.op.name for w in keras_model.trainable_weights])
    return estimator_api.Estimator(_model_fn(keras_model), model_dir=model_dir, config=config,
                                  warm_start_from=warm)
