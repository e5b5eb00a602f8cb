"""What scripts take from TF's internal modules beyond the tf. names (api/tree.py's INTERNAL serves
them at their `tensorflow.python.*` paths): framework.ops.uid, control_flow_ops.with_dependencies,
control_flow_util's switches, framework.function.Defun, summary_op_util, inplace_ops, util.tf_inspect,
tf2.enabled and pywrap_tensorflow.EventsWriter, each as TF 1.15 behaves."""
import collections
import contextlib
import inspect
import itertools
import os
import re
import socket
import time
import types

import numpy as np

from tinyflow.api import gradient_registry, nest
from tinyflow.graph import dtypes as _dtypes
from tinyflow.graph.core import control_dependencies, get_default_graph, name_scope
from tinyflow.ops.core import array_ops, indexing_ops, math_ops, sequence_ops
from tinyflow.ops import state_ops
from tinyflow.ops.core.base import convert_to_tensor

_UIDS = itertools.count(1)


# ---- tensorflow.python.ops.resources: tinyflow has no resource handles outside its variables and tables
def shared_resources():
    """The shared resources of the graph: none in tinyflow (a tensor_forest's trees live on the host)."""
    return list(get_default_graph().get_collection("resources"))


def local_resources():
    return list(get_default_graph().get_collection("local_resources"))


def initialize_resources(resource_list, name="init"):
    """An op that initializes `resource_list` (tinyflow's resources need none: a no-op)."""
    from tinyflow.ops.state_ops import group
    return group(name=name)


def report_uninitialized_resources(resource_list=None, name=None):
    """The names of the uninitialized resources: none."""
    from tinyflow.ops.core.base import constant
    return constant([], dtype=_dtypes.string, name=name)


def uid():
    """framework.ops.uid(): a number unique in this process."""
    return next(_UIDS)


# ---- ops.control_flow_ops / control_flow_util ---------------------------------------------------------
def with_dependencies(dependencies, output_tensor, name=None):
    """output_tensor's value, computed only after every op of `dependencies` has run."""
    with name_scope(name, "control_dependency") as scope:
        with control_dependencies(dependencies):
            return array_ops.identity(output_tensor, name=scope.rstrip("/") or None)


def switch(data, pred, dtype=None, name=None):
    """control_flow_ops.switch: (output_false, output_true), data forwarded to the side `pred` picks.

    TF1's dataflow switch marks the other side dead. tinyflow's graph has no dead values, so both
    outputs carry `data`; the merge that joins the two branches picks the live one (merge)."""
    with name_scope(name, "Switch"):
        data = convert_to_tensor(data, dtype=dtype)
        pred = convert_to_tensor(pred, dtype=_dtypes.bool_)
        outs = [array_ops.identity(data, name="output_false"), array_ops.identity(data, name="output_true")]
    for branch, t in enumerate(outs):
        t._switch_of = (pred, bool(branch))   # kept on the tensor: it lives exactly as long as its graph
    return tuple(outs)


def merge(inputs, name=None):
    """control_flow_ops.merge: (output, value_index) of the input whose branch is live. Supported as
    TF1's cond builds it: two inputs computed from the two outputs of one switch. Both branches are
    computed (as tf.where would): a branch's side effects run whichever way the switch goes."""
    inputs = [convert_to_tensor(x) for x in inputs]
    sides = [_branch_of(x) for x in inputs]
    preds = {id(s[0]) for s in sides if s is not None}
    if len(inputs) != 2 or None in sides or len(preds) != 1 or sides[0][1] == sides[1][1]:
        from tinyflow.graph import errors
        raise errors.UnimplementedError(None, None, "merge: tinyflow joins exactly the two branches of one switch "
                                        "(the TF1 cond pattern); use tf.cond for other control flow")
    pred = sides[0][0]
    on_true = 0 if sides[0][1] else 1
    with name_scope(name, "Merge"):
        out = math_ops.where_v2(pred, inputs[on_true], inputs[1 - on_true])   # (pred broadcasts)
        index = math_ops.where_v2(pred, on_true, 1 - on_true)
    return out, math_ops.cast(index, _dtypes.int32)


def _branch_of(t):
    """(pred, branch) of the switch output `t` is computed from (the nearest one), or None."""
    seen, stack = set(), [t]
    while stack:
        x = stack.pop()
        if getattr(x, "_switch_of", None) is not None:
            return x._switch_of
        if x.op in seen:
            continue
        seen.add(x.op)
        stack.extend(x.op.inputs)
    return None


ENABLE_CONTROL_FLOW_V2 = True   # tinyflow's cond and while_loop are functional ops, as TF's v2 control flow


def enable_control_flow_v2():
    """Accepted: tinyflow's control flow is always the functional (v2) form."""


def EnableControlFlowV2(graph):  # noqa: N802 (TF's name)
    return True


def IsInXLAContext(op):  # noqa: N802
    """False: no op is inside an xla.compile / tpu.rewrite context (the whole step is XLA's anyway)."""
    return False


def GetContainingXLAContext(ctxt):  # noqa: N802
    return None


# ---- framework.function -----------------------------------------------------------------------------
class Defun:
    """framework.function.Defun(*input_types, func_name=, grad_func=, python_grad_func=, ...): a decorated
    Python function becomes callable on tensors of those types. tinyflow builds its ops in place (one
    jitted step either way) under the function's name scope; a grad_func / python_grad_func replaces
    its gradient as TF's function gradient would."""

    def __init__(self, *input_types, **kwargs):
        self._input_types = [_dtypes.as_dtype(t) for t in input_types]
        self._name = kwargs.pop("func_name", None)
        self._grad_func = kwargs.pop("grad_func", None)
        self._python_grad_func = kwargs.pop("python_grad_func", None)
        kwargs.pop("out_names", None)
        kwargs.pop("shape_func", None)
        kwargs.pop("noinline", None)
        kwargs.pop("compiled", None)
        kwargs.pop("separate_compiled_gradients", None)
        if kwargs:
            raise ValueError("Unknown keyword arguments: %s" % sorted(kwargs))

    def __call__(self, func):
        return _DefinedFunction(func, self._input_types, self._name or func.__name__, self._grad_func,
                                self._python_grad_func)


class _DefinedFunction:
    def __init__(self, func, input_types, name, grad_func, python_grad_func):
        self._func, self._input_types, self.name = func, input_types, name
        self._grad_func, self._python_grad_func = grad_func, python_grad_func

    def __call__(self, *args, **kwargs):
        if self._input_types and len(args) != len(self._input_types):
            raise ValueError("%s takes %d inputs, got %d" % (self.name, len(self._input_types), len(args)))
        types_ = self._input_types or [None] * len(args)
        with name_scope(kwargs.pop("name", None), self.name):
            args = [convert_to_tensor(a, dtype=t) for a, t in zip(args, types_)]
            result = self._func(*args)
            if self._grad_func is None and self._python_grad_func is None:
                return result
            outs = [convert_to_tensor(t) for t in nest.flatten(result)]
            call = types.SimpleNamespace(inputs=args, outputs=outs, type=self.name, name=self.name)

            def grad(*dys):
                if self._python_grad_func is not None:
                    grads = self._python_grad_func(call, *dys)
                else:
                    grads = self._grad_func(*(args + list(dys)))
                return list(grads) if isinstance(grads, (list, tuple)) else [grads]
            return nest.pack_sequence_as(result, gradient_registry.with_gradient(outs, args, grad))


# ---- ops.summary_op_util ------------------------------------------------------------------------------
_INVALID_TAG = re.compile(r"[^-/\w\.]")


def collect(val, collections, default_collections):
    """Adds val to each collection of `collections` (default_collections when it is None)."""
    for key in default_collections if collections is None else collections:
        get_default_graph().add_to_collection(key, val)


def clean_tag(name):
    """A summary name with TF's illegal characters replaced by _ and leading slashes removed."""
    if name is not None:
        clean = _INVALID_TAG.sub("_", name).lstrip("/")
        if clean != name:
            from tinyflow.api import logging
            logging.info("Summary name %s is illegal; using %s instead." % (name, clean))
        name = clean
    return name


@contextlib.contextmanager
def summary_scope(name, family=None, default_name=None, values=None):
    """Enters a name scope for a summary and yields (tag, scope); with a family the tag is
    family/<scope> (so the family is the tag's prefix in TensorBoard)."""
    name, family = clean_tag(name), clean_tag(family)
    with name_scope(name if family is None else "%s/%s" % (family, name), default_name) as scope:
        yield (scope.rstrip("/") if family is None else "%s/%s" % (family, scope.rstrip("/"))), scope


def skip_summary():
    """distribute's summary_op_util.skip_summary(): False (no replica but the first writes summaries in TF;
    tinyflow's data-parallel steps write them once)."""
    return False


# ---- ops.inplace_ops ----------------------------------------------------------------------------------
def _inplace(x, i, v, combine):
    x, v = convert_to_tensor(x), convert_to_tensor(v, dtype=None)
    if i is None:
        return combine(x, math_ops.cast(array_ops.reshape(v, array_ops.shape(x)), x.dtype), None)
    i = math_ops.cast(array_ops.reshape(convert_to_tensor(i), [-1]), _dtypes.int32)
    rows = array_ops.reshape(v, array_ops.concat([array_ops.shape(i), array_ops.shape(x)[1:]], 0))
    mask = math_ops.reduce_max(sequence_ops.one_hot(i, array_ops.shape(x)[0], dtype=x.dtype), 0)
    mask = array_ops.reshape(mask, array_ops.concat([[-1], array_ops.ones_like(array_ops.shape(x)[1:])], 0))
    placed = indexing_ops.scatter_nd(array_ops.expand_dims(i, 1), math_ops.cast(rows, x.dtype), array_ops.shape(x))
    return combine(x, placed, mask)


def inplace_update(x, i, v):
    """x with rows i set to v (x = v when i is None); a new tensor, as every tinyflow value."""
    return _inplace(x, i, v, lambda x, p, m: p if m is None else x * (1 - m) + p)


def inplace_add(x, i, v):
    """x with v added to rows i."""
    return _inplace(x, i, v, lambda x, p, m: x + p)


def inplace_sub(x, i, v):
    """x with v subtracted from rows i."""
    return _inplace(x, i, v, lambda x, p, m: x - p)


alias_inplace_update, alias_inplace_add, alias_inplace_sub = inplace_update, inplace_add, inplace_sub


# ---- util.tf_inspect, tf2 -----------------------------------------------------------------------------
ArgSpec = collections.namedtuple("ArgSpec", ["args", "varargs", "keywords", "defaults"])


def getargspec(obj):
    """tf_inspect.getargspec: Python 2's ArgSpec (args, varargs, keywords, defaults) of a callable."""
    spec = inspect.getfullargspec(obj)
    if spec.kwonlyargs:
        raise ValueError("Function has keyword-only arguments or annotations, use getfullargspec() API "
                         "which can support them")
    return ArgSpec(spec.args, spec.varargs, spec.varkw, spec.defaults)


tf_inspect = types.ModuleType("tf_inspect", "tensorflow.python.util.tf_inspect: Python's inspect, TF's getargspec")
tf_inspect.__dict__.update({k: v for k, v in vars(inspect).items() if not k.startswith("_")},
                           getargspec=getargspec, ArgSpec=ArgSpec)


def enabled():
    """tensorflow.python.tf2.enabled(): False (TF 1.x behaviour)."""
    return False


# ---- pywrap_tensorflow.EventsWriter ----------------------------------------------------------------------
class EventsWriter:
    """TF's low-level event file writer: EventsWriter(b"logdir/events") writes
    <prefix>.out.tfevents.<seconds>.<host><suffix>, its first event the file version."""

    def __init__(self, file_prefix):
        self._prefix = file_prefix.decode() if isinstance(file_prefix, bytes) else file_prefix
        self._file, self._name = None, ""

    def InitWithSuffix(self, suffix):  # noqa: N802 (TF's names)
        from tinyflow.formats.events import FILE_VERSION
        from tinyflow.formats.tf_protos import Event
        suffix = suffix.decode() if isinstance(suffix, bytes) else suffix
        os.makedirs(os.path.dirname(self._prefix) or ".", exist_ok=True)
        self._name = "%s.out.tfevents.%010d.%s%s" % (self._prefix, int(time.time()), socket.gethostname(), suffix)
        self._file = open(self._name, "wb")
        self.WriteEvent(Event(wall_time=time.time(), file_version=FILE_VERSION))
        return True

    def FileName(self):  # noqa: N802
        return self._name.encode()

    def WriteEvent(self, event):  # noqa: N802
        from tinyflow.formats.tfrecord import frame
        if self._file is None:
            self.InitWithSuffix("")
        self._file.write(frame(event.SerializeToString()))

    def Flush(self):  # noqa: N802
        if self._file is not None:
            self._file.flush()
        return True

    def Close(self):  # noqa: N802
        if self._file is not None:
            self._file.close()
            self._file = None
        return True


# ---- tensorflow.python.debug (tfdbg) ------------------------------------------------------------------------
def has_inf_or_nan(datum, tensor):
    """tfdbg's standard filter: whether a dumped tensor (a numpy value) holds an inf or a NaN."""
    arr = np.asarray(tensor)
    return bool(arr.dtype.kind in "fc" and (np.isnan(arr).any() or np.isinf(arr).any()))


class WatchOptions:
    """What a tfdbg session would watch (accepted and kept)."""

    def __init__(self, debug_ops=None, node_name_regex_whitelist=None, op_type_regex_whitelist=None,
                 tensor_dtype_regex_whitelist=None, tolerate_debug_op_creation_failures=False):
        self.debug_ops = debug_ops or ["DebugIdentity"]
        self.node_name_regex_whitelist = node_name_regex_whitelist
        self.op_type_regex_whitelist = op_type_regex_whitelist
        self.tensor_dtype_regex_whitelist = tensor_dtype_regex_whitelist
        self.tolerate_debug_op_creation_failures = tolerate_debug_op_creation_failures


def _tfdbg(name):
    def unavailable(*args, **kwargs):
        from tinyflow.graph import errors
        raise errors.UnimplementedError(None, None, "tf_debug.%s: tinyflow runs each fetch set as one XLA program, "
                                        "so there are no per-node tensors for tfdbg to dump or step through; find "
                                        "NaNs with tf.debugging.check_numerics / tf.add_check_numerics_ops" % name)
    unavailable.__name__ = name
    return unavailable


debug = types.ModuleType("tensorflow.python.debug", "tfdbg: has_inf_or_nan and WatchOptions; its sessions and hooks "
                         "raise UnimplementedError (a step is one XLA program: no per-node dumps)")
debug.__dict__.update({"has_inf_or_nan": has_inf_or_nan, "WatchOptions": WatchOptions}, **{
    n: _tfdbg(n) for n in ("LocalCLIDebugWrapperSession", "LocalCLIDebugHook", "DumpingDebugWrapperSession",
                           "DumpingDebugHook", "TensorBoardDebugWrapperSession", "TensorBoardDebugHook",
                           "GrpcDebugWrapperSession", "GrpcDebugHook", "DebugDumpDir", "load_tensor_from_event_file",
                           "watch_graph", "add_debug_tensor_watch")})


# ---- client.timeline --------------------------------------------------------------------------------------------
class Timeline:
    """client.timeline.Timeline(step_stats): a Chrome trace (chrome://tracing) of a run's step stats.

    TF fills RunMetadata.step_stats with one record per kernel; a tinyflow step is one XLA program, so its
    RunMetadata holds no per-op stats and the trace has only the process's name (XLA's own profiler, through
    jax.profiler, shows the inside of a step)."""

    def __init__(self, step_stats, graph=None):
        self._step_stats, self._graph = step_stats, graph

    def generate_chrome_trace_format(self, show_dataflow=True, show_memory=False):
        import json
        events = [{"name": "process_name", "ph": "M", "pid": 0,
                   "args": {"name": "tinyflow (one XLA program per step)"}}]
        for pid, dev in enumerate(getattr(self._step_stats, "dev_stats", None) or []):
            events.append({"name": "process_name", "ph": "M", "pid": pid + 1, "args": {"name": dev.device}})
            for node in dev.node_stats:
                events.append({"name": node.node_name, "ph": "X", "pid": pid + 1, "tid": 0, "cat": "Op",
                               "ts": node.all_start_micros, "dur": node.all_end_rel_micros,
                               "args": {"name": node.node_name}})
        return json.dumps({"traceEvents": events}, indent=4, separators=(",", ": "))


timeline = types.ModuleType("tensorflow.python.client.timeline", "client.timeline: Timeline (a Chrome trace)")
timeline.Timeline = Timeline


# ---- names of single internal modules beyond the tf. namespace (api/tree.py's INTERNAL serves them) ------
def _unknown_shape(rank=None, **kwargs):
    from tinyflow.graph.shapes import TensorShape
    return TensorShape(None if rank is None else [None] * rank)


# gen_math_ops' raw names, which math_ops star-imports
gen_math_ops = types.SimpleNamespace(mul=math_ops.multiply, sub=math_ops.subtract, neg=math_ops.negative)
resource_variable_ops = types.SimpleNamespace(ResourceVariable=state_ops.Variable,
                                              resource_scatter_add=state_ops.scatter_add,
                                              is_resource_variable=lambda v: isinstance(v, state_ops.Variable))
tensor_shape = types.SimpleNamespace(unknown_shape=_unknown_shape)
pywrap_tensorflow = types.SimpleNamespace(EventsWriter=EventsWriter)   # (NewCheckpointReader: tf.train's)
