"""tf.contrib.staging.StagingArea: TF's put / get API as a pass-through inside one step (get() gives what
put() was given in the same graph: XLA has no cross-step staging buffer, so there is no one-step delay)."""
from tinyflow.api import tf_names as _tf
from tinyflow.graph.core import control_dependencies
from tinyflow.ops.core.array_ops import no_op


class StagingArea:
    """TF's StagingArea API (put / get / peek / size / clear) as a pass-through inside one step: get()
    gives the tensors the last put() was given (after that put runs), not the previous step's."""

    def __init__(self, dtypes, shapes=None, names=None, shared_name=None, capacity=0, memory_limit=0):
        self._dtypes = [_tf.as_dtype(d) for d in (dtypes if isinstance(dtypes, (list, tuple)) else [dtypes])]
        self._names = list(names) if names is not None else None
        if self._names is not None and len(self._names) != len(self._dtypes):
            raise ValueError("StagingArea names size must match dtypes size")
        self._staged = None

    names = property(lambda self: self._names)
    dtypes = property(lambda self: list(self._dtypes))

    def put(self, values, name=None):
        """Stages `values` (a list, or a dict by the area's names); returns the put op."""
        if isinstance(values, dict):
            if self._names is None:
                raise ValueError("StagingArea has no names, but put() was given a dict")
            if sorted(values) != sorted(self._names):
                raise ValueError("Keys in put() %s do not match the StagingArea names %s" % (sorted(values),
                                                                                             self._names))
            flat = [values[n] for n in self._names]
        else:
            flat = list(values) if isinstance(values, (list, tuple)) else [values]
        if len(flat) != len(self._dtypes):
            raise ValueError("put() given %d values, the StagingArea holds %d" % (len(flat), len(self._dtypes)))
        flat = [_tf.convert_to_tensor(v) for v in flat]
        for v, dtype in zip(flat, self._dtypes):
            if v.dtype.base_dtype != dtype:
                raise ValueError("Type mismatch in put(): %s vs the StagingArea's %s" % (v.dtype, dtype))
        put = _tf.group(*flat, name=name or "StagingArea_put")
        self._staged = (flat, put)
        return put

    def get(self, name=None):
        """The staged tensors (a list, or a dict by names), after the put that staged them."""
        return self.peek(0, name)

    def peek(self, index, name=None):
        if self._staged is None:
            raise ValueError("StagingArea.get() before any put(): tinyflow's StagingArea passes put()'s tensors "
                             "through in the same graph, so put() must come first")
        flat, put = self._staged
        with control_dependencies([put]):
            out = [_tf.identity(v) for v in flat]
        return dict(zip(self._names, out)) if self._names is not None else (out if len(out) > 1 else out[0])

    def size(self, name=None):
        return _tf.constant(0 if self._staged is None else 1, _tf.int32)

    def clear(self, name=None):
        return no_op(name=name or "StagingArea_clear")
