"""tf.keras.mixed_precision.experimental (TF 1.15): Policy, global_policy, set_policy and LossScaleOptimizer.

A layer given `dtype=Policy("mixed_float16")` keeps its variables in float32 and computes in float16: its
floating inputs are cast to float16 and, inside its call, its weights are read as float16 (TF wraps them in
AutoCastVariables; tinyflow shows the layer float16 casts of them for the call's duration). Its outputs are
float16, as on TF 1.15 (the CPU included: TF's Keras casts whatever the device). In TF 1.15 the global
policy is "infer" and set_policy accepts only the "infer" policies (anything else is TF 2's: ValueError).
"""
import types

from tinyflow.api.keras import optimizers as keras_optimizers
from tinyflow.api.train.mixed_precision import get_loss_scale
from tinyflow.graph import dtypes
from tinyflow.graph.core import control_dependencies
from tinyflow.ops import state_ops
from tinyflow.ops.core import array_ops, math_ops

_USE_DEFAULT = object()


class Policy:
    """A layer's compute and variable dtypes by name: "<dtype>", "<dtype>_with_float32_vars",
    "mixed_float16" / "mixed_bfloat16" (float32 variables; mixed_float16's loss scale is "dynamic"), or
    "infer" / "infer_with_float32_vars" (the compute dtype is the first input's)."""

    def __init__(self, name, loss_scale=_USE_DEFAULT):
        if isinstance(name, dtypes.DType):
            raise TypeError("'name' must be a string, not a DType. Instead, pass DType.name. Got: %s" % (name.name,))
        if not isinstance(name, str):
            raise TypeError("'name' must be a string, but got: %s" % (name,))
        name = {"infer_float32_vars": "infer_with_float32_vars", "float32_with_float32_vars": "float32"}.get(name, name)
        self._name = name
        self._compute_dtype, self._variable_dtype = self._parse_name(name)
        if loss_scale is _USE_DEFAULT:
            loss_scale = "dynamic" if name == "mixed_float16" else None
        self._loss_scale = None if loss_scale is None else get_loss_scale(loss_scale)

    @staticmethod
    def _parse_name(name):
        if name in ("mixed_float16", "mixed_bfloat16"):
            return name[len("mixed_"):], "float32"
        float32_vars = name.endswith("_with_float32_vars")
        base = name[:-len("_with_float32_vars")] if float32_vars else name
        if base == "infer":
            base_dtype = None
        else:
            try:
                base_dtype = dtypes.as_dtype(base).name
            except (TypeError, KeyError, ValueError):
                error = ("Cannot convert value %s to a mixed precision Policy. Valid policies include include those in "
                         "the form \"<dtype>\" and \"<dtype>_with_float32_vars\", where <dtype> is the name of a dtype."
                         % (name,))
                if float32_vars:
                    error += (" The value %s ends with _with_float32_vars, but %s cannot be converted to a DType"
                              % (name, base))
                raise ValueError(error) from None
        return base_dtype, ("float32" if float32_vars else base_dtype)

    variable_dtype = property(lambda self: self._variable_dtype)
    compute_dtype = property(lambda self: self._compute_dtype)
    should_cast_variables = property(lambda self: self._variable_dtype != self._compute_dtype)
    loss_scale = property(lambda self: self._loss_scale)
    name = property(lambda self: self._name)

    def __repr__(self):
        return '<Policy "%s", loss_scale=%s>' % (self._name, self._loss_scale)


_GLOBAL = [None]


def global_policy():
    """The policy of layers given none: "infer" in TF 1 unless set_policy set an infer policy."""
    return _GLOBAL[0] if _GLOBAL[0] is not None else Policy("infer")


def set_policy(policy):
    """Sets the global policy; TF 1.15 (TF 1 behavior) takes only "infer" and "infer_with_float32_vars"."""
    if policy is not None and not isinstance(policy, Policy):
        policy = Policy(policy)
    if policy is not None and policy.compute_dtype is not None:
        raise ValueError("The global policy can only be set to a non-infer policy in TensorFlow 2")
    _GLOBAL[0] = policy


def layer_policy(layer, inputs_dtype):
    """The policy a layer computes under at its first call (None: plain float32 Keras): its own, else the
    global "infer_with_float32_vars" one, whose compute dtype is the inputs'."""
    policy = getattr(layer, "_mixed_precision_policy", None) or (
        _GLOBAL[0] if _GLOBAL[0] is not None and _GLOBAL[0].variable_dtype == "float32" else None)
    if policy is not None and policy.compute_dtype is None:
        policy = Policy(dtypes.as_dtype(inputs_dtype).name + "_with_float32_vars")
        layer._mixed_precision_policy = policy
    return policy


class cast_weights:
    """Within: the layer's weight attributes are casts of its variables to the compute dtype (TF's
    AutoCastVariable reads them so during the call), and its dtype (which its call casts inputs to) is
    the compute dtype; afterwards the variables and the variable dtype again."""

    def __init__(self, layer, dtype):
        self.layer, self.dtype, self.saved = layer, dtypes.as_dtype(dtype), {}

    def __enter__(self):
        self.saved["_dtype"] = self.layer._dtype
        weights = {id(w) for w in self.layer.weights}
        for name, value in list(vars(self.layer).items()):
            if id(value) in weights and value.dtype.base_dtype.is_floating and value.dtype.base_dtype != self.dtype:
                self.saved[name] = value
                object.__setattr__(self.layer, name, math_ops.cast(value, self.dtype))
        self.layer._dtype = self.dtype

    def __exit__(self, *exc):
        for name, value in self.saved.items():
            object.__setattr__(self.layer, name, value)


class LossScaleOptimizer:
    """A Keras optimizer with loss scaling: the loss times the scale, the gradients divided by it, and with
    a dynamic scale a step whose gradients are not all finite changes nothing (weights, slots, iterations)
    and halves the scale (the scale's update: tf.train.experimental's loss scales)."""

    def __init__(self, opt, loss_scale):
        if not isinstance(opt, keras_optimizers.Optimizer):
            raise ValueError('"opt" must be an instance of OptimizerV2, but got: %s' % (opt,))
        self._optimizer = opt
        self._loss_scale = get_loss_scale(loss_scale)

    loss_scale = property(lambda self: self._loss_scale)
    weights = property(lambda self: self._optimizer.weights)
    iterations = property(lambda self: self._optimizer.iterations)

    def __getattr__(self, name):   # lr, learning_rate, hyperparameters: the wrapped optimizer's
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._optimizer, name)

    def get_scaled_loss(self, loss):
        return loss * math_ops.cast(self._loss_scale(), loss.dtype)

    def get_unscaled_gradients(self, grads):
        inverse = 1. / self._loss_scale()
        return [None if g is None else g * math_ops.cast(inverse, g.dtype) for g in grads]

    def get_gradients(self, loss, params):
        return self.get_unscaled_gradients(self._optimizer.get_gradients(self.get_scaled_loss(loss), params))

    def get_updates(self, loss, params):
        grads = self.get_gradients(loss, params)
        update_scale, ok = self._loss_scale.update(grads)
        opt = self._optimizer
        if ok is not True:   # a non-finite step must not reach the update: zeros in its place
            grads = [math_ops.where_v2(ok, g, array_ops.zeros_like(g)) for g in grads]
        opt.get_gradients = lambda loss_, params_: grads
        try:
            updates = list(opt.get_updates(loss, params))
        finally:
            del opt.get_gradients
        if ok is True:
            return updates + [update_scale]
        # then every variable the step changed keeps its old value where `ok` is False (a read not ordered
        # after an assign sees the value at the start of the run)
        state = list(params) + list(opt.weights)
        old = [v.value() for v in state]
        with control_dependencies([getattr(u, "op", u) for u in updates]):
            keep = [state_ops.assign(v, math_ops.where_v2(ok, v.read_value(), o)) for v, o in zip(state, old)]
        return keep + [update_scale]

    def get_config(self):
        raise NotImplementedError("get_config() is not yet implemented for LossScaleOptimizers")

    def get_weights(self):
        return self._optimizer.get_weights()

    def set_weights(self, weights):
        return self._optimizer.set_weights(weights)


experimental = types.SimpleNamespace(Policy=Policy, global_policy=global_policy, set_policy=set_policy,
                                     LossScaleOptimizer=LossScaleOptimizer)
