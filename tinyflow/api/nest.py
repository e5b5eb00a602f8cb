"""tf.nest: nested structures (lists, tuples, namedtuples, dicts) of leaves, as TF 1.15's tf.nest."""
from tinyflow.graph import nest as _nest

__all__ = ["assert_same_structure", "flatten", "is_nested", "map_structure", "pack_sequence_as"]


def is_nested(seq):
    """Whether seq is a list, tuple (namedtuple too) or dict: a structure, not a leaf."""
    return isinstance(seq, (list, tuple, dict))


def flatten(structure, expand_composites=False):
    """The leaves of `structure` in order (a dict's values by sorted key); a leaf gives [leaf]."""
    return _nest.flatten(structure)


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """`flat_sequence` nested like `structure`."""
    flat_sequence = list(flat_sequence)
    if not is_nested(structure):
        if len(flat_sequence) != 1:
            raise ValueError("Structure is a scalar but len(flat_sequence) == %d > 1" % len(flat_sequence))
        return flat_sequence[0]
    want = len(_nest.flatten(structure))
    if want != len(flat_sequence):
        raise ValueError("Could not pack sequence. Structure had %d elements, but flat_sequence had %d elements.  "
                         "Structure: %s, flat_sequence: %s." % (want, len(flat_sequence), structure, flat_sequence))
    return _nest.pack_as(structure, flat_sequence)


def _shape(s):
    if isinstance(s, dict):
        return (dict, tuple(sorted(s)), tuple(_shape(s[k]) for k in sorted(s)))
    if isinstance(s, (list, tuple)):
        kind = type(s) if hasattr(s, "_fields") else (list if isinstance(s, list) else tuple)
        return (kind, len(s), tuple(_shape(v) for v in s))
    return None


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """ValueError (TypeError for differing sequence types) unless the two nest the same way."""
    n1, n2 = len(_nest.flatten(nest1)), len(_nest.flatten(nest2))
    if n1 != n2 or is_nested(nest1) != is_nested(nest2):
        raise ValueError("The two structures don't have the same nested structure.\n\nFirst structure: type=%s "
                         "str=%s\n\nSecond structure: type=%s str=%s" % (type(nest1).__name__, nest1,
                                                                          type(nest2).__name__, nest2))
    a, b = _shape(nest1), _shape(nest2)
    if not check_types:
        strip = lambda s: None if s is None else (s[1], tuple(strip(c) for c in s[2]))   # noqa: E731
        a, b = strip(a), strip(b)
    if a != b:
        raise (TypeError if check_types else ValueError)(
            "The two structures don't have the same sequence type. First structure has type %s, while second "
            "structure has type %s." % (type(nest1), type(nest2)))


def map_structure(func, *structure, **kwargs):
    """func applied to the leaves at the same place of each structure, nested like the first."""
    if not structure:
        raise ValueError("Must provide at least one structure")
    check_types = kwargs.pop("check_types", True)
    kwargs.pop("expand_composites", None)
    if kwargs:
        raise ValueError("Only valid keyword arguments are `check_types` and `expand_composites`, not: `%s`"
                         % "`, `".join(kwargs))
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types)
    flats = [flatten(s) for s in structure]
    return pack_sequence_as(structure[0], [func(*leaves) for leaves in zip(*flats)])
