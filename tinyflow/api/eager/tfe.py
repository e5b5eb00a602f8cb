"""tf.contrib.eager (`import tensorflow.contrib.eager as tfe`): the names TF 1.x eager scripts use."""
import sys
import types

from tinyflow.runtime.eager import backprop, context, tape, variables
from tinyflow.api.eager import data
from tinyflow.api.gradient_registry import custom_gradient as _custom_gradient


def defun(func=None, input_signature=None, autograph=True, experimental_autograph_options=None,
          experimental_relax_shapes=False):
    """tfe.defun / tf.function staging is not needed here: the function runs eagerly, op by op."""
    if func is None:
        return lambda f: f
    return func


class Network:
    """tfe.Network (deprecated in TF 1.15 for tf.keras.Model): a callable holding layers added with
    `track_layer`; subclasses define `call`. Its variables are its layers' variables."""

    def __init__(self, name=None):
        self._name = name or type(self).__name__.lower()
        self._layers = []

    name = property(lambda self: self._name)
    layers = property(lambda self: list(self._layers))

    def track_layer(self, layer):
        """Adds `layer` (a tf.layers layer or another Network) and returns it."""
        if not any(layer is l for l in self._layers):
            self._layers.append(layer)
        return layer

    def _collect(self, attr):
        out = []
        for layer in self._layers:
            for v in getattr(layer, attr):
                if not any(v is o for o in out):
                    out.append(v)
        return out

    variables = weights = property(lambda self: self._collect("variables"))
    trainable_variables = trainable_weights = property(lambda self: self._collect("trainable_variables"))
    non_trainable_variables = property(lambda self: self._collect("non_trainable_variables"))

    def call(self, inputs, *args, **kwargs):
        raise NotImplementedError("A Network subclass defines call()")

    def __call__(self, inputs, *args, **kwargs):
        return self.call(inputs, *args, **kwargs)


class Saver:
    """tfe.Saver(var_list): saves and restores eager variables (tf.train.Saver's checkpoints)."""

    def __init__(self, var_list):
        from tinyflow.api.train.saver import Saver as _GraphSaver
        self._saver = _GraphSaver(var_list)

    def save(self, file_prefix, global_step=None):
        """Writes a checkpoint; returns its prefix (with "-<step>" when global_step is given)."""
        if global_step is not None and not isinstance(global_step, int):
            global_step = int(global_step)
        return self._saver.save(None, file_prefix, global_step=global_step)

    def restore(self, file_prefix):
        """Sets the variables from a checkpoint (no variable changes if anything is wrong)."""
        self._saver.restore(None, file_prefix)


def num_gpus():
    """The number of GPUs JAX sees."""
    import jax
    return sum(1 for d in jax.devices() if d.platform == "gpu")


_members = {
    "Variable": variables.EagerVariable,
    "GradientTape": tape.GradientTape,
    "Iterator": data.Iterator,
    "implicit_gradients": backprop.implicit_gradients,
    "implicit_value_and_gradients": backprop.implicit_value_and_gradients,
    "gradients_function": backprop.gradients_function,
    "value_and_gradients_function": backprop.value_and_gradients_function,
    "enable_eager_execution": context.enable_eager_execution,
    "executing_eagerly": context.executing_eagerly,
    "in_eager_mode": context.executing_eagerly,
    "custom_gradient": _custom_gradient,
    "defun": defun,
    "Network": Network,
    "Saver": Saver,
    "function": defun,
    "num_gpus": num_gpus,
}


def install(contrib):
    """Adds tf.contrib.eager (a real module, so `import tensorflow.contrib.eager as tfe` works)."""
    mod = types.ModuleType(contrib.__name__ + ".eager", __doc__)
    mod.__dict__.update(_members)
    mod.__all__ = sorted(_members)
    sys.modules[mod.__name__] = mod
    contrib.eager = mod
    return mod
