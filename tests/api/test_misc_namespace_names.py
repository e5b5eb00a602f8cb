"""Small TF 1.15 names of tf.test, tf.xla, tf.sysconfig, tf.initializers, tf.config and tf.autograph."""
import os

import numpy as np

import tinyflow as tf


def test_test_helpers():
    class Thing:
        value = 1

        @staticmethod
        def fn():
            return "old"
    stubs = tf.test.StubOutForTesting()
    stubs.Set(Thing, "value", 2)
    stubs.Set(Thing, "fn", staticmethod(lambda: "new"))
    assert Thing.value == 2 and Thing.fn() == "new"
    stubs.UnsetAll()
    assert Thing.value == 1 and Thing.fn() == "old"
    thing = Thing()
    with tf.test.StubOutForTesting() as s:
        s.SmartSet(thing, "value", 5)
        assert thing.value == 5 and Thing.value == 5
    assert Thing.value == 1
    with tf.test.mock.patch.object(Thing, "value", 7):
        assert Thing.value == 7
    assert os.path.isdir(tf.test.test_src_dir_path("tinyflow"))
    assert isinstance(tf.test.benchmark_config(), tf.ConfigProto)


def test_xla_sysconfig_initializers_config_autograph():
    tf.reset_default_graph()
    a = tf.constant([1.0, 2.0])
    with tf.xla.experimental.jit_scope():
        b = a * 3
    outs = tf.xla.experimental.compile(lambda x, y: (x + y, x * y), [a, b])
    assert [t.op.name for t in outs] == ["output_0", "output_1"]
    assert tf.xla.experimental.compile(lambda: None).type == "NoOp"
    table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a", "b"], [1, 2]), -1)
    looked = table.lookup(tf.constant(["b", "z"]))

    @tf.function
    def loop(n):
        total = tf.constant(0)
        for i in tf.range(n):
            tf.autograph.experimental.set_loop_options(maximum_iterations=10)
            total += i
        return total
    with tf.Session() as sess:
        sess.run(tf.initializers.tables_initializer())
        got = sess.run(outs + [looked])
    np.testing.assert_allclose(got[0], [4.0, 8.0])
    np.testing.assert_allclose(got[1], [3.0, 12.0])
    assert got[2].tolist() == [2, -1]
    assert tf.sysconfig.CXX11_ABI_FLAG == 0 and tf.sysconfig.MONOLITHIC_BUILD == 0
    assert tf.sysconfig.get_compile_flags()[-1] == "-D_GLIBCXX_USE_CXX11_ABI=0"
    assert tf.sysconfig.get_link_flags() == ["-L" + tf.sysconfig.get_lib()]
    assert tf.config.experimental_list_devices()[0] == "/job:localhost/replica:0/task:0/device:CPU:0"
    assert callable(loop)


def test_flags_tf_decorator_and_tf_stack():
    tf_decorator = tf.flags.tf_decorator
    assert tf.app.flags.tf_decorator is tf_decorator

    def target(a, b=2):
        """Adds."""
        return a + b

    def wrapper(*args, **kwargs):
        return target(*args, **kwargs) * 10
    decorated = tf_decorator.make_decorator(target, wrapper, "times_ten")
    assert decorated(1) == 30 and decorated.__name__ == "target" and decorated.__wrapped__ is target
    decorators, inner = tf_decorator.unwrap(decorated)
    assert [d.decorator_name for d in decorators] == ["times_ten"] and inner is target

    def other(a, b=2):
        return a - b
    tf_decorator.rewrap(decorated, target, other)
    assert tf_decorator.unwrap(decorated)[1] is other

    def here():
        return tf_decorator.tf_stack.extract_stack()
    frames = here()
    assert frames[-1].name == "here" and frames[-2].name == "test_flags_tf_decorator_and_tf_stack"
    rows = tf_decorator.tf_stack.convert_stack(frames[-1:])
    assert rows[0][3] == "return tf_decorator.tf_stack.extract_stack()"
    with tf_decorator.tf_stack.CurrentModuleFilter():
        assert all(f.filename != __file__ for f in here())


def test_distribute_replica_context_and_input_context():
    tf.reset_default_graph()
    default = tf.distribute.get_replica_context()
    assert default.replica_id_in_sync_group == 0 and default.num_replicas_in_sync == 1
    strategy = tf.distribute.MirroredStrategy()
    with strategy.scope():
        assert tf.distribute.get_replica_context() is None   # the cross-replica context
        ctx = strategy.experimental_run_v2(tf.distribute.get_replica_context)
        assert isinstance(ctx, tf.distribute.ReplicaContext) and ctx.strategy is strategy
        assert ctx.merge_call(lambda s, x: (s, x), args=(3,)) == (strategy, 3)
    tf.distribute.experimental_set_strategy(strategy)
    assert tf.distribute.get_strategy() is strategy
    tf.distribute.experimental_set_strategy(None)
    assert not tf.distribute.has_strategy()
    assert tf.distribute.get_loss_reduction() == tf.distribute.ReduceOp.MEAN
    tf.losses.mean_squared_error([1.0], [2.0], reduction=tf.losses.Reduction.SUM)
    assert tf.distribute.get_loss_reduction() == tf.distribute.ReduceOp.SUM
    context = tf.distribute.InputContext(num_input_pipelines=2, input_pipeline_id=1, num_replicas_in_sync=4)
    assert context.get_per_replica_batch_size(8) == 2 and context.input_pipeline_id == 1
    assert tf.distribute.InputReplicationMode.PER_WORKER.value == "PER_WORKER"
