"""Optimizers: each trajectory against numpy implementations of TF 1.15's documented update rules
(training_ops.cc), slots as real variables, and TF's errors."""
import numpy as np
import pytest

import tinyflow as tf

R = np.random.RandomState(0)
W0 = R.randn(3, 2).astype(np.float32)
A = (R.rand(3, 2) + 0.5).astype(np.float32)
B = R.randn(3, 2).astype(np.float32)
STEPS = 5


def grad_of(w):
    """The gradient of the test loss sum(0.5 * A * w^2 + B * w)."""
    return A * w + B


# ---- numpy references: one step each, state is a dict of slot arrays (float32 throughout) -----------
f = np.float32


def np_sgd(w, g, s, lr=0.1):
    return w - f(lr) * g


def np_momentum(w, g, s, lr=0.1, momentum=0.9, nesterov=False):
    s["momentum"] = s.get("momentum", np.zeros_like(w)) * f(momentum) + g
    if nesterov:
        return w - (g * f(lr) + s["momentum"] * f(momentum) * f(lr))
    return w - f(lr) * s["momentum"]


def np_adam(w, g, s, lr=0.1, b1=0.9, b2=0.999, eps=1e-8):
    t = s["t"] = s.get("t", 0) + 1
    m = s["m"] = s.get("m", np.zeros_like(w)) * f(b1) + f(1 - f(b1)) * g
    v = s["v"] = s.get("v", np.zeros_like(w)) * f(b2) + f(1 - f(b2)) * g * g
    lr_t = f(lr) * np.sqrt(1 - f(b2) ** t) / (1 - f(b1) ** t)
    return w - lr_t * m / (np.sqrt(v) + f(eps))


def np_adagrad(w, g, s, lr=0.1, init=0.1):
    s["accumulator"] = s.get("accumulator", np.full_like(w, init)) + g * g
    return w - f(lr) * g / np.sqrt(s["accumulator"])


def np_rmsprop(w, g, s, lr=0.1, decay=0.9, momentum=0.0, eps=1e-10, centered=False):
    ms = s["rms"] = s.get("rms", np.ones_like(w)) * f(decay) + f(1 - f(decay)) * g * g
    denom = ms + f(eps)
    if centered:
        mg = s["mg"] = s.get("mg", np.zeros_like(w)) * f(decay) + f(1 - f(decay)) * g
        denom = ms - mg * mg + f(eps)
    mom = s["momentum"] = s.get("momentum", np.zeros_like(w)) * f(momentum) + f(lr) * g / np.sqrt(denom)
    return w - mom


def np_adadelta(w, g, s, lr=1.0, rho=0.95, eps=1e-6):
    acc = s["accum"] = s.get("accum", np.zeros_like(w)) * f(rho) + f(1 - f(rho)) * g * g
    upd_acc = s.get("accum_update", np.zeros_like(w))
    u = np.sqrt(upd_acc + f(eps)) / np.sqrt(acc + f(eps)) * g
    s["accum_update"] = upd_acc * f(rho) + f(1 - f(rho)) * u * u
    return w - f(lr) * u


def np_ftrl(w, g, s, lr=0.1, l1=0.01, l2=0.02, init=0.1, shrinkage=0.0):
    acc = s.get("accum", np.full_like(w, init))
    new_acc = acc + g * g
    shrunk = g + f(2 * shrinkage) * w if shrinkage else g
    lin = s["linear"] = s.get("linear", np.zeros_like(w)) + shrunk - (np.sqrt(new_acc) - np.sqrt(acc)) / f(lr) * w
    quad = np.sqrt(new_acc) / f(lr) + f(2 * l2)
    s["accum"] = new_acc
    return np.where(np.abs(lin) > f(l1), (np.sign(lin) * f(l1) - lin) / quad, 0).astype(np.float32)


def np_prox(v, lr, l1, l2):
    if l1 > 0:
        v = np.sign(v) * np.maximum(np.abs(v) - lr * f(l1), 0)
    return v / (1 + lr * f(l2))


def np_proximal_gd(w, g, s, lr=0.1, l1=0.05, l2=0.2):
    return np_prox(w - f(lr) * g, f(lr), l1, l2)


def np_proximal_adagrad(w, g, s, lr=0.1, l1=0.05, l2=0.2, init=0.1):
    acc = s["accumulator"] = s.get("accumulator", np.full_like(w, init)) + g * g
    lr_t = f(lr) / np.sqrt(acc)
    return np_prox(w - lr_t * g, lr_t, l1, l2)


CASES = {
    "sgd": (lambda: tf.train.GradientDescentOptimizer(0.1), np_sgd, {}),
    "momentum": (lambda: tf.train.MomentumOptimizer(0.1, 0.9), np_momentum, {"momentum": "Momentum"}),
    "nesterov": (lambda: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
                 lambda w, g, s: np_momentum(w, g, s, nesterov=True), {"momentum": "Momentum"}),
    "adam": (lambda: tf.train.AdamOptimizer(0.1), np_adam, {"m": "Adam", "v": "Adam_1"}),
    "adagrad": (lambda: tf.train.AdagradOptimizer(0.1), np_adagrad, {"accumulator": "Adagrad"}),
    "rmsprop": (lambda: tf.train.RMSPropOptimizer(0.1), np_rmsprop, {"rms": "RMSProp", "momentum": "RMSProp_1"}),
    "rmsprop_centered_momentum": (
        lambda: tf.train.RMSPropOptimizer(0.01, momentum=0.5, epsilon=1e-3, centered=True),
        lambda w, g, s: np_rmsprop(w, g, s, lr=0.01, momentum=0.5, eps=1e-3, centered=True),
        {"rms": "RMSProp", "mg": "RMSProp_1", "momentum": "RMSProp_2"}),
    "adadelta": (lambda: tf.train.AdadeltaOptimizer(1.0, epsilon=1e-6), np_adadelta,
                 {"accum": "Adadelta", "accum_update": "Adadelta_1"}),
    "ftrl": (lambda: tf.train.FtrlOptimizer(0.1, l1_regularization_strength=0.01, l2_regularization_strength=0.02),
             np_ftrl, {"accum": "Ftrl", "linear": "Ftrl_1"}),
    "ftrl_shrinkage": (lambda: tf.train.FtrlOptimizer(0.1, l1_regularization_strength=0.01,
                                                      l2_regularization_strength=0.02,
                                                      l2_shrinkage_regularization_strength=0.5),
                       lambda w, g, s: np_ftrl(w, g, s, shrinkage=0.5), {"accum": "Ftrl", "linear": "Ftrl_1"}),
    "proximal_gd": (lambda: tf.train.ProximalGradientDescentOptimizer(0.1, 0.05, 0.2), np_proximal_gd, {}),
    "proximal_adagrad": (lambda: tf.train.ProximalAdagradOptimizer(0.1, l1_regularization_strength=0.05,
                                                                   l2_regularization_strength=0.2),
                         np_proximal_adagrad, {"accumulator": "ProximalAdagrad"}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_trajectory_matches_tf_formula(case):
    make, ref, slots = CASES[case]
    w = tf.Variable(W0, name="w")
    loss = tf.reduce_sum(0.5 * tf.constant(A) * w * w + tf.constant(B) * w)
    opt = make()
    train = opt.minimize(loss)
    assert opt.get_slot_names() == sorted(slots)
    for slot, var_name in slots.items():
        assert opt.get_slot(w, slot).name == "w/%s:0" % var_name
        assert opt.get_slot(w, slot) in tf.global_variables()
        assert opt.get_slot(w, slot) not in tf.trainable_variables()
    want, state = W0.copy(), {}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(STEPS):
            sess.run(train)
            want = ref(want, grad_of(want), state)
            np.testing.assert_allclose(sess.run(w), want, rtol=2e-5, atol=1e-6)
        for slot in slots:
            np.testing.assert_allclose(sess.run(opt.get_slot(w, slot)), state[slot], rtol=2e-5, atol=1e-6)


@pytest.mark.slow
def test_adam_beta_powers_and_global_step():
    w = tf.Variable(W0, name="w")
    loss = tf.reduce_sum(w * w)
    step = tf.train.get_or_create_global_step()
    assert tf.train.get_global_step() is step
    opt = tf.train.AdamOptimizer(0.01, beta1=0.8, beta2=0.99)
    train = opt.minimize(loss, global_step=step)
    names = sorted(v.op.name for v in tf.global_variables())
    assert names == ["beta1_power", "beta2_power", "global_step", "w", "w/Adam", "w/Adam_1"]
    assert train.name == "Adam" and train in tf.get_collection(tf.GraphKeys.TRAIN_OP)
    b1, b2 = opt._get_beta_accumulators()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(train)
        np.testing.assert_allclose(sess.run([b1, b2]), [np.float32(0.8) ** 4, np.float32(0.99) ** 4], rtol=1e-6)
        assert sess.run(step) == 3


def test_learning_rate_placeholder_and_float64():
    w = tf.Variable(W0.astype(np.float64), name="w")
    lr = tf.placeholder(tf.float32, [])
    train = tf.train.MomentumOptimizer(lr, 0.5).minimize(tf.reduce_sum(w * w))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train, {lr: 0.1})
        np.testing.assert_allclose(sess.run(w), W0 - np.float64(np.float32(0.1)) * 2 * W0.astype(np.float64))
        assert sess.run(w).dtype == np.float64
        sess.run(train, {lr: 0.0})  # zero rate: the variable stays, the accumulator still moves
        np.testing.assert_allclose(sess.run(w), W0 - np.float64(np.float32(0.1)) * 2 * W0.astype(np.float64))


def test_schedule_as_learning_rate():
    w = tf.Variable(1.0)
    step = tf.train.get_or_create_global_step()
    lr = tf.train.exponential_decay(0.5, step, 1, 0.5)
    train = tf.train.GradientDescentOptimizer(lr).minimize(w, global_step=step)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(train)
        assert sess.run(w) == pytest.approx(1.0 - 0.5 - 0.25 - 0.125)


def test_untouched_variables():
    a, b, c = tf.Variable(1.0, name="a"), tf.Variable(2.0, name="b"), tf.Variable(3.0, name="c")
    loss = a * a + b * b
    opt = tf.train.AdamOptimizer(0.1)
    gv = opt.compute_gradients(loss)
    assert [v for _, v in gv] == [a, b, c] and gv[2][0] is None
    train = opt.minimize(loss, var_list=[a, c])
    assert opt.get_slot(b, "m") is None and opt.get_slot(c, "m") is None
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        va, vb, vc = sess.run([a, b, c])
    assert va < 1.0 and vb == 2.0 and vc == 3.0


def test_errors():
    a = tf.Variable(1.0, name="a")
    const_loss = tf.constant(2.0) * 3.0
    opt = tf.train.GradientDescentOptimizer(0.1)
    with pytest.raises(ValueError, match="No gradients provided for any variable, check your graph"):
        opt.minimize(const_loss)
    with pytest.raises(ValueError, match=r"No gradients provided for any variable: \[\"<tf.Variable 'a:0'"):
        opt.apply_gradients([(None, a)])
    with pytest.raises(ValueError, match="No variables to optimize"):
        opt.minimize(const_loss, var_list=[])
    with pytest.raises(ValueError, match="Invalid type"):
        opt.minimize(tf.constant(1, tf.int32))
    with pytest.raises(ValueError, match="initial_accumulator_value must be positive"):
        tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.0)
    w = tf.Variable(np.zeros([3, 2], np.float32), name="w")
    with pytest.raises(ValueError, match=r"Dimension 1 in both shapes must be equal, but are 2 and 3.*ApplyAdam"):
        tf.train.AdamOptimizer().apply_gradients([(tf.zeros([3, 3]), w)])
    with pytest.raises(TypeError, match="float64 that does not match type float32"):
        tf.train.MomentumOptimizer(0.1, 0.9).apply_gradients([(tf.zeros([3, 2], tf.float64), w)])
    with pytest.raises(ValueError, match="global_step is required"):
        tf.train.exponential_decay(0.1, None, 10, 0.9)


def test_apply_gradients_with_clipping():
    w = tf.Variable([3.0, 4.0], name="w")
    opt = tf.train.GradientDescentOptimizer(1.0)
    grads, norm = tf.clip_by_global_norm([g for g, _ in opt.compute_gradients(tf.reduce_sum(w * w))], 1.0)
    train = opt.apply_gradients(zip(grads, [w]), name="clipped")
    assert train.name == "clipped"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(norm) == pytest.approx(10.0)
        sess.run(train)
        np.testing.assert_allclose(sess.run(w), [2.4, 3.2], rtol=1e-6)


def test_global_step_helpers():
    assert tf.train.get_global_step() is None
    step = tf.train.get_or_create_global_step()
    assert tf.train.get_or_create_global_step() is step
    assert step.op.name == "global_step" and step.dtype == tf.int64 and not step.trainable
    with pytest.raises(ValueError, match="already exists"):
        tf.train.create_global_step()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert tf.train.global_step(sess, step) == 0


def test_exponential_moving_average():
    w = tf.Variable(1.0, name="w")
    train = tf.train.GradientDescentOptimizer(0.5).minimize(w * w)  # w -= 0.5 * 2w: w becomes 0
    ema = tf.train.ExponentialMovingAverage(0.9, num_updates=tf.constant(100))
    with tf.control_dependencies([train]):
        update = ema.apply([w])
    shadow = ema.average(w)
    assert shadow.op.name == "w/ExponentialMovingAverage" and w in tf.moving_average_variables()
    assert sorted(ema.variables_to_restore()) == ["w/ExponentialMovingAverage"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(shadow) == 1.0
        sess.run(update)  # sees w after the step (0.0): shadow = 1 - 0.1 * (1 - 0)
        assert sess.run(w) == 0.0
        assert sess.run(shadow) == pytest.approx(0.9)


@pytest.mark.parametrize("case", ["adam", "rmsprop_centered_momentum", "adadelta", "ftrl", "adagrad"])
def test_float64_variables_stay_float64(case):
    w = tf.Variable(W0.astype(np.float64), name="w")
    opt = CASES[case][0]()
    train = opt.minimize(tf.reduce_sum(w * w))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        assert sess.run(w).dtype == np.float64
        assert all(sess.run(v).dtype == np.float64 for v in opt.variables() if v.op.name.startswith("w/"))
        assert np.all(np.abs(sess.run(w)) < np.abs(W0) + 1e-12)



def _sparse_updates():
    import importlib.util
    import json
    import os
    from paths import TESTS
    spec = importlib.util.spec_from_file_location("make_sparse_updates",
                                                  os.path.join(TESTS, "data", "make_sparse_updates.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    with open(os.path.join(TESTS, "data", "sparse_updates.json")) as f:
        return gen, json.load(f)["results"]


_SPARSE_GROUPS = {"lazy": ["Adam", "Momentum", "RMSPropCentered"], "subclass": ["SquaresSGD"],
                  "others": ["Adadelta", "Adagrad", "AdagradDA", "Ftrl", "FtrlPower", "FtrlV2", "GradientDescent",
                             "MomentumNesterov", "ProximalAdagrad", "ProximalGradientDescent", "RMSProp"]}


@pytest.mark.parametrize("group", ["lazy", "subclass", pytest.param("others", marks=pytest.mark.slow)])
def test_sparse_updates_match_tf115(group):
    """Every optimizer on an embedding table (an IndexedSlices gradient, repeated ids), three steps, against TF
    1.15's numbers (tests/data/make_sparse_updates.py): rows not indexed in a step keep their slots and, but for
    Adam's, their values (lazy Momentum / RMSProp); a repeated id's rows are summed first, also before an
    Optimizer subclass's own _apply_sparse (its graph apart: TF's tf.unique makes a step of its own)."""
    gen, want = _sparse_updates()
    names = _SPARSE_GROUPS[group]
    assert sorted(n for g in _SPARSE_GROUPS.values() for n in g) == sorted(want)
    got = gen.run(tf, names)
    assert sorted(got) == names
    for name in names:
        for k, (w, g) in enumerate(zip(want[name]["steps"] + [want[name]["slots"][s] for s in want[name]["slots"]],
                                       got[name]["steps"] + [got[name]["slots"][s] for s in want[name]["slots"]])):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg="%s, result %d" % (name, k))
    if group == "lazy":   # lazy: Momentum's row 5 (indexed in step 1 only) stays where step 1 left it
        steps = want["Momentum"]["steps"]
        assert steps[1][5] == steps[0][5] != gen.TABLE[5].tolist()


def test_update_edges_and_bad_indices_as_tf():
    """TF 1.15's kernels at inf (values recorded from TF by the diff corpus, cases 70361 and 70183): centered
    RMSProp's ms += (g^2 - ms) * (1 - rho) is NaN once ms and g^2 are inf; the sparse Ftrl kernel's
    (clip(linear, -l1, l1) - linear) / quadratic is NaN where linear is (the dense one gives 0). A sparse
    index out of range raises TF's InvalidArgumentError and changes no variable."""
    v1 = tf.Variable(np.array([1.040612043142601]))
    rms = tf.train.RMSPropOptimizer(0.5, 0.5, 0.0, 1e-10, centered=True)
    s1 = rms.apply_gradients([(tf.constant(np.array([np.inf])), v1)])
    with tf.control_dependencies([s1]):
        s1 = rms.apply_gradients([(tf.constant(np.array([1.42735357271963])), v1)])
    v2 = tf.Variable(np.array([-0.5710413213243761]))
    ftrl = tf.train.FtrlOptimizer(0.5, -0.7, 0.0, 0.05, 0.0, l2_shrinkage_regularization_strength=0.1)
    g1, g2 = np.array([-1.7976931348623157e+308]), np.array([1.754588809020788, -0.689838014925602,
                                                            -3.3652600124040397])
    s2 = ftrl.apply_gradients([(tf.IndexedSlices(tf.constant(g1), tf.constant([0])), v2)])
    with tf.control_dependencies([s2]):
        s2 = ftrl.apply_gradients([(tf.IndexedSlices(tf.constant(g2), tf.constant([0, 0, 0])), v2)])
    v3 = tf.Variable(np.ones((4, 2), np.float32))
    mom = tf.train.MomentumOptimizer(0.1, 0.9)
    ids = tf.placeholder(tf.int32, [None])
    s3 = mom.apply_gradients([(tf.IndexedSlices(tf.ones([tf.shape(ids)[0], 2]), ids), v3)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run([s1, s2])
        assert np.isnan(sess.run([v1] + [rms.get_slot(v1, n) for n in ("mg", "rms", "momentum")])).all()
        np.testing.assert_array_equal(sess.run([v2, ftrl.get_slot(v2, "accum"), ftrl.get_slot(v2, "linear")]),
                                      [[np.nan], [np.inf], [np.nan]])
        with pytest.raises(tf.errors.InvalidArgumentError, match="Index 5 at offset 2 in indices is out of range"):
            sess.run(s3, {ids: [1, 1, 0, 5]})
        np.testing.assert_array_equal(sess.run(v3), np.ones((4, 2)))
        np.testing.assert_array_equal(sess.run(mom.get_slot(v3, "momentum")), np.zeros((4, 2)))
