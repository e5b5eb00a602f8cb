"""tf.random: TF 1.15's random namespace (the stateful ops of ops/random_ops.py, gamma, poisson, the
stateless ops of ops/random_more_ops.py, the candidate samplers) and tf.random.experimental."""

from tinyflow.ops.random_ops import (_categorical as categorical, get_seed, multinomial, random_normal as normal,  # noqa: F401
                                     random_shuffle as shuffle, random_uniform as uniform, set_random_seed,
                                     truncated_normal)
from tinyflow.ops.random_more_ops import (random_gamma as gamma, random_poisson as poisson,  # noqa: F401
                                          stateless_categorical, stateless_multinomial,
                                          stateless_random_normal as stateless_normal,
                                          stateless_random_uniform as stateless_uniform, stateless_truncated_normal)
from tinyflow.ops.candidate_sampling_ops import (log_uniform_candidate_sampler, uniform_candidate_sampler)  # noqa: F401



def __getattr__(name):
    if name in ("all_candidate_sampler", "fixed_unigram_candidate_sampler", "learned_unigram_candidate_sampler"):
        from tinyflow.ops import candidate_more_ops
        return getattr(candidate_more_ops, name)
    if name == "experimental":
        from tinyflow.api import random_experimental
        return random_experimental
    raise AttributeError("module 'tinyflow.random' has no attribute %r" % name)


