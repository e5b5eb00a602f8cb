"""Fetch structures: flatten nested lists/tuples/dicts/namedtuples of fetches, and rebuild them."""
from tinyflow.graph import nest


def structure_key(fetches):
    """A hashable key for the shape of a fetch structure and the objects in it (fast path)."""
    t = type(fetches)
    if t is list or t is tuple:
        return (t, tuple(structure_key(f) for f in fetches))
    if isinstance(fetches, dict):
        return (t, tuple((k, structure_key(v)) for k, v in fetches.items()))
    if isinstance(fetches, tuple):  # namedtuple
        return (t, tuple(structure_key(f) for f in fetches))
    try:
        hash(fetches)
    except TypeError:
        raise TypeError("Fetch argument %r has invalid type %r" % (fetches, type(fetches))) from None
    return fetches


def flatten(fetches):
    """The leaves of a fetch structure, in order (a dict's in its own order)."""
    return nest.flatten(fetches, sort_keys=False)


def rebuilder(fetches):
    """A function that rebuilds `fetches`' structure from a flat list of values."""
    if isinstance(fetches, (list, tuple)):
        parts = [rebuilder(f) for f in fetches]
        sizes = [len(flatten(f)) for f in fetches]
        kind = type(fetches)
        is_named = isinstance(fetches, tuple) and hasattr(fetches, "_fields")
        kind = getattr(kind, "_fetched_type", kind)  # a SparseTensor is fetched as a SparseTensorValue

        def build(vals, i=0):
            items = []
            for part, n in zip(parts, sizes):
                items.append(part(vals[i:i + n]))
                i += n
            if is_named:
                return kind(*items)
            return items if kind is list else (tuple(items) if kind is tuple else kind(items))
        return build
    if isinstance(fetches, dict):
        keys = list(fetches)
        inner = rebuilder(list(fetches.values()))
        kind = type(fetches)

        def build_dict(vals):
            out = kind()
            for k, v in zip(keys, inner(vals)):
                out[k] = v
            return out
        return build_dict
    return lambda vals: vals[0]
