"""Complex numbers: tf.complex, real, imag, conj, angle, |z| (ComplexAbs) and the FFT family.

Gradients follow TF's convention for complex tensors: the gradient of a real loss L with respect to z
is dL/dx + i dL/dy (z = x + iy), so a holomorphic f passes g * conj(f'(z)) back (math_ops.conj).
"""
import jax
import jax.numpy as jnp
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import ShapeError, get_default_graph
from tinyflow.graph.registry import register_op, shape_of_input
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops.core.base import broadcast_rule, constant, convert_to_tensor, make_op
from tinyflow.ops.core.math_ops import (COMPLEX, cast, convert_like, dtype_rule, multiply, realdiv,
                                        sum_to, zeros_like_scalar)

__all__ = ["angle", "complex", "conj", "imag", "real", "fft", "fft2d", "fft3d", "ifft", "ifft2d", "ifft3d",
           "rfft", "rfft2d", "rfft3d", "irfft", "irfft2d", "irfft3d", "to_complex64", "to_complex128"]

_COMPLEX_OF = {dt.float32: dt.complex64, dt.float64: dt.complex128}


def _complex_type(op_type, param="input"):
    def rule(dtypes, attrs):
        if dtypes[0] not in COMPLEX:
            raise TypeError("Value passed to parameter '%s' has DataType %s not in list of allowed values: "
                            "complex64, complex128" % (param, dtypes[0].name))
        return [attrs.get("Tout", dtypes[0])]
    return rule


def _make_complex(re, im):
    return make_op("Complex", [re, im], {"Tout": _COMPLEX_OF[re.dtype]})


def _complex_dtype(dtypes, attrs):
    dtype_rule("Complex", (dt.float32, dt.float64), names=("real", "imag"))(dtypes, attrs)
    return [_COMPLEX_OF[dtypes[0]]]


def _complex_grad(op, g):
    re, im = op.inputs
    return [sum_to(real(g), re), sum_to(imag(g), im)]


register_op("Complex", shape=broadcast_rule, dtype=_complex_dtype, grad=_complex_grad,
            lower=lambda a, x, y: jax_complex(x, y, a["Tout"]))


def jax_complex(x, y, dtype):
    """x + iy built from its parts (x + 1j * y would turn an infinite y's real part into 0 * inf = NaN
    and a -0.0 y into +0.0)."""
    x, y = jnp.broadcast_arrays(jnp.asarray(x), jnp.asarray(y))
    return jax.lax.complex(x, y).astype(dtype.np)


register_op("Real", shape=shape_of_input(0), dtype=_complex_type("Real"), grad=lambda op, g: [
    _make_complex(g, zeros_like_scalar(g) * g)], lower=lambda a, x: jnp.real(x))
register_op("Imag", shape=shape_of_input(0), dtype=_complex_type("Imag"), grad=lambda op, g: [
    _make_complex(zeros_like_scalar(g) * g, g)], lower=lambda a, x: jnp.imag(x))
register_op("Conj", shape=shape_of_input(0), dtype=_complex_type("Conj"), grad=lambda op, g: [conj(g)],
            lower=lambda a, x: jnp.conj(x), fold=True)
register_op("ComplexAbs", shape=shape_of_input(0), dtype=_complex_type("ComplexAbs", "x"),
            grad=lambda op, g: [_div_no_nan_c(multiply(_make_complex(g, zeros_like_scalar(g) * g), op.inputs[0]),
                                              _make_complex(op.outputs[0], zeros_like_scalar(g) * g))],
            lower=lambda a, x: jnp.abs(x))


def _angle_grad(op, g):
    # TF's rule: -complex(g, 0) / complex(imag(x), real(x))
    x = op.inputs[0]
    z = realdiv(constant(1, dtype=x.dtype), _make_complex(imag(x), real(x)))
    return [multiply(_make_complex(-g, zeros_like_scalar(g) * g), z)]


register_op("Angle", shape=shape_of_input(0), dtype=_complex_type("Angle"), grad=_angle_grad,
            lower=lambda a, x: jnp.angle(x))


def _div_no_nan_c(x, y):
    return make_op("DivNoNan", [x, y])


def complex(real, imag, name=None):
    """real + i imag: float32 parts make complex64, float64 parts complex128."""
    with get_default_graph().name_scope(name or "Complex") as scope:
        re, im = convert_like([real, imag])
        if re.dtype not in _COMPLEX_OF or im.dtype != re.dtype:
            raise TypeError("real and imag must be float32 or float64 tensors of one dtype, got %s and %s"
                            % (re.dtype.name, im.dtype.name))
        return make_op("Complex", [re, im], {"Tout": _COMPLEX_OF[re.dtype]}, name=scope)


def _part(op_type, doc, real_input):
    def part(input, name=None):
        x = convert_to_tensor(input, name="input")
        if not x.dtype.is_complex:
            return real_input(x, name)
        return make_op(op_type, [x], {"Tout": x.dtype.real_dtype}, name=name or op_type)
    part.__name__ = op_type.lower()
    part.__doc__ = doc
    return part


def _identity(x, name):
    from tinyflow.ops.core.math_ops import identity
    return identity(x, name=name) if name else x


real = _part("Real", "The real part of a complex tensor (a real tensor itself).", _identity)
imag = _part("Imag", "The imaginary part of a complex tensor (zeros for a real tensor).",
             lambda x, name: multiply(zeros_like_scalar(x), x, name=name))
angle = _part("Angle", "The argument atan2(imag, real) of a complex tensor (zeros for a real one, as TF 1.15).",
              lambda x, name: multiply(zeros_like_scalar(x), x, name=name))


def conj(x, name=None):
    """The complex conjugate; a real tensor is returned as it is."""
    x = convert_to_tensor(x, name="x")
    if x.dtype.is_complex:
        return make_op("Conj", [x], name=name or "Conj")
    if x.dtype.is_floating or x.dtype.is_integer:
        return x
    raise TypeError("Expected numeric or variant tensor, got dtype %r" % x.dtype)


def to_complex64(x, name="ToComplex64"):
    return cast(x, dt.complex64, name=name)


def to_complex128(x, name="ToComplex128"):
    return cast(x, dt.complex128, name=name)


# ---- FFTs ----------------------------------------------------------------------------------------
def _inner_rank_check(op_type, rank):
    def rule(shapes, attrs, values):
        s = shapes[0]
        if s.ndims is not None and s.ndims < rank:
            raise ShapeError("Shape must be at least rank %d but is rank %d for '%s'" % (rank, s.ndims, op_type))
        return s
    return rule


def _fft(op_type, rank, inverse):
    fn = jnp.fft.ifftn if inverse else jnp.fft.fftn
    axes = tuple(range(-rank, 0))
    register_op(op_type, shape=lambda s, a, v: [_inner_rank_check(op_type, rank)(s, a, v)],
                dtype=_complex_type(op_type), grad=lambda op, g: [_fft_grad(g, rank, inverse)],
                lower=lambda a, x: fn(x, axes=axes).astype(x.dtype))

    def builder(input, name=None):
        return make_op(op_type, [convert_to_tensor(input, name="input")], name=name or op_type)
    builder.__name__ = op_type.lower()
    builder.__doc__ = "The %s%d-D discrete Fourier transform over the inner %d axes." % (
        "inverse " if inverse else "", rank, rank)
    return builder


def _fft_grad(g, rank, inverse):
    # TF: grad(FFT) = IFFT(g) * n, grad(IFFT) = FFT(g) / n, n the size of the transformed axes
    n = _inner_size(g, rank)
    back = _FFTS[(rank, not inverse)](g)
    scale = cast(n, g.dtype)
    return realdiv(back, scale) if inverse else multiply(back, scale)


def _inner_size(x, rank):
    from tinyflow.ops.core.array_ops import shape
    from tinyflow.ops.core.indexing_ops import strided_slice
    from tinyflow.ops.core.math_ops import reduce_prod
    return reduce_prod(strided_slice(shape(x), [-rank], [0], end_mask=1))


fft, ifft = _fft("FFT", 1, False), _fft("IFFT", 1, True)
fft2d, ifft2d = _fft("FFT2D", 2, False), _fft("IFFT2D", 2, True)
fft3d, ifft3d = _fft("FFT3D", 3, False), _fft("IFFT3D", 3, True)
_FFTS = {(1, False): fft, (1, True): ifft, (2, False): fft2d, (2, True): ifft2d, (3, False): fft3d,
         (3, True): ifft3d}


def _rfft_shape(op_type, rank, inverse):
    def rule(shapes, attrs, values):
        s = _inner_rank_check(op_type, rank)(shapes, attrs, values)
        n = values[1]
        if s.ndims is None:
            return [s]
        dims = s.as_list()
        if n is None:
            inner = [None] * rank
        else:
            n = [int(v) for v in np.asarray(n).reshape(-1)]
            inner = n[:-1] + [n[-1] if inverse else n[-1] // 2 + 1]
        return [TensorShape(dims[:-rank] + inner)]
    return rule


def _rfft_lower(rank, inverse, out_dtype):
    axes = tuple(range(-rank, 0))

    def lower(a, x, n):
        n = tuple(int(v) for v in np.asarray(n).reshape(-1))
        if inverse:
            # TF's IRFFT crops / zero-pads the inner axes to n (the last to n//2+1) before transforming
            x = _fit(x, n[:-1] + (n[-1] // 2 + 1,))
            return jnp.fft.irfftn(x, s=n, axes=axes).astype(out_dtype(x.dtype))
        x = _fit(x, n)
        return jnp.fft.rfftn(x, s=n, axes=axes).astype(out_dtype(x.dtype))
    return lower


def _fit(x, sizes):
    """x cropped or zero-padded on its inner axes to `sizes`."""
    rank = len(sizes)
    x = x[(Ellipsis,) + tuple(slice(0, s) for s in sizes)]
    pad = [(0, 0)] * (x.ndim - rank) + [(0, max(0, s - d)) for s, d in zip(sizes, x.shape[-rank:])]
    return jnp.pad(x, pad)


def _rfft(op_type, rank, inverse):
    out = (lambda d: np.float32 if d == np.complex64 else np.float64) if inverse else \
        (lambda d: np.complex64 if d == np.float32 else np.complex128)

    def dtype(dtypes, attrs):
        # TF 1.15's RFFT family is single precision; double precision as TF 2 has it (a superset)
        allowed = COMPLEX if inverse else (dt.float32, dt.float64)
        if dtypes[0] not in allowed:
            raise TypeError("Value passed to parameter 'input' has DataType %s not in list of allowed values: %s"
                            % (dtypes[0].name, ", ".join(d.name for d in allowed)))
        return [dtypes[0].real_dtype if inverse else _COMPLEX_OF[dtypes[0]]]

    register_op(op_type, shape=_rfft_shape(op_type, rank, inverse), dtype=dtype,
                grad=lambda op, g: [_rfft_grad(op, g, rank, inverse), None], lower=_rfft_lower(rank, inverse, out))

    def builder(input_tensor, fft_length=None, name=None):
        x = convert_to_tensor(input_tensor, name="input_tensor")
        if fft_length is None:
            if x.shape.ndims is None or not x.shape[-rank:].is_fully_defined():
                raise ValueError("tinyflow's %s needs fft_length or inner dimensions known when the graph is built"
                                 % op_type.lower())
            inner = [int(d) for d in x.shape.as_list()[-rank:]]
            if inverse:
                inner[-1] = 2 * (inner[-1] - 1)
            fft_length = inner
        return make_op(op_type, [x, convert_to_tensor(fft_length, dt.int32, name="fft_length")],
                       name=name or op_type)
    builder.__name__ = op_type.lower()
    builder.__doc__ = ("The %s%d-D real-input discrete Fourier transform over the inner %d axes (fft_length "
                       "samples)." % ("inverse " if inverse else "", rank, rank))
    return builder


def _rfft_grad(op, g, rank, inverse):
    """TF's rules (spectral_grad.py): RFFT's gradient is the real part of the adjoint of a transform whose
    interior bins count twice; IRFFT's the RFFT of g, interior bins doubled, divided by n."""
    x, n = op.inputs
    return make_op("RFFTGrad", [x, n, g], {"rank": rank, "inverse": inverse})


def _rfft_grad_lower(a, x, n, g):
    rank, inverse = a["rank"], a["inverse"]
    n = tuple(int(v) for v in np.asarray(n).reshape(-1))
    axes = tuple(range(-rank, 0))
    last = n[-1] // 2 + 1
    if not inverse:
        # d/dx of rfftn(fit(x, n)): the adjoint of the (linear) forward map, by JAX's VJP
        import jax
        f = lambda v: jnp.fft.rfftn(_fit(v, n), s=n, axes=axes)   # noqa: E731
        # TF's gradient is conj(J)^T g for a real input: the real part of the VJP of conj(g)
        return jnp.real(jax.vjp(f, x)[1](jnp.conj(g))[0]).astype(x.dtype)
    import jax
    f = lambda v: jnp.fft.irfftn(_fit(v, n[:-1] + (last,)), s=n, axes=axes)   # noqa: E731
    return jnp.conj(jax.vjp(f, x)[1](g.astype(f(x).dtype))[0]).astype(x.dtype)


register_op("RFFTGrad", shape=shape_of_input(0), dtype=lambda d, a: [d[0]], grad=None,
            lower=_rfft_grad_lower)

rfft, irfft = _rfft("RFFT", 1, False), _rfft("IRFFT", 1, True)
rfft2d, irfft2d = _rfft("RFFT2D", 2, False), _rfft("IRFFT2D", 2, True)
rfft3d, irfft3d = _rfft("RFFT3D", 3, False), _rfft("IRFFT3D", 3, True)
