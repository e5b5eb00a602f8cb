"""tf.math's special functions against scipy (their gradients by finite differences: betainc and zeta in x
and q only, as TF's)."""
import numpy as np
import scipy.special as sp

from opspecs import OpSpec

R = np.random.RandomState(3)
X = R.rand(2, 3) * 3 + 0.2
A = R.rand(2, 3) * 2 + 0.5
B = R.rand(2, 3) * 2 + 0.5
U = R.rand(2, 3) * 0.8 + 0.1

SPECS = [
    OpSpec("bessel_i0e_i1e", lambda tf, x: tf.math.bessel_i0e(x) + tf.math.bessel_i1e(x) * 2.0, [X - 1.5],
           lambda x: sp.i0e(x) + 2 * sp.i1e(x), grad=True),
    OpSpec("igamma", lambda tf, a, x: tf.math.igamma(a, x) + tf.math.igammac(a, x) * 0.5, [A, X],
           lambda a, x: sp.gammainc(a, x) + 0.5 * sp.gammaincc(a, x), grad=True, rtol=1e-4),
    OpSpec("betainc", lambda tf, a, b, x: tf.math.betainc(a, b, x), [A, B, U], sp.betainc, grad=True,
           grad_inputs=[2], rtol=1e-4),
    OpSpec("zeta", lambda tf, x, q: tf.math.zeta(x, q), [A + 1.5, X], sp.zeta, grad=True, grad_inputs=[1],
           rtol=1e-4),
    OpSpec("nextafter", lambda tf, x, y: tf.math.nextafter(x, y), [X, A], np.nextafter),
    OpSpec("mul_no_nan", lambda tf, x, y: tf.math.multiply_no_nan(x, y), [X, A * (U > 0.4)],
           lambda x, y: x * y, grad=True),
]
