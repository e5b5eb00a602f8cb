"""tf.estimator (TF 1.15): Estimator over a model_fn, premade DNN / Linear / wide-and-deep models,
input_fns over numpy and pandas, train_and_evaluate. Built on tinyflow's graph,
tf.train.MonitoredTrainingSession and its hooks, tf.train.Saver, tf.summary and tf.metrics."""
import types as _types

from tinyflow.api.estimator.model_fn import EstimatorSpec, ModeKeys, RunConfig  # noqa: F401
from tinyflow.api.estimator.estimator import Estimator  # noqa: F401
from tinyflow.api.estimator.canned import (DNNClassifier, DNNLinearCombinedClassifier, DNNLinearCombinedRegressor,  # noqa: F401
                                           DNNRegressor, LinearClassifier, LinearRegressor)
from tinyflow.api.estimator.head import Head  # noqa: F401
from tinyflow.api.estimator.heads import (BinaryClassHead, LogisticRegressionHead, MultiClassHead, MultiHead,  # noqa: F401
                                          MultiLabelHead, PoissonRegressionHead, RegressionHead)
from tinyflow.api.estimator.premade import (BaselineClassifier, BaselineEstimator, BaselineRegressor,  # noqa: F401
                                            DNNEstimator, DNNLinearCombinedEstimator, LinearEstimator)
from tinyflow.api.estimator.extensions import (add_metrics, classifier_parse_example_spec,  # noqa: F401
                                               regressor_parse_example_spec)
from tinyflow.api.estimator.warm_start import VocabInfo  # noqa: F401
from tinyflow.api.estimator.training import EvalSpec, TrainSpec, train_and_evaluate  # noqa: F401
from tinyflow.api.estimator.warm_start import WarmStartSettings  # noqa: F401
from tinyflow.api.estimator.hooks import StepCounterHook, SummarySaverHook  # noqa: F401
from tinyflow.api.estimator import inputs as _inputs

from tinyflow.api.estimator import export as _export  # noqa: E402
from tinyflow.api.estimator.export import BestExporter, Exporter, FinalExporter, LatestExporter  # noqa: E402,F401

export = _types.SimpleNamespace(**{n: getattr(_export, n) for n in (
    "ClassificationOutput", "ExportOutput", "PredictOutput", "RegressionOutput", "ServingInputReceiver",
    "TensorServingInputReceiver", "build_parsing_serving_input_receiver_fn", "build_raw_serving_input_receiver_fn")})
inputs = _types.SimpleNamespace(numpy_input_fn=_inputs.numpy_input_fn, pandas_input_fn=_inputs.pandas_input_fn)

from tinyflow.api.train import (CheckpointSaverHook, LoggingTensorHook, NanTensorHook, SessionRunArgs,  # noqa: E402,F401
                                SessionRunHook, StopAtStepHook, CheckpointSaverListener, FeedFnHook, FinalOpsHook,
                                GlobalStepWaiterHook, NanLossDuringTrainingError, SecondOrStepTimer,
                                SessionRunContext, SessionRunValues)
from tinyflow.api.train.profiler_hook import ProfilerHook  # noqa: E402,F401
from tinyflow.api.estimator import extensions as _extensions  # noqa: E402

experimental = _types.SimpleNamespace(**{n: getattr(_extensions, n) for n in (
    "InMemoryEvaluatorHook", "build_raw_supervised_input_receiver_fn", "call_logit_fn", "dnn_logit_fn_builder",
    "linear_logit_fn_builder", "make_early_stopping_hook", "make_stop_at_checkpoint_step_hook", "stop_if_higher_hook",
    "stop_if_lower_hook", "stop_if_no_decrease_hook", "stop_if_no_increase_hook")})


def __getattr__(name):
    """tf.estimator.tpu (TF 1.15's home of TPUEstimator and its configs), loaded on first use."""
    if name == "tpu":
        from tinyflow.api import tpu as _tpu
        global tpu
        tpu = _types.SimpleNamespace(**{n: getattr(_tpu, n) for n in (
            "RunConfig", "TPUConfig", "TPUEstimator", "TPUEstimatorSpec", "InputPipelineConfig")})
        tpu.experimental = _types.SimpleNamespace(EmbeddingConfigSpec=_tpu.tpu_computation.EmbeddingConfigSpec)
        return tpu
    raise AttributeError("module 'tinyflow.estimator' has no attribute %r" % name)
