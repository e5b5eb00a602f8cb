"""TF's session options (tf.ConfigProto, tf.GPUOptions, tf.GraphOptions, tf.OptimizerOptions,
tf.RunOptions, tf.RunMetadata) with TF 1.15's field names and defaults.

In TF these are protobuf messages; here they are plain records that accept exactly TF's fields
(another name is TF's error), so `config.gpu_options.allow_growth = True` and
`tf.ConfigProto(gpu_options=tf.GPUOptions(per_process_gpu_memory_fraction=0.5))` work. tinyflow reads
`device_count` ({'GPU': 0} forces the CPU) and `data_parallel`; XLA manages device memory itself,
so the memory and thread options are accepted and kept, not acted on.
"""


class _Options:
    FIELDS = {}   # name -> default (a class: a fresh nested record)

    def __init__(self, **fields):
        for name, default in self.FIELDS.items():
            object.__setattr__(self, name, default() if isinstance(default, type) else
                               (type(default)(default) if isinstance(default, (dict, list)) else default))
        for name, value in fields.items():
            if name not in self.FIELDS:
                raise ValueError('Protocol message %s has no "%s" field.' % (type(self).__name__, name))
            setattr(self, name, value)

    def __setattr__(self, name, value):
        if name not in self.FIELDS:
            raise AttributeError('Assignment not allowed (no field "%s" in protocol message object).' % name)
        object.__setattr__(self, name, value)

    def __eq__(self, other):
        return type(self) is type(other) and vars(self) == vars(other)

    def __repr__(self):
        changed = ["%s: %r" % (k, v) for k, v in vars(self).items()
                   if not isinstance(self.FIELDS[k], type) and v != self.FIELDS[k]
                   or isinstance(self.FIELDS[k], type) and v != self.FIELDS[k]()]
        return "%s(%s)" % (type(self).__name__, ", ".join(changed))

    def CopyFrom(self, other):
        for k, v in vars(other).items():
            object.__setattr__(self, k, v)


class GPUOptions(_Options):
    """tf.GPUOptions: accepted for scripts that set them (XLA's allocator decides)."""
    FIELDS = {"per_process_gpu_memory_fraction": 0.0, "allow_growth": False, "allocator_type": "",
              "deferred_deletion_bytes": 0, "visible_device_list": "", "polling_active_delay_usecs": 0,
              "polling_inactive_delay_msecs": 0, "force_gpu_compatible": False, "experimental": None}


class OptimizerOptions(_Options):
    """tf.OptimizerOptions (XLA optimizes every fetch set)."""
    L1, L0 = 0, -1
    DEFAULT, OFF, ON_1, ON_2 = 0, -1, 1, 2
    FIELDS = {"do_common_subexpression_elimination": False, "do_constant_folding": False,
              "max_folded_constant_in_bytes": 0, "do_function_inlining": False, "opt_level": 0,
              "global_jit_level": 0}


class RewriterConfig(_Options):
    """RewriterConfig (rewriter_config_pb2: Grappler's switches), accepted and kept: XLA rewrites the graph."""
    DEFAULT, ON, OFF, AGGRESSIVE = 0, 1, 2, 3   # Toggle
    DEFAULT_NUM_ITERS, ONE, TWO = 0, 1, 2
    DEFAULT_MEM_OPT, NO_MEM_OPT, MANUAL, HEURISTICS, SWAPPING_HEURISTICS, RECOMPUTATION_HEURISTICS, \
        SCHEDULING_HEURISTICS = range(7)
    FIELDS = dict(dict.fromkeys((
        "layout_optimizer constant_folding shape_optimization remapping arithmetic_optimization "
        "dependency_optimization loop_optimization function_optimization debug_stripper "
        "scoped_allocator_optimization pin_to_host_optimization implementation_selector auto_mixed_precision "
        "meta_optimizer_iterations min_graph_nodes memory_optimization meta_optimizer_timeout_ms").split(), 0),
        disable_model_pruning=False, disable_meta_optimizer=False,
        memory_optimizer_target_node_name_scope="", auto_parallel=None, fail_on_optimizer_errors=False,
        scoped_allocator_opts=None, optimizers=[], custom_optimizers=[], inter_optimizer_verifier_config=None,
        post_optimization_verifier_config=None)


class GraphOptions(_Options):
    FIELDS = {"enable_recv_scheduling": False, "optimizer_options": OptimizerOptions, "build_cost_model": 0,
              "build_cost_model_after": 0, "infer_shapes": False, "place_pruned_graph": False,
              "enable_bfloat16_sendrecv": False, "timeline_step": 0, "rewrite_options": RewriterConfig}


class ConfigProto(_Options):
    """tf.ConfigProto. tinyflow reads device_count ({'GPU': 0} forces the CPU) and data_parallel
    (a tf.distribute.DataParallel); the rest is accepted and kept."""
    FIELDS = {"device_count": {}, "intra_op_parallelism_threads": 0, "inter_op_parallelism_threads": 0,
              "use_per_session_threads": False, "session_inter_op_thread_pool": [], "placement_period": 0,
              "device_filters": [], "gpu_options": GPUOptions, "allow_soft_placement": False,
              "log_device_placement": False, "graph_options": GraphOptions, "operation_timeout_in_ms": 0,
              "rpc_options": None, "cluster_def": None, "isolate_session_state": False, "experimental": None,
              "data_parallel": None}

    @property
    def extra(self):   # tinyflow's own options (data_parallel), as the Session reads them
        return {"data_parallel": self.data_parallel} if self.data_parallel is not None else {}


class RunOptions(_Options):
    """tf.RunOptions: accepted by Session.run (tracing is XLA's profiler's job)."""
    NO_TRACE, SOFTWARE_TRACE, HARDWARE_TRACE, FULL_TRACE = 0, 1, 2, 3
    FIELDS = {"trace_level": 0, "timeout_in_ms": 0, "inter_op_thread_pool": 0, "output_partition_graphs": False,
              "debug_options": None, "report_tensor_allocations_upon_oom": False, "experimental": None}


class RunMetadata(_Options):
    """tf.RunMetadata: what Session.run reports back (empty step stats)."""
    FIELDS = {"step_stats": None, "cost_graph": None, "partition_graphs": [], "function_graphs": []}
