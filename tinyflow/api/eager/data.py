"""tf.data while executing eagerly: `for x, y in dataset`, `tfe.Iterator(dataset)` and a one-shot
iterator's `get_next()`, each element as EagerTensors."""
import numpy as np

from tinyflow.graph import errors
from tinyflow.api.data import structure as nest
from tinyflow.api.data.iterator_ops import Run
from tinyflow.runtime.eager.context import executing_eagerly
from tinyflow.runtime.eager.execute import execute
from tinyflow.graph.core import get_default_graph


class Iterator:
    """Iterates a dataset eagerly (tf.contrib.eager.Iterator; what `iter(dataset)` returns)."""

    def __init__(self, dataset):
        if not executing_eagerly():
            raise RuntimeError("{} objects can only be used when eager execution is enabled, use "
                               "tf.data.Dataset.make_initializable_iterator or "
                               "tf.data.Dataset.make_one_shot_iterator for graph construction".format(type(self)))
        self._dataset = dataset
        self._elements = dataset._iterate(Run())

    output_types = property(lambda self: self._dataset.output_types)
    output_shapes = property(lambda self: self._dataset.output_shapes)
    output_classes = property(lambda self: self._dataset.output_classes)

    def __iter__(self):
        return self

    def __next__(self):
        flat = next(self._elements)
        graph = get_default_graph()
        tensors = [execute(graph, "Const", [], {"value": np.asarray(v), "dtype": d}, "Const", None).outputs[0]
                   for v, d in zip(flat, self._dataset._flat_types)]
        return nest.pack_as(self._dataset._types, tensors)

    next = __next__

    def get_next(self, name=None):
        """The next element; OutOfRangeError at the end (TF's eager iterator)."""
        try:
            return self.__next__()
        except StopIteration:
            raise errors.OutOfRangeError(None, None, "End of sequence") from None
