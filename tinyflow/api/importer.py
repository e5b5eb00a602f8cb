"""The import hook that serves api/tree.py's tree: `import tensorflow.<path>` under `python -m tinyflow`
(when `tensorflow` is tinyflow), `tensorflow.compat.v1.<path>`, TF's internal paths, and the same paths
under `tinyflow.` (`from tinyflow.keras.layers import Dense`), plus tinyflow's own earlier module paths
(tree.OLD_PATHS). A served path is the declared object itself (the module `tf.nn` is), so attribute access
and import agree, and state and monkeypatches are one; a declared namespace that is not a module (a
SimpleNamespace, a path TF has and tinyflow does not) is served as a `Namespace` module over it.

The namespaces it serves say what they lack: a TF 1.15 name tinyflow does not implement raises
AttributeError "TF 1.15 has tf.nn.X; tinyflow does not implement it" (`missing`); any other name keeps
Python's wording, naming the module as the script spells it (`tensorflow.nn` under the runner).
"""
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types

from tinyflow.api import tree

ROOT_PATHS = ("", "compat.v1")   # the paths the package itself serves
_LAYERS = {"api", "cli", "formats", "graph", "lower", "ops", "passes", "runtime"}
_CHILDREN = {}   # public path -> its declared child paths
for _path in tree.PUBLIC:
    if _path:
        _CHILDREN.setdefault(_path.rpartition(".")[0], []).append(_path)
_SERVES = {}     # module name -> the public paths it serves (tinyflow.api.flags: app.flags and flags)
for _path, _spec in tree.PUBLIC.items():
    if _spec and ":" not in _spec:
        _SERVES.setdefault(_spec, []).append(_path)
del _path, _spec
_SERVED = {}     # path -> the object served there (public and internal paths: one object per path)
_SERVED_AS = {}  # a module's own name -> the tree paths it was imported by
_VIEWS = {}      # id of a namespace object that is not a module -> the Namespace serving it


def _spelled(path):
    """The module as the script spells it: `tensorflow...` under the runner, else `tinyflow...`."""
    root = "tensorflow" if sys.modules.get("tensorflow") is sys.modules.get("tinyflow") else "tinyflow"
    return root + ("." + path if path else "")


def missing(paths, name):
    """The AttributeError for `name` looked up at the public `paths` (one namespace) and not there."""
    if not name.startswith("_"):
        names = tree.tf_names()
        for path in paths:
            if name in names.get(path, ()):
                full = (path + "." if path else "") + name
                message = "TF 1.15 has tf.%s; tinyflow does not implement it" % full
                instead = tree.INSTEAD.get(full) or tree.INSTEAD.get(path)
                return AttributeError(message + ("; instead: " + instead if instead else ""), name=name)
    return AttributeError("module %r has no attribute %r" % (_spelled(paths[0] if paths else ""), name), name=name)


class Namespace(types.ModuleType):
    """A module whose names come from other objects, searched in order (resolved on first lookup): a
    declared namespace that is not a module file, TF's internal modules, and the paths TF 1.15 has and
    tinyflow does not (no sources: every TF name there says it is missing)."""

    def __init__(self, name, sources, paths=()):
        super().__init__(name)
        self.__dict__.update(_tree_sources=tuple(sources), _tree_paths=tuple(paths), _tree_resolved=None)
        self.__path__ = []   # a package: TF's deeper paths import under it

    def _sources(self):
        if self._tree_resolved is None:
            self.__dict__["_tree_resolved"] = [_source(s) for s in self._tree_sources]
        return self._tree_resolved

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        child = self.__name__.partition(".")[2] + "." + name
        if child in tree.INTERNAL:   # a declared deeper path (`from tensorflow.python.framework import ops`)
            aliased = sys.modules.get("tensorflow") is sys.modules.get("tinyflow")
            value = self.__dict__[name] = importlib.import_module("tensorflow." + child) if aliased else \
                resolve(child)
            return value
        for source in self._sources():
            try:
                value = getattr(source, name)
            except AttributeError:
                continue
            return _child(self._tree_paths, name, value, self)
        if self._tree_paths:
            raise missing(self._tree_paths, name)
        raise AttributeError("module %r has no attribute %r" % (self.__name__, name), name=name)

    def __dir__(self):
        names = set(self.__dict__) | {n for s in self._sources() for n in dir(s) if not n.startswith("_")}
        if self._tree_paths:   # TF's names at its paths only (not a source's helpers)
            declared = set().union(*(tree.tf_names().get(p, ()) for p in self._tree_paths))
            names = {n for n in names if n.startswith("_") or n in declared}
        return sorted(names)

    @property
    def __all__(self):   # `from <namespace> import *`
        return sorted({n for s in self._sources() for n in dir(s) if not n.startswith("_")})

    def __repr__(self):
        sources = ", ".join(s if isinstance(s, str) else type(s).__name__ for s in self._tree_sources)
        return "<module %r (tinyflow's, from %s)>" % (self.__name__, sources or "nothing: TF 1.15 has it, "
                                                                                "tinyflow does not")


def is_stub(value):
    """Whether `value` is a path TF 1.15 has that tinyflow serves nothing at."""
    return isinstance(value, Namespace) and not value._tree_sources


def has(namespace, name):
    """Whether the served `namespace` has `name` (a path tinyflow serves nothing at does not count)."""
    try:
        value = getattr(namespace, name)
    except AttributeError:
        return False
    return not is_stub(value)


def _load(spec):
    """(holder, attribute, value) of "module" or "module:attr.attr" (holder None for a module)."""
    module, _, attrs = spec.partition(":")
    holder, attr, value = None, None, importlib.import_module(module)
    for part in attrs.split(".") if attrs else []:
        holder, attr, value = value, part, getattr(value, part)
    return holder, attr, value


def _source(spec):
    """A Namespace's source: "tf" / "tf.<public path>" (that namespace), a tinyflow module spec, or an object."""
    if not isinstance(spec, str):
        return spec
    if spec == "tf" or spec.startswith("tf."):
        return public(spec[3:])
    return _load(spec)[2]


def _module_like(value):
    return isinstance(value, (types.ModuleType, types.SimpleNamespace)) and \
        (not isinstance(value, types.ModuleType) or value.__name__.startswith(("tinyflow", "tensorflow", "tf_")))


def _install_hook(module, paths):
    """Gives a served module the missing-name message and its declared child namespaces finished
    (wrapping its own module __getattr__, PEP 562, when it has one)."""
    original = module.__dict__.get("__getattr__")
    if getattr(original, "tree_paths", None) is not None:
        return

    def __getattr__(name):
        if name.startswith("__"):   # never a TF name (`hasattr(module, "__path__")` of the import system)
            if original is not None:
                return original(name)
            raise AttributeError(name)
        if original is not None:
            try:
                value = original(name)
            except AttributeError as e:
                if e.name is not None and e.name != name:
                    raise   # a bug inside the module's own __getattr__, not a missing name: shown as it is
            else:
                return _child(paths, name, value, module)
        raise missing(paths, name)
    __getattr__.tree_paths = tuple(paths)
    module.__getattr__ = __getattr__
    module.__dir__ = lambda: _declared_dir(module, paths, original)


def _declared_dir(module, paths, lazy=None):
    """dir() of a served module: TF 1.15's names at its paths that it has (its helpers imported from
    elsewhere stay importable but unlisted, as TF's generated modules list only the exported names)."""
    declared = set().union(*(tree.tf_names().get(p, ()) for p in paths))
    names = {n for n in module.__dict__ if n.startswith("_") or n in declared}
    for name in declared - names if lazy is not None else ():
        try:
            lazy(name)
        except AttributeError:
            continue
        names.add(name)
    return sorted(names)


def finish(obj, paths):
    """The object to serve at the public `paths` for `obj`: a module gets the missing-name hook, anything
    else (a SimpleNamespace, ...) a Namespace over it; declared child namespaces already built in it are
    finished too (they are attributes of it)."""
    if isinstance(obj, Namespace) or obj is sys.modules.get("tinyflow") or \
            getattr(getattr(obj, "__dict__", {}).get("__getattr__"), "tree_paths", None) is not None:
        return obj
    if isinstance(obj, types.ModuleType):
        served, built = obj, obj.__dict__
        _install_hook(obj, paths)
    else:
        served, built = _view(obj, "tensorflow." + paths[0], paths), getattr(obj, "__dict__", {})
    for path in paths:
        for child in _CHILDREN.get(path, ()):
            leaf = child.rpartition(".")[2]
            value = built.get(leaf)
            if value is not None and not isinstance(value, Namespace) and _module_like(value):
                done = finish(value, _paths_of(child, value))
                if done is not value or served is not obj:
                    setattr(served, leaf, done)
    return served


def _view(obj, name, paths):
    """The one Namespace over a namespace object that is not a module."""
    if id(obj) not in _VIEWS:
        _VIEWS[id(obj)] = Namespace(name, (obj,), paths)   # (which holds obj: its id stays its own)
    return _VIEWS[id(obj)]


def _paths_of(path, value):
    return _SERVES.get(getattr(value, "__name__", None), [path]) if isinstance(value, types.ModuleType) else [path]


def _child(paths, name, value, holder):
    """`value`, found as `name` on the namespace of `paths`: finished when it is a declared child namespace."""
    for path in paths:
        child = (path + "." if path else "") + name
        if child in tree.PUBLIC:
            done = finish(value, _paths_of(child, value))
            if done is not value:
                setattr(holder, name, done)   # the next lookup finds it
            return done
    return value


def child(paths, name, value):
    """For the package root's lazy names (api/__init__.py): `value`, finished if a declared namespace."""
    return _child(paths, name, value, sys.modules["tinyflow"])


def finish_root(root):
    """The declared namespaces `import tinyflow` built (tf.errors, tf.version, ...), finished."""
    for path in _CHILDREN[""]:
        if _module_like(root.__dict__.get(path)):
            _child(ROOT_PATHS, path, root.__dict__[path], root)


def public(path):
    """The object served at the public `path` (tree.PUBLIC)."""
    if path not in _SERVED:
        spec = tree.PUBLIC[path]
        if spec is None:   # (unless a namespace has it by now, not declared yet: served, and test_tree says so)
            parent, _, leaf = path.rpartition(".")
            try:
                value = getattr(public(parent), leaf) if path else None
            except AttributeError:
                value = None
            _SERVED[path] = finish(value, [path]) if _module_like(value) else \
                Namespace("tensorflow." + path, (), (path,))
        else:
            holder, attr, value = _load(spec)
            done = finish(value, _SERVES.get(spec, [path]))
            if holder is not None and done is not value:
                setattr(holder, attr, done)
            _SERVED[path] = done
    return _SERVED[path]


def internal(path):
    """The object served at one of TF's internal paths (tree.INTERNAL)."""
    if path not in _SERVED:
        spec = tree.INTERNAL[path]
        if isinstance(spec, str):
            _SERVED[path] = _load(spec)[2]
        else:
            fallback = ("tf",) if path.startswith("python") else ()
            _SERVED[path] = Namespace("tensorflow." + path, tuple(spec) + fallback)
    return _SERVED[path]


def _protos():
    """{`core.framework.graph_pb2`-style path: formats/tf_protos.py's module of that .proto file}."""
    if "_protos" not in _SERVED:
        from tinyflow.formats import tf_protos
        out = {}
        for pf in tf_protos.FILES:
            folder, _, file = pf.name[:-len(".proto")].rpartition("/")
            if folder.startswith(("tensorflow/core/", "tensorflow/python/")):
                out[folder[len("tensorflow/"):].replace("/", ".") + "." + file + "_pb2"] = tf_protos._MODULES[file]
        _SERVED["_protos"] = out
    return _SERVED["_protos"]


def resolve(path):
    """The module served at tensorflow.<path>, or None: the declared tree, then its rules (a served
    package's submodule, a served namespace's module-like attribute, TF's protobuf modules,
    `python.keras.*` as `keras.*`, `contrib.<name>.python.*` as tf.contrib.<name>, compat.v2.<path>
    as <path> where TF2's namespace lacks it)."""
    while path == "compat.v1.compat.v1" or path.startswith("compat.v1."):
        path = path[len("compat.v1."):]
    if path in tree.PUBLIC:
        return public(path)
    if path in tree.INTERNAL:
        return internal(path)
    if path.endswith("_pb2"):
        return _protos().get(path)
    if path.startswith(("core.", "python.")) and any(p.startswith(path + ".") for p in _protos()) or path == "core":
        return _SERVED.setdefault(path, Namespace("tensorflow." + path, ()))   # a folder of protobuf modules
    parent, _, leaf = path.rpartition(".")
    found = resolve(parent) if parent else None
    own = getattr(found, "__spec__", None)
    if own is not None and own.submodule_search_locations and sys.modules.get(own.name) is found:
        name = own.name + "." + leaf   # a package of tinyflow's files: its submodule file
        if sys.modules.get(name) is not None or \
                importlib.machinery.PathFinder.find_spec(name, own.submodule_search_locations):
            return importlib.import_module(name)
    if found is not None:
        try:
            value = getattr(found, leaf)
        except AttributeError:
            value = None
        if _module_like(value):
            return value if isinstance(value, types.ModuleType) else _view(value, "tensorflow." + path, ())
        if value is not None:
            return None   # a name there (a function, a class), not a module
    if path.startswith("python.keras."):
        return resolve(path[len("python."):])
    if path.startswith("compat.v2."):
        return resolve(path[len("compat.v2."):])
    parts = path.split(".")
    if len(parts) > 2 and parts[0] == "contrib" and parts[2] == "python" and tree.PUBLIC.get("contrib." + parts[1]) \
            and leaf not in tree.tf_names()["contrib." + parts[1]]:   # (a name of it is no module)
        return public("contrib." + parts[1])   # TF's implementation files of tf.contrib.<name>
    return None


def old_path(name):
    """The module path that `name` (a path of tinyflow's earlier layout) names now, or None."""
    for old, new in tree.OLD_PATHS:
        if name == old or name.startswith(old + "."):
            return new + name[len(old):]
    return None


class _Serve(importlib.abc.Loader):
    """Loads a path as the object served there (the same module object under both names). The module
    keeps its own __spec__ (the import system sets the alias's; exec_module puts it back)."""

    def __init__(self, get, target=None):
        self.get, self.target, self.spec = get, target, None

    def create_module(self, spec):
        module = self.get()
        self.spec = getattr(module, "__spec__", None)
        if self.spec is not None and self.spec.name != spec.name:   # (its submodules by the alias: _under_alias)
            _SERVED_AS.setdefault(self.spec.name, []).append(spec.name.partition(".")[2])
        return module

    def exec_module(self, module):
        if self.spec is not None:
            module.__spec__ = self.spec

    def get_code(self, fullname):   # runpy (`python -m tinyflow.coverage`) runs the target module's code
        return importlib.util.find_spec(self.target).loader.get_code(self.target)

    def is_package(self, fullname):
        return self.target is None or importlib.util.find_spec(self.target).submodule_search_locations is not None


class TreeFinder(importlib.abc.MetaPathFinder):
    """Serves `tensorflow.*` (while sys.modules["tensorflow"] is tinyflow: the runner's alias) and
    `tinyflow.*` paths that are not files: tree.OLD_PATHS, then the declared tree, then `tinyflow.api.X`."""

    def find_spec(self, fullname, path=None, target=None):
        root, _, rest = fullname.partition(".")
        if not rest or root not in ("tinyflow", "tensorflow"):
            return None
        if root == "tensorflow" and sys.modules.get("tensorflow") is not sys.modules.get("tinyflow"):
            return None
        if root == "tinyflow":
            new = old_path(fullname)
            if new is not None:
                return self._alias(fullname, new)
            if rest.partition(".")[0] in _LAYERS:   # a module file (the path finders' business), or
                return self._under_alias(fullname)   # a path under a module served at a tree path
        try:
            found = resolve(rest)
        except (ImportError, AttributeError):
            found = None
        if found is not None:
            return importlib.util.spec_from_loader(fullname, _Serve(lambda: found), is_package=True)
        if root == "tinyflow":   # a frontend module's path before api/ existed: tinyflow.X is tinyflow.api.X
            return self._alias(fullname, "tinyflow.api." + rest)
        return None

    @staticmethod
    def _under_alias(fullname):
        """`from tensorflow.contrib.crf.python.ops import crf`: the import system asks for the submodule
        by the served module's own name (tinyflow.api.contrib.crf.crf), which has no file: the tree path
        it was served at says what it is."""
        parent, _, leaf = fullname.rpartition(".")
        if parent not in _SERVED_AS:
            return None
        module = sys.modules.get(parent)
        if module is None or importlib.machinery.PathFinder.find_spec(fullname, getattr(module, "__path__", None)):
            return None   # a real file: the path finder's
        for path in _SERVED_AS[parent]:
            try:
                found = resolve(path + "." + leaf)
            except (ImportError, AttributeError):
                found = None
            if found is not None:
                return importlib.util.spec_from_loader(fullname, _Serve(lambda: found), is_package=True)
        return None

    @staticmethod
    def _alias(fullname, new):
        try:
            real = importlib.util.find_spec(new)
        except ImportError:
            return None
        if real is None:
            return None
        spec = importlib.util.spec_from_loader(fullname, _Serve(lambda: importlib.import_module(new), new),
                                               origin=real.origin,
                                               is_package=real.submodule_search_locations is not None)
        if real.submodule_search_locations is not None:
            spec.submodule_search_locations = list(real.submodule_search_locations)
        spec.origin = real.origin   # runpy's __file__ (`python -m tinyflow.coverage` reads files beside it)
        return spec


def install():
    """Puts the finder first on sys.meta_path (at `import tinyflow`; cheap: nothing is imported)."""
    if not any(isinstance(f, TreeFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, TreeFinder())
