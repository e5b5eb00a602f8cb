"""Nested structures of values (tf.nest): one utility for control flow, tf.data and Session fetches.

Tuples (namedtuples too), lists and dicts nest; anything else is a leaf. Two variants of TF's own:
tf.data treats a list as a leaf (`from_tensor_slices([1, 2, 3])` is one tensor): lists=False; a
Session's fetch dict keeps its insertion order: sort_keys=False (tf.nest sorts dict keys).
"""


def _sequences(lists):
    return (list, tuple) if lists else (tuple,)


def flatten(x, lists=True, sort_keys=True):
    """The leaves of `x`, in order (dict values by sorted key unless sort_keys=False)."""
    if isinstance(x, dict):
        keys = sorted(x) if sort_keys else list(x)
        return [leaf for k in keys for leaf in flatten(x[k], lists, sort_keys)]
    if isinstance(x, _sequences(lists)):
        return [leaf for v in x for leaf in flatten(v, lists, sort_keys)]
    return [x]


def pack_as(template, flat, lists=True):
    """The leaves `flat` nested like `template` (dict keys sorted, as flatten gives them)."""
    it = iter(flat)
    sequences = _sequences(lists)

    def build(s):
        if isinstance(s, dict):  # filled in sorted key order, keeping the template's order (as tf.nest)
            built = {k: build(s[k]) for k in sorted(s)}
            return type(s)((k, built[k]) for k in s)
        if isinstance(s, tuple) and hasattr(s, "_fields"):  # namedtuple
            return type(s)(*[build(v) for v in s])
        if isinstance(s, sequences):
            return type(s)(build(v) for v in s)
        return next(it)
    return build(template)
