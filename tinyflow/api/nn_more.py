"""More of tf.nn (issue 37): CTC (ops/ctc_ops.py), the other candidate samplers (ops/candidate_more_ops.py),
dilation2d / erosion2d, the filter gradient of conv3d and the transposed convolutions built as the
gradients of the forward ones (both are linear: the transposed op is the forward op's adjoint), and the
quantized ops (ops/quantize_ops.py) and fractional pooling (ops/fractional_pool_ops.py)."""
from tinyflow.graph.core import get_default_graph
from tinyflow.ops.array_more_ops import space_to_batch  # noqa: F401
from tinyflow.ops.candidate_more_ops import (all_candidate_sampler, compute_accidental_hits,  # noqa: F401
                                             fixed_unigram_candidate_sampler, learned_unigram_candidate_sampler)
from tinyflow.ops.core import array_ops as A
from tinyflow.ops.core import math_ops as M
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.ctc_ops import (collapse_repeated, ctc_beam_search_decoder, ctc_beam_search_decoder_v2,  # noqa: F401
                                  ctc_greedy_decoder, ctc_loss, ctc_loss_v2, ctc_unique_labels)
from tinyflow.ops.fractional_pool_ops import fractional_avg_pool, fractional_max_pool  # noqa: F401
from tinyflow.ops.quantize_ops import (quantized_avg_pool, quantized_conv2d, quantized_max_pool,  # noqa: F401
                                       quantized_relu_x)
from tinyflow.ops.pool_argmax_ops import max_pool_with_argmax  # noqa: E402,F401


def safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights=None, combiner="mean",
                                 default_id=None, name=None, partition_strategy="div", max_norm=None):
    """embedding_lookup_sparse made safe as TF's: ids < 0 (and, unless combiner is "sum", weights <= 0) are
    dropped, an empty row gets the embedding of default_id (zeros when None), and ids of rank > 2 are looked
    up per their last dimension: the result is [d_0, ..., d_{n-2}, embedding size]."""
    from tinyflow.api.sparse_more import sparse_fill_empty_rows, sparse_retain
    from tinyflow.api.sparse_ops import embedding_lookup_sparse, sparse_reshape
    from tinyflow.graph import dtypes as dt
    from tinyflow.ops.sparse import SparseTensor
    with get_default_graph().name_scope(name or "embedding_lookup"):
        original_shape = sparse_ids.dense_shape
        rank = sparse_ids.dense_shape.shape[0].value
        flat = [M.reduce_prod(original_shape[:rank - 1]), original_shape[rank - 1]]
        ids = sparse_reshape(sparse_ids, A.stack(flat))
        weights = None if sparse_weights is None else SparseTensor(ids.indices, sparse_weights.values, ids.dense_shape)
        keep = M.greater_equal(ids.values, M.scalar_like(0, ids.values))
        if combiner != "sum" and weights is not None:
            keep = M.logical_and(keep, M.greater(weights.values, M.scalar_like(0, weights.values)))
        ids = sparse_retain(ids, keep)
        weights = None if weights is None else sparse_retain(weights, keep)
        ids, empty = sparse_fill_empty_rows(ids, default_id or 0)
        if weights is not None:
            weights, _ = sparse_fill_empty_rows(weights, 1.0)
        result = embedding_lookup_sparse(embedding_weights, ids, weights, combiner=combiner,
                                         partition_strategy=partition_strategy, max_norm=max_norm)
        if default_id is None:
            result = M.where_v2(A.expand_dims(empty, 1), A.zeros_like(result), result)
        head = M.cast(original_shape[:rank - 1], dt.int32)
        return A.reshape(result, A.concat([head, A.shape(result)[1:]], 0))


def scale_regularization_loss(regularization_loss):
    """The sum of the regularization loss divided by the number of replicas (one: tinyflow runs one replica)."""
    return M.reduce_sum(convert_to_tensor(regularization_loss, name="regularization_loss"))


# ---- morphology ---------------------------------------------------------------------------------------
def _patches(x, fh, fw, strides, rates, padding):
    from tinyflow.ops.misc_ops import extract_image_patches
    return extract_image_patches(x, ksizes=[1, fh, fw, 1], strides=strides, rates=rates, padding=padding)


def dilation2d(input, filter=None, strides=None, rates=None, padding=None, name=None, filters=None,
               data_format="NHWC", dilations=None):
    """Grayscale morphological dilation: out[b, y, x, c] = max over (dy, dx) of
    input[b, y*s + dy*r, x*s + dx*r, c] + filter[dy, dx, c] (positions outside the input do not count)."""
    f = filter if filter is not None else filters
    rates = rates if rates is not None else dilations
    with get_default_graph().name_scope(name or "dilation2d"):
        x = convert_to_tensor(input, name="input")
        f = convert_to_tensor(f, dtype=x.dtype, name="filter")
        fh, fw, c = f.shape.as_list()
        patches = _patches(x, fh, fw, strides, rates, padding)
        inside = _patches(A.ones_like(x), fh, fw, strides, rates, padding)
        shape = A.concat([A.shape(patches)[:3], [fh, fw, c]], 0)
        vals = M.add(A.reshape(patches, shape), f)
        vals = M.where_v2(M.greater(A.reshape(inside, shape), M.scalar_like(0, x)), vals,
                          M.add(M.zeros_like(vals), M.scalar_like(x.dtype.min, x)))
        return M.reduce_max(vals, axis=[3, 4])


def erosion2d(value, kernel, strides, rates, padding, name=None):
    """Grayscale morphological erosion: -dilation2d(-value, kernel reversed in both spatial axes)."""
    from tinyflow.ops.core.sequence_ops import reverse
    with get_default_graph().name_scope(name or "erosion2d"):
        k = reverse(convert_to_tensor(kernel, name="kernel"), [0, 1])
        return M.negative(dilation2d(M.negative(convert_to_tensor(value, name="value")), k, strides, rates,
                                     padding))


# ---- transposed convolutions and filter gradients as adjoints of the forward ops --------------------------
def _adjoint(forward, like_shape, dtype, wrt_input, g):
    """The gradient of the linear forward(z) wrt z (zeros of like_shape) given g: the forward op's adjoint."""
    from tinyflow.passes.gradients import gradients
    z = A.zeros(like_shape, dtype)
    return gradients(forward(z), z, grad_ys=g)[0]


from tinyflow.ops.conv3d_ops import conv3d_backprop_filter  # noqa: E402

conv3d_backprop_filter_v2 = conv3d_backprop_filter


def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None):
    """The transpose of atrous_conv2d: value [batch, h, w, out_channels] back to output_shape."""
    from tinyflow.ops.conv_ops import atrous_conv2d
    with get_default_graph().name_scope(name or "AtrousConv2DTranspose"):
        v = convert_to_tensor(value, name="value")
        f = convert_to_tensor(filters, name="filters")
        return _adjoint(lambda z: atrous_conv2d(z, f, rate, padding), output_shape, v.dtype, True, v)


def conv_transpose(input, filters, output_shape, strides, padding="SAME", data_format=None, dilations=None,
                   name=None):
    """The transposed convolution of rank len(output_shape) - 2 (conv1d/2d/3d_transpose)."""
    from tinyflow.ops import conv3d_ops, conv_ops
    rank = len(output_shape) - 2 if isinstance(output_shape, (list, tuple)) else \
        convert_to_tensor(output_shape).shape[0].value - 2
    fn = {1: conv_ops.conv1d_transpose, 2: conv_ops.conv2d_transpose, 3: conv3d_ops.conv3d_transpose}[rank]
    kwargs = {} if data_format is None else {"data_format": data_format}
    if rank == 3:   # TF's conv3d_transpose_v2 takes 1, 3 or 5 strides and dilations
        from tinyflow.ops.window import get_sequence
        ch = 1 if data_format is not None and data_format.startswith("NC") else 4
        strides, dilations = get_sequence(strides, 3, ch, "strides"), get_sequence(dilations, 3, ch, "dilations")
    if dilations is not None:
        kwargs["dilations"] = dilations
    return fn(input, filters, output_shape, strides, padding=padding, name=name, **kwargs)

def with_space_to_batch(input, dilation_rate, padding, op, filter_shape=None, spatial_dims=None, data_format=None):
    """op(converted, num_spatial_dims, "VALID") on `input` moved by space_to_batch_nd into dilation_rate
    blocks (padded as TF pads: "SAME" as the dilated filter of filter_shape needs, then to a multiple of the
    rate), moved back by batch_to_space_nd: a dilated op from an undilated one. With every rate 1 it is
    op(input, num_spatial_dims, padding). tinyflow needs the rates, filter_shape and the spatial dims'
    sizes known when the graph is built."""
    import numpy as np
    from tinyflow.api.aliases import get_static_value
    from tinyflow.ops.array_more_ops import batch_to_space_nd, space_to_batch_nd
    x = convert_to_tensor(input, name="input")
    rate = get_static_value(convert_to_tensor(dilation_rate, name="dilation_rate"))
    if rate is None or np.ndim(rate) != 1:
        raise ValueError("rate must be rank 1 and known when tinyflow builds the graph")
    rate = np.asarray(rate, np.int64)
    n = len(rate)
    first = 2 if data_format is not None and data_format.startswith("NC") else 1
    dims = list(range(first, n + first)) if spatial_dims is None else [int(d) for d in spatial_dims]
    if dims != sorted(set(dims)) or any(d < 1 for d in dims):
        raise ValueError("spatial_dims must be a montonically increasing sequence of positive integers")
    if x.shape.ndims is not None and x.shape.ndims < dims[-1] + (first == 1):
        raise ValueError("input tensor must have rank %d at least" % (dims[-1] + (first == 1)))
    if np.any(rate < 1):
        raise ValueError("dilation_rate must be positive")
    if np.all(rate == 1):
        return op(x, n, padding)
    if padding == "SAME":
        if filter_shape is None:
            raise ValueError("filter_shape must be specified for SAME padding")
        f = np.asarray(get_static_value(convert_to_tensor(filter_shape, name="filter_shape")), np.int64)[:n]
        extra = f + (f - 1) * (rate - 1) - 1
        base = np.stack([extra // 2, extra - extra // 2], axis=1)
    elif padding == "VALID":
        base = np.zeros([n, 2], np.int64)
    else:
        raise ValueError("Invalid padding method %r" % padding)
    sizes = [x.shape[d].value for d in dims] if x.shape.ndims is not None else [None]
    if None in sizes:
        raise ValueError("tinyflow's with_space_to_batch needs the sizes of the spatial dimensions known")
    extra_end = (rate - (np.asarray(sizes) + base.sum(1)) % rate) % rate
    # space_to_batch_nd blocks dims 1..dims[-1]: the dims between spatial ones get rate 1, no padding
    block, pads, crops = np.ones(dims[-1], np.int64), np.zeros([dims[-1], 2], np.int64), np.zeros([dims[-1], 2],
                                                                                                  np.int64)
    for i, d in enumerate(dims):
        block[d - 1], pads[d - 1], crops[d - 1] = rate[i], [base[i, 0], base[i, 1] + extra_end[i]], [0, extra_end[i]]
    result = op(space_to_batch_nd(x, block, pads), n, "VALID")
    return batch_to_space_nd(result, block, crops)


def convolution(input, filter=None, padding=None, strides=None, dilation_rate=None, name=None, data_format=None,
                filters=None, dilations=None):
    """tf.nn.convolution of 1-D, 2-D or 3-D inputs (rank 3, 4 or 5)."""
    from tinyflow.ops import conv_ops
    from tinyflow.ops.conv3d_ops import conv3d
    from tinyflow.ops.window import get_sequence
    x = convert_to_tensor(input, name="input")
    if x.shape.ndims != 5:
        return conv_ops.convolution(x, filter, padding, strides, dilation_rate, name, data_format, filters, dilations)
    dilations = dilation_rate if dilations is None else dilations
    ch = 1 if data_format is not None and data_format.startswith("NC") else 4
    return conv3d(x, filters if filter is None else filter, get_sequence(strides, 3, ch, "strides"), padding,
                  data_format=data_format or "NDHWC", dilations=get_sequence(dilations, 3, ch, "dilations"),
                  name=name or "convolution")


def pool(input, window_shape, pooling_type, padding, dilation_rate=None, strides=None, name=None, data_format=None,
         dilations=None):
    """N-D (1-3) max or average pooling, TF's way: a dilated pool is the undilated one on the input moved
    by with_space_to_batch (VALID only: TF refuses SAME with dilation_rate > 1)."""
    import numpy as np
    from tinyflow.ops import pooling_ops as P
    if dilations is not None:
        if dilation_rate is not None:
            raise ValueError("Cannot specify both 'dilations' and 'dilation_rate'")
        dilation_rate = dilations
    n = len(window_shape)
    if not 1 <= n <= 3:
        raise ValueError("It is required that 1 <= num_spatial_dims <= 3.")
    rate = np.array([1] * n if dilation_rate is None else list(dilation_rate), np.int64)
    step = np.array([1] * n if strides is None else list(strides), np.int64)
    for what, v in (("dilation_rate", rate), ("strides", step)):
        if len(v) != n:
            raise ValueError("len(%s)=%d but should be %d" % (what, len(v), n))
        if np.any(v < 1):
            raise ValueError("all values of %s must be positive" % what)
    if np.any(step > 1) and np.any(rate > 1):
        raise ValueError("strides > 1 not supported in conjunction with dilation_rate > 1")
    if padding == "SAME" and np.any(rate > 1):
        raise ValueError("pooling with SAME padding is not implemented for dilation_rate > 1")
    if np.any(step > np.asarray(window_shape)):
        raise ValueError("strides > window_shape not supported due to inconsistency between CPU and GPU "
                         "implementations")
    if pooling_type not in ("MAX", "AVG"):
        raise ValueError("%d-D %s pooling is not supported." % (n, pooling_type))
    fn = {("MAX", 1): P.max_pool1d, ("MAX", 2): P.max_pool, ("MAX", 3): P.max_pool3d,
          ("AVG", 1): P.avg_pool1d, ("AVG", 2): P.avg_pool, ("AVG", 3): P.avg_pool3d}[(pooling_type, n)]
    first = data_format is not None and data_format.startswith("NC")
    if n == 1 and data_format not in (None, "NWC", "NCW"):
        raise ValueError("data_format must be either \"NWC\" or \"NCW\".")
    ksize = [1, 1] + list(window_shape) if first else [1] + list(window_shape) + [1]
    steps = [1, 1] + list(step) if first else [1] + list(step) + [1]
    fmt = data_format or ("NWC", "NHWC", "NDHWC")[n - 1]
    with get_default_graph().name_scope(name or "%s_pool" % pooling_type.lower()):
        x = convert_to_tensor(input, name="input")
        x.shape.with_rank(n + 2)
        return with_space_to_batch(x, rate, padding, lambda v, _, pad: fn(v, ksize, steps, pad, data_format=fmt),
                                   filter_shape=window_shape, data_format=data_format)


__all__ = sorted(n for n in dict(globals()) if not n.startswith('_') and n not in (
    'A', 'M', 'convert_to_tensor', 'get_default_graph'))

