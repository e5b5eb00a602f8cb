"""tinyflow: TensorFlow-1 graph programs on XLA through JAX. `import tinyflow as tf`.

This file only re-exports the `tf.` namespace of `tinyflow/api/`: the graph API now, the other
namespaces (tf.train, tf.estimator, tf.contrib, ...) when a script first asks for them (PEP 562).
The layers, in dependency order: graph/ (IR), formats/ (TF's byte formats), passes/, ops/, lower/
(JAX), runtime/ (Session), api/ (the TF1 frontend), cli/ (the runners).
"""
import gc as _gc
import sys as _sys

# Importing builds many long-lived objects (JAX's and the op registry): the cyclic collector would
# scan them again and again meanwhile and at every later full collection. Paused for the import;
# what the import made is then frozen (gc.freeze: never scanned again).
_gc_enabled = _gc.isenabled()
_gc.disable()
try:
    from tinyflow.api import *  # noqa: F403
    from tinyflow.api import LAZY_MODULES as _LAZY_MODULES, LAZY_NAMES as _LAZY_NAMES, lazy as _lazy
    from tinyflow.api import VERSION, TINYFLOW_VERSION, __version__, __git_version__, __compiler_version__  # noqa: F401
    from tinyflow.api import importer as _importer
    # `import tinyflow.keras.layers`, `tensorflow.<path>` under the runner, the modules' old paths: api/tree.py
    _importer.install()
    _importer.finish_root(_sys.modules[__name__])
finally:   # (also when the import fails: the collector is the process's)
    if _gc_enabled:
        _gc.enable()
_gc.freeze()


def __getattr__(name):
    if name == "memory":   # tinyflow.memory.plan_recompute, ... (also `python -m tinyflow.memory`)
        import importlib
        value = importlib.import_module("tinyflow.cli.memory")
    else:
        value = _lazy(name)
    globals()[name] = value   # the next access is a plain attribute
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY_MODULES) | set(_LAZY_NAMES))
