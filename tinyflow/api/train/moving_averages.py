"""tf.train.ExponentialMovingAverage: shadow variables that track the average of other variables.

shadow -= (1 - decay) * (shadow - value), with decay = min(decay, (1 + n) / (10 + n)) when
num_updates n is given; the shadows of variables start at their initial values, those of Tensors
(`apply([tensor])`) at zeros and, with zero_debias=True, are divided by 1 - decay**t as TF 1.15 does.
"""
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import GraphKeys, get_default_graph
from tinyflow.ops import init_ops, state_ops
from tinyflow.ops import variable_scope as vs
from tinyflow.ops.core import array_ops
from tinyflow.ops.core import math_ops
from tinyflow.ops.core.base import convert_to_tensor


def assign_moving_average(variable, value, decay, zero_debias=True, name=None):
    """variable -= (variable - value) * (1 - decay); returns the new value. With zero_debias (TF's
    default) the variable is taken to start at 0: a biased average and a step count are kept
    beside it ("<variable>/biased", "<variable>/local_step") and it is set to biased / (1 - decay**t)."""
    with get_default_graph().name_scope(name or "AssignMovingAvg") as scope:
        decay = convert_to_tensor(1.0 - decay if isinstance(decay, float) else 1.0 - convert_to_tensor(decay),
                                  name="decay")
        decay = math_ops.cast(decay, variable.dtype.base_dtype)
        if zero_debias:
            return _zero_debias(variable, value, decay)
        # read both variables directly (not their cached `read` snapshots), so that under a control
        # dependency on a training step the update sees the trained values, as TF's ref reads do
        return state_ops.assign_sub(variable, (convert_to_tensor(variable) - convert_to_tensor(value)) * decay,
                                    name=scope)


def _zero_debias(unbiased, value, decay):
    """TF's _zero_debias: biased -= (biased - value) * decay; t += 1; unbiased = biased / (1 - (1 - decay)**t)."""
    dtype = unbiased.dtype.base_dtype
    with vs.variable_scope(unbiased.op.name):
        biased = vs.get_variable("biased", shape=unbiased.shape, dtype=dtype,
                                 initializer=init_ops.zeros_initializer(), trainable=False)
        local_step = vs.get_variable("local_step", shape=[], dtype=dtype,
                                     initializer=init_ops.zeros_initializer(), trainable=False)
    update_biased = state_ops.assign_sub(biased, (convert_to_tensor(biased) - convert_to_tensor(value)) * decay)
    update_step = state_ops.assign_add(local_step, array_ops.ones([], dtype=dtype))
    bias_factor = 1 - math_ops.pow(1.0 - decay, update_step)
    return state_ops.assign(unbiased, update_biased / bias_factor, name=get_default_graph().get_name_scope() + "/")


class ExponentialMovingAverage:
    """Maintains moving averages of variables (`apply` returns the op that updates them)."""

    def __init__(self, decay, num_updates=None, zero_debias=False, name="ExponentialMovingAverage"):
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages = {}

    name = property(lambda self: self._name)

    def apply(self, var_list=None):
        """Creates the shadow variables (once) and returns an op updating all of them."""
        graph = get_default_graph()
        if var_list is None:
            var_list = graph.get_collection(GraphKeys.TRAINABLE_VARIABLES)
        var_list = list(var_list)
        debiased = set()
        for var in var_list:
            if var.dtype.base_dtype not in (dt.float16, dt.float32, dt.float64):
                raise TypeError("The variables must be half, float, or double: %s" % var.name)
            if var in self._averages:
                continue
            if isinstance(var, state_ops.Variable):
                with graph.control_dependencies(None), graph.name_scope(var.op.name + "/"):
                    self._averages[var] = state_ops.Variable(var.initialized_value(), trainable=False,
                                                             name=self._name)
                graph.add_to_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, var)
            else:   # a Tensor: its shadow starts at zeros (debiased when zero_debias=True)
                with graph.control_dependencies(None), graph.name_scope(var.op.name + "/"):
                    self._averages[var] = state_ops.Variable(
                        array_ops.zeros(var.shape.as_list(), dtype=var.dtype.base_dtype), trainable=False,
                        name=self._name)
                if self._zero_debias:
                    debiased.add(var)
        with graph.name_scope(self._name) as scope:
            decay = convert_to_tensor(self._decay, name="decay")
            if self._num_updates is not None:
                n = math_ops.cast(self._num_updates, dt.float32, name="num_updates")
                decay = math_ops.minimum(decay, (1.0 + n) / (10.0 + n))
            updates = [assign_moving_average(self._averages[v], v, decay, zero_debias=v in debiased)
                       for v in var_list]
            return state_ops.group(*updates, name=scope)

    def average(self, var):
        """The shadow variable of var, or None."""
        return self._averages.get(var)

    def average_name(self, var):
        """The checkpoint name of var's shadow ("<var>/ExponentialMovingAverage")."""
        return var.op.name + "/" + self._name

    def variables_to_restore(self, moving_avg_variables=None):
        """{checkpoint name: variable} that restores each averaged variable from its shadow (for a Saver)."""
        graph = get_default_graph()
        if moving_avg_variables is None:
            moving_avg_variables = (graph.get_collection(GraphKeys.TRAINABLE_VARIABLES)
                                    + graph.get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES))
        result = {}
        for v in moving_avg_variables:
            result[self.average_name(v)] = v
        shadows = set(self._averages.values())
        for v in graph.get_collection(GraphKeys.GLOBAL_VARIABLES):
            if v not in moving_avg_variables and v not in shadows and v.op.name not in result:
                result[v.op.name] = v
        return result
