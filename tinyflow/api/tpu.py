"""tf.contrib.tpu (and tf.tpu) off TPU: TPUEstimator with use_tpu=False, as TF 1.15 runs it on a CPU.

BERT-style code trains off TPU with `TPUEstimator(..., use_tpu=False)`: an Estimator that hands
`params["batch_size"]` (train, eval or predict batch size by mode) to input_fn and model_fn, tells the
model_fn `params["use_tpu"]`, and turns the model_fn's TPUEstimatorSpec into an EstimatorSpec: its
eval_metrics `(metric_fn, tensors)` become eval_metric_ops, scaffold_fn is called, host_call runs every
step. CrossShardOptimizer is its optimizer unchanged (one shard). What needs a TPU (a TPU cluster,
use_tpu=True) is a clear error, never a silent run elsewhere.
"""
import collections
import contextlib
import sys
import types

from tinyflow.api.cluster_resolver import TPUClusterResolver  # noqa: F401 (tf.contrib.tpu's users import it here)
from tinyflow.api.estimator.estimator import Estimator, _fn_args
from tinyflow.api.framework import stand_in
from tinyflow.api.estimator.model_fn import EstimatorSpec, ModeKeys, RunConfig as _EstimatorRunConfig
from tinyflow.api.train import SessionRunArgs, SessionRunHook
from tinyflow.api import tpu_computation
from tinyflow.api.tpu_computation import outside_compilation  # noqa: F401 (tf.tpu.outside_compilation)
from tinyflow.graph import errors
from tinyflow.ops import variable_scope as vs

_RESERVED = ["batch_size", "context"]


class InputPipelineConfig:
    """How a TPU job feeds its cores (kept for the config; off TPU the input_fn runs once)."""
    PER_SHARD_V1, PER_HOST_V1, PER_HOST_V2, BROADCAST, SLICED = 1, 2, 3, 4, 5


class TPUConfig(collections.namedtuple("TPUConfig", [
        "iterations_per_loop", "num_shards", "num_cores_per_replica", "per_host_input_for_training", "tpu_job_name",
        "initial_infeed_sleep_secs", "input_partition_dims", "eval_training_input_configuration",
        "experimental_host_call_every_n_steps"])):
    """TF 1.15's TPUConfig record (its defaults)."""

    def __new__(cls, iterations_per_loop=2, num_shards=None, num_cores_per_replica=None,
                per_host_input_for_training=True, tpu_job_name=None, initial_infeed_sleep_secs=None,
                input_partition_dims=None, eval_training_input_configuration=InputPipelineConfig.PER_HOST_V1,
                experimental_host_call_every_n_steps=1):
        if num_shards is not None and (not isinstance(num_shards, int) or num_shards <= 0):
            raise ValueError("TPUConfig num_shards must be positive integer, but got %s" % num_shards)
        return super().__new__(cls, iterations_per_loop, num_shards, num_cores_per_replica,
                               per_host_input_for_training, tpu_job_name, initial_infeed_sleep_secs,
                               input_partition_dims, eval_training_input_configuration,
                               experimental_host_call_every_n_steps)


class RunConfig(_EstimatorRunConfig):
    """tf.contrib.tpu.RunConfig: an Estimator RunConfig with a tpu_config, and a cluster for a TPU job."""

    def __init__(self, tpu_config=None, evaluation_master=None, master=None, cluster=None, **kwargs):
        super().__init__(**kwargs)
        self._tpu_config = tpu_config or TPUConfig()
        self._cluster = cluster
        self._master = master or ""
        self._evaluation_master = evaluation_master or self._master

    tpu_config = property(lambda self: self._tpu_config)
    cluster = property(lambda self: self._cluster)
    master = property(lambda self: self._master)
    evaluation_master = property(lambda self: self._evaluation_master)


class TPUEstimatorSpec(collections.namedtuple("TPUEstimatorSpec", [
        "mode", "predictions", "loss", "train_op", "eval_metrics", "export_outputs", "scaffold_fn", "host_call",
        "training_hooks", "evaluation_hooks", "prediction_hooks"])):
    """What a TPUEstimator's model_fn returns: an EstimatorSpec whose metrics and scaffold are functions."""

    def __new__(cls, mode, predictions=None, loss=None, train_op=None, eval_metrics=None, export_outputs=None,
                scaffold_fn=None, host_call=None, training_hooks=None, evaluation_hooks=None, prediction_hooks=None):
        for name, call in (("eval_metrics", eval_metrics), ("host_call", host_call)):
            if call is not None and (not isinstance(call, (tuple, list)) or len(call) != 2 or not callable(call[0])):
                raise ValueError("{} should be tuple or list with two elements: a function and its tensors".format(
                    name))
        return super().__new__(cls, mode, predictions, loss, train_op, eval_metrics, export_outputs, scaffold_fn,
                               host_call, tuple(training_hooks or ()), tuple(evaluation_hooks or ()),
                               tuple(prediction_hooks or ()))

    def as_estimator_spec(self):
        """The EstimatorSpec a CPU run uses (TF's as_estimator_spec)."""
        host = {name: _call(*call) for name, call in (("eval_metrics", self.eval_metrics),
                                                       ("host_call", self.host_call)) if call is not None}
        hooks = (_HostCallHook(host["host_call"]),) if "host_call" in host else ()
        return EstimatorSpec(mode=self.mode, predictions=self.predictions, loss=self.loss, train_op=self.train_op,
                             eval_metric_ops=host.get("eval_metrics"), export_outputs=self.export_outputs,
                             scaffold=self.scaffold_fn() if self.scaffold_fn else None,
                             training_hooks=self.training_hooks + hooks,
                             evaluation_hooks=self.evaluation_hooks + hooks,
                             prediction_hooks=self.prediction_hooks + hooks)


def _call(fn, tensors):
    return fn(*tensors) if isinstance(tensors, (tuple, list)) else fn(**tensors)


class _HostCallHook(SessionRunHook):
    """Runs a host_call's ops with every step (what the TPU's outfeed would carry)."""

    def __init__(self, tensors):
        self._tensors = tensors

    def before_run(self, run_context):
        return SessionRunArgs(self._tensors)


class TPUEstimator(Estimator):
    """An Estimator for TPU model_fns; with use_tpu=False it trains, evaluates and predicts here."""

    def __init__(self, model_fn=None, model_dir=None, config=None, params=None, use_tpu=True, train_batch_size=None,
                 eval_batch_size=None, predict_batch_size=None, batch_axis=None, eval_on_tpu=True,
                 export_to_tpu=True, export_to_cpu=True, warm_start_from=None, embedding_config_spec=None,
                 export_saved_model_api_version=None):
        if config is None or not isinstance(config, RunConfig):
            raise ValueError("`config` must be provided with type `tpu_config.RunConfig`")
        if params is not None and any(k in params for k in _RESERVED):
            raise ValueError("{} are reserved keys but existed in params {}.".format(_RESERVED, params))
        if use_tpu:
            if train_batch_size is None:
                raise ValueError("`train_batch_size` cannot be `None`")
            raise errors.UnimplementedError(
                None, None, "tinyflow runs TPUEstimator on this machine's CPU or GPU: pass use_tpu=False "
                            "(the model_fn then sees params['use_tpu'] == False)")
        for name, size in (("train_batch_size", train_batch_size), ("eval_batch_size", eval_batch_size),
                           ("predict_batch_size", predict_batch_size)):
            if size is not None and (not isinstance(size, int) or size <= 0):
                raise ValueError("{} must be positive integer; got {}.".format(name, size))
        super().__init__(model_fn, model_dir=model_dir, config=config, params=params,
                         warm_start_from=warm_start_from)
        self._batch_sizes = {ModeKeys.TRAIN: train_batch_size, ModeKeys.EVAL: eval_batch_size,
                             ModeKeys.PREDICT: predict_batch_size}
        self.use_tpu = False

    def _call_input_fn(self, input_fn, mode):
        if callable(input_fn) and "params" not in _fn_args(input_fn):
            raise ValueError('input_fn ({}) does not include params argument, required by TPUEstimator to pass '
                             'batch size as params["batch_size"]'.format(input_fn))
        return super()._call_input_fn(input_fn, mode)

    def _optional_args(self, args, mode, for_model_fn=False):
        kwargs = super()._optional_args(args, mode)
        if "params" in kwargs:
            params = dict(kwargs["params"] or {})
            if self._batch_sizes.get(mode) is not None:
                params["batch_size"] = self._batch_sizes[mode]
            if for_model_fn:
                params["use_tpu"] = False
            kwargs["params"] = params
        return kwargs

    def _call_model_fn(self, features, labels, mode):
        model_fn = self._model_fn

        def cpu_model_fn(features, labels=None, mode=None, params=None, config=None):
            spec = model_fn(features=features, **{k: v for k, v in (("labels", labels), ("mode", mode),
                                                                     ("params", params), ("config", config))
                                                  if k in _fn_args(model_fn)})
            return spec.as_estimator_spec() if isinstance(spec, TPUEstimatorSpec) else spec
        args = _fn_args(model_fn)
        if "params" not in args:
            raise ValueError("model_fn ({}) does not include params argument, required by TPUEstimator to pass "
                             "batch size as params['batch_size']".format(model_fn))
        kwargs = self._optional_args(args, mode, for_model_fn=True)
        if "labels" in args:
            kwargs["labels"] = labels
        elif labels is not None:
            raise ValueError("model_fn does not take labels, but input_fn returns labels.")
        spec = cpu_model_fn(features, **kwargs)
        if not isinstance(spec, EstimatorSpec):
            raise ValueError("model_fn should return an EstimatorSpec. Given: {}".format(type(spec)))
        return spec


class CrossShardOptimizer:
    """Sums gradients across TPU shards; off TPU there is one shard, so it is its optimizer, unchanged."""

    def __init__(self, opt, reduction="mean", name="CrossShardOptimizer", group_assignment=None):
        self._opt = opt

    def __getattr__(self, name):
        return getattr(self._opt, name)


@contextlib.contextmanager
def bfloat16_scope():
    """TPU code's bfloat16 region; off TPU the model keeps its own dtypes (a plain variable scope)."""
    with vs.variable_scope("", reuse=vs.get_variable_scope().reuse) as scope:
        yield scope


def _needs_a_tpu(name):
    return stand_in(name, "tf.contrib.tpu.%s needs a TPU; tinyflow runs on CPUs and GPUs "
                          "(TPUEstimator with use_tpu=False runs TPU model_fns)" % name)


initialize_system = _needs_a_tpu("initialize_system")
shutdown_system = _needs_a_tpu("shutdown_system")
rewrite = _needs_a_tpu("rewrite")
shard = _needs_a_tpu("shard")
batch_parallel = _needs_a_tpu("batch_parallel")
keras_to_tpu_model = _needs_a_tpu("keras_to_tpu_model")
replicate = _needs_a_tpu("replicate")


def core(num):
    """The device name of TPU core `num` of a replicated computation, as TF 1.15 spells it."""
    return "device:TPU_REPLICATED_CORE:{}".format(num)


class TPUDistributionStrategy:
    """tf.contrib.tpu.TPUDistributionStrategy (keras_to_tpu_model's): no TPU here, an error naming it."""

    def __init__(self, tpu_cluster_resolver=None, using_single_core=False):
        from tinyflow.api.distribute import strategy
        strategy.initialize_tpu_system.__wrapped__("tf.contrib.tpu.TPUDistributionStrategy")


def _experimental():
    from tinyflow.api.distribute import strategy
    return types.SimpleNamespace(initialize_tpu_system=strategy.initialize_tpu_system,
                                 shutdown_tpu_system=strategy.initialize_tpu_system,
                                 **{n: getattr(tpu_computation, n) for n in _EXPERIMENTAL})


_EXPERIMENTAL = ["embedding_column", "shared_embedding_columns", "AdagradParameters", "AdamParameters",
                 "StochasticGradientDescentParameters"]
_MORE = ["outside_compilation", "repeat", "while_loop", "infeed_enqueue_tuple", "infeed_dequeue_tuple",
         "outfeed_enqueue_tuple", "outfeed_dequeue_tuple", "infeed_enqueue", "infeed_dequeue", "outfeed_enqueue",
         "outfeed_dequeue", "AsyncCheckpointSaverHook", "BatchConfig", "ExportSavedModelApiVersion",
         "model_fn_inference_on_tpu", "get_tpu_context", "TpuContext"]


def __getattr__(name):
    """tf.tpu.experimental (initialize_tpu_system: an error naming the TPU it needs)."""
    if name == "experimental":
        return _experimental()
    raise AttributeError("module 'tinyflow.tpu' has no attribute %r" % name)


def cross_replica_sum(x, group_assignment=None, name=None):
    """The sum over TPU replicas: off TPU there is one replica, so x itself."""
    return x


def module(name):
    """The tf.contrib.tpu namespace as a module (and its TF paths: python.tpu.tpu_estimator, ...)."""
    mod = types.ModuleType(name, __doc__)
    names = ["TPUEstimator", "TPUEstimatorSpec", "RunConfig", "TPUConfig", "InputPipelineConfig",
             "CrossShardOptimizer", "TPUClusterResolver", "bfloat16_scope", "initialize_system", "shutdown_system",
             "rewrite", "shard", "batch_parallel", "cross_replica_sum", "TPUDistributionStrategy",
             "keras_to_tpu_model", "replicate", "core"]
    mod.__dict__.update({n: globals()[n] for n in names})
    mod.__dict__.update({n: getattr(tpu_computation, n) for n in _MORE})
    mod.experimental = _experimental()
    mod.__all__ = names + _MORE
    sys.modules[name] = mod   # (its TF paths, python.tpu.tpu_estimator, ...: api/tree.py's contrib rule)
    mod.python = types.SimpleNamespace(tpu=types.SimpleNamespace(tpu_estimator=mod, tpu_config=mod,
                                                                 tpu_optimizer=mod, bfloat16=mod, tpu=mod,
                                                                 async_checkpoint=mod, tpu_function=mod,
                                                                 training_loop=mod),
                                       ops=types.SimpleNamespace(tpu_ops=mod))
    return mod
