"""tf.sysconfig (TF 1.15): where a C++ op library would find TF's headers and library. tinyflow has no C++
library to build against (its ops are Python registrations lowered to XLA through JAX): the paths name
the tinyflow package, and the flags are TF's own defaults."""
import os
import sys

CXX11_ABI_FLAG = 0
MONOLITHIC_BUILD = 0


def get_include():
    """The directory a custom op's C++ would include from (here: the tinyflow package; it holds no headers)."""
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "include")


def get_lib():
    """The directory of the framework library (here: the tinyflow package)."""
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def get_compile_flags():
    return ["-I" + get_include(), "-D_GLIBCXX_USE_CXX11_ABI=%d" % CXX11_ABI_FLAG]


def get_link_flags():
    return ["-L" + get_lib()]


_module = sys.modules[__name__]   # tf.sysconfig itself (api/__init__.py's LAZY_NAMES entry)
