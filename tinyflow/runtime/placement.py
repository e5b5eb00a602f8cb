"""Where a Session's values live: one device (the default), or a data-parallel mesh of devices.

`DataPlacement` runs the one jitted function of a fetch set with XLA's SPMD partitioner over a 1-D
mesh named "data", over all devices of all processes (JAX's distributed runtime):
- a fed tensor whose static first dimension is unknown (a placeholder [None, ...]) is the batch:
  split along "data". Each process feeds its own rows; the global batch is the processes' rows in
  process order. A feed whose rows do not divide by this process's device count is an error
  before dispatch, naming the tensor and the counts.
- everything else fed, every variable and every optimizer slot is replicated (or, with
  shard_variables="auto", a big variable is split along its first dimension: ZeRO-style).
- XLA inserts the all-reduce of the gradients. A fetched value split along "data" comes back as
  the caller's own rows; a replicated one (a loss, a variable, a metric) as the one global value.
"""
import weakref

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from tinyflow.graph import errors

_SHARD_MIN_BYTES = 1 << 20
DEFAULT = None   # a tf.distribute.DataParallel every Session uses (python -m tinyflow --data-parallel)
PEERS = None     # who is alive in a multi-process job (api/distribute/liveness.py): .check(), .error(cause)


class DataPlacement:
    """The values of a data-parallel Session (see the module docstring)."""

    def __init__(self, devices=None, shard_variables=None):
        devices = list(devices) if devices is not None else jax.devices()
        self.mesh = Mesh(np.array(devices), ("data",))
        self.size = len(devices)
        self.local = sum(1 for d in devices if d.process_index == jax.process_index())
        self.replicated = NamedSharding(self.mesh, PartitionSpec())
        self.split = NamedSharding(self.mesh, PartitionSpec("data"))
        self.shard_variables = shard_variables
        # a step over several accelerators is not checked against their free memory before each call
        # (runtime/executables.py does that for one device): there it keeps the old buffers
        self.may_donate = all(d.platform == "cpu" for d in devices)
        self._jitted = weakref.WeakKeyDictionary()   # Lowered -> its function jitted for the mesh

    # ---- values in ------------------------------------------------------------------------------
    def variable_sharding(self, shape, nbytes):
        if (self.shard_variables == "auto" and len(shape) >= 1 and shape[0] % self.size == 0
                and nbytes >= _SHARD_MIN_BYTES):
            return self.split
        return self.replicated

    def put_variable(self, value):
        a = np.asarray(value)
        return self._global(a, self.variable_sharding(a.shape, a.nbytes))

    def _global(self, a, sharding):
        return jax.make_array_from_callback(a.shape, sharding, lambda index: a[index])

    def is_batch(self, tensor):
        s = tensor.shape
        return s.ndims is not None and s.ndims >= 1 and s[0].value is None

    def put_feeds(self, tensors, values):
        out = []
        for t, v in zip(tensors, values):
            v = np.asarray(v)
            if self.is_batch(t):
                if v.shape[0] % self.local:
                    raise errors.InvalidArgumentError(
                        t.op.node_def, t.op, "tinyflow: the batch of %d rows fed to %s does not divide by the %d "
                        "devices of this process (data-parallel Session): feed a multiple of %d rows"
                        % (v.shape[0], t.name, self.local, self.local))
                out.append(jax.make_array_from_process_local_data(self.split, v))
            else:
                out.append(self._global(v, self.replicated))
        return tuple(out)

    # ---- the function -----------------------------------------------------------------------------
    def jitted(self, lowered):
        """lowered.jitted for the mesh (the same flat arguments and results): new variable values keep
        their variables' shardings."""
        fn = self._jitted.get(lowered)
        if fn is None:
            if lowered.program.segmented:   # its main function calls segments: no one jit
                from tinyflow.graph import errors
                why = ("with value-dependent shapes (tf.boolean_mask, tf.unique, ...)" if lowered.program.dynamic
                       else "of more steps than $TINYFLOW_SPLIT_STEPS (raise it)")
                raise errors.UnimplementedError(None, None, "tinyflow: a fetch set %s cannot run data-parallel"
                                                % why)
            shardings = [self._static_sharding(v) for v in lowered.updated]
            raw = lowered.flat_fn

            def step(*args):   # Lowered.jitted's flat convention: (*finals, *fetches)
                out = raw(*args)
                n = len(shardings)
                return tuple(jax.lax.with_sharding_constraint(f, s) for f, s in zip(out[:n], shardings)) + out[n:]
            donate = tuple(range(len(lowered.rw_vars))) if lowered.donate and self.may_donate else ()
            fn = self._jitted[lowered] = jax.jit(step, donate_argnums=donate,   # its XLA options too
                                                 compiler_options=lowered.compiler_options or None)
        return fn

    def _static_sharding(self, var_op):
        t = var_op.outputs[0]
        if not t.shape.is_fully_defined():
            return self.replicated
        shape = tuple(t.shape.as_list())
        return self.variable_sharding(shape, int(np.prod(shape, dtype=np.int64)) * t.dtype.size)

    # ---- values out -------------------------------------------------------------------------------
    def fetch(self, x):
        """A fetched value as numpy: this process's rows of a split value, else the one global value."""
        if not isinstance(x, jax.Array) or x.is_fully_replicated:
            return np.asarray(x.addressable_data(0) if isinstance(x, jax.Array) else x)
        if x.is_fully_addressable:
            return np.asarray(x)
        shards = sorted(x.addressable_shards, key=lambda s: s.index[0].start or 0)
        rows, seen = [], set()
        for s in shards:
            if s.index[0].start not in seen:   # a replica of the same rows on another local device
                seen.add(s.index[0].start)
                rows.append(np.asarray(s.data))
        return np.concatenate(rows, axis=0)

    def bytes_per_device(self, values):
        """Bytes of `values` (device arrays) held on one device: what shard_variables saves."""
        total = 0
        for a in values:
            shard = a.addressable_shards[0].data if isinstance(a, jax.Array) else a
            total += int(np.prod(shard.shape)) * np.dtype(shard.dtype).itemsize
        return total
