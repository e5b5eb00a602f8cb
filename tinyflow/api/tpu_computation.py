"""TF 1.15's TPU computation helpers, off TPU (tf.contrib.tpu, tf.tpu, tensorflow.python.tpu.*).

What TF 1.15 itself does outside a TPU computation, tinyflow does: `outside_compilation` calls its
function, `repeat` / `while_loop` are TF's training loop (tpu/training_loop.py) on tf.while_loop,
`get_tpu_context()` is a context with no shards, the TPU embedding columns are plain embedding columns
(as under TPUEstimator(use_tpu=False)), AsyncCheckpointSaverHook saves (synchronously: the saves are
the same files, written before the step returns). What moves data to or from a TPU (infeed / outfeed)
raises UnimplementedError naming what is missing.
"""
import collections
import enum
import inspect

from tinyflow.api import feature_column as _fc
from tinyflow.api import tf_names as _tf
from tinyflow.api.framework import stand_in
from tinyflow.api.train.hooks import CheckpointSaverHook
from tinyflow.graph import errors
from tinyflow.graph.core import Operation
from tinyflow.ops.control_flow_ops import while_loop as _while_loop
from tinyflow.ops.state_ops import tuple_ as _tuple


class TpuContext:
    """tensorflow.python.tpu.tpu_function.TpuContext: how many shards the TPU function being built has."""

    def __init__(self):
        self._number_of_shards = None

    @property
    def number_of_shards(self):
        return self._number_of_shards

    def set_number_of_shards(self, number_of_shards):
        self._number_of_shards = number_of_shards


_CONTEXT = TpuContext()


def get_tpu_context():
    """The current TPU context: off TPU, one whose number_of_shards is None (TF's outside a TPU function)."""
    return _CONTEXT


def outside_compilation(computation, *args, **kwargs):
    """Runs `computation` on the host; outside a TPU computation (always, here) TF calls it directly."""
    return computation(*args, **kwargs)


def _arity_error(fn, n):
    """None when fn can be called with n positional arguments, else what it needs (TF's wording)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return None
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    if len(required) == len(positional) and n != len(positional):
        return "exactly %d arguments" % len(positional)
    if n < len(required):
        return "at least %d arguments" % len(required)
    if n > len(positional):
        return "at most %d arguments" % len(positional)
    return None


def while_loop(condition, body, inputs=None, infeed_queue=None, name=None):
    """TF's TPU training loop: tf.while_loop over `inputs` (a list), whose body may end with Operations
    that each iteration runs (and whose body's outputs keep the inputs' dtypes)."""
    if infeed_queue is not None:
        raise errors.UnimplementedError(None, None, "tf.contrib.tpu.while_loop(infeed_queue=...) needs a TPU's "
                                                    "infeed; tinyflow runs on CPUs and GPUs")
    inputs = [] if inputs is None else [_tf.convert_to_tensor(x) for x in inputs]
    types, arity = [x.dtype for x in inputs], len(inputs)
    for what, fn in (("loop body function", body), ("loop condition function", condition)):
        need = _arity_error(fn, arity)
        if need is not None:
            raise TypeError("Supplied %s cannot be called with the specified inputs. You specified %d inputs: %s, "
                            "but the %s needs %s" % (what, arity, [x.name for x in inputs],
                                                     what.replace(" function", ""), need))

    def cond(*args):
        return condition(*(args if arity else ()))

    def step(*args):
        outputs = body(*(args if arity else ()))
        outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        outputs = [o if isinstance(o, Operation) else _tf.convert_to_tensor(o) for o in outputs]
        ops = [o for o in outputs if isinstance(o, Operation)]
        tensors = [o for o in outputs if not isinstance(o, Operation)]
        if outputs != tensors + ops:
            raise ValueError("TPU training loop body must return zero or more Tensor values followed by zero or "
                             "more Operations.")
        if [t.dtype for t in tensors] != types:
            raise TypeError("Mismatch between input types and output types for training loop body: {} vs {}"
                            .format(types, [t.dtype for t in tensors]))
        if not tensors:
            tensors = [_tf.constant(0)]
        return _tuple(tensors, control_inputs=ops) if ops else tensors

    out = _while_loop(cond, step, inputs if arity else [_tf.constant(0)], parallel_iterations=1)
    return out if isinstance(out, (list, tuple)) else [out]


def repeat(n, body, inputs=None, infeed_queue=None, name=None):
    """Runs `body` n times (TF's tpu.repeat): its final values, or the loop's Operation when there are none."""
    inputs = [0] + list(inputs or [])
    outputs = while_loop(lambda i, *args: i < n, lambda i, *args: [i + 1] + _as_list(body(*args)), inputs,
                         infeed_queue=infeed_queue, name=name)
    outputs = list(outputs)
    return outputs[0].op if len(outputs) == 1 else outputs[1:]


def _as_list(xs):
    return list(xs) if isinstance(xs, (list, tuple)) else [xs]


def _needs_tpu_feed(name):
    return stand_in(name, "tf.contrib.tpu.%s moves data to or from a TPU's infeed/outfeed queue; tinyflow has no "
                          "TPU (feed the model with tf.data, as TPUEstimator(use_tpu=False) does)" % name)


infeed_enqueue_tuple = _needs_tpu_feed("infeed_enqueue_tuple")
infeed_dequeue_tuple = _needs_tpu_feed("infeed_dequeue_tuple")
outfeed_enqueue_tuple = _needs_tpu_feed("outfeed_enqueue_tuple")
outfeed_dequeue_tuple = _needs_tpu_feed("outfeed_dequeue_tuple")
infeed_enqueue = _needs_tpu_feed("infeed_enqueue")
infeed_dequeue = _needs_tpu_feed("infeed_dequeue")
outfeed_enqueue = _needs_tpu_feed("outfeed_enqueue")
outfeed_dequeue = _needs_tpu_feed("outfeed_dequeue")


class AsyncCheckpointSaverHook(CheckpointSaverHook):
    """TF's checkpoint hook that saves on a background thread; here it saves the same files in the step."""

    def __init__(self, checkpoint_dir, save_secs=None, save_steps=None, saver=None, checkpoint_basename="model.ckpt",
                 scaffold=None, listeners=None):
        super().__init__(checkpoint_dir, save_secs=save_secs, save_steps=save_steps, saver=saver,
                         checkpoint_basename=checkpoint_basename, scaffold=scaffold, listeners=listeners)


class BatchConfig(collections.namedtuple("BatchConfig", [
        "num_batch_threads", "max_batch_size", "batch_timeout_micros", "allowed_batch_sizes",
        "max_enqueued_batches"])):
    """How TPU inference batches requests (tpu_estimator.BatchConfig; a record)."""

    def __new__(cls, num_batch_threads, max_batch_size, batch_timeout_micros, allowed_batch_sizes,
                max_enqueued_batches=10):
        return super().__new__(cls, num_batch_threads, max_batch_size, batch_timeout_micros, allowed_batch_sizes,
                               max_enqueued_batches)


class ExportSavedModelApiVersion(enum.Enum):
    V1 = 1
    V2 = 2


def model_fn_inference_on_tpu(model_fn, features, labels=None, config=None, params=None, batch_config=None):
    raise errors.UnimplementedError(None, None, "tpu_estimator.model_fn_inference_on_tpu builds a TPU inference "
                                                "graph; tinyflow has no TPU (call the model_fn itself)")


def embedding_column(categorical_column, dimension, combiner="mean", initializer=None, max_sequence_length=0,
                     learning_rate_fn=None):
    """tf.tpu.experimental.embedding_column: off TPU, TF's embedding column (variable `embedding_weights`)."""
    if max_sequence_length:
        raise errors.UnimplementedError(None, None, "tf.tpu.experimental.embedding_column(max_sequence_length=...) "
                                                    "is a TPU sequence feature; tinyflow has no TPU")
    return _fc.embedding_column(categorical_column, dimension, combiner=combiner, initializer=initializer)


def shared_embedding_columns(categorical_columns, dimension, combiner="mean", initializer=None,
                             shared_embedding_collection_name=None, max_sequence_lengths=None, learning_rate_fn=None):
    """tf.tpu.experimental.shared_embedding_columns: TF's shared_embedding_columns off TPU."""
    return _fc.shared_embedding_columns(categorical_columns, dimension, combiner=combiner, initializer=initializer,
                                        shared_embedding_collection_name=shared_embedding_collection_name)


class _OptimizationParameters:
    def __init__(self, learning_rate, use_gradient_accumulation=True, clip_weight_min=None, clip_weight_max=None):
        self.learning_rate = learning_rate
        self.use_gradient_accumulation = use_gradient_accumulation
        self.clip_weight_min = clip_weight_min
        self.clip_weight_max = clip_weight_max


class AdagradParameters(_OptimizationParameters):
    """The TPU embedding tables' Adagrad settings (a record: off TPU the model's optimizer trains them)."""

    def __init__(self, learning_rate, initial_accumulator=0.1, use_gradient_accumulation=True, clip_weight_min=None,
                 clip_weight_max=None):
        super().__init__(learning_rate, use_gradient_accumulation, clip_weight_min, clip_weight_max)
        if initial_accumulator <= 0:
            raise ValueError("Adagrad initial_accumulator must be positive")
        self.initial_accumulator = initial_accumulator


class AdamParameters(_OptimizationParameters):
    """The TPU embedding tables' Adam settings (a record)."""

    def __init__(self, learning_rate, beta1=0.9, beta2=0.999, epsilon=1e-08, lazy_adam=True, sum_inside_sqrt=True,
                 use_gradient_accumulation=True, clip_weight_min=None, clip_weight_max=None):
        super().__init__(learning_rate, use_gradient_accumulation, clip_weight_min, clip_weight_max)
        if beta1 < 0. or beta1 >= 1.:
            raise ValueError("beta1 must be between 0. and 1; got {}.".format(beta1))
        if beta2 < 0. or beta2 >= 1.:
            raise ValueError("beta2 must be between 0. and 1; got {}.".format(beta2))
        if epsilon <= 0.:
            raise ValueError("epsilon must be positive; got {}.".format(epsilon))
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon
        self.lazy_adam, self.sum_inside_sqrt = lazy_adam, sum_inside_sqrt


class StochasticGradientDescentParameters(_OptimizationParameters):
    """The TPU embedding tables' SGD settings (a record)."""

    def __init__(self, learning_rate, clip_weight_min=None, clip_weight_max=None):
        super().__init__(learning_rate, False, clip_weight_min, clip_weight_max)


class EmbeddingConfigSpec(collections.namedtuple("EmbeddingConfigSpec", [
        "feature_columns", "optimization_parameters", "clipping_limit", "pipeline_execution_with_tensor_core",
        "experimental_gradient_multiplier_fn", "feature_to_config_dict", "table_to_config_dict",
        "partition_strategy"])):
    """tf.estimator.tpu.experimental.EmbeddingConfigSpec: with use_tpu=False the columns are ordinary ones."""

    def __new__(cls, feature_columns=None, optimization_parameters=None, clipping_limit=None,
                pipeline_execution_with_tensor_core=False, experimental_gradient_multiplier_fn=None,
                feature_to_config_dict=None, table_to_config_dict=None, partition_strategy="div"):
        if not feature_columns and not (feature_to_config_dict and table_to_config_dict):
            raise ValueError("Exactly one of `feature_columns` and the pair `feature_to_config_dict` and "
                             "`table_to_config_dict` must be be specified.")
        if feature_columns and not isinstance(optimization_parameters, _OptimizationParameters):
            raise ValueError("`optimization_parameters` must inherit from `_OptimizationParameters`. "
                             "`type(optimization_parameters)`={}".format(type(optimization_parameters)))
        if partition_strategy not in ("mod", "div"):
            raise ValueError("Invalid partition_strategy {}. Must be one of 'mod' or 'div'.".format(
                partition_strategy))
        return super().__new__(cls, feature_columns, optimization_parameters, clipping_limit,
                               pipeline_execution_with_tensor_core, experimental_gradient_multiplier_fn,
                               feature_to_config_dict, table_to_config_dict, partition_strategy)
