"""tf.distributions against TF 1.15's numbers (tests/fixtures/distributions/distributions.json, written by
make_distributions.py); samples: shapes and dtypes as TF's, and moments within 5 standard errors."""
import json
import os

import numpy as np
import pytest

import tinyflow as tf

with open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "distributions", "distributions.json")) as _f:
    TF = json.load(_f)


def _dists():
    tfd = tf.distributions
    return (tfd.Normal(loc=[0.0, 1.0], scale=[1.0, 2.0]), tfd.Uniform(low=[0.0, -1.0], high=[2.0, 3.0]),
            tfd.Bernoulli(logits=[0.5, -1.0]), tfd.Beta(concentration1=[2.0, 0.5], concentration0=[3.0, 1.5]),
            tfd.Categorical(logits=[[1.0, 2.0, 0.5], [0.1, 0.2, 0.3]]))


@pytest.mark.slow
def test_values_match_tf():
    with tf.Graph().as_default():
        n, u, b, be, c = _dists()
        x = tf.constant([0.5, 1.5])
        ops = {"normal": [n.log_prob(x), n.prob(x), n.cdf(x), n.entropy(), n.mean(), n.stddev(), n.variance(),
                          n.mode()],
               "uniform": [u.log_prob(x), u.prob(x), u.cdf(x), u.entropy(), u.mean(), u.stddev()],
               "bernoulli": [b.log_prob([1, 0]), b.prob([1, 1]), b.entropy(), b.mean(), b.stddev(), b.probs],
               "beta": [be.log_prob([0.3, 0.6]), be.prob([0.3, 0.6]), be.entropy(), be.mean(), be.stddev(),
                        be.variance()],
               "categorical": [c.log_prob([1, 2]), c.prob([0, 0]), c.entropy(), c.mode(), c.probs],
               "kl_normal": [tf.distributions.kl_divergence(n, tf.distributions.Normal(loc=[1.0, 0.0],
                                                                                       scale=[2.0, 1.0]))]}
        with tf.Session() as s:
            for name, values in ops.items():
                for i, (got, want) in enumerate(zip(s.run(values), TF[name])):
                    np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6, err_msg="%s[%d]" % (name, i))


def test_samples_have_tfs_shapes_and_moments():
    with tf.Graph().as_default():
        n, u, b, be, c = _dists()
        samples = [n.sample(), n.sample(5), n.sample([3, 4]), b.sample(7), c.sample(4)]
        assert [s.shape.as_list() for s in samples] == TF["sample_shapes"]
        assert [samples[3].dtype.name, samples[4].dtype.name] == TF["sample_dtypes"]
        big = [n.sample(20000, seed=1), u.sample(20000, seed=2), b.sample(20000, seed=3), c.sample(20000, seed=4)]
        with tf.Session() as s:
            ns, us, bs, cs = s.run(big)
        for draws, mean, std in ((ns, [0.0, 1.0], [1.0, 2.0]), (us, [1.0, 1.0], [0.57735, 1.1547]),
                                 (bs, TF["bernoulli"][3], TF["bernoulli"][4])):
            assert np.all(np.abs(draws.mean(0) - mean) < 5 * np.array(std) / np.sqrt(len(draws)))
        freq = np.stack([(cs == k).mean(0) for k in range(3)], -1)
        p = np.array(TF["categorical"][4])
        assert np.all(np.abs(freq - p) < 5 * np.sqrt(p * (1 - p) / len(cs)))


def _vector_dists():
    tfd = tf.distributions
    return (tfd.Gamma(concentration=[2.0, 0.5], rate=[1.5, 2.0]),
            tfd.StudentT(df=[3.0, 1.5], loc=[0.0, 1.0], scale=[1.0, 2.0]),
            tfd.Dirichlet([[1.5, 2.0, 3.0], [0.5, 1.0, 2.0]]),
            tfd.Multinomial(total_count=[4.0, 5.0], logits=[[0.1, 0.5, -0.3], [1.0, 0.0, 0.2]]),
            tfd.DirichletMultinomial(total_count=4.0, concentration=[[1.5, 2.0, 3.0], [0.5, 1.0, 2.0]]))


def test_gamma_student_t_dirichlet_multinomial_shapes_as_tf():
    """The shapes of samples, batches and events (built only: no run)."""
    with tf.Graph().as_default():
        g, t, d, mu, dm = _vector_dists()
        assert [s.shape.as_list() for s in [g.sample(), g.sample(5), t.sample([3, 4]), d.sample(7), mu.sample(2),
                                            dm.sample([2, 3])]] == TF["vector_sample_shapes"]
        assert [[x.batch_shape.as_list(), x.event_shape.as_list()] for x in (g, t, d, mu, dm)] == \
            TF["batch_event_shapes"]


@pytest.mark.slow   # (~2 s of CPU: lgamma, igamma, betainc, digamma compiled)
def test_gamma_student_t_dirichlet_multinomial_match_tf():
    """Values (NaN and inf where TF gives them) in one run."""
    tfd = tf.distributions
    with tf.Graph().as_default():
        g, t, d, mu, dm = _vector_dists()
        x = tf.constant([0.5, 1.5])
        ops = {"gamma": [g.log_prob(x), g.prob(x), g.cdf(x), g.entropy(), g.mean(), g.variance(), g.stddev(),
                         g.mode()],
               "student_t": [t.log_prob(x), t.prob(x), t.cdf(x), t.entropy(), t.mean(), t.variance(), t.stddev(),
                             t.mode()],
               "dirichlet": [d.log_prob([[0.2, 0.3, 0.5], [0.1, 0.6, 0.3]]), d.prob([0.2, 0.3, 0.5]), d.entropy(),
                             d.mean(), d.variance(), d.covariance(), tfd.Dirichlet([1.5, 2.0, 3.0]).mode(),
                             tfd.Dirichlet([0.5, 2.0, 3.0]).mode()],
               "multinomial": [mu.log_prob([[1., 2., 1.], [2., 2., 1.]]), mu.prob([[4., 0., 0.], [1., 3., 1.]]),
                               mu.mean(), mu.variance(), mu.covariance()],
               "dirichlet_multinomial": [dm.log_prob([[1., 2., 1.], [2., 1., 1.]]),
                                         dm.prob([[4., 0., 0.], [0., 3., 1.]]), dm.mean(), dm.variance(),
                                         dm.covariance()]}
        assert [s.shape.as_list() for s in [g.sample(), g.sample(5), t.sample([3, 4]), d.sample(7), mu.sample(2),
                                            dm.sample([2, 3])]] == TF["vector_sample_shapes"]
        assert [[x.batch_shape.as_list(), x.event_shape.as_list()] for x in (g, t, d, mu, dm)] == \
            TF["batch_event_shapes"]
        with tf.Session() as s:
            got = s.run(ops)
        for name, values in got.items():
            for i, (value, want) in enumerate(zip(values, TF[name])):
                np.testing.assert_allclose(value, np.array(want, np.float64), rtol=2e-5, atol=1e-6,
                                           err_msg="%s[%d]" % (name, i))


@pytest.mark.slow
def test_gamma_based_samples_have_tfs_moments():
    """Means within 5 standard errors of TF's mean (variances within 25%) for every sampler drawing
    tf.random.gamma (each compiles XLA's rejection loop: ~0.5 s apiece), and the counts' totals."""
    tfd = tf.distributions
    with tf.Graph().as_default():
        g, t, d, mu, dm = _vector_dists()
        be = _dists()[3]
        n = 4000
        samples = [g.sample(n, seed=1), tfd.StudentT(df=5.0, loc=1.0, scale=2.0).sample(n, seed=2),
                   d.sample(n, seed=3), mu.sample(n, seed=4), dm.sample(n, seed=5), be.sample(n, seed=6)]
        with tf.Session() as s:
            drawn = s.run(samples)
    moments = [(drawn[0], TF["gamma"][4], TF["gamma"][5]), (drawn[1], 1.0, 4.0 * 5 / 3),
               (drawn[2], TF["dirichlet"][3], TF["dirichlet"][4]), (drawn[3], TF["multinomial"][2],
                                                                    TF["multinomial"][3]),
               (drawn[4], TF["dirichlet_multinomial"][2], TF["dirichlet_multinomial"][3]),
               (drawn[5], TF["beta"][3], np.square(TF["beta"][4]))]
    for i, (draws, mean, var) in enumerate(moments):
        assert np.all(np.abs(draws.mean(0) - mean) < 5 * np.sqrt(np.array(var) / n)), i
        assert np.all(np.abs(draws.var(0) / var - 1) < 0.25), i
    assert np.all(drawn[3].sum(-1) == [4, 5]) and np.all(drawn[4].sum(-1) == 4)
    assert np.allclose(drawn[2].sum(-1), 1, atol=1e-5)
