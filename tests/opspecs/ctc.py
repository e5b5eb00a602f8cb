"""CTC and the fixed-unigram sampler (issue 37): the CTC loss against a brute-force sum over alignments, its
gradient by finite differences, the beam search's best labelling against a brute-force one; values against
TF 1.15 in tests/api/test_core_names.py (family nn)."""
import itertools

import numpy as np

from opspecs import OpSpec

R = np.random.RandomState(2)
LOGITS = R.randn(4, 1, 3)   # [time, batch, classes]; blank = 2


def _brute_ctc(logits, label=(0, 1), blank=2):
    logp = logits[:, 0] - np.log(np.exp(logits[:, 0]).sum(-1, keepdims=True))
    total = 0.0
    for path in itertools.product(range(3), repeat=logits.shape[0]):
        collapsed = [k for i, k in enumerate(path) if i == 0 or k != path[i - 1]]
        if tuple(k for k in collapsed if k != blank) == label:
            total += np.exp(sum(logp[t, k] for t, k in enumerate(path)))
    return np.array([-np.log(total)])


def _brute_best(logits, blank=2):
    """log p of the most probable labelling (p summed over its alignments): what a beam search as wide as
    every prefix finds, with logits normalized per step as TF's decoder does."""
    logp = logits[:, 0] - np.log(np.exp(logits[:, 0]).sum(-1, keepdims=True))
    totals = {}
    for path in itertools.product(range(3), repeat=logits.shape[0]):
        collapsed = tuple(k for i, k in enumerate(path) if (i == 0 or k != path[i - 1]) and k != blank)
        totals[collapsed] = totals.get(collapsed, 0.0) + np.exp(sum(logp[t, k] for t, k in enumerate(path)))
    return np.array([[np.log(max(totals.values()))]])


SPECS = [
    OpSpec("ctc_beam", lambda tf, x: tf.nn.ctc_beam_search_decoder(x, [4], beam_width=20)[1], [LOGITS], _brute_best),
    OpSpec("ctc_loss", lambda tf, x: tf.nn.ctc_loss(tf.SparseTensor([[0, 0], [0, 1]], [0, 1], [1, 2]), x, [4]),
           [LOGITS], _brute_ctc, grad=True),
    OpSpec("ctc_greedy", lambda tf, x: tf.nn.ctc_greedy_decoder(x, [4])[0][0].values, [LOGITS],
           lambda x: np.array([k for i, k in enumerate(np.argmax(x[:, 0], -1))
                               if k != 2 and (i == 0 or k != np.argmax(x[i - 1, 0]))], np.int64)),
    OpSpec("fixed_unigram", lambda tf, x: tf.nn.fixed_unigram_candidate_sampler(
        x, 1, 3, True, 5, unigrams=[1, 2, 3, 4, 5], seed=3)[0], [np.array([[1], [2]], np.int64)]),
]


def _np_pool_arg(x):
    n, h, w, c = x.shape
    out = x.reshape(n, h // 2, 2, w // 2, 2, c).max(axis=(2, 4))
    return out


SPECS += [OpSpec("max_pool_with_argmax", lambda tf, x: tf.nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 2, 2, 1],
                                                                                  "VALID")[0],
                 [np.random.RandomState(1).randn(1, 4, 4, 2)], _np_pool_arg, grad=True)]
