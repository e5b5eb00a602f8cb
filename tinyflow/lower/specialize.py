"""specialize: a fetch set compiled again for the values of the feeds that decide its shapes.

A fed value that decides an output shape (a SparseTensor's fed `dense_shape`, which gives the row
count of sparse_tensor_dense_matmul's segment sum; a fed count given as tf.random_uniform's shape)
leaves every op after it with an unknown shape: the fetch set runs as jitted segments around those
ops (docs/dynamic_shapes.md), each compiled again for every shape it meets. Such values are nearly
always the same at every step (the size of the graph, of the data). So, as tf2xla does with its
compile-time constant inputs, the Session compiles the fetch set once more with those feeds' values
as constants (program.plan's `constants`: known while tracing, as a tf.constant is): the ops they
decided are ordinary ops of static shape, and a fetch set with no other dynamic op is one jitted
function again.

Which feeds (`deciding_feeds`): integer feeds of at most MAX_ELEMENTS elements (a shape, a count: not
a batch's data, such as its sequence lengths, new at every step) from which a dynamic op's deciding
input is computed by stateless ops of at most program.STATIC_MAX elements (what plan computes while
tracing). Never a value drawn at random or read from a
variable (a sparse dropout's count stays dynamic: the fetch set keeps the segments it needs for it).

`Specializations` keeps the functions by those values (their bytes), at most `size` of them per fetch
set, least recently used first out. Values that keep changing (a slice's fed start, new at every step:
its shape, the same every time, needed no specialization) would compile the whole step each time:
after MISSES new values in a row the fetch set runs its segments, as without this, for good.
$TINYFLOW_SPECIALIZE=0 turns it off.

A specialized function that still has dynamic ops (counts decided by computed values: GAT's
sparse_add) is segmented only around them at first: segments.cut's `stable` runs, made for counts that
change at every step (a sparse dropout), are each one more program to compile (gat-sparse, 3 epochs:
105 compiles against 33). Once a dynamic op gives another shape than before, the function is compiled
again with them.
"""
import collections
import os
import threading

import numpy as np

from tinyflow.graph.registry import get_op_def
from tinyflow.lower.program import STATIC_MAX, is_dynamic


ENABLED = os.environ.get("TINYFLOW_SPECIALIZE", "1") != "0"
MISSES = 3         # new values in a row that stop a fetch set's specializing
MAX_ELEMENTS = 16   # the most elements of a value specialized on


def deciding_feeds(prog):
    """The fed tensors to specialize Program `prog` on (see the module's doc), in feed order."""
    if not prog.dynamic or not ENABLED:
        return []
    fed, ops, chosen = set(prog.feeds), set(prog.sub.ops), set()
    for s in prog.steps:
        if not s.dynamic:
            continue
        known = [t in prog.known and t not in fed for t in s.op.inputs]
        found = set()
        for i, t in enumerate(s.op.inputs):   # the inputs that decide: unknown, the op static without them
            if known[i] or not is_dynamic(s.op, [k or j != i for j, k in enumerate(known)]):
                continue
            feeds = _feeds_of(t, fed, prog.known, ops)
            if feeds is None:
                break
            found |= feeds
        else:
            chosen |= found
    return [t for t in prog.feeds if t in chosen]


def _feeds_of(t, fed, known, ops):
    """The feeds whose values make t's value known while tracing, or None when none can (it is
    random, a variable's, too big, or computed from a feed that is not a small integer one)."""
    found, seen, stack = set(), set(), [t]
    while stack:
        t = stack.pop()
        if t in seen or (t in known and t not in fed):
            continue
        seen.add(t)
        if t in fed:
            if not t.dtype.is_integer or (t.shape.num_elements() or 0) > MAX_ELEMENTS:
                return None
            found.add(t)
            continue
        opdef = get_op_def(t.op.type)
        if t.op not in ops or opdef.stateful or opdef.host or any(
                (u.shape.num_elements() or 0) > STATIC_MAX for u in t.op.outputs):
            return None
        stack.extend(t.op.inputs)
    return found


class Specializations:
    """The functions of one fetch set (`base`: its Lowered, run as segments) specialized on the values
    of `tensors` (fed, at `positions` in its feeds): `lowered(feeds)` is the one for these values,
    compiled by `compile({tensor: value}, stable_cuts)` when new; `base` for values of over MAX_ELEMENTS elements
    and once the values keep changing (MISSES new ones in a row)."""

    def __init__(self, base, tensors, compile, size):
        self.base, self.tensors, self.compile, self.size = base, tensors, compile, max(1, size)
        self.positions = [list(base.sub.feeds).index(t) for t in tensors]
        self.entries = collections.OrderedDict()   # key of the values -> (Lowered, {tensor: value})
        self.compiles = self.misses = 0            # misses: new values in a row
        self.lock = threading.Lock()

    def lowered(self, feeds):
        if self.misses >= MISSES:   # the values keep changing: the segments, as without this
            return self.base
        arrays = [np.asarray(feeds[i]) for i in self.positions]
        if any(a.size > MAX_ELEMENTS for a in arrays):
            return self.base
        key = tuple((a.dtype.str, a.shape, a.tobytes()) for a in arrays)
        with self.lock:   # (Session.run holds the Session's lock; Session.lowered does not)
            entry = self.entries.get(key)
            if entry is not None:
                self.misses = 0
                self.entries.move_to_end(key)
                low, constants = entry
                if not low.program.stable_cuts and low.dynamic_shapes.get("changed"):   # counts that change
                    low = self.compile(constants, True)
                    self.entries[key] = (low, constants)
                return low
            self.misses += 1
            if self.misses >= MISSES:
                self.entries.clear()
                return self.base
            self.compiles += 1
            constants = dict(zip(self.tensors, arrays))
            low = self.compile(constants, False)
            self.entries[key] = (low, constants)
            while len(self.entries) > self.size:
                self.entries.popitem(last=False)
            return low
