"""tf.contrib.slim (TF 1.15): arg_scope, the layers, initializers and regularizers, variables,
losses, learning (create_train_op, train), metrics, slim's data pipeline (tfexample_decoder, dataset,
dataset_data_provider) and, loaded on first use, the bundled nets (`slim.nets.vgg`, `slim.nets.resnet_v1`,
`slim.nets.inception`, ...), under TF's names.
"""
from tinyflow.api.contrib.slim import evaluation, learning, losses, metrics, model_analyzer, tfexample_decoder, utils  # noqa
from tinyflow.api.contrib.layers.optimizers import optimize_loss  # noqa: F401
from tinyflow.api.contrib.slim import initializers, variables  # noqa: F401
from tinyflow.api.contrib.slim.arg_scope import (add_arg_scope, arg_scope, arg_scope_func_key, arg_scoped_arguments,  # noqa
                                                 current_arg_scope, has_arg_scope)
from tinyflow.api.contrib.slim.initializers import (l1_l2_regularizer, l1_regularizer, l2_regularizer,  # noqa: F401
                                                    apply_regularization, variance_scaling_initializer,
                                                    xavier_initializer, xavier_initializer_conv2d)
from tinyflow.api.contrib.slim.layers import (avg_pool2d, batch_norm, bias_add, conv2d, conv2d_in_plane,  # noqa: F401
                                              conv2d_transpose, convolution2d_in_plane, convolution2d,
                                              convolution2d_transpose, dropout, flatten, fully_connected, max_pool2d,
                                              one_hot_encoding, repeat, separable_conv2d, separable_convolution2d,
                                              softmax, stack, unit_norm)
from tinyflow.api.contrib.slim.variables import (add_model_variable, assert_global_step, assert_or_get_global_step,  # noqa
                                                 assign_from_checkpoint, assign_from_checkpoint_fn, assign_from_values,
                                                 assign_from_values_fn, create_global_step, filter_variables,
                                                 get_global_step, get_local_variables, get_model_variables,
                                                 get_or_create_global_step, get_trainable_variables,
                                                 get_unique_variable, get_variable_full_name, get_variables,
                                                 get_variables_by_name, get_variables_by_suffix,
                                                 get_variables_to_restore, global_variable, local_variable,
                                                 model_variable, variable, zero_initializer)
from tinyflow.api.contrib.slim import data as _data  # noqa: E402
import types as _types  # noqa: E402

# TF's module names for the data pipeline: slim.dataset.Dataset, slim.dataset_data_provider.DatasetDataProvider, ...
dataset = _types.SimpleNamespace(Dataset=_data.Dataset)
data_provider = _types.SimpleNamespace(DataProvider=_data.DataProvider)
dataset_data_provider = _types.SimpleNamespace(DatasetDataProvider=_data.DatasetDataProvider)
parallel_reader = _types.SimpleNamespace(ParallelReader=_data.ParallelReader, parallel_read=_data.parallel_read,
                                         get_data_files=_data.get_data_files)
from tinyflow.api.contrib.slim import queues as _queues  # noqa: E402
queues = _types.SimpleNamespace(QueueRunners=_queues.QueueRunners)
prefetch_queue = _types.SimpleNamespace(prefetch_queue=_queues.prefetch_queue)
regularizers = initializers  # slim.regularizers.l2_regularizer and slim.initializers.xavier_initializer


def __getattr__(name):
    """slim.nets, imported on first use (it is the bundled networks, not needed to build layers)."""
    if name == "nets":
        import importlib
        return importlib.import_module(__name__ + ".nets")
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
