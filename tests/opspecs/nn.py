"""Specs of the tf.nn ops (ops/nn_ops.py, ops/conv_ops.py), with plain numpy references."""
import numpy as np

from opspecs import OpSpec

R = np.random.RandomState(7)


def f32(*shape):
    return R.randn(*shape).astype(np.float32)


# ---- numpy references ------------------------------------------------------------------------------
def np_pads(n, k, s, d=1, padding="SAME"):
    """(before, after, output size) of one dimension, TF's rule (SAME puts the odd pixel after)."""
    e = (k - 1) * d + 1
    if padding == "VALID":
        return 0, 0, (n - e) // s + 1
    o = -(-n // s)
    t = max((o - 1) * s + e - n, 0)
    return t // 2, t - t // 2, o


def np_conv(x, w, s=(1, 1), padding="SAME", d=(1, 1)):
    """NHWC input, HWIO filter: a direct sum over the (padded) window."""
    kh, kw, _, o = w.shape
    t, b, oh = np_pads(x.shape[1], kh, s[0], d[0], padding)
    lft, r, ow = np_pads(x.shape[2], kw, s[1], d[1], padding)
    xp = np.pad(x.astype(np.float64), [(0, 0), (t, b), (lft, r), (0, 0)])
    out = np.zeros((x.shape[0], oh, ow, o))
    for i in range(oh):
        for j in range(ow):
            for a in range(kh):
                for c in range(kw):
                    out[:, i, j] += xp[:, i * s[0] + a * d[0], j * s[1] + c * d[1]] @ w[a, c]
    return out


def np_conv_transpose(v, w, out_shape, s=(1, 1), padding="SAME"):
    """The adjoint of np_conv: scatter each input pixel through the filter, then crop the padding."""
    n, oh, ow, _ = out_shape
    kh, kw = w.shape[:2]
    t, b, _ = np_pads(oh, kh, s[0], 1, padding)
    lft, r, _ = np_pads(ow, kw, s[1], 1, padding)
    xp = np.zeros((n, oh + t + b, ow + lft + r, w.shape[2]))
    for i in range(v.shape[1]):
        for j in range(v.shape[2]):
            for a in range(kh):
                for c in range(kw):
                    xp[:, i * s[0] + a, j * s[1] + c] += v[:, i, j] @ w[a, c].T
    return xp[:, t:t + oh, lft:lft + ow]


def np_depthwise(x, w, s=(1, 1), padding="SAME"):
    c, m = w.shape[2:]
    outs = [np_conv(x[..., i:i + 1], w[:, :, i:i + 1, j:j + 1], s, padding) for i in range(c) for j in range(m)]
    return np.concatenate(outs, axis=-1)


def np_pool(x, k, s, padding, reduce):
    """reduce (np.nanmax / np.nanmean) over windows of NaN-padded x: padding never counts."""
    t, b, oh = np_pads(x.shape[1], k[0], s[0], 1, padding)
    lft, r, ow = np_pads(x.shape[2], k[1], s[1], 1, padding)
    xp = np.pad(x.astype(np.float64), [(0, 0), (t, b), (lft, r), (0, 0)], constant_values=np.nan)
    out = np.zeros((x.shape[0], oh, ow, x.shape[3]))
    for i in range(oh):
        for j in range(ow):
            out[:, i, j] = reduce(xp[:, i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1]], axis=(1, 2))
    return out


def np_pool3d(x, k, s, padding, reduce):
    """np_pool over a 5-D NDHWC input."""
    pads = [np_pads(x.shape[1 + i], k[i], s[i], 1, padding) for i in range(3)]
    xp = np.pad(x.astype(np.float64), [(0, 0)] + [p[:2] for p in pads] + [(0, 0)], constant_values=np.nan)
    out = np.zeros((x.shape[0],) + tuple(p[2] for p in pads) + (x.shape[4],))
    for o in np.ndindex(*out.shape[1:4]):
        win = xp[(slice(None),) + tuple(slice(o[i] * s[i], o[i] * s[i] + k[i]) for i in range(3))]
        out[(slice(None),) + o] = reduce(win, axis=(1, 2, 3))
    return out


def np_log_softmax(x, axis=-1):
    x = x.astype(np.float64)
    m = x.max(axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis, keepdims=True))


def nchw(x):
    return np.transpose(x, (0, 3, 1, 2))


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


# ---- inputs ----------------------------------------------------------------------------------------
IMG = f32(1, 5, 5, 2)
IMG4 = f32(1, 4, 4, 2)
FILT = (f32(3, 3, 2, 3) * 0.5).astype(np.float32)
DWF = (f32(2, 2, 2, 2) * 0.5).astype(np.float32)
R3 = np.random.RandomState(30)  # 3-D pooling draws apart, leaving R's stream to the specs written before it
POOL3D_IN = R3.permutation(96).reshape(1, 3, 4, 4, 2).astype(np.float32) / 10
G3D = R3.randn(1, 2, 3, 3, 2).astype(np.float32)
POOL_IN = R.permutation(50).reshape(1, 5, 5, 2).astype(np.float32) / 10  # distinct values: no max ties
ACT = np.array([[-2.5, -0.7, -0.2, 0.3], [0.8, 1.5, 5.5, 6.7]], np.float32)
LOGITS = f32(3, 4)
LABELS = np.eye(4, dtype=np.float32)[[1, 3, 0]] * 0.7 + 0.075
SPARSE = np.array([1, 3, 0], np.int32)
BIN = R.uniform(0.1, 0.9, size=(3, 4)).astype(np.float32)
SELU = (1.0507009873554804934193349852946, 1.6732632423543772848170429916717)
V4 = f32(1, 2, 2, 3)


def _conv_backprop_input(tf, w, dy):
    return tf.nn.conv2d_backprop_input([1, 4, 4, 2], w, dy, strides=[1, 2, 2, 1], padding="SAME")


def _conv_backprop_filter(tf, x, dy):
    return tf.nn.conv2d_backprop_filter(x, [3, 3, 2, 3], dy, strides=[1, 2, 2, 1], padding="SAME")


def _grad_with(pool):
    """The gradient op of pool(x) as a function of (x, upstream gradient v): tests the grad op's own grad."""
    def build(tf, x, v):
        return tf.gradients(pool(tf, x), x, grad_ys=v)[0]
    return build


def _interleave(a, b):
    """The full table of two "mod" shards: row r lives in shard r % 2 at r // 2."""
    full = np.zeros((len(a) + len(b),) + a.shape[1:], a.dtype)
    full[0::2], full[1::2] = a, b
    return full


def np_lrn(x, r=2, bias=1.0, alpha=0.5, beta=0.75):
    c = x.shape[-1]
    sq = np.stack([(x[..., max(0, i - r):i + r + 1].astype(np.float64) ** 2).sum(-1) for i in range(c)], -1)
    return x / (bias + alpha * sq) ** beta


NCE_LABELS = np.array([[1], [3], [0]])
NCE_SAMPLED = (np.array([3, 5, 7]), np.array([[0.5], [0.25], [0.8]], np.float32), np.array([0.3, 0.2, 0.1], np.float32))


def _sampled(tf, loss, w, b, x):
    values = tuple(tf.constant(v) for v in NCE_SAMPLED)
    return loss(w, b, tf.constant(NCE_LABELS), x, 3, 8, sampled_values=values)


def np_sampled_logits(w, b, x, remove_hits):
    s, te, se = NCE_SAMPLED
    lab = NCE_LABELS[:, 0]
    true = (x * w[lab]).sum(1) + b[lab] - np.log(te[:, 0])
    sampled = x @ w[s].T + b[s] - np.log(se)
    if remove_hits:
        sampled = sampled + np.where(lab[:, None] == s[None], -np.finfo(np.float32).max, 0)
    return np.concatenate([true[:, None], sampled], 1)


def np_nce(w, b, x):
    z = np_sampled_logits(w, b, x, False)
    y = np.zeros_like(z)
    y[:, 0] = 1
    return (np.maximum(z, 0) - z * y + np.log1p(np.exp(-np.abs(z)))).sum(1)


def np_space_to_depth(x, b=2):
    n, h, w, c = x.shape
    return x.reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5).reshape(n, h // b, w // b, b * b * c)


def _fused_bn(x, scale, offset):
    x = x.astype(np.float64)
    mean, var = x.mean((0, 1, 2)), x.var((0, 1, 2))
    n = x.size // x.shape[-1]
    return [(x - mean) / np.sqrt(var + 1e-3) * scale + offset, mean, var * n / (n - 1)]


SPECS = [
    # convolutions
    OpSpec("conv2d_same", lambda tf, x, w: tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"), [IMG, FILT],
           lambda x, w: np_conv(x, w), grad=True, second_order=True, rtol=1e-4, atol=1e-5),
    OpSpec("conv2d_stride2_same", lambda tf, x, w: tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME"), [IMG4, FILT],
           lambda x, w: np_conv(x, w, (2, 2)), grad=True, rtol=1e-4, atol=1e-5),
    OpSpec("conv2d_valid_dilated", lambda tf, x, w: tf.nn.conv2d(x, w, [1, 1, 1, 1], "VALID", dilations=[1, 1, 2, 1]),
           [IMG, FILT], lambda x, w: np_conv(x, w, padding="VALID", d=(1, 2)), grad=True, rtol=1e-4, atol=1e-5),
    OpSpec("conv2d_nchw", lambda tf, x, w: tf.nn.conv2d(x, w, [1, 1, 2, 2], "SAME", data_format="NCHW"),
           [nchw(IMG), FILT], lambda x, w: nchw(np_conv(np.transpose(x, (0, 2, 3, 1)), w, (2, 2))), grad=True,
           rtol=1e-4, atol=1e-5),
    OpSpec("conv2d_backprop_input", _conv_backprop_input, [FILT, f32(1, 2, 2, 3)],
           lambda w, dy: np_conv_transpose(dy, w, (1, 4, 4, 2), (2, 2)), grad=True,
           rtol=1e-4, atol=1e-5),
    OpSpec("conv2d_backprop_filter", _conv_backprop_filter, [IMG4, f32(1, 2, 2, 3)], None, grad=True),
    OpSpec("conv2d_transpose", lambda tf, v, w: tf.nn.conv2d_transpose(v, w, [1, 4, 4, 2], [1, 2, 2, 1], "SAME"),
           [V4, FILT], lambda v, w: np_conv_transpose(v, w, (1, 4, 4, 2), (2, 2)),
           grad=True, rtol=1e-4, atol=1e-5),
    OpSpec("depthwise_conv2d", lambda tf, x, w: tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME"), [IMG, DWF],
           lambda x, w: np_depthwise(x, w), grad=True, second_order=True, rtol=1e-4, atol=1e-5),
    OpSpec("conv1d", lambda tf, x, w: tf.nn.conv1d(x, w, 2, "SAME"), [IMG[0], FILT[0]],
           lambda x, w: np_conv(x[None], w[None], (1, 2))[0], grad=True, rtol=1e-4, atol=1e-5),
    OpSpec("atrous_conv2d", lambda tf, x, w: tf.nn.atrous_conv2d(x, w, 2, "SAME"), [IMG, FILT],
           lambda x, w: np_conv(x, w, d=(2, 2)), rtol=1e-4, atol=1e-5),
    OpSpec("separable_conv2d", lambda tf, x, d, p: tf.nn.separable_conv2d(x, d, p, [1, 1, 1, 1], "VALID"),
           [IMG, DWF, f32(1, 1, 4, 3)], lambda x, d, p: np_conv(np_depthwise(x, d, padding="VALID"), p),
           grad=True, rtol=1e-4, atol=1e-5),
    OpSpec("lrn", lambda tf, x: tf.nn.lrn(x, 2, 1.0, 0.5, 0.75), [f32(1, 2, 2, 6)], np_lrn, grad=True, rtol=1e-4),
    OpSpec("conv1d_transpose", lambda tf, v, w: tf.nn.conv1d_transpose(v, w, [2, 4, 2], 2), [V4[0], FILT[0]],
           lambda v, w: np_conv_transpose(v[:, None], w[None], (2, 1, 4, 2), (1, 2))[:, 0], grad=True, rtol=1e-4,
           atol=1e-5),
    OpSpec("space_to_depth", lambda tf, x: tf.nn.space_to_depth(x, 2), [IMG4], np_space_to_depth, grad=True),
    OpSpec("depth_to_space_nchw", lambda tf, x: tf.nn.depth_to_space(x, 2, data_format="NCHW"),
           [nchw(np_space_to_depth(IMG4))], lambda x: nchw(IMG4), grad=True),
    # pooling
    OpSpec("pool1d", lambda tf, x: tf.nn.max_pool1d(x, 2, 2, "SAME") + tf.nn.avg_pool1d(x, 2, 2, "SAME"),
           [IMG[0]], lambda x: (np_pool(x[None], (1, 2), (1, 2), "SAME", np.nanmax) +
                                np_pool(x[None], (1, 2), (1, 2), "SAME", np.nanmean))[0]),
    OpSpec("max_pool_same", lambda tf, x: tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"), [POOL_IN],
           lambda x: np_pool(x, (2, 2), (2, 2), "SAME", np.nanmax), grad=True, second_order=True),
    OpSpec("max_pool_grad_grad", _grad_with(lambda tf, x: tf.nn.max_pool(x, 3, 2, "VALID")),
           [POOL_IN, f32(1, 2, 2, 2)], None, grad=True, grad_inputs=[1], second_order=True),
    OpSpec("avg_pool_same", lambda tf, x: tf.nn.avg_pool(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME"), [IMG],
           lambda x: np_pool(x, (3, 3), (2, 2), "SAME", np.nanmean), grad=True),
    OpSpec("avg_pool_grad_grad", _grad_with(lambda tf, x: tf.nn.avg_pool(x, 2, 1, "VALID")),
           [IMG, f32(1, 4, 4, 2)], None, grad=True, grad_inputs=[1]),
    OpSpec("avg_pool_nchw", lambda tf, x: tf.nn.avg_pool(x, [1, 1, 2, 2], [1, 1, 2, 2], "SAME", data_format="NCHW"),
           [nchw(IMG)], lambda x: nchw(np_pool(np.transpose(x, (0, 2, 3, 1)), (2, 2), (2, 2), "SAME", np.nanmean))),
    OpSpec("max_pool3d_same", lambda tf, x: tf.nn.max_pool3d(x, [1, 2, 3, 2, 1], [1, 2, 2, 2, 1], "SAME"), [POOL3D_IN],
           lambda x: np_pool3d(x, (2, 3, 2), (2, 2, 2), "SAME", np.nanmax), grad=True, second_order=True),
    OpSpec("max_pool3d_grad_grad", _grad_with(lambda tf, x: tf.nn.max_pool3d(x, 2, 1, "VALID")),
           [POOL3D_IN, G3D], None, grad=True, grad_inputs=[1], second_order=True),
    OpSpec("avg_pool3d_same", lambda tf, x: tf.nn.avg_pool3d(x, [1, 2, 3, 3, 1], [1, 1, 2, 2, 1], "SAME"),
           [POOL3D_IN], lambda x: np_pool3d(x, (2, 3, 3), (1, 2, 2), "SAME", np.nanmean), grad=True),
    OpSpec("avg_pool3d_grad_grad", _grad_with(lambda tf, x: tf.nn.avg_pool3d(x, 2, 1, "VALID")),
           [POOL3D_IN, G3D], None, grad=True, grad_inputs=[1]),
    OpSpec("bias_add", lambda tf, x, b: tf.nn.bias_add(x, b), [IMG, f32(2)], lambda x, b: x + b, grad=True),
    OpSpec("bias_add_nchw", lambda tf, x, b: tf.nn.bias_add(x, b, data_format="NCHW"), [nchw(IMG), f32(2)],
           lambda x, b: x + b[:, None, None], grad=True),
    OpSpec("bias_add_grad_grad", lambda tf, x, b, v: tf.gradients(tf.nn.bias_add(x, b), b, grad_ys=v)[0],
           [IMG, f32(2), f32(1, 5, 5, 2)], lambda x, b, v: v.sum((0, 1, 2)), grad=True, grad_inputs=[2]),
    # activations
    OpSpec("relu", lambda tf, x: tf.nn.relu(x), [ACT], lambda x: np.maximum(x, 0), grad=True, second_order=True),
    OpSpec("relu6", lambda tf, x: tf.nn.relu6(x), [ACT], lambda x: np.clip(x, 0, 6), grad=True, second_order=True),
    OpSpec("elu", lambda tf, x: tf.nn.elu(x), [ACT], lambda x: np.where(x > 0, x, np.expm1(x)), grad=True,
           second_order=True),
    OpSpec("selu", lambda tf, x: tf.nn.selu(x), [ACT],
           lambda x: SELU[0] * np.where(x > 0, x, SELU[1] * np.expm1(x)), grad=True, second_order=True),
    OpSpec("softplus", lambda tf, x: tf.nn.softplus(x), [ACT], lambda x: np.logaddexp(x, 0), grad=True,
           second_order=True),
    OpSpec("softsign", lambda tf, x: tf.nn.softsign(x), [ACT], lambda x: x / (1 + np.abs(x)), grad=True,
           second_order=True),
    OpSpec("leaky_relu", lambda tf, x: tf.nn.leaky_relu(x), [ACT], lambda x: np.where(x > 0, x, 0.2 * x), grad=True,
           second_order=True),
    OpSpec("crelu", lambda tf, x: tf.nn.crelu(x), [ACT], lambda x: np.concatenate([np.maximum(x, 0),
                                                                                    np.maximum(-x, 0)], -1), grad=True),
    OpSpec("swish", lambda tf, x: tf.nn.swish(x), [ACT], lambda x: x * sigmoid(x), grad=True),
    OpSpec("relu_layer", lambda tf, x, w, b: tf.nn.relu_layer(x, w, b) + tf.nn.xw_plus_b(x, w, b),
           [LOGITS, f32(4, 2), f32(2)], lambda x, w, b: np.maximum(x @ w + b, 0) + x @ w + b, grad=True),
    OpSpec("zero_fraction", lambda tf, x: tf.nn.zero_fraction(tf.nn.relu(x)), [ACT], lambda x: np.mean(x <= 0)),
    OpSpec("nn_sigmoid_tanh", lambda tf, x: tf.nn.sigmoid(x) + tf.nn.tanh(x), [ACT], lambda x: sigmoid(x) + np.tanh(x)),
    # softmax family and cross entropies
    OpSpec("softmax_axis0", lambda tf, x: tf.nn.softmax(x, axis=0), [LOGITS],
           lambda x: np.exp(np_log_softmax(x, 0)), grad=True, second_order=True),
    OpSpec("log_softmax", lambda tf, x: tf.nn.log_softmax(x), [LOGITS], np_log_softmax, grad=True,
           second_order=True),
    OpSpec("softmax_xent_v2", lambda tf, y, x: tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=x),
           [LABELS, LOGITS], lambda y, x: -(y * np_log_softmax(x)).sum(-1), grad=True),
    # no second order: TF's backprop softmax - labels is exact only where the labels sum to 1 (the
    # finite differences move them off it); tests/ops/test_diffcorpus.py checks TF's numbers
    OpSpec("softmax_xent_v2_axis0", lambda tf, y, x: tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=y, logits=x, axis=0), [LABELS.T.copy(), LOGITS.T.copy()],
        lambda y, x: -(y * np_log_softmax(x, 0)).sum(0), grad=True),
    OpSpec("softmax_xent_v1", lambda tf, y, x: tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=x),
           [LABELS, LOGITS], lambda y, x: -(y * np_log_softmax(x)).sum(-1), grad=True, grad_inputs=[1]),
    OpSpec("sparse_softmax_xent", lambda tf, y, x: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=x),
           [SPARSE, LOGITS], lambda y, x: -np_log_softmax(x)[np.arange(3), y], grad=True, second_order=True),
    OpSpec("sparse_softmax_xent_int64", lambda tf, y, x: tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=y, logits=x), [SPARSE.astype(np.int64), LOGITS], lambda y, x: -np_log_softmax(x)[np.arange(3), y]),
    OpSpec("sigmoid_xent", lambda tf, z, x: tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x),
           [BIN, LOGITS * 3], lambda z, x: -z * np.log(sigmoid(x)) - (1 - z) * np.log(1 - sigmoid(x)), grad=True,
           rtol=1e-4),
    OpSpec("weighted_xent", lambda tf, z, x: tf.nn.weighted_cross_entropy_with_logits(z, x, 2.5),
           [BIN, LOGITS * 3], lambda z, x: -2.5 * z * np.log(sigmoid(x)) - (1 - z) * np.log(1 - sigmoid(x)),
           grad=True, rtol=1e-4),
    OpSpec("log_poisson_full", lambda tf, t, x: tf.nn.log_poisson_loss(t, x, compute_full_loss=True),
           [np.array([0., 0.5, 2., 3.], np.float32), f32(4)],
           lambda t, x: np.exp(x) - x * t + np.where(t > 1, t * np.log(np.maximum(t, 1)) - t +
                                                    0.5 * np.log(2 * np.pi * np.maximum(t, 1)), 0),
           grad=True, grad_inputs=[1], rtol=1e-4),
    # normalization
    OpSpec("l2_loss", lambda tf, x: tf.nn.l2_loss(x), [LOGITS], lambda x: (x.astype(np.float64) ** 2).sum() / 2,
           grad=True, second_order=True),
    OpSpec("l2_normalize", lambda tf, x: tf.nn.l2_normalize(x, axis=1), [LOGITS],
           lambda x: x / np.sqrt((x ** 2).sum(1, keepdims=True)), grad=True),
    OpSpec("moments", lambda tf, x: list(tf.nn.moments(x, axes=[0])), [LOGITS],
           lambda x: [x.mean(0), x.var(0)], grad=True),
    OpSpec("moments_keep_dims", lambda tf, x: list(tf.nn.moments(x, axes=[0, 1], keep_dims=True)), [LOGITS],
           lambda x: [x.mean(keepdims=True), x.var(keepdims=True)]),
    OpSpec("sufficient_statistics", lambda tf, x: list(tf.nn.normalize_moments(
        *tf.nn.sufficient_statistics(x, [0], shift=0.5))), [LOGITS], lambda x: [x.mean(0), x.var(0)], grad=True),
    OpSpec("weighted_moments", lambda tf, x, w: list(tf.nn.weighted_moments(x, [1], w)), [LOGITS, BIN],
           lambda x, w: [(w * x).sum(1) / w.sum(1), (w * (x - (w * x).sum(1, keepdims=True) / w.sum(1, keepdims=True))
                                                    ** 2).sum(1) / w.sum(1)], grad=True, rtol=1e-4),
    OpSpec("batch_norm_global", lambda tf, x, m, v, b, g: tf.nn.batch_norm_with_global_normalization(
        x, m, v, b, g, 1e-3, True), [LOGITS, f32(4), np.abs(f32(4)) + 0.5, f32(4), f32(4)],
        lambda x, m, v, b, g: (x - m) / np.sqrt(v + 1e-3) * g + b, rtol=1e-4),
    OpSpec("batch_normalization", lambda tf, x, m, v, o, s: tf.nn.batch_normalization(x, m, v, o, s, 1e-3),
           [LOGITS, f32(4), np.abs(f32(4)) + 0.5, f32(4), f32(4)],
           lambda x, m, v, o, s: (x - m) / np.sqrt(v + 1e-3) * s + o, grad=True, rtol=1e-4),
    OpSpec("fused_batch_norm", lambda tf, x, s, o: list(tf.nn.fused_batch_norm(x, s, o)), [IMG, f32(2), f32(2)],
           _fused_bn, grad=True, rtol=1e-4, atol=1e-5),
    # top-k
    OpSpec("in_top_k", lambda tf, p, t: tf.nn.in_top_k(p, t, 2),
           [np.array([[0.1, 0.5, 0.5, 0.2], [0.9, 0.1, 0.3, 0.3], [0.1, np.inf, 0.2, 0.3]], np.float32),
            np.array([2, 3, 3], np.int32)], lambda p, t: np.array([True, True, False])),
    OpSpec("top_k", lambda tf, x: list(tf.nn.top_k(x, 2)), [LOGITS],
           lambda x: [np.sort(x, -1)[:, ::-1][:, :2], np.argsort(-x, -1)[:, :2]], grad=True),
    # sampled losses
    OpSpec("candidate_samplers", lambda tf, t: list(tf.nn.log_uniform_candidate_sampler(t, 1, 3, True, 10, seed=1)) +
           list(tf.nn.uniform_candidate_sampler(t, 1, 4, False, 10)), [NCE_LABELS], None),
    OpSpec("nce_loss", lambda tf, w, b, x: _sampled(tf, tf.nn.nce_loss, w, b, x), [f32(8, 4), f32(8), f32(3, 4)],
           np_nce, grad=True, rtol=1e-4),
    OpSpec("sampled_softmax_loss", lambda tf, w, b, x: _sampled(tf, tf.nn.sampled_softmax_loss, w, b, x),
           [f32(8, 4), f32(8), f32(3, 4)], lambda w, b, x: -np_log_softmax(np_sampled_logits(w, b, x, True))[:, 0],
           grad=True, rtol=1e-4),
    # embeddings
    OpSpec("embedding_lookup", lambda tf, p, i: tf.nn.embedding_lookup(p, i), [f32(5, 2), np.array([[4, 0], [4, 2]])],
           lambda p, i: p[i], grad=True),
    OpSpec("embedding_lookup_mod_shards", lambda tf, a, b, i: tf.nn.embedding_lookup([a, b], i),
           [f32(3, 2), f32(2, 2), np.array([4, 1, 0, 3], np.int32)],
           lambda a, b, i: _interleave(a, b)[i], grad=True),
]


def _gather_tree_numpy(step_ids, parent_ids, max_lengths, end_token):
    """TF's GatherTree kernel, loop for loop."""
    max_time, batch, beam = step_ids.shape
    beams = np.full_like(step_ids, end_token)
    for b in range(batch):
        length = min(max_time, int(max_lengths[b]))
        for w in range(beam):
            if length <= 0:
                continue
            beams[length - 1, b, w] = step_ids[length - 1, b, w]
            parent = parent_ids[length - 1, b, w]
            for t in range(length - 2, -1, -1):
                beams[t, b, w] = step_ids[t, b, parent]
                parent = parent_ids[t, b, parent]
            finished = False
            for t in range(length):
                if finished:
                    beams[t, b, w] = end_token
                elif beams[t, b, w] == end_token:
                    finished = True
    return beams


_STEPS = np.random.RandomState(12).randint(0, 6, (5, 2, 3)).astype(np.int32)
_PARENTS = np.random.RandomState(13).randint(0, 3, (5, 2, 3)).astype(np.int32)
SPECS += [OpSpec("gather_tree", lambda tf, s, p, n: tf.contrib.seq2seq.gather_tree(s, p, n, 1),
                 [_STEPS, _PARENTS, np.array([5, 3], np.int32)],
                 lambda s, p, n: _gather_tree_numpy(s, p, n, 1))]
