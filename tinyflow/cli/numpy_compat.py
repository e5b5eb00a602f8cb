"""numpy 1.x's names that numpy 2 removed (np.float, np.int, np.object, np.asscalar, np.NaN, ...), given back
to the scripts the runner starts: TF 1.15's scripts were written for numpy 1.x, and jax brings numpy 2.

`install()` wraps numpy's module __getattr__ (which raises for the removed names) so that each of them
resolves to what it meant in numpy 1.x; the first use warns once, naming the name. Only `python -m tinyflow`
installs it; `import tinyflow` leaves numpy as it is.
"""
import warnings

import numpy as np


class _Cast:
    """np.cast[np.float32](x) of numpy 1.x: x as an array of that dtype."""

    def __getitem__(self, dtype):
        return lambda x: np.asarray(x).astype(dtype)


def _asfarray(a, dtype=np.float64):
    dtype = np.dtype(dtype)
    return np.asarray(a, dtype=dtype if dtype.kind in "fc" else np.float64)


ALIASES = {
    "float": float, "int": int, "object": object, "str": str, "complex": complex, "unicode": str,
    "asscalar": lambda a: a.item(), "float_": np.float64, "complex_": np.complex128, "unicode_": np.str_,
    "string_": np.bytes_, "NaN": np.nan, "Inf": np.inf, "PINF": np.inf, "NINF": -np.inf, "infty": np.inf,
    "Infinity": np.inf, "PZERO": 0.0, "NZERO": -0.0, "alltrue": np.all, "sometrue": np.any, "product": np.prod,
    "cumproduct": np.cumprod, "round_": np.round, "asfarray": _asfarray, "msort": lambda a: np.sort(a, axis=0),
    "int0": np.intp, "uint0": np.uintp, "bool8": np.bool_, "object0": np.object_, "str0": np.str_,
    "bytes0": np.bytes_, "void0": np.void, "mat": np.asmatrix, "cast": _Cast(),
}
_WARNED = []


def install():
    """Makes numpy's removed 1.x names resolve (no-op on numpy 1.x, where they exist)."""
    original = np.__dict__.get("__getattr__")
    if original is None or getattr(original, "_tinyflow", False):
        return

    def __getattr__(name):
        if name in ALIASES:
            if not _WARNED:
                _WARNED.append(name)
                warnings.warn("np.%s was removed in numpy 2 (this script was written for numpy 1.x): tinyflow's "
                              "runner gives it and numpy 1.x's other removed names back (np.float, np.int, "
                              "np.object, np.asscalar, ...)" % name, FutureWarning, stacklevel=2)
            return ALIASES[name]
        return original(name)
    __getattr__._tinyflow = True
    np.__getattr__ = __getattr__
