"""tf.train.Checkpoint in graph mode: object-based checkpoints keyed as TF 1.15 keys them.

A Checkpoint tracks the objects given to it as keyword arguments: variables, optimizers (their slots for
the tracked variables, and their own variables such as Adam's beta1_power) and other Checkpoints (nested
paths). Each variable is saved under TF's object-graph key, e.g. `model_v/.ATTRIBUTES/VARIABLE_VALUE`,
`model_v/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE`, `optimizer/beta1_power/.ATTRIBUTES/...`,
`save_counter/.ATTRIBUTES/VARIABLE_VALUE`, so a checkpoint TF wrote with tf.train.Checkpoint restores here
by those keys. What tinyflow writes has the same keys but no `_CHECKPOINTABLE_OBJECT_GRAPH` proto (the
object graph TF's own Checkpoint.restore walks): TF reads those files with NewCheckpointReader or
init_from_checkpoint, not with Checkpoint.restore. Other Python objects (Keras models, layers) are not
tracked here: a clear ValueError names them.
"""
import os

from tinyflow.api.train.optimizer import Optimizer
from tinyflow.api.train.saver import Saver
from tinyflow.api.train.tf_checkpoint import NewCheckpointReader
from tinyflow.formats.checkpoint import update_checkpoint_state
from tinyflow.graph import dtypes
from tinyflow.graph.core import control_dependencies, get_default_graph, get_default_session
from tinyflow.ops import state_ops

_VALUE = "/.ATTRIBUTES/VARIABLE_VALUE"
_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"


def _session(session):
    session = session or get_default_session()
    if session is None:
        raise ValueError("In graph mode a session must be passed (session=...) or be the default session.")
    return session


class Checkpoint:
    """Groups trackable objects (variables, optimizers, Checkpoints) and saves/restores them by TF's keys."""

    def __init__(self, **kwargs):
        self._children = {}
        self._save_counter = None
        for name, obj in sorted(kwargs.items()):
            if not isinstance(obj, (state_ops.Variable, Optimizer, Checkpoint)):
                raise ValueError("`Checkpoint` was expecting a trackable object (an object derived from "
                                 "`TrackableBase`), got {}. If you believe this object should be trackable (i.e. "
                                 "it is part of the TensorFlow Python API and manages state), please open an "
                                 "issue.".format(obj))
            self._children[name] = obj
            setattr(self, name, obj)

    @property
    def save_counter(self):
        """The number of save() calls (an int64 variable, made on first use as TF does)."""
        if self._save_counter is None:
            with control_dependencies(None), get_default_graph().name_scope(None):
                self._save_counter = state_ops.Variable(0, name="save_counter", trainable=False, dtype=dtypes.int64)
        return self._save_counter

    def _keys(self, prefix=""):
        """{checkpoint key: variable} of everything tracked (TF's object-graph paths)."""
        keys, variables, optimizers = {}, {}, {}
        for name, obj in self._children.items():
            if isinstance(obj, state_ops.Variable):
                keys[prefix + name + _VALUE] = obj
                variables[obj] = prefix + name
            elif isinstance(obj, Optimizer):
                optimizers[prefix + name] = obj
            else:
                keys.update(obj._keys(prefix + name + "/"))
        for path, opt in optimizers.items():
            for var in opt._non_slot.values():
                keys[path + "/" + var.op.name.rpartition("/")[2] + _VALUE] = var
            for slot_name, slots in opt._slots.items():
                for var, slot in slots.items():
                    if var in variables:
                        # (tinyflow's slot names are TF's: m, v, momentum, accumulator, ...)
                        keys["%s/.OPTIMIZER_SLOT/%s/%s%s" % (variables[var], path, slot_name, _VALUE)] = slot
        if not prefix and self._save_counter is not None:   # (made by save() or restore(), as TF makes it)
            keys["save_counter" + _VALUE] = self._save_counter
        return keys

    def write(self, file_prefix, session=None):
        """Writes the checkpoint `file_prefix` (no counter, no `checkpoint` state file); returns it."""
        session = _session(session)
        Saver(self._keys(), max_to_keep=None).save(session, file_prefix, write_meta_graph=False, write_state=False)
        return file_prefix

    def save(self, file_prefix, session=None):
        """Increments save_counter, writes `file_prefix-<counter>` and makes it the directory's latest."""
        session = _session(session)
        counter = self.save_counter
        if not session.run(state_ops.is_variable_initialized(counter)):
            session.run(counter.initializer)
        number = session.run(state_ops.assign_add(counter, 1))
        path = self.write("%s-%d" % (file_prefix, number), session)
        update_checkpoint_state(os.path.dirname(file_prefix) or ".", path, [path])
        return path

    def restore(self, save_path):
        """A status whose run_restore_ops(session) restores what the checkpoint has of the tracked objects."""
        self.save_counter   # TF makes the counter here, so that it is restored (or initialized) with the rest
        return CheckpointLoadStatus(self, save_path)


class CheckpointLoadStatus:
    """What Checkpoint.restore returns: run_restore_ops / initialize_or_restore and the assert_* checks."""

    def __init__(self, checkpoint, save_path):
        self._keys = checkpoint._keys()
        self._save_path = save_path
        self._stored = set()
        if save_path is not None:
            reader = NewCheckpointReader(save_path)
            self._stored = set(reader.get_variable_to_shape_map()) - {_GRAPH_KEY}

    def run_restore_ops(self, session=None):
        """Restores every tracked variable the checkpoint holds."""
        found = {k: v for k, v in self._keys.items() if k in self._stored}
        if found:
            Saver(found).restore(_session(session), self._save_path)

    def initialize_or_restore(self, session=None):
        """Initializes the tracked variables, then restores those the checkpoint holds."""
        session = _session(session)
        session.run(state_ops.group(*[v.initializer for v in self._keys.values()]))
        if self._save_path is not None:
            self.run_restore_ops(session)

    def assert_consumed(self):
        """AssertionError unless every tracked variable and every checkpointed value matched."""
        missing = sorted(k for k in self._keys if k not in self._stored)
        unused = sorted(self._stored - set(self._keys))
        if missing or unused:
            raise AssertionError("Unresolved object in checkpoint: tracked but not in the checkpoint %s; in the "
                                 "checkpoint but not tracked %s" % (missing, unused))
        return self

    def assert_existing_objects_matched(self):
        """AssertionError unless every tracked variable is in the checkpoint."""
        missing = sorted(k for k in self._keys if k not in self._stored)
        if missing:
            raise AssertionError("Unresolved objects: %s not in the checkpoint %s" % (missing, self._save_path))
        return self

    def expect_partial(self):
        return self
