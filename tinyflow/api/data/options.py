"""tf.data.Options and the tf.data.experimental option groups (TF 1.15's names, types and defaults).

tinyflow's pipelines run on the host in Python: the options are accepted, checked, merged and
reported (`dataset.options()`) as TF does, and change nothing.
"""


class _OptionsBase:
    """Options with a fixed set of typed properties (None: not set); merge() combines two of them."""
    _SPEC = {}  # name -> (type or option group class, default)

    def __init__(self):
        for name, (kind, default) in self._SPEC.items():
            object.__setattr__(self, name, kind() if isinstance(kind, type) and issubclass(kind, _OptionsBase)
                               else default)

    def __setattr__(self, name, value):
        if name not in self._SPEC:
            raise AttributeError("Cannot set the property %s on %s." % (name, type(self).__name__))
        kind = self._SPEC[name][0]
        if value is not None and kind is not None and not isinstance(value, kind):
            raise TypeError("Property \"%s\" must be of type %s, got: %r (type: %s)" % (name, kind, value, type(value)))
        object.__setattr__(self, name, value)

    def __eq__(self, other):
        return type(self) is type(other) and all(getattr(self, n) == getattr(other, n) for n in self._SPEC)

    def __ne__(self, other):
        return not self == other

    __hash__ = None

    def merge(self, options):
        """A new options object with the values of both; a value set differently in each: ValueError."""
        out = type(self)()
        for name, (kind, default) in self._SPEC.items():
            mine, theirs = getattr(self, name), getattr(options, name)
            if isinstance(mine, _OptionsBase):
                value = mine.merge(theirs)
            elif mine is None or mine == default:
                value = theirs
            elif theirs is None or theirs == default or theirs == mine:
                value = mine
            else:
                raise ValueError("Cannot merge incompatible values (%r and %r) of option: %s" % (mine, theirs, name))
            object.__setattr__(out, name, value)
        return out


def _group(name, doc, spec):
    return type(name, (_OptionsBase,), {"__doc__": doc, "_SPEC": spec, "__module__": __name__})


MapVectorizationOptions = _group("MapVectorizationOptions", "tf.data.experimental.MapVectorizationOptions.", {
    "enabled": (bool, None), "use_choose_fastest": (bool, None)})
OptimizationOptions = _group("OptimizationOptions", "tf.data.experimental.OptimizationOptions.", dict(
    {n: (bool, None) for n in ("apply_default_optimizations", "autotune", "autotune_buffers", "filter_fusion",
                                   "filter_with_random_uniform_fusion", "hoist_random_uniform",
                                   "map_and_batch_fusion", "map_and_filter_fusion", "map_fusion",
                                   "map_parallelization", "noop_elimination", "parallel_batch",
                                   "shuffle_and_repeat_fusion")},
    autotune_algorithm=(None, None), autotune_cpu_budget=(int, None),
    map_vectorization=(MapVectorizationOptions, None)))
ThreadingOptions = _group("ThreadingOptions", "tf.data.experimental.ThreadingOptions.", {
    "max_intra_op_parallelism": (int, None), "private_threadpool_size": (int, None)})
StatsOptions = _group("StatsOptions", "tf.data.experimental.StatsOptions.", {
    "aggregator": (None, None), "counter_prefix": (str, ""), "latency_all_edges": (bool, None),
    "prefix": (str, "")})
DistributeOptions = _group("DistributeOptions", "tf.data.experimental.DistributeOptions.", {
    "auto_shard": (bool, True), "num_devices": (int, None)})
Options = _group("Options", "tf.data.Options: how a dataset's pipeline may run (accepted; tinyflow runs every "
                 "pipeline on the host).", {
                     "experimental_deterministic": (bool, None), "experimental_distribute": (DistributeOptions, None),
                     "experimental_optimization": (OptimizationOptions, None), "experimental_slack": (bool, None),
                     "experimental_stateful_whitelist": (list, None), "experimental_stats": (StatsOptions, None),
                     "experimental_threading": (ThreadingOptions, None)})
