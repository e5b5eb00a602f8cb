"""The base classes of TF 1.15's stateful Keras metrics (Metric, Mean, Sum, MeanMetricWrapper) and the
weight broadcasting they share; metrics.py and metrics_confusion.py build on them."""
from tinyflow.ops.core import array_ops, math_ops


# ---- TF 1.15's stateful metric objects ---------------------------------------------------------------
class Metric:
    """A streaming metric: `update_state(...)` returns the op that adds a batch, `result()` the value so
    far, `reset_states()` zeroes the state; calling it updates and returns the result. Its variables
    ("total", "count") belong to no collection, as in TF 1.15 (initialize them with their initializers
    or through the Keras session)."""

    def __init__(self, name=None, dtype=None):
        from tinyflow.api.layers import _snake_case   # TF's rule: AUC -> auc, MeanIoU -> mean_io_u
        base = name or _snake_case(type(self).__name__)
        self.name, self.dtype = base, dtype or "float32"
        self.total = self.count = None
        self.__name__ = base

    @property
    def variables(self):
        self._build()
        return [self.total, self.count]

    weights = variables

    def _build(self):
        if self.total is None:
            import numpy as np
            from tinyflow.ops import state_ops
            self.total = state_ops.Variable(np.float32(0.0), name="total", trainable=False, collections=[])
            self.count = state_ops.Variable(np.float32(0.0), name="count", trainable=False, collections=[])

    def _add(self, values, sample_weight=None):
        from tinyflow.ops import state_ops
        from tinyflow.graph.core import get_default_graph
        self._build()
        values = math_ops.cast(values, "float32")
        if sample_weight is not None:
            w = match_weights(sample_weight, values)
            values, count = values * w, math_ops.reduce_sum(w)
        else:
            count = math_ops.cast(array_ops.size(values), "float32")
        t = state_ops.assign_add(self.total, math_ops.reduce_sum(values))
        with get_default_graph().control_dependencies([t]):
            c = state_ops.assign_add(self.count, count)
        self._last = (t, c)   # the updated values, which __call__'s result is computed from
        return c

    def update_state(self, values, sample_weight=None):
        return self._add(values, sample_weight)

    def result(self):
        self._build()
        return self._result_of(self.total.value(), self.count.value())

    def reset_states(self):
        from tinyflow.api.keras import backend as K
        K.batch_set_value([(v, 0.0) for v in self.variables])

    def __call__(self, *args, **kwargs):
        self.update_state(*args, **kwargs)
        total, count = self._last
        return self._result_of(total, count)

    def _result_of(self, total, count):
        return math_ops.div_no_nan(total, count)

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}


class Mean(Metric):
    """The (weighted) mean of the values given so far."""


class Sum(Metric):
    """The (weighted) sum of the values given so far."""

    def _result_of(self, total, count):
        return array_ops.identity(total)


class MeanMetricWrapper(Metric):
    """The mean over samples of fn(y_true, y_pred); compile() logs it under its name."""

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        super().__init__(name=name, dtype=dtype)
        self._fn, self._fn_kwargs = fn, kwargs

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = _to_tensor(y_pred)
        y_true = math_ops.cast(_to_tensor(y_true), y_pred.dtype.base_dtype)
        return self._add(self._fn(y_true, y_pred, **self._fn_kwargs), sample_weight)


def match_weights(sample_weight, values):
    """float32 sample weights broadcast to `values`' shape: [batch, 1] weights for [batch] values squeezed,
    [batch] weights for [batch, n] values given a last axis (TF 1.15's squeeze_or_expand_dimensions)."""
    w = math_ops.cast(_to_tensor(sample_weight), "float32")
    w_rank, v_rank = w.shape.ndims, values.shape.ndims
    if w_rank is not None and v_rank is not None:
        if w_rank == v_rank + 1 and w.shape[-1].value == 1:
            w = array_ops.squeeze(w, [-1])
        elif w_rank == v_rank - 1 and w_rank > 0:
            w = array_ops.expand_dims(w, -1)
    return w + array_ops.zeros_like(values, dtype="float32")


def _to_tensor(x):
    from tinyflow.ops.core.base import convert_to_tensor
    return convert_to_tensor(x, dtype="float32") if not hasattr(x, "dtype") or not hasattr(x, "op") else x
