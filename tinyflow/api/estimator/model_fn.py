"""ModeKeys, EstimatorSpec and RunConfig: what a model_fn receives and returns (TF 1.15's)."""
import collections
import os
import tempfile

from tinyflow.api import tf_names as _tf


class ModeKeys:
    """The three modes a model_fn is called in."""
    TRAIN = "train"
    EVAL = "eval"
    PREDICT = "infer"


class EstimatorSpec(collections.namedtuple("EstimatorSpec", [
        "mode", "predictions", "loss", "train_op", "eval_metric_ops", "export_outputs", "training_chief_hooks",
        "training_hooks", "scaffold", "evaluation_hooks", "prediction_hooks"])):
    """What a model_fn returns: the ops of one mode (TRAIN: loss and train_op; EVAL: loss and metrics;
    PREDICT: predictions). Checked as TF checks it."""

    def __new__(cls, mode, predictions=None, loss=None, train_op=None, eval_metric_ops=None, export_outputs=None,
                training_chief_hooks=None, training_hooks=None, scaffold=None, evaluation_hooks=None,
                prediction_hooks=None):
        if mode not in (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT):
            raise ValueError("mode={} unrecognized.".format(mode))
        if mode == ModeKeys.TRAIN and train_op is None:
            raise ValueError("Missing train_op.")
        if mode in (ModeKeys.TRAIN, ModeKeys.EVAL) and loss is None:
            raise ValueError("Missing loss.")
        if mode == ModeKeys.PREDICT and predictions is None:
            raise ValueError("Missing predictions.")
        if loss is not None:
            loss = _tf.convert_to_tensor(loss) if not isinstance(loss, _tf.Tensor) else loss
            if loss.shape.ndims not in (None, 0) and loss.shape.num_elements() != 1:
                raise ValueError("Loss must be scalar, given: {}".format(loss))
            if loss.shape.ndims:
                loss = _tf.reshape(loss, [])
        if predictions is not None and not isinstance(predictions, (dict, _tf.Tensor)):
            raise TypeError("predictions must be Tensor or dict of Tensor, given: {}".format(predictions))
        eval_metric_ops = dict(eval_metric_ops or {})
        for key, metric in eval_metric_ops.items():
            if not (isinstance(metric, tuple) and len(metric) == 2):
                raise TypeError("Values of eval_metric_ops must be (metric_value, update_op) tuples, given: {} for "
                                "key: {}".format(metric, key))
        hooks = [list(h or []) for h in (training_chief_hooks, training_hooks, evaluation_hooks, prediction_hooks)]
        for h in sum(hooks, []):
            if not isinstance(h, _tf.train.SessionRunHook):
                raise TypeError("All hooks must be SessionRunHook instances, given: {}".format(h))
        return super().__new__(cls, mode, predictions, loss, train_op, eval_metric_ops, export_outputs, hooks[0],
                               hooks[1], scaffold or _tf.train.Scaffold(), hooks[2], hooks[3])


_DEFAULT = object()


class RunConfig:
    """How an Estimator runs: model_dir, checkpointing, logging, summaries and the random seed."""

    def __init__(self, model_dir=None, tf_random_seed=None, save_summary_steps=100, save_checkpoints_steps=_DEFAULT,
                 save_checkpoints_secs=_DEFAULT, session_config=None, keep_checkpoint_max=5,
                 keep_checkpoint_every_n_hours=10000, log_step_count_steps=100, train_distribute=None, device_fn=None,
                 protocol=None, eval_distribute=None, experimental_distribute=None,
                 experimental_max_worker_delay_secs=None, session_creation_timeout_secs=7200):
        if save_checkpoints_steps is _DEFAULT and save_checkpoints_secs is _DEFAULT:
            save_checkpoints_steps, save_checkpoints_secs = None, 600
        elif save_checkpoints_secs is _DEFAULT:
            save_checkpoints_secs = None
        elif save_checkpoints_steps is _DEFAULT:
            save_checkpoints_steps = None
        if save_checkpoints_steps is not None and save_checkpoints_secs is not None:
            raise ValueError("Can not provide both save_checkpoints_steps and save_checkpoints_secs.")
        for name, value in (("save_summary_steps", save_summary_steps), ("keep_checkpoint_max", keep_checkpoint_max),
                            ("log_step_count_steps", log_step_count_steps),
                            ("save_checkpoints_steps", save_checkpoints_steps),
                            ("save_checkpoints_secs", save_checkpoints_secs)):
            if value is not None and value < 0:
                raise ValueError("{} should be >= 0, given: {}".format(name, value))
        if tf_random_seed is not None and not isinstance(tf_random_seed, int):
            raise ValueError("tf_random_seed must be integer, given: {}".format(tf_random_seed))
        self._model_dir = os.fspath(model_dir) if model_dir else None
        self._tf_random_seed = tf_random_seed
        self._save_summary_steps = save_summary_steps
        self._save_checkpoints_steps = save_checkpoints_steps
        self._save_checkpoints_secs = save_checkpoints_secs
        self._session_config = session_config
        self._keep_checkpoint_max = keep_checkpoint_max
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._log_step_count_steps = log_step_count_steps
        self._train_distribute, self._eval_distribute = train_distribute, eval_distribute

    model_dir = property(lambda self: self._model_dir)
    tf_random_seed = property(lambda self: self._tf_random_seed)
    save_summary_steps = property(lambda self: self._save_summary_steps)
    save_checkpoints_steps = property(lambda self: self._save_checkpoints_steps)
    save_checkpoints_secs = property(lambda self: self._save_checkpoints_secs)
    session_config = property(lambda self: self._session_config)
    keep_checkpoint_max = property(lambda self: self._keep_checkpoint_max)
    keep_checkpoint_every_n_hours = property(lambda self: self._keep_checkpoint_every_n_hours)
    log_step_count_steps = property(lambda self: self._log_step_count_steps)
    is_chief = property(lambda self: True)
    num_ps_replicas = property(lambda self: 0)
    num_worker_replicas = property(lambda self: 1)
    task_type = property(lambda self: "worker")
    task_id = property(lambda self: 0)
    master = property(lambda self: "")
    cluster_spec = property(lambda self: None)
    evaluation_master = property(lambda self: "")
    global_id_in_cluster = property(lambda self: 0)
    train_distribute = property(lambda self: self._train_distribute)   # a tf.distribute strategy: train() in its scope
    eval_distribute = property(lambda self: self._eval_distribute)
    device_fn = property(lambda self: None)

    def replace(self, **kwargs):
        """A copy with some properties changed."""
        allowed = {"model_dir", "tf_random_seed", "save_summary_steps", "save_checkpoints_steps",
                   "save_checkpoints_secs", "session_config", "keep_checkpoint_max", "keep_checkpoint_every_n_hours",
                   "log_step_count_steps", "train_distribute", "device_fn", "protocol", "eval_distribute",
                   "experimental_distribute", "experimental_max_worker_delay_secs", "session_creation_timeout_secs"}
        for key in kwargs:
            if key not in allowed:
                raise ValueError("{} is not allowed in RunConfig.replace".format(key))
        args = {k: getattr(self, "_" + k) for k in ("model_dir", "tf_random_seed", "save_summary_steps",
                                                    "save_checkpoints_steps", "save_checkpoints_secs",
                                                    "session_config", "keep_checkpoint_max",
                                                    "keep_checkpoint_every_n_hours", "log_step_count_steps",
                                                    "train_distribute", "eval_distribute")}
        if "save_checkpoints_steps" in kwargs and "save_checkpoints_secs" not in kwargs:
            args["save_checkpoints_secs"] = None
        if "save_checkpoints_secs" in kwargs and "save_checkpoints_steps" not in kwargs:
            args["save_checkpoints_steps"] = None
        args.update({k: v for k, v in kwargs.items() if k in args})
        return RunConfig(**args)

    def __repr__(self):
        return "RunConfig(%s)" % ", ".join("%s=%r" % (k[1:], v) for k, v in sorted(vars(self).items()))


def resolve_model_dir(model_dir, config):
    """The model_dir from the argument and the config (they must agree); a temporary one when neither."""
    config = config or RunConfig()
    if not isinstance(config, RunConfig):
        raise ValueError("config must be an instance of `RunConfig`, but provided {}.".format(config))
    if model_dir and config.model_dir and os.fspath(model_dir) != config.model_dir:
        raise ValueError("`model_dir` are set both in constructor and `RunConfig`, but with different values. In "
                         "constructor: '{}', in `RunConfig`: '{}' ".format(model_dir, config.model_dir))
    model_dir = os.fspath(model_dir) if model_dir else config.model_dir
    if not model_dir:
        model_dir = tempfile.mkdtemp()
        _tf.logging.warning("Using temporary folder as model directory: %s", model_dir)
    return model_dir, config.replace(model_dir=model_dir)
