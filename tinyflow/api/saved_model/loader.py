"""tf.saved_model.loader.load: a SavedModel directory (TF's or tinyflow's) into a session.

The directory is untrusted data: saved_model.pb must be a regular file of a believable size, the
MetaGraphDef goes through the GraphDef importer's checks (or tinyflow's JSON graph checks), asset file
names must be plain names inside assets/, and every file is named in the error when anything is wrong.
"""
import os

from tinyflow.api.saved_model import constants as C
from tinyflow.formats.protos import meta_graph_pb2
from tinyflow.graph import errors
from tinyflow.graph.serialize import GraphFileError

_MAX_BYTES = 2 ** 31 - 1  # protobuf's own limit on one message


def _saved_model_pb2():
    from tinyflow.formats import tf_protos
    return tf_protos.saved_model_pb2


def _files(export_dir):
    return (os.path.join(export_dir, C.SAVED_MODEL_FILENAME_PBTXT), os.path.join(export_dir, C.SAVED_MODEL_FILENAME_PB))


def maybe_saved_model_directory(export_dir):
    """True when export_dir holds a saved_model.pb or saved_model.pbtxt."""
    export_dir = _text(export_dir)
    return any(os.path.isfile(p) for p in _files(export_dir))


contains_saved_model = maybe_saved_model_directory


def _text(path):
    path = os.fspath(path)
    return path.decode() if isinstance(path, bytes) else path


def parse_saved_model(export_dir):
    """The SavedModel proto of export_dir; IOError when there is none, DataLossError when it is not one."""
    from google.protobuf import text_format
    export_dir = _text(export_dir)
    pbtxt, pb = _files(export_dir)
    path = pb if os.path.exists(pb) else pbtxt if os.path.exists(pbtxt) else None
    if path is None:
        raise IOError("SavedModel file does not exist at: %s/{%s|%s}" % (export_dir, C.SAVED_MODEL_FILENAME_PBTXT,
                                                                         C.SAVED_MODEL_FILENAME_PB))
    if not os.path.isfile(path):
        raise errors.DataLossError(None, None, "Cannot parse file %s: not a regular file" % path)
    if os.path.getsize(path) > _MAX_BYTES:
        raise errors.DataLossError(None, None, "Cannot parse file %s: larger than protobuf's 2 GiB limit" % path)
    with open(path, "rb") as f:
        data = f.read()
    saved_model = _saved_model_pb2().SavedModel()
    try:
        if path == pb:
            saved_model.ParseFromString(data)
        else:
            text_format.Parse(data.decode("utf-8"), saved_model)
    except Exception as e:
        raise errors.DataLossError(None, None, "Cannot parse file %s: %s" % (path, str(e)[:200])) from None
    if not saved_model.meta_graphs:
        raise errors.DataLossError(None, None, "Cannot parse file %s: a SavedModel with no MetaGraphDef" % path)
    return saved_model


def get_meta_graph_def_from_tags(saved_model, tags, export_dir=""):
    """The MetaGraphDef whose tag set is exactly `tags`; RuntimeError listing the tag sets there are."""
    want = {tags} if isinstance(tags, str) else set(tags)
    found = []
    for meta in saved_model.meta_graphs:
        have = set(meta.meta_info_def.tags)
        if have == want:
            return meta
        found.append(list(meta.meta_info_def.tags))
    raise RuntimeError("MetaGraphDef associated with tags " + str(list(tags) if not isinstance(tags, str)
                                                                  else [tags]).strip("[]")
                       + " could not be found in SavedModel. To inspect available tag-sets in the SavedModel, "
                       "please use the SavedModel CLI: `saved_model_cli`\navailable_tags: " + str(found))


def get_asset_tensors(export_dir, meta, import_scope=None):
    """{asset tensor name: path in export_dir/assets}; GraphFileError for a file name that leaves assets/."""
    protos = list(meta.asset_file_def)
    if not protos and C.ASSETS_KEY in meta.collection_def:
        for packed in meta.collection_def[C.ASSETS_KEY].any_list.value:
            proto = meta_graph_pb2().AssetFileDef()
            if not packed.Unpack(proto):
                raise GraphFileError("SavedModel %s: an entry of collection %s is not an AssetFileDef (%s)"
                                     % (export_dir, C.ASSETS_KEY, packed.type_url))
            protos.append(proto)
    assets_dir = os.path.join(export_dir, C.ASSETS_DIRECTORY)
    out = {}
    prefix = import_scope + "/" if import_scope else ""
    for proto in protos:
        name = proto.filename
        if not name or name in (".", "..") or "/" in name or "\\" in name or "\0" in name:
            raise GraphFileError("SavedModel %s: asset file name %r is not a plain file name inside %s"
                                 % (export_dir, name, assets_dir))
        path = os.path.join(assets_dir, name)
        if not os.path.isfile(path):
            raise errors.NotFoundError(None, None, "SavedModel %s: asset file %s does not exist" % (export_dir, path))
        out[prefix + proto.tensor_info.name] = path.encode()
    return out


def _init_op(graph, meta, import_scope):
    prefix = import_scope + "/" if import_scope else ""
    for key in (C.MAIN_OP_KEY, C.LEGACY_INIT_OP_KEY):
        if key in meta.collection_def:
            names = meta.collection_def[key].node_list.value
            if len(names) != 1:
                raise RuntimeError("Expected exactly one SavedModel init op. Found: {}".format(list(names)))
            try:
                return graph.get_operation_by_name(prefix + names[0].split(":")[0])
            except (KeyError, ValueError):
                raise GraphFileError("SavedModel init op %s (collection %s) is not in the graph"
                                     % (names[0], key)) from None
    return None


def load(sess, tags, export_dir, import_scope=None, **saver_kwargs):
    """Loads the MetaGraphDef of `tags` from export_dir into sess.graph, restores its variables from
    export_dir/variables and runs its main op (legacy_init_op) with the asset paths fed; returns the
    MetaGraphDef (its signature_def map names the tensors to feed and fetch)."""
    from tinyflow.api.train.saver import import_meta_graph
    export_dir = _text(export_dir)
    meta = get_meta_graph_def_from_tags(parse_saved_model(export_dir), tags, export_dir)
    graph = sess.graph
    with graph.as_default():
        saver = import_meta_graph(_without_savers(meta), import_scope=import_scope)
        variables_path = os.path.join(export_dir, C.VARIABLES_DIRECTORY, C.VARIABLES_FILENAME)
        if saver is not None:
            if not os.path.isfile(variables_path + ".index"):
                raise errors.NotFoundError(None, None, "SavedModel %s has variables but no checkpoint: %s.index does "
                                           "not exist" % (export_dir, variables_path))
            saver.restore(sess, variables_path)
        init_op = _init_op(graph, meta, import_scope)
        if init_op is not None:
            assets = get_asset_tensors(export_dir, meta, import_scope)
            needed = _ancestors(init_op)  # (only what the op reads is fed: a feed is an argument of its step)
            sess.run(init_op, feed_dict={k: v for k, v in assets.items() if k.split(":")[0] in needed} or None)
    return meta


_SAVER_OPS = {"SaveV2", "RestoreV2", "MergeV2Checkpoints", "ShardedFilename", "SaveSlices", "RestoreSlice", "Save",
              "Restore"}


def _without_savers(meta):
    """The MetaGraphDef without the subgraphs of every Saver in it (TF's builder makes one per
    add_meta_graph: save/, save_1/, ...); tinyflow's Saver restores without graph ops."""
    scopes = {n.name.rsplit("/", 1)[0] + "/" for n in meta.graph_def.node if n.op in _SAVER_OPS and "/" in n.name}
    if not scopes:
        return meta
    out = type(meta)()
    out.CopyFrom(meta)
    del out.graph_def.node[:]
    out.graph_def.node.extend(n for n in meta.graph_def.node if not any(n.name.startswith(s) for s in scopes))
    return out


def _ancestors(op):
    """The names of the ops `op` depends on (data and control inputs), itself included."""
    seen, todo = set(), [op]
    while todo:
        o = todo.pop()
        if o.name in seen:
            continue
        seen.add(o.name)
        todo.extend(t.op for t in o.inputs)
        todo.extend(o.control_inputs)
    return seen


class SavedModelLoader:
    """TF's loader object: parse once, then load_graph / restore_variables / run_init_ops, or load."""

    def __init__(self, export_dir):
        self._export_dir = _text(export_dir)
        self._saved_model = parse_saved_model(self._export_dir)

    export_dir = property(lambda self: self._export_dir)
    saved_model = property(lambda self: self._saved_model)
    variables_path = property(lambda self: os.path.join(self._export_dir, C.VARIABLES_DIRECTORY,
                                                        C.VARIABLES_FILENAME))

    def get_meta_graph_def_from_tags(self, tags):
        return get_meta_graph_def_from_tags(self._saved_model, tags, self._export_dir)

    def load(self, sess, tags, import_scope=None, **saver_kwargs):
        return load(sess, tags, self._export_dir, import_scope, **saver_kwargs)
