"""Learning-rate schedules (tf.train.exponential_decay, ...): graph ops on the global step.

Each returns a scalar tensor in the dtype of the initial learning rate, built exactly as TF 1.15's
learning_rate_schedule builds it (cast the step, divide, pow/floor/cos), so a run evaluates it
inside the training step's jitted function.
"""
import math

from tinyflow.graph.core import get_default_graph
from tinyflow.ops.core import math_ops as m
from tinyflow.ops.core.base import convert_to_tensor


def _need_step(global_step, fn):
    if global_step is None:
        raise ValueError("global_step is required for %s." % fn)


def _decay_base(learning_rate, global_step, decay_steps, staircase):
    """(lr tensor, step / decay_steps as lr's dtype, floored when staircase)."""
    lr = convert_to_tensor(learning_rate, name="learning_rate")
    dtype = lr.dtype
    p = m.cast(global_step, dtype) / m.cast(decay_steps, dtype)
    if staircase:
        p = m.floor(p)
    return lr, p


def exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None):
    """learning_rate * decay_rate ^ (global_step / decay_steps) (an integer exponent when staircase)."""
    _need_step(global_step, "exponential_decay")
    with get_default_graph().name_scope(name or "ExponentialDecay") as scope:
        lr, p = _decay_base(learning_rate, global_step, decay_steps, staircase)
        return m.multiply(lr, m.pow(m.cast(decay_rate, lr.dtype), p), name=scope)


def inverse_time_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None):
    """learning_rate / (1 + decay_rate * global_step / decay_steps)."""
    _need_step(global_step, "inverse_time_decay")
    with get_default_graph().name_scope(name or "InverseTimeDecay") as scope:
        lr, p = _decay_base(learning_rate, global_step, decay_steps, staircase)
        denom = m.add(m.cast(1, lr.dtype), m.multiply(m.cast(decay_rate, lr.dtype), p))
        return m.divide(lr, denom, name=scope)


def natural_exp_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None):
    """learning_rate * exp(-decay_rate * global_step / decay_steps)."""
    _need_step(global_step, "natural_exp_decay")
    with get_default_graph().name_scope(name or "NaturalExpDecay") as scope:
        lr, p = _decay_base(learning_rate, global_step, decay_steps, staircase)
        return m.multiply(lr, m.exp(m.multiply(m.negative(m.cast(decay_rate, lr.dtype)), p)), name=scope)


def piecewise_constant(x, boundaries, values, name=None):
    """values[0] while x <= boundaries[0], values[i] while boundaries[i-1] < x <= boundaries[i], then values[-1]."""
    if len(boundaries) != len(values) - 1:
        raise ValueError("The length of boundaries should be 1 less than the length of values")
    with get_default_graph().name_scope(name or "PiecewiseConstant") as scope:
        x = convert_to_tensor(x)
        values = [convert_to_tensor(v) for v in values]
        for v in values[1:]:
            if v.dtype != values[0].dtype:
                raise ValueError("Values must have elements all with the same dtype (%s vs %s)."
                                 % (values[0].dtype, v.dtype))
        boundaries = [convert_to_tensor(b) for b in boundaries]
        boundaries = [m.cast(b, x.dtype) if b.dtype != x.dtype and (b.dtype.is_integer and x.dtype.is_integer)
                      else b for b in boundaries]
        for b in boundaries:
            if b.dtype != x.dtype:
                raise ValueError("Boundaries (%s) must have the same dtype as x (%s)." % (b.dtype, x.dtype))
        # Select from the last interval backwards: the first boundary that x does not exceed wins.
        out = values[-1]
        for b, v in reversed(list(zip(boundaries, values[:-1]))):
            out = m.where_v2(m.less_equal(x, b), v, out)
        return m.identity(out, name=scope)


def polynomial_decay(learning_rate, global_step, decay_steps, end_learning_rate=0.0001, power=1.0, cycle=False,
                     name=None):
    """(lr - end) * (1 - min(step, decay_steps) / decay_steps)^power + end; with cycle, decay_steps grows to
    the first multiple of itself above the step."""
    _need_step(global_step, "polynomial_decay")
    with get_default_graph().name_scope(name or "PolynomialDecay") as scope:
        lr = convert_to_tensor(learning_rate, name="learning_rate")
        dtype = lr.dtype
        end_lr = m.cast(end_learning_rate, dtype)
        power = m.cast(power, dtype)
        step = m.cast(global_step, dtype)
        steps = m.cast(decay_steps, dtype)
        if cycle:
            # multiplier: 1 at step 0, else ceil(step / decay_steps)
            one = m.cast(1.0, dtype)
            multiplier = m.where_v2(m.equal(step, m.cast(0, dtype)), one, m.ceil(step / steps))
            steps = m.multiply(steps, multiplier)
        else:
            step = m.minimum(step, steps)
        p = m.divide(step, steps)
        return m.add(m.multiply(lr - end_lr, m.pow(1 - p, power)), end_lr, name=scope)


def cosine_decay(learning_rate, global_step, decay_steps, alpha=0.0, name=None):
    """learning_rate * ((1 - alpha) * 0.5 * (1 + cos(pi * min(step, decay_steps) / decay_steps)) + alpha)."""
    _need_step(global_step, "cosine_decay")
    with get_default_graph().name_scope(name or "CosineDecay") as scope:
        lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype
        step, steps = _clamped_step(global_step, decay_steps, dtype)
        cosine = _half_cosine(step / steps, dtype)
        decayed = (1 - m.cast(alpha, dtype)) * cosine + m.cast(alpha, dtype)
        return m.multiply(lr, decayed, name=scope)


def cosine_decay_restarts(learning_rate, global_step, first_decay_steps, t_mul=2.0, m_mul=1.0, alpha=0.0,
                          name=None):
    """SGDR: cosine decay restarted every period, periods growing by t_mul, peaks scaled by m_mul."""
    _need_step(global_step, "cosine_decay_restarts")
    with get_default_graph().name_scope(name or "SGDRDecay") as scope:
        lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype
        c = lambda v: m.cast(v, dtype)  # noqa: E731
        fraction = m.cast(global_step, dtype) / c(first_decay_steps)
        if t_mul == 1.0:
            i_restart = m.floor(fraction)
            fraction = fraction - i_restart
        else:
            t = c(t_mul)
            i_restart = m.floor(m.log(1.0 - fraction * (1.0 - t)) / m.log(t))
            sum_r = (1.0 - m.pow(t, i_restart)) / (1.0 - t)
            fraction = (fraction - sum_r) / m.pow(t, i_restart)
        m_fac = m.pow(c(m_mul), i_restart)
        cosine = m_fac * _half_cosine(fraction, dtype)
        decayed = (1 - c(alpha)) * cosine + c(alpha)
        return m.multiply(lr, decayed, name=scope)


def linear_cosine_decay(learning_rate, global_step, decay_steps, num_periods=0.5, alpha=0.0, beta=0.001,
                        name=None, _noise=None):
    """learning_rate * ((alpha + linear) * cosine + beta), linear falling from 1 to 0 over decay_steps."""
    _need_step(global_step, "linear_cosine_decay")
    with get_default_graph().name_scope(name or ("LinearCosineDecay" if _noise is None else
                                                 "NoisyLinearCosineDecay")) as scope:
        lr = convert_to_tensor(learning_rate, name="learning_rate")
        dtype = lr.dtype
        step, steps = _clamped_step(global_step, decay_steps, dtype)
        linear = (steps - step) / steps
        if _noise is not None:   # noisy_linear_cosine_decay: normal noise of variance v0 / (1 + step) ** decay
            initial_variance, variance_decay = _noise
            std = m.sqrt(m.cast(initial_variance, dtype) / m.pow(1.0 + step, m.cast(variance_decay, dtype)))
            from tinyflow.ops import random_ops
            linear = linear + random_ops.random_normal([], stddev=std, dtype=dtype)
        cosine = _half_cosine(2.0 * m.cast(num_periods, dtype) * (step / steps), dtype)
        decayed = (m.cast(alpha, dtype) + linear) * cosine + m.cast(beta, dtype)
        return m.multiply(lr, decayed, name=scope)


def noisy_linear_cosine_decay(learning_rate, global_step, decay_steps, initial_variance=1.0, variance_decay=0.55,
                              num_periods=0.5, alpha=0.0, beta=0.001, name=None):
    """linear_cosine_decay with zero-mean normal noise of variance initial_variance / (1 + step) ** variance_decay
    added to its linear part."""
    return linear_cosine_decay(learning_rate, global_step, decay_steps, num_periods, alpha, beta, name,
                               _noise=(initial_variance, variance_decay))


def _clamped_step(global_step, decay_steps, dtype):
    """min(global_step, decay_steps) and decay_steps, both in dtype."""
    steps = m.cast(decay_steps, dtype)
    return m.minimum(m.cast(global_step, dtype), steps), steps


def _half_cosine(fraction, dtype):
    """0.5 * (1 + cos(pi * fraction)): from 1 at fraction 0 down to 0 at fraction 1."""
    return 0.5 * (1.0 + m.cos(convert_to_tensor(math.pi, dtype) * fraction))
