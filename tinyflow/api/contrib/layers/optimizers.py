"""tf.contrib.layers' optimize_loss (a training op in one call: learning-rate variable, optimizer by name,
gradient clipping and multipliers, TF's summaries), as TF 1.15."""
import numbers

from tinyflow.api import summary, train
from tinyflow.graph.core import GraphKeys, Tensor, control_dependencies, get_collection
from tinyflow.ops import clip_ops, init_ops, random_ops
from tinyflow.ops.core import math_ops
from tinyflow.ops import variable_scope as vs
from tinyflow.ops.core.array_ops import identity
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.state_ops import trainable_variables

OPTIMIZER_CLS_NAMES = {
    "Adagrad": train.AdagradOptimizer,
    "Adam": train.AdamOptimizer,
    "Ftrl": train.FtrlOptimizer,
    "Momentum": lambda learning_rate: train.MomentumOptimizer(learning_rate, momentum=0.9),
    "RMSProp": train.RMSPropOptimizer,
    "SGD": train.GradientDescentOptimizer,
}
OPTIMIZER_SUMMARIES = ["learning_rate", "loss", "gradients", "gradient_norm", "global_gradient_norm"]


def _with_dependencies(deps, tensor):
    with control_dependencies(list(deps)):
        return identity(tensor)


def _optimizer(optimizer, lr, learning_rate):
    if isinstance(optimizer, str):
        if lr is None:
            raise ValueError("Learning rate is None, but should be specified if optimizer is string (%s)." % optimizer)
        if optimizer not in OPTIMIZER_CLS_NAMES:
            raise ValueError("Optimizer name should be one of [%s], you provided %s."
                             % (", ".join(OPTIMIZER_CLS_NAMES), optimizer))
        return OPTIMIZER_CLS_NAMES[optimizer](learning_rate=lr)
    if isinstance(optimizer, type) and issubclass(optimizer, train.Optimizer):
        if lr is None:
            raise ValueError("Learning rate is None, but should be specified if optimizer is class (%s)." % optimizer)
        return optimizer(learning_rate=lr)
    if isinstance(optimizer, train.Optimizer):
        return optimizer
    if callable(optimizer):
        opt = optimizer(lr) if learning_rate is not None else optimizer()
        if not isinstance(opt, train.Optimizer):
            raise ValueError("Unrecognized optimizer: function should return subclass of Optimizer. Got %s." % opt)
        return opt
    raise ValueError("Unrecognized optimizer: should be string, subclass of Optimizer, instance of subclass of "
                     "Optimizer or function with one argument. Got %s." % str(optimizer))


def optimize_loss(loss, global_step, learning_rate, optimizer, gradient_noise_scale=None, gradient_multipliers=None,
                  clip_gradients=None, learning_rate_decay_fn=None, update_ops=None, variables=None, name=None,
                  summaries=None, colocate_gradients_with_ops=False, increment_global_step=True):
    """The loss, after one optimizer step on it (a tensor to run as the training op)."""
    loss = convert_to_tensor(loss)
    if loss.shape.ndims not in (None, 0):
        raise ValueError("Expected scalar shape for %s, saw shape: %s." % (loss.name, loss.shape))
    if global_step is None:
        global_step = train.get_global_step()
    else:
        train.assert_global_step(global_step)
    with vs.variable_scope(name, "OptimizeLoss"):
        if update_ops is None:
            update_ops = set(get_collection(GraphKeys.UPDATE_OPS))
        if update_ops:
            loss = _with_dependencies(update_ops, loss)
        lr = None
        if learning_rate is not None:
            if isinstance(learning_rate, Tensor) and learning_rate.shape.ndims == 0:
                lr = learning_rate
            elif isinstance(learning_rate, float):
                if learning_rate < 0.0:
                    raise ValueError("Invalid learning_rate %s." % learning_rate)
                lr = vs.get_variable("learning_rate", [], trainable=False,
                                     initializer=init_ops.constant_initializer(learning_rate))
            else:
                raise ValueError("Learning rate should be 0d Tensor or float. Got %s of type %s"
                                 % (learning_rate, type(learning_rate)))
        if summaries is None:
            summaries = ["loss", "learning_rate", "global_gradient_norm"]
        for s in summaries:
            if s not in OPTIMIZER_SUMMARIES:
                raise ValueError("Summaries should be one of [%s], you provided %s."
                                 % (", ".join(OPTIMIZER_SUMMARIES), s))
        if learning_rate is not None and learning_rate_decay_fn is not None:
            if global_step is None:
                raise ValueError("global_step is required for learning_rate_decay_fn.")
            lr = learning_rate_decay_fn(lr, global_step)
            if "learning_rate" in summaries:
                summary.scalar("learning_rate", lr)
        opt = _optimizer(optimizer, lr, learning_rate)
        grads = opt.compute_gradients(loss, variables if variables is not None else trainable_variables())
        if gradient_noise_scale is not None:
            grads = [(None if g is None else math_ops.add(g, math_ops.multiply(
                random_ops.random_normal(g.shape.as_list()), gradient_noise_scale)), v) for g, v in grads]
        if gradient_multipliers is not None:
            grads = [(g if g is None or (v not in gradient_multipliers and v.name not in gradient_multipliers)
                      else math_ops.multiply(g, gradient_multipliers.get(v, gradient_multipliers.get(v.name))), v)
                     for g, v in grads]
            if not grads:
                raise ValueError("Empty list of (gradient, var) pairs encountered. This is most likely to be caused "
                                 "by an improper value of gradient_multipliers.")
        if "global_gradient_norm" in summaries or "gradient_norm" in summaries:
            summary.scalar("global_norm/gradient_norm", clip_ops.global_norm([g for g, _ in grads]))
        if isinstance(clip_gradients, numbers.Real) and not isinstance(clip_gradients, bool):
            clipped, _ = clip_ops.clip_by_global_norm([g for g, _ in grads], float(clip_gradients))
            grads = list(zip(clipped, [v for _, v in grads]))
        elif callable(clip_gradients):
            grads = clip_gradients(grads)
        elif clip_gradients is not None:
            raise ValueError("Unknown type %s for clip_gradients" % type(clip_gradients))
        if "loss" in summaries:
            summary.scalar("loss", loss)
        for g, v in grads:
            if g is not None:
                var_name = v.name.replace(":", "_")
                if "gradients" in summaries:
                    summary.histogram("gradients/%s" % var_name, g)
                if "gradient_norm" in summaries:
                    summary.scalar("gradient_norm/%s" % var_name, clip_ops.global_norm([g]))
        if clip_gradients is not None and ("global_gradient_norm" in summaries or "gradient_norm" in summaries):
            summary.scalar("global_norm/clipped_gradient_norm", clip_ops.global_norm([g for g, _ in grads]))
        updates = opt.apply_gradients(grads, global_step=global_step if increment_global_step else None,
                                      name="train")
        return _with_dependencies([updates], loss)
