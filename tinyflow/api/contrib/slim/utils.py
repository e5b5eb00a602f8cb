"""slim.utils (tf.contrib.layers.python.layers.utils): the named outputs that layers collected
(outputs_collections)."""
from collections import OrderedDict

from tinyflow.graph.core import add_to_collections, get_collection


def get_tensor_aliases(tensor):
    """The aliases of a collected output (its layer's scope name), else its op's name."""
    if hasattr(tensor, "aliases"):
        return tensor.aliases
    name = tensor.op.name
    return [name[:-1] if name.endswith("/") else name]


def convert_collection_to_dict(collection, clear_collection=False):
    """{alias: tensor} of a collection of layer outputs (what nets return as end_points)."""
    out = OrderedDict()
    for tensor in get_collection(collection):
        for alias in get_tensor_aliases(tensor):
            out[alias] = tensor
    if clear_collection:
        from tinyflow.graph.core import get_default_graph
        get_default_graph().clear_collection(collection)
    return out


def last_dimension(shape, min_rank=1):
    """The last dimension of a static shape (ValueError when unknown or the rank is below min_rank)."""
    dims = shape.dims
    if dims is None:
        raise ValueError("dims of shape must be known but is None")
    if len(dims) < min_rank:
        raise ValueError("rank of shape must be at least %d not: %d" % (min_rank, len(dims)))
    value = dims[-1].value
    if value is None:
        raise ValueError("last dimension shape must be known but is None")
    return value


def collect_named_outputs(collections, alias, outputs):
    """Adds `outputs` to `collections`, tagged with `alias` (its scope's name)."""
    if collections:
        alias = alias[:-1] if alias.endswith("/") else alias
        aliases = getattr(outputs, "aliases", None) or []
        try:
            outputs.aliases = aliases + [alias]
        except AttributeError:
            pass
        add_to_collections(collections if isinstance(collections, (list, tuple)) else [collections], outputs)
    return outputs


def get_variable_collections(variables_collections, name):
    """The collections for variable `name`: variables_collections[name] when it is a dict, else itself."""
    if isinstance(variables_collections, dict):
        return variables_collections.get(name, None)
    return variables_collections


def append_tensor_alias(tensor, alias):
    """Adds `alias` (a trailing / dropped) to the tensor's aliases; returns the tensor."""
    alias = alias[:-1] if alias.endswith("/") else alias
    tensor.aliases = getattr(tensor, "aliases", []) + [alias]
    return tensor
