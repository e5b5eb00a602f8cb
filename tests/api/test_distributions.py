"""tf.distributions against TF 1.15's numbers (tests/fixtures/distributions/distributions.json, written by
make_distributions.py); samples: shapes and dtypes as TF's, and moments within 5 standard errors."""
import json
import os

import numpy as np
import pytest

import tinyflow as tf
from tinyflow.graph import errors

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
        with pytest.raises(errors.UnimplementedError, match="gamma"):
            be.sample()
