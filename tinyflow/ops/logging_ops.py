"""Ops that look at values while a graph runs: tf.Assert, tf.check_numerics, tf.Print and tf.print.

Assert and CheckNumerics carry a run-time check (OpDef.check, see lower/jax_backend.py): it is
computed inside the one jitted function, and when it fails the Session raises TF's
InvalidArgumentError with the data TF would print, and leaves every variable as it was. Print and
PrintV2 print from inside the jitted function through `jax.debug.callback`.

A check hands back only the first `summarize` elements of each tensor (and its shape), so a
passing check costs a few scalars, not a copy of its data.
"""
import sys

import jax
import jax.numpy as jnp
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import ShapeError, get_default_graph
from tinyflow.graph.registry import register_op, same_as_input
from tinyflow.ops.core.base import convert_to_tensor, make_op, make_op_raw

__all__ = ["Assert", "Print", "check_numerics", "print"]

_py_print = print


# ---- formatting values the way TF's Tensor::SummarizeValue does --------------------------------
def _fmt(x):
    """One element as TF writes it: the shortest %g that reads back to the same float ("1", "0.1")."""
    if isinstance(x, np.floating):
        for digits in range(6, 18):
            text = "%.*g" % (digits, x)
            if type(x)(text) == x:
                return text
    if isinstance(x, np.bool_):
        return "1" if x else "0"
    return str(x)


def summarize(flat, shape, limit):
    """TF 1's text of a tensor from its first elements `flat` and its `shape`: "1 2 3" for a vector,
    "[1 2][3 4]" for a matrix, "..." where `limit` elements were shown ("1 2 3..."). A negative limit
    shows everything."""
    shape = [int(d) for d in shape]
    if not shape:
        return _fmt(flat[0]) if len(flat) else ""
    limit = int(np.prod(shape)) if limit is None or limit < 0 else limit
    pos = [0]

    def dim(d):
        parts = []
        for _ in range(shape[d]):
            if pos[0] >= limit:
                parts.append("...")
                break
            if d == len(shape) - 1:
                parts.append(_fmt(flat[pos[0]]))
                pos[0] += 1
            else:
                parts.append("[" + dim(d + 1) + "]")
        text = (" " if d == len(shape) - 1 else "").join(parts)
        return text.replace(" ...", "...")
    return dim(0)


def _prefix(x, n):
    """The first n elements of x, flattened, and x's shape: what a message needs of a tensor."""
    flat = jnp.reshape(x, (-1,))
    return flat[:n if n >= 0 else flat.shape[0]], jnp.array(x.shape, np.int64)


def _template(data):
    """Python strings stay text in the message (tinyflow has no string tensors); the rest become
    tensors. Returns (template: a string or None per item, tensors)."""
    template, tensors = [], []
    for i, d in enumerate(data):
        if isinstance(d, (str, bytes)):
            template.append(d.decode() if isinstance(d, bytes) else d)
        else:
            template.append(None)
            tensors.append(convert_to_tensor(d, name="data_%d" % i))
    return template, tensors


def _render(template, pieces, limit):
    """The template's items as text; pieces holds (flat, shape) for each tensor item, in order."""
    pieces = iter(pieces)
    out = []
    for t in template:
        if t is None:
            flat, shape = next(pieces)
            t = summarize(np.asarray(flat), np.asarray(shape), limit)
        out.append(t)
    return out


def _pairs(data):
    return list(zip(data[0::2], data[1::2]))


# ---- Assert --------------------------------------------------------------------------------------
def _assert_shape(shapes, attrs, values):
    if shapes[0].ndims not in (None, 0):
        raise ShapeError("Shape must be rank 0 but is rank %d" % shapes[0].ndims)
    return []


def _assert_check(a, condition, *data):
    pieces = [p for x in data for p in _prefix(x, a["summarize"])]
    return (jnp.all(condition), *pieces)


def _assert_message(op, *data):
    items = _render(op.attrs["template"], _pairs(data), op.attrs["summarize"])
    return "assertion failed: " + " ".join("[%s]" % t for t in items)


register_op("Assert", shape=_assert_shape, dtype=lambda d, a: [], grad=None, lower=None, stateful=True,
            check=_assert_check, check_message=_assert_message)


def Assert(condition, data, summarize=None, name=None):
    """An op that raises InvalidArgumentError when it runs and `condition` (a scalar bool) is False,
    showing `data` (tensors, and strings kept as text) with `summarize` elements of each (3)."""
    with get_default_graph().name_scope(name or "Assert"):
        condition = convert_to_tensor(condition, name="Condition")
        if condition.dtype != dt.bool_:
            raise TypeError("Input 'condition' of 'Assert' Op has type %s that does not match expected type of "
                            "bool." % condition.dtype.name)
        template, tensors = _template(data)
        attrs = {"summarize": 3 if summarize is None else int(summarize), "template": template}
        return make_op_raw("Assert", [condition] + tensors, attrs, name="Assert")


# ---- CheckNumerics -------------------------------------------------------------------------------
def _numerics_check(a, x):
    return jnp.all(jnp.isfinite(x)), jnp.any(jnp.isnan(x))


def _numerics_message(op, has_nan):
    return "%s : Tensor had %s values" % (op.attrs["message"], "NaN" if has_nan else "Inf")


register_op("CheckNumerics", shape=lambda s, a, v: [s[0]], dtype=same_as_input(0),
            grad=lambda op, g: [check_numerics(g, "Not a number (NaN) or infinity (Inf) values detected in "
                                                  "gradient. " + op.attrs["message"])],
            lower=lambda a, x: x, inplace=[(0, 0)], check=_numerics_check, check_message=_numerics_message)


def check_numerics(tensor, message, name=None):
    """`tensor`, checked when it runs: InvalidArgumentError "<message> : Tensor had NaN values" (or
    Inf) if any element is not finite."""
    tensor = convert_to_tensor(tensor, name="tensor")
    if not tensor.dtype.is_floating:
        raise TypeError("Value passed to parameter 'tensor' has DataType %s not in list of allowed values: "
                        "bfloat16, float16, float32, float64" % tensor.dtype.name)
    return make_op("CheckNumerics", [tensor], {"message": message}, name=name or "CheckNumerics")


# ---- Print and print -----------------------------------------------------------------------------
_times_printed = {}  # id(attrs) of a Print op -> how often it printed (first_n)


def _print_lower(a, x, *data):
    def show(*pieces):
        count = _times_printed.get(id(a), 0)
        if a["first_n"] < 0 or count < a["first_n"]:
            _times_printed[id(a)] = count + 1
            text = "".join("[%s]" % t for t in _render([None] * len(data), _pairs(pieces), a["summarize"]))
            _py_print(a["message"] + text, file=sys.stderr, flush=True)
    jax.debug.callback(show, *[p for d in data for p in _prefix(d, a["summarize"])])
    return x


register_op("Print", callback=True, shape=lambda s, a, v: [s[0]], dtype=same_as_input(0),
            grad=lambda op, g: [g] + [None] * (len(op.inputs) - 1), lower=_print_lower, stateful=True)


def Print(input_, data, message=None, first_n=None, summarize=None, name=None):
    """`input_`, and when it is computed, `message` followed by each tensor of `data` printed to
    stderr ("[1 2 3...]", `summarize` elements each, 3 by default; only the first `first_n` times)."""
    input_ = convert_to_tensor(input_, name="input")
    data = [convert_to_tensor(d, name="data_%d" % i) for i, d in enumerate(data)]
    attrs = {"message": message or "", "first_n": -1 if first_n is None else int(first_n),
             "summarize": 3 if summarize is None else int(summarize)}
    return make_op("Print", [input_] + data, attrs, name=name or "Print")


def _print_v2_lower(a, *data):
    stream = sys.stdout if a["output_stream"] == "stdout" else sys.stderr
    edge = a["summarize"]

    def show(*values):
        values = iter(values)
        items = [t if t is not None else np.array2string(
            np.asarray(next(values)), separator=" ", edgeitems=max(edge, 1), formatter={"float_kind": _fmt},
            threshold=sys.maxsize if edge < 0 else 2 * edge) for t in a["template"]]
        _py_print(a["sep"].join(items), end=a["end"], file=stream, flush=True)
    jax.debug.callback(show, *data)


register_op("PrintV2", callback=True, shape=lambda s, a, v: [], dtype=lambda d, a: [], grad=None, lower=_print_v2_lower,
            stateful=True)


def print(*inputs, **kwargs):  # noqa: A001 (TF's name)
    """tf.print: an op that prints `inputs` (tensors and strings) when it runs, to
    output_stream (sys.stderr by default, or sys.stdout), joined by `sep`, ended by `end`."""
    stream = kwargs.pop("output_stream", sys.stderr)
    sep, end = kwargs.pop("sep", " "), kwargs.pop("end", "\n")
    summarize, name = kwargs.pop("summarize", 3), kwargs.pop("name", None)
    if kwargs:
        raise ValueError("Unrecognized keyword arguments for tf.print: %s" % sorted(kwargs))
    if stream not in (sys.stdout, sys.stderr, "stdout", "stderr"):
        raise ValueError("Unsupported output stream %r: tinyflow's tf.print writes to sys.stdout or sys.stderr"
                         % (stream,))
    template, tensors = _template(inputs)
    attrs = {"template": template, "sep": sep, "end": end, "summarize": -1 if summarize is None else int(summarize),
             "output_stream": "stdout" if stream in (sys.stdout, "stdout") else "stderr"}
    with get_default_graph().name_scope(name or "PrintV2"):
        return make_op_raw("PrintV2", tensors, attrs, name="PrintV2")
