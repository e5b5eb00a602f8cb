"""tf.contrib.slim.nets against TF 1.15 (tests/fixtures/slim_nets/make_slim_nets_fixture.py wrote the
names, shapes, end_points, checkpoints and logits): every bundled net has TF's variables (names, shapes,
order), trainable variables and end_points (keys, static shapes, order); small configurations restore
the checkpoints TF saved and give TF's logits."""
import json
import os

import numpy as np
import pytest

import tinyflow as tf
import tinyflow.api.contrib.slim as slim
from tinyflow.api.contrib.slim.nets import alexnet, inception, overfeat, resnet_utils, resnet_v1, resnet_v2, vgg

HERE = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "slim_nets")
FIX = json.load(open(os.path.join(HERE, "nets.json")))

STRUCTURE = {
    "alexnet_v2": (alexnet.alexnet_v2_arg_scope, alexnet.alexnet_v2, 224),
    "overfeat": (overfeat.overfeat_arg_scope, overfeat.overfeat, 231),
    "vgg_a": (vgg.vgg_arg_scope, vgg.vgg_a, 224),
    "vgg_16": (vgg.vgg_arg_scope, vgg.vgg_16, 224),
    "vgg_19": (vgg.vgg_arg_scope, vgg.vgg_19, 224),
    "inception_v1": (inception.inception_v1_arg_scope, inception.inception_v1, 224),
    "inception_v2": (inception.inception_v2_arg_scope, inception.inception_v2, 224),
    "inception_v3": (inception.inception_v3_arg_scope, inception.inception_v3, 299),
    "resnet_v1_50": (resnet_utils.resnet_arg_scope, resnet_v1.resnet_v1_50, 224),
    "resnet_v1_101": (resnet_utils.resnet_arg_scope, resnet_v1.resnet_v1_101, 224),
    "resnet_v1_152": (resnet_utils.resnet_arg_scope, resnet_v1.resnet_v1_152, 224),
    "resnet_v1_200": (resnet_utils.resnet_arg_scope, resnet_v1.resnet_v1_200, 224),
    "resnet_v2_50": (resnet_utils.resnet_arg_scope, resnet_v2.resnet_v2_50, 224),
    "resnet_v2_101": (resnet_utils.resnet_arg_scope, resnet_v2.resnet_v2_101, 224),
    "resnet_v2_152": (resnet_utils.resnet_arg_scope, resnet_v2.resnet_v2_152, 224),
    "resnet_v2_200": (resnet_utils.resnet_arg_scope, resnet_v2.resnet_v2_200, 224),
}


def describe(logits, end_points):
    return {
        "variables": [[v.op.name, v.shape.as_list()] for v in tf.global_variables()],
        "trainable": [v.op.name for v in tf.trainable_variables()],
        "model_variables": len(slim.get_model_variables()),
        "end_points": [[k, v.shape.as_list()] for k, v in end_points.items()],
        "logits_shape": logits.shape.as_list(),
        "update_ops": len(tf.get_collection(tf.GraphKeys.UPDATE_OPS)),
        "regularization_losses": len(tf.losses.get_regularization_losses()),
    }


def assert_same(got, want):
    for key in want:
        if isinstance(want[key], list) and isinstance(got[key], list):
            assert len(got[key]) == len(want[key]), key
            for g, w in zip(got[key], want[key]):
                assert g == w, key
        if key in got:
            assert got[key] == want[key], key


DEEP = ("resnet_v1_101", "resnet_v1_152", "resnet_v1_200", "resnet_v2_101", "resnet_v2_152", "resnet_v2_200")


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in DEEP else n
                                  for n in sorted(STRUCTURE)])
def test_structure_matches_tf(name):
    arg_scope_fn, net_fn, size = STRUCTURE[name]
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [1, size, size, 3])
        with slim.arg_scope(arg_scope_fn()):
            kwargs = {"num_classes": 1000} if name.startswith("resnet") else {}
            logits, end_points = net_fn(x, **kwargs)
        got = describe(logits, end_points)
    assert_same(got, FIX["structure"][name])


def small_resnet(module, x, is_training, output_stride=None):
    block = module.resnet_v1_block if module is resnet_v1 else module.resnet_v2_block
    blocks = [block("block1", base_depth=4, num_units=2, stride=2),
              block("block2", base_depth=8, num_units=2, stride=1)]
    fn = module.resnet_v1 if module is resnet_v1 else module.resnet_v2
    with slim.arg_scope(resnet_utils.resnet_arg_scope()):
        return fn(x, blocks, num_classes=3, is_training=is_training, output_stride=output_stride,
                  scope="small_" + fn.__name__)


def small_inception_v1(x, is_training):
    with slim.arg_scope(inception.inception_v1_arg_scope()):
        with slim.arg_scope([slim.batch_norm], is_training=is_training):
            return inception.inception_v1_base(x, final_endpoint="Mixed_3b")


def small_inception_v2(x, is_training):
    with slim.arg_scope(inception.inception_v2_arg_scope()):
        return inception.inception_v2(x, num_classes=3, is_training=is_training, depth_multiplier=0.1,
                                      min_depth=4)


def small_inception_v3(x, is_training):
    with slim.arg_scope(inception.inception_v3_arg_scope()):
        return inception.inception_v3(x, num_classes=3, is_training=is_training, depth_multiplier=0.1,
                                      min_depth=4)


SMALL = {
    "resnet_v1_small": lambda x, t: small_resnet(resnet_v1, x, t),
    "resnet_v1_small_os4": lambda x, t: small_resnet(resnet_v1, x, t, 4),
    "resnet_v2_small": lambda x, t: small_resnet(resnet_v2, x, t),
    "inception_v1_mixed_3b": small_inception_v1,
    "inception_v2_dm01": small_inception_v2,
    "inception_v3_dm01": small_inception_v3,
}


@pytest.mark.slow
@pytest.mark.parametrize("name,is_training", [(n, t) for n in sorted(SMALL) for t in (False, True)
                                              if ("logits_training" if t else "logits") in FIX["small"][n]])
def test_tf_checkpoint_restores_to_tf_logits(name, is_training):
    want = FIX["small"][name]
    x_val = np.random.RandomState(want["seed"]).uniform(-1, 1, want["input_shape"]).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, want["input_shape"])
        logits, end_points = SMALL[name](x, is_training)
        assert_same(describe(logits, end_points), {k: want[k] for k in ("variables", "trainable", "end_points")})
        saver = tf.train.Saver()
        with tf.Session() as sess:
            saver.restore(sess, os.path.join(HERE, want["ckpt"]))
            out = sess.run(logits, {x: x_val})
    expected = np.array(want["logits_training" if is_training else "logits"])
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4 * np.abs(expected).max())


def test_utils_collect_named_outputs_and_variable_collections():
    # TF 1.15: the alias is the scope name without its trailing "/"; dict collections are per variable
    with tf.Graph().as_default():
        t = tf.constant(1.0)
        assert slim.utils.collect_named_outputs("outs", "block/unit_1/", t) is t
        assert list(slim.utils.convert_collection_to_dict("outs")) == ["block/unit_1"]
        assert slim.utils.collect_named_outputs(None, "x", t) is t and tf.get_collection("outs") == [t]
    assert slim.utils.get_variable_collections({"beta": ["b"]}, "beta") == ["b"]
    assert slim.utils.get_variable_collections({"beta": ["b"]}, "gamma") is None
    assert slim.utils.get_variable_collections(["all"], "gamma") == ["all"]


def test_errors_are_tf_s():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [1, 224, 224, 3])
        with pytest.raises(ValueError, match="Unknown final endpoint Mixed_9z"):
            inception.inception_v1_base(x, final_endpoint="Mixed_9z")
        with pytest.raises(ValueError, match="depth_multiplier is not greater than zero."):
            inception.inception_v3(x, depth_multiplier=0)
        with pytest.raises(ValueError, match="The output_stride needs to be a multiple of 4."):
            resnet_v1.resnet_v1_50(x, output_stride=6)
        with pytest.raises(ValueError, match="The target output_stride cannot be reached."):
            resnet_v2.resnet_v2_50(x, output_stride=64, scope="r2")


def test_second_builds_match_tf():
    # reuse=True, the default scope, an enclosing variable scope: TF's variables, end_points, op and
    # collection names (reuse_oracle.py runs the same probe on TF 1.15)
    import importlib.util
    spec = importlib.util.spec_from_file_location("reuse_oracle", os.path.join(HERE, "reuse_oracle.py"))
    oracle = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(oracle)
    got = json.loads(json.dumps(oracle.probe(tf, slim, resnet_v1, vgg)))
    assert got == json.load(open(os.path.join(HERE, "reuse.json")))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["alexnet_v2", "inception_v1", "inception_v2", "inception_v3", "resnet_v1_50",
                                  "resnet_v2_50"])
def test_full_size_logits_match_tf(name):
    # weights from full_size_oracle.value instead of a checkpoint (alexnet's fc6 alone is 200 MB); the
    # VGGs and overfeat share alexnet's classifier head
    import importlib.util
    import tinyflow.api.contrib.slim.nets as nets
    spec = importlib.util.spec_from_file_location("full_size_oracle", os.path.join(HERE, "full_size_oracle.py"))
    oracle = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(oracle)
    out = oracle.run(tf, slim, nets, name)
    want = np.array(json.load(open(os.path.join(HERE, "full_size.json")))[name])
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())


@pytest.mark.slow
@pytest.mark.parametrize("name", ["resnet_v2_small"])
def test_finetune_from_tf_checkpoint_matches_tf(name):
    # restore all but the logits from TF's checkpoint, 3 create_train_op steps (batch norm in training
    # mode, moving averages through UPDATE_OPS): TF's losses and moving mean (finetune_oracle.py)
    import importlib.util
    import tinyflow.api.contrib.slim.nets as nets
    spec = importlib.util.spec_from_file_location("finetune_oracle", os.path.join(HERE, "finetune_oracle.py"))
    oracle = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(oracle)
    got = oracle.probe(tf, slim, nets, name)
    want = json.load(open(os.path.join(HERE, "finetune.json")))[name]
    assert got["restored_stat"] == pytest.approx(want["restored_stat"], rel=1e-6)
    np.testing.assert_allclose(got["losses"], want["losses"], rtol=1e-4)
    np.testing.assert_allclose(got["stat"], want["stat"], rtol=1e-4, atol=1e-6)
