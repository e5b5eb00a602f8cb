"""tf.saved_model.builder.SavedModelBuilder and simple_save: TF 1.15's SavedModel directory.

    export_dir/saved_model.pb        a SavedModel proto: one MetaGraphDef per tag set, with its SignatureDefs
    export_dir/variables/variables.{index,data-00000-of-00001}   the variables (a V2 checkpoint)
    export_dir/assets/               the files of the assets collection, copied

Each MetaGraphDef is what Saver.save's .meta holds (TF's GraphDef, with tinyflow's exact JSON graph in a
collection beside it), plus the tags, the SignatureDefs, the main op (collection saved_model_main_op) and
the assets (collection saved_model_assets, AssetFileDefs in Any protos), as TF 1.15's builder writes them.
"""
import os
import shutil

from tinyflow.api.saved_model import constants as C
from tinyflow.formats.protos import meta_graph_pb2
from tinyflow.graph.core import GraphKeys, Operation, Tensor, get_default_graph


def _saved_model_pb2():
    from tinyflow.formats import tf_protos
    return tf_protos.saved_model_pb2


class SavedModelBuilder:
    """Builds a SavedModel in `export_dir` (which must not exist, or be empty)."""

    def __init__(self, export_dir):
        self._export_dir = os.fspath(export_dir)
        if isinstance(self._export_dir, bytes):
            self._export_dir = self._export_dir.decode()
        if os.path.exists(self._export_dir):
            if os.listdir(self._export_dir):
                raise AssertionError("Export directory already exists, and isn't empty. Please choose a different "
                                     "export directory, or delete all the contents of the specified directory: %s"
                                     % self._export_dir)
        else:
            os.makedirs(self._export_dir)
        self._saved_model = _saved_model_pb2().SavedModel(saved_model_schema_version=C.SAVED_MODEL_SCHEMA_VERSION)
        self._has_saved_variables = False

    def add_meta_graph_and_variables(self, sess, tags, signature_def_map=None, assets_collection=None,
                                     legacy_init_op=None, clear_devices=False, main_op=None,
                                     strip_default_attrs=False, saver=None):
        """Saves the session's variables under variables/ and adds the graph's MetaGraphDef with `tags`."""
        if self._has_saved_variables:
            raise AssertionError("Graph state including variables and assets has already been saved. Please "
                                 "invoke `add_meta_graph()` instead.")
        _validate_signature_def_map(signature_def_map or {})
        graph = sess.graph
        with graph.as_default():
            assets = self._add_collections(graph, assets_collection, main_op or legacy_init_op)
            os.makedirs(os.path.join(self._export_dir, C.VARIABLES_DIRECTORY), exist_ok=True)
            saver = saver or _default_saver(graph)
            saver.save(sess, _variables_path(self._export_dir), write_meta_graph=False, write_state=False)
        self._add_meta_graph(graph, tags, signature_def_map, assets)
        self._has_saved_variables = True

    def add_meta_graph(self, tags, signature_def_map=None, assets_collection=None, legacy_init_op=None,
                       clear_devices=False, main_op=None, strip_default_attrs=False, saver=None):
        """Adds the default graph's MetaGraphDef with `tags` (sharing the variables saved before)."""
        if not self._has_saved_variables:
            raise AssertionError("Graph state including variables and assets has not been saved yet. Please "
                                 "invoke `add_meta_graph_and_variables()` first.")
        _validate_signature_def_map(signature_def_map or {})
        graph = get_default_graph()
        assets = self._add_collections(graph, assets_collection, main_op or legacy_init_op)
        self._add_meta_graph(graph, tags, signature_def_map, assets)

    def save(self, as_text=False):
        """Writes saved_model.pb (or .pbtxt); returns its path (bytes, as TF's)."""
        from tinyflow.formats.protos import write_message
        name = C.SAVED_MODEL_FILENAME_PBTXT if as_text else C.SAVED_MODEL_FILENAME_PB
        path = os.path.join(self._export_dir, name)
        write_message(path, self._saved_model, as_text)
        return path.encode()

    # ---- pieces ------------------------------------------------------------------------------------------
    def _add_collections(self, graph, assets_collection, main_op):
        """Adds main_op to its collection and copies the asset files; returns [(filename, tensor name)]."""
        if main_op is not None:
            if not isinstance(main_op, Operation):
                raise TypeError("main_op needs to be an Operation: %r" % (main_op,))
            for key in (C.MAIN_OP_KEY, C.LEGACY_INIT_OP_KEY):
                if graph.get_collection(key):
                    raise ValueError("Graph already contains one or more main ops under the collection %s." % key)
            graph.add_to_collection(C.MAIN_OP_KEY, main_op)
        assets = []
        for tensor in assets_collection or ():
            source = _asset_path(tensor)
            filename = _unique_name(os.path.basename(source), source, {a[0]: a[1] for a in assets})
            target_dir = os.path.join(self._export_dir, C.ASSETS_DIRECTORY)
            os.makedirs(target_dir, exist_ok=True)
            if not os.path.exists(os.path.join(target_dir, filename)):
                shutil.copyfile(source, os.path.join(target_dir, filename))
            assets.append((filename, source, tensor.name))
        return assets

    def _add_meta_graph(self, graph, tags, signature_def_map, assets):
        from tinyflow.api.tf_files import meta_graph
        meta = meta_graph.export(None, graph)
        if main := graph.get_collection(C.MAIN_OP_KEY):  # (a graph's collections of ops export by name)
            meta.collection_def[C.MAIN_OP_KEY].node_list.value[:] = [op.name for op in main]
        if assets:
            any_list = meta.collection_def[C.ASSETS_KEY].any_list
            for filename, _, tensor_name in assets:
                proto = meta_graph_pb2().AssetFileDef(filename=filename)
                proto.tensor_info.name = tensor_name
                any_list.value.add().Pack(proto)
        meta.meta_info_def.tags.extend([tags] if isinstance(tags, str) else list(tags))
        for key, sig in (signature_def_map or {}).items():
            meta.signature_def[key].CopyFrom(sig)
        self._saved_model.meta_graphs.add().CopyFrom(meta)


def _variables_path(export_dir):
    return os.path.join(export_dir, C.VARIABLES_DIRECTORY, C.VARIABLES_FILENAME)


def _default_saver(graph):
    from tinyflow.api.train.saver import Saver
    return Saver(graph.get_collection(GraphKeys.GLOBAL_VARIABLES) + graph.get_collection("saveable_objects"),
                 allow_empty=True)


def _validate_signature_def_map(signature_def_map):
    for key, sig in signature_def_map.items():
        for info in list(sig.inputs.values()) + list(sig.outputs.values()):
            if not info.WhichOneof("encoding"):
                raise AssertionError("All TensorInfo protos used in the SignatureDefs must have one of the "
                                     "'encoding' fields (e.g., name or coo_sparse) set: %s" % key)
            if info.dtype == 0:
                raise AssertionError("All TensorInfo protos used in the SignatureDefs must have the dtype field "
                                     "set: %s" % key)
        if key in ("__saved_model_init_op", "__saved_model_train_op"):
            raise KeyError("SignatureDef map key \"{}\" is reserved for initialization. Please use a different "
                           "key.".format(key))


def _asset_path(tensor):
    """The file an asset tensor (a scalar string Const) names."""
    if not isinstance(tensor, Tensor):
        raise TypeError("Asset path tensor must be a Tensor.")
    if tensor.op.type != "Const":
        raise TypeError("Asset path tensor must be of type constant.")
    if tensor.dtype.name != "string":
        raise TypeError("Asset path tensor must be of dtype string.")
    value = tensor.op.attrs.get("value")
    import numpy as np
    value = np.asarray(value)
    if value.size != 1:
        raise TypeError("Asset path tensor must be a scalar.")
    value = value.reshape(()).item()
    return value.decode() if isinstance(value, bytes) else str(value)


def _unique_name(filename, source, seen):
    """TF's basename, made unique when another file of the same basename was added."""
    name, i = filename, 1
    while name in seen and seen[name] != source:
        name, i = "%s_%d" % (filename, i), i + 1
    return name


def simple_save(session, export_dir, inputs, outputs, legacy_init_op=None):
    """A SavedModel for serving: tag "serve", one Predict signature "serving_default" of {key: Tensor}."""
    from tinyflow.api.saved_model.signature_def_utils import predict_signature_def
    signature_def_map = {C.DEFAULT_SERVING_SIGNATURE_DEF_KEY: predict_signature_def(inputs, outputs)}
    b = SavedModelBuilder(export_dir)
    b.add_meta_graph_and_variables(session, tags=[C.SERVING], signature_def_map=signature_def_map,
                                   assets_collection=session.graph.get_collection("asset_filepaths"),
                                   main_op=legacy_init_op, clear_devices=True)
    b.save()
