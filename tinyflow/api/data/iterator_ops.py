"""tf.data.Iterator: the two graph ops that connect a host-side Dataset to a Session.

- `IteratorGetNext` (what `get_next()` returns) has no lowering: its outputs are fed. Before each
  run whose fetches need it, the Session calls its host rule (a Fed HostRule), which pulls the next
  element of this session's iteration. Past the end it raises OutOfRangeError("End of
  sequence") before anything is dispatched, so a training step that reads it changes nothing.
- `MakeIterator` (an initializer) has no outputs; its inputs are the graph tensors the dataset reads
  (placeholders, a fed batch size). The Session fetches them through the jitted function and calls
  its host rule (a FromFetched HostRule), which (re)starts this session's iteration over those values.

Iterators are per-session resources in TF: the iteration state lives in `_STATE[session]`.
"""
import weakref

from tinyflow.graph import errors
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import Tensor, get_default_graph
from tinyflow.graph.registry import Fed, FromFetched, register_op
from tinyflow.graph.serialize import register_runtime_only
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core.base import constant
from tinyflow.api.data import structure as nest

_STATE = weakref.WeakKeyDictionary()  # Session -> {Iterator: generator of flat elements}
# Session -> {Iterator: [dataset, Run, elements taken]}: what a checkpoint of the iterator holds (its
# position), and how to reach it again (make_saveable_from_iterator in experimental_iterator.py)
_PROGRESS = weakref.WeakKeyDictionary()
_ITERATORS = weakref.WeakKeyDictionary()  # Graph -> [Iterator] (TF's GLOBAL_ITERATORS collection)


def _start(session, it, dataset, run):
    """Starts `it`'s iteration over `dataset` in `session` (an initializer, or a one-shot's first use)."""
    _PROGRESS.setdefault(session, {})[it] = [dataset, run, 0]
    elements = _STATE.setdefault(session, {})[it] = dataset._iterate(run)
    return elements


class Run:
    """One initialization of an iterator: graph tensor values (Tensor -> numpy) and per-run state."""

    def __init__(self, values=None, session=None):
        self.values = dict(values or {})
        self.session = session  # the Session iterating: a dataset function's own Session reads its tables
        self.state = {}  # dataset -> its state for this run (a shuffle's random generator)

    def value(self, x):
        """A dataset argument's value: a Tensor's fetched value, or the constant itself."""
        return self.values[x] if isinstance(x, Tensor) else x


def _runtime_iterator(op):
    """The op's Iterator; one read from a graph file was not saved there (it lives in the program)."""
    it = op.attrs["iterator"]
    if not isinstance(it, Iterator):
        raise errors.FailedPreconditionError(
            op.node_def, op, "%s: its iterator was not saved in the graph file it was read from (a Dataset's "
            "iterator lives in the program that built it): build the input pipeline again" % op.name)
    return it


def _get_next(session, op, inputs):
    it = _runtime_iterator(op)
    state = _STATE.setdefault(session, {})
    elements = state.get(it)
    if elements is None:
        if it._dataset is None or not it._one_shot:
            raise errors.FailedPreconditionError(
                op.node_def, op, "GetNext() failed because the iterator has not been initialized. Ensure that you "
                "have run the initializer operation for this iterator before getting the next element.\n\t "
                "[[{{node %s}}]]" % op.name)
        elements = _start(session, it, it._dataset, Run(session=session))  # a one-shot iterator starts on first use
    try:
        flat = next(elements)
    except StopIteration:
        raise errors.OutOfRangeError(op.node_def, op, "End of sequence\n\t [[{{node %s}}]]" % op.name) from None
    _PROGRESS[session][it][2] += 1
    return [nest.check_value(v, d, s, op.name) for v, d, s in zip(flat, op.attrs["output_types"],
                                                                   op.attrs["output_shapes"])]


def _make_iterator(session, op, input_values):
    it, dataset = _runtime_iterator(op), op.attrs["dataset"]
    _start(session, it, dataset, Run(zip(op.inputs[1:], input_values[1:]), session))
    return []


register_op("IteratorGetNext", shape=lambda s, a, v: list(a["output_shapes"]),
            dtype=lambda d, a: list(a["output_types"]), grad=None, stateful=True, host=Fed(_get_next))
register_op("MakeIterator", shape=lambda s, a, v: [], dtype=lambda d, a: [], grad=None, stateful=True,
            host=FromFetched(_make_iterator))


@register_runtime_only
class Iterator:
    """Reads a Dataset in a graph: `get_next()` gives the next element's tensors at each run."""

    def __init__(self, dataset, types, shapes, one_shot=False):
        self._dataset = dataset
        self._types, self._shapes = types, shapes
        self._one_shot = one_shot
        self._initializer = None
        graph = get_default_graph()
        self._name = graph.unique_name("OneShotIterator" if one_shot else "IteratorV2")
        _ITERATORS.setdefault(graph, []).append(self)

    @classmethod
    def _make_one_shot(cls, dataset):
        for t in dataset._sources():
            raise ValueError(
                "Failed to capture resource named '%s' in a function: a one-shot iterator can only read constants, "
                "and %s (op: '%s') is computed or fed at run time. Use `make_initializable_iterator()` and run its "
                "initializer (feeding what it needs) instead." % (t.op.name, t.name, t.op.type))
        return cls(dataset, dataset._types, dataset._shapes, one_shot=True)

    @classmethod
    def _make_initializable(cls, dataset):
        it = cls(None, dataset._types, dataset._shapes)
        it._initializer = it.make_initializer(dataset)
        return it

    @staticmethod
    def from_structure(output_types, output_shapes=None, shared_name=None, output_classes=None):
        """An iterator for any dataset of this structure (reinitializable): `make_initializer(ds)`
        gives the op that starts it over `ds`."""
        types, shapes = nest.normalize_types_and_shapes(output_types, output_shapes)
        return Iterator(None, types, shapes)

    @staticmethod
    def from_string_handle(string_handle, output_types, output_shapes=None, output_classes=None):
        raise NotImplementedError("tinyflow: feedable iterators (string handles) are not supported; use "
                                  "Iterator.from_structure and make_initializer to switch datasets.")

    output_types = property(lambda self: self._types, doc="The nested dtypes of an element.")
    output_shapes = property(lambda self: self._shapes, doc="The nested static shapes of an element.")
    output_classes = property(lambda self: nest.map_structure(lambda _: Tensor, self._types))

    @property
    def initializer(self):
        """The op that (re)starts this iterator over its dataset (initializable iterators only)."""
        if self._initializer is None:
            raise ValueError("Iterator does not have an initializer.")
        return self._initializer

    def make_initializer(self, dataset, name=None):
        """An op that (re)starts this iterator over `dataset`, whose structure must match the iterator's."""
        if not callable(getattr(dataset, "_iterate", None)):  # a tf.data.Dataset (dataset_ops.py builds on this module)
            raise TypeError("Expected a tf.data.Dataset, got %r" % (dataset,))
        types, shapes = nest.flatten(self._types), nest.flatten(self._shapes)
        try:
            nest.flatten_up_to(self._types, dataset._types)
        except ValueError:
            raise TypeError("Expected output structure %s but got dataset with structure %s"
                            % (self._types, dataset._types)) from None
        if nest.flatten(dataset._types) != types:
            raise TypeError("Expected output types %s but got dataset with output types %s"
                            % (self._types, dataset._types))
        if not all(s.is_compatible_with(d) for s, d in zip(shapes, dataset._flat_shapes)):
            raise TypeError("Expected output shapes compatible with %s but got dataset with output shapes %s"
                            % (self._shapes, dataset._shapes))
        g = get_default_graph()
        with g.name_scope(name or "make_initializer") as scope:
            # an input even when the dataset reads no tensor: the Session computes a host op after a
            # jitted run that fetches its inputs, and with no inputs there would be no run
            anchor = constant(0, dt.int32, name="anchor")
            return g.create_op("MakeIterator", [anchor] + dataset._sources(),
                               {"iterator": self, "dataset": dataset}, name=scope)

    def get_next(self, name=None):
        """The next element's tensors (nested like the dataset's elements); each run that needs them
        takes a new element, and raises tf.errors.OutOfRangeError at the end."""
        op = get_default_graph().create_op(
            "IteratorGetNext", [], {"iterator": self, "output_types": nest.flatten(self._types),
                                    "output_shapes": [TensorShape(s) for s in nest.flatten(self._shapes)]},
            name=name or "IteratorGetNext")
        return nest.pack_as(self._types, op.outputs)

    def string_handle(self, name=None):
        raise NotImplementedError("tinyflow: feedable iterators (string handles) are not supported.")


def make_one_shot_iterator(dataset):
    """tf.compat.v1.data.make_one_shot_iterator(dataset)."""
    return dataset.make_one_shot_iterator()


def make_initializable_iterator(dataset, shared_name=None):
    """tf.compat.v1.data.make_initializable_iterator(dataset)."""
    return dataset.make_initializable_iterator(shared_name)


def get_output_types(dataset_or_iterator):
    return dataset_or_iterator.output_types


def get_output_shapes(dataset_or_iterator):
    return dataset_or_iterator.output_shapes


def get_output_classes(dataset_or_iterator):
    return dataset_or_iterator.output_classes
