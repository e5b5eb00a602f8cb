"""tf.sysconfig: where TF's headers and library live, for building custom ops. tinyflow has no C++ library
and loads no custom ops (tf.load_op_library raises UnimplementedError): the paths are tinyflow's package
folder and the flags are empty, so build scripts that only print them still run."""
import os

CXX11_ABI_FLAG = 0
MONOLITHIC_BUILD = 0
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def get_include():
    """The folder TF's headers would be in (tinyflow's package folder: it has none)."""
    return os.path.join(_ROOT, "include")


def get_lib():
    """The folder of TF's shared library (tinyflow's package folder)."""
    return _ROOT


def get_compile_flags():
    """Compiler flags for a custom op: the include folder and the ABI flag, as TF's."""
    return ["-I%s" % get_include(), "-D_GLIBCXX_USE_CXX11_ABI=%d" % CXX11_ABI_FLAG]


def get_link_flags():
    """Linker flags for a custom op: the library folder (there is no library to link)."""
    return ["-L%s" % get_lib()]
