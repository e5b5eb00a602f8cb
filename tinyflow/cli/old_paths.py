"""The modules' paths before the layer folders (`tinyflow.train.saver`, `tinyflow.client.session`,
`python -m tinyflow.memory`, ...) keep working: an import finder maps each old path to the module's
new one, and the old name is the same module object (not a copy), so state and monkeypatches agree."""
import importlib
import importlib.abc
import importlib.util
import sys

# old path prefix -> new path prefix; the first match wins. A `tinyflow.X` not matched here and not
# a layer folder is a frontend module: `tinyflow.api.X`.
RENAMES = [
    ("tinyflow.errors", "tinyflow.graph.errors"),
    ("tinyflow.client", "tinyflow.runtime"),
    ("tinyflow.eager.execute", "tinyflow.runtime.eager.execute"),
    ("tinyflow.eager.context", "tinyflow.runtime.eager.context"),
    ("tinyflow.eager.tape", "tinyflow.runtime.eager.tape"),
    ("tinyflow.eager.tensor", "tinyflow.runtime.eager.tensor"),
    ("tinyflow.eager.variables", "tinyflow.runtime.eager.variables"),
    ("tinyflow.eager.backprop", "tinyflow.runtime.eager.backprop"),
    ("tinyflow.io_ops", "tinyflow.formats"),
    ("tinyflow.tf_files.bundle", "tinyflow.formats.bundle"),
    ("tinyflow.tf_files.ordered_code", "tinyflow.formats.ordered_code"),
    ("tinyflow.tf_files.table", "tinyflow.formats.table"),
    ("tinyflow.tf_files.protos", "tinyflow.formats.protos"),
    ("tinyflow.tf_files.convert", "tinyflow.formats.convert"),
    ("tinyflow.train.checkpoint", "tinyflow.formats.checkpoint"),
    ("tinyflow.train.durable", "tinyflow.formats.durable"),
    ("tinyflow.recompute_plan", "tinyflow.passes.recompute_plan"),
    ("tinyflow.visualize", "tinyflow.passes.visualize"),
    ("tinyflow.python_shim", "tinyflow.cli.python_shim"),
    ("tinyflow.memory", "tinyflow.cli.memory"),
    ("tinyflow.coverage", "tinyflow.cli.coverage"),
    ("tinyflow.layers_conv", "tinyflow.api.layers"),   # merged into tf.layers
    ("tinyflow.api.layers_conv", "tinyflow.api.layers"),
    ("tinyflow.data.transformations", "tinyflow.api.data.dataset_ops"),   # merged into dataset_ops
    ("tinyflow.api.data.transformations", "tinyflow.api.data.dataset_ops"),
    ("tinyflow.ops.base", "tinyflow.ops.core.base"),
    ("tinyflow.ops.array_ops", "tinyflow.ops.core.array_ops"),
    ("tinyflow.ops.math_ops", "tinyflow.ops.core.math_ops"),
    ("tinyflow.ops.indexing_ops", "tinyflow.ops.core.indexing_ops"),
    ("tinyflow.ops.sequence_ops", "tinyflow.ops.core.sequence_ops"),
]
LAYERS = {"api", "cli", "formats", "graph", "lower", "ops", "passes", "runtime"}


def new_path(old):
    """The module path that `old` (a path of the earlier layout) names now, or None."""
    for a, b in RENAMES:
        if old == a or old.startswith(a + "."):
            return b + old[len(a):]
    parts = old.split(".")
    if len(parts) > 1 and parts[0] == "tinyflow" and parts[1] not in LAYERS and not parts[1].startswith("_"):
        return "tinyflow.api." + ".".join(parts[1:])
    return None


class _Alias(importlib.abc.Loader):
    """Loads an old path as the module of its new path (one module object under two names)."""

    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        return importlib.import_module(self.target)

    def exec_module(self, module):
        pass

    def get_code(self, fullname):   # runpy (`python -m tinyflow.memory`) runs the new module's code
        spec = importlib.util.find_spec(self.target)
        return spec.loader.get_code(self.target)

    def is_package(self, fullname):
        spec = importlib.util.find_spec(self.target)
        return spec.submodule_search_locations is not None


class OldPathFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        new = new_path(fullname)
        if new is None or new == fullname:
            return None
        try:
            real = importlib.util.find_spec(new)
        except ImportError:
            return None
        if real is None:
            return None
        spec = importlib.util.spec_from_loader(fullname, _Alias(new), origin=real.origin,
                                               is_package=real.submodule_search_locations is not None)
        if real.submodule_search_locations is not None:
            spec.submodule_search_locations = list(real.submodule_search_locations)
        spec.origin = real.origin   # runpy's __file__ (`python -m tinyflow.coverage` reads files beside it)
        return spec


def install():
    if not any(isinstance(f, OldPathFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, OldPathFinder())   # before the path finders: an old path is never loaded twice
