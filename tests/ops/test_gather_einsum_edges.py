"""Three cases that raised in tinyflow where TF 1.15 computes (issue 39): gather with batch_dims,
confusion_matrix of fed tensors without num_classes, the einsum gradient with repeated subscripts.
TF's numbers for the first two are in the differential corpus (batch_gather, confusion_matrix_fed);
here tinyflow's values against numpy, TF's run-time errors, and (TF 1.15 refuses 'ii->i', 'iij->j':
an extension) the einsum gradients against the exact derivative of numpy's einsum (it is linear)."""
import numpy as np
import pytest

import tinyflow as tf

EQUATIONS = [("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("iij->j", [(2, 2, 3)]), ("iji->j", [(2, 3, 2)]),
             ("ij,jj->i", [(2, 3), (3, 3)]), ("...ii->...i", [(2, 3, 3)]), ("iii->i", [(2, 2, 2)])]


def _einsum_jacobian_grad(eq, xs, gy, k):
    """d sum(gy * einsum(eq, xs)) / d xs[k], exactly (einsum is linear in each input)."""
    out = np.zeros(xs[k].shape)
    for idx in np.ndindex(*xs[k].shape):
        unit = [x if j != k else np.zeros_like(x) for j, x in enumerate(xs)]
        unit[k][idx] = 1.0
        out[idx] = np.sum(gy * np.einsum(eq, *unit))
    return out


def test_gather_batch_dims_confusion_matrix_einsum_gradients():
    rng = np.random.RandomState(0)
    fetches, want = {}, {}
    for n, (eq, shapes) in enumerate(EQUATIONS):
        xs = [rng.randn(*s) for s in shapes]
        ts = [tf.constant(x) for x in xs]
        y = tf.einsum(eq, *ts)
        gy = rng.randn(*np.einsum(eq, *xs).shape)
        for k, g in enumerate(tf.gradients(y, ts, grad_ys=tf.constant(np.asarray(gy)))):
            fetches["einsum%d_%d" % (n, k)] = g
            want["einsum%d_%d" % (n, k)] = _einsum_jacobian_grad(eq, xs, gy, k)
    p = tf.placeholder(tf.float32, [2, 3, 4])
    i = tf.placeholder(tf.int32, [2, 5])
    pv, iv = rng.randn(2, 3, 4).astype(np.float32), rng.randint(0, 3, size=(2, 5))
    fetches["gather_axis1"] = tf.gather(p, i, batch_dims=1)              # axis defaults to batch_dims
    want["gather_axis1"] = np.stack([pv[b][iv[b]] for b in range(2)])
    fetches["gather_axis2"] = tf.gather(p, i[:, :4], axis=-1, batch_dims=-1)
    want["gather_axis2"] = np.stack([pv[b][:, iv[b, :4]] for b in range(2)])
    gp = tf.gradients(fetches["gather_axis1"], p, grad_ys=tf.ones([2, 5, 4]))[0]
    fetches["gather_grad"] = gp
    want["gather_grad"] = np.stack([np.bincount(iv[b], minlength=3)[:, None] * np.ones((3, 4)) for b in range(2)])
    # axis past batch_dims: TF 1.15's gradient adds rows to other batches (a bug, docs/differences.md)
    fetches["gather_grad2"] = tf.gradients(fetches["gather_axis2"], p, grad_ys=tf.ones([2, 3, 4]))[0]
    want["gather_grad2"] = np.stack([np.ones((3, 1)) * np.bincount(iv[b, :4], minlength=4) for b in range(2)])
    labels, preds = tf.placeholder(tf.int32, [None]), tf.placeholder(tf.int32, [None])
    fetches["confusion"] = tf.confusion_matrix(labels, preds)
    want["confusion"] = np.array([[1, 0, 0, 0], [0, 0, 0, 1], [0, 1, 0, 0], [0, 0, 0, 0]])
    with tf.Session() as s:
        feed = {p: pv, i: iv, labels: [0, 2, 1], preds: [0, 1, 3]}
        got = s.run(fetches, feed)
        for k in want:
            np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-5, err_msg=k)
        assert got["confusion"].shape == (4, 4) and fetches["confusion"].shape.as_list() == [None, None]
        # TF's run-time errors: an index past its batch's row, a negative label, empty inputs
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[0,1\] = 3 is not in \[0, 3\)"):
            s.run(fetches["gather_axis1"], {p: pv, i: [[0, 3, 0, 0, 0], [0] * 5]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="`labels` contains negative values"):
            s.run(fetches["confusion"], {labels: [0, -1], preds: [0, 1]})
        with pytest.raises(tf.errors.InvalidArgumentError):
            s.run(fetches["confusion"], {labels: np.zeros(0, np.int32), preds: np.zeros(0, np.int32)})
