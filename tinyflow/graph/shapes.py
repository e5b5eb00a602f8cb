"""TensorShape and Dimension: static shapes with unknown dimensions (None), as in TF1. No JAX here."""


class Dimension:
    """One dimension of a TensorShape; `value` is an int or None (unknown)."""

    def __init__(self, value):
        if isinstance(value, Dimension):
            value = value.value
        if value is not None:
            try:
                as_int = int(value)
            except (TypeError, ValueError):
                raise TypeError("Dimension value must be integer or None or have an __index__ method, "
                                "got %r" % (value,)) from None
            if as_int != value and not isinstance(value, (str, bytes)):
                raise ValueError("Ambiguous dimension: %s" % (value,))
            value = as_int
            if value < 0:
                raise ValueError("Dimension %d must be >= 0" % value)
        self._value = value

    value = property(lambda self: self._value)

    def is_compatible_with(self, other):
        other = as_dimension(other)
        return self._value is None or other.value is None or self._value == other.value

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError("Dimensions %s and %s are not compatible" % (self, other))

    def merge_with(self, other):
        """The known one of two compatible dimensions (ValueError if they differ)."""
        other = as_dimension(other)
        self.assert_is_compatible_with(other)
        return Dimension(self._value if self._value is not None else other.value)

    def __eq__(self, other):
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other.value is None:
            return None
        return self._value == other.value

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is None or eq is NotImplemented else not eq

    def _compare(self, other, fn):
        other = as_dimension(other)
        if self._value is None or other.value is None:
            return None
        return fn(self._value, other.value)

    __lt__ = lambda self, o: self._compare(o, lambda a, b: a < b)
    __le__ = lambda self, o: self._compare(o, lambda a, b: a <= b)
    __gt__ = lambda self, o: self._compare(o, lambda a, b: a > b)
    __ge__ = lambda self, o: self._compare(o, lambda a, b: a >= b)

    def __hash__(self):
        return hash(self._value)

    def __int__(self):
        return self._value

    __index__ = __int__

    def _arith(self, other, fn):
        other = as_dimension(other)
        if self._value is None or other.value is None:
            return Dimension(None)
        return Dimension(fn(self._value, other.value))

    __add__ = lambda self, o: self._arith(o, lambda a, b: a + b)
    __radd__ = __add__
    __sub__ = lambda self, o: self._arith(o, lambda a, b: a - b)
    __rsub__ = lambda self, o: as_dimension(o) - self
    __mul__ = lambda self, o: self._arith(o, lambda a, b: a * b)
    __rmul__ = __mul__
    __floordiv__ = lambda self, o: self._arith(o, lambda a, b: a // b)
    __rfloordiv__ = lambda self, o: as_dimension(o) // self
    __mod__ = lambda self, o: self._arith(o, lambda a, b: a % b)
    __rmod__ = lambda self, o: as_dimension(o) % self
    __truediv__ = __floordiv__  # TF1's Dimension division is integer division

    def __repr__(self):
        return "Dimension(%s)" % self._value

    def __str__(self):
        return "?" if self._value is None else str(self._value)


def as_dimension(value):
    return value if isinstance(value, Dimension) else Dimension(value)


class TensorShape:
    """A possibly partial shape: unknown rank (`dims is None`) or a list of Dimensions."""

    def __init__(self, dims):
        if isinstance(dims, TensorShape):
            dims = dims.dims
        if dims is None:
            self._dims = None
        else:
            try:
                self._dims = [as_dimension(d) for d in dims]
            except TypeError:  # a single int: a rank-1 shape, as in TF
                self._dims = [as_dimension(dims)]

    @property
    def dims(self):
        return None if self._dims is None else list(self._dims)

    @property
    def ndims(self):
        return None if self._dims is None else len(self._dims)

    rank = ndims

    def as_list(self):
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return [d.value for d in self._dims]

    def as_tuple(self):
        """The shape as a tuple of ints or None; None for unknown rank (tinyflow's shorthand)."""
        return None if self._dims is None else tuple(d.value for d in self._dims)

    def is_fully_defined(self):
        return self._dims is not None and all(d.value is not None for d in self._dims)

    def num_elements(self):
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d.value
        return n

    def is_compatible_with(self, other):
        other = as_shape(other)
        if self._dims is None or other.dims is None:
            return True
        if len(self._dims) != len(other.dims):
            return False
        return all(a.is_compatible_with(b) for a, b in zip(self._dims, other.dims))

    def merge_with(self, other):
        other = as_shape(other)
        if self._dims is None:
            return other
        if other.dims is None:
            return self
        if len(self._dims) != len(other.dims):
            raise ValueError("Shapes %s and %s are not compatible" % (self, other))
        try:
            return TensorShape([a.merge_with(b) for a, b in zip(self._dims, other.dims)])
        except ValueError:
            raise ValueError("Shapes %s and %s are not compatible" % (self, other)) from None

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError("Shapes %s and %s are incompatible" % (self, other))

    def assert_has_rank(self, rank):
        if self.ndims not in (None, rank):
            raise ValueError("Shape %s must have rank %d" % (self, rank))

    def assert_same_rank(self, other):
        other = as_shape(other)
        if self.ndims is not None and other.ndims is not None and self.ndims != other.ndims:
            raise ValueError("Shapes %s and %s must have the same rank" % (self, other))

    def assert_is_fully_defined(self):
        if not self.is_fully_defined():
            raise ValueError("Shape %s is not fully defined" % self)

    def with_rank(self, rank):
        """This shape with rank `rank` (unknown rank becomes `rank` unknown dims); ValueError otherwise."""
        if self.ndims not in (None, rank):
            raise ValueError("Shape %s must have rank %d" % (self, rank))
        return self.merge_with(unknown_shape(rank))

    def with_rank_at_least(self, rank):
        if self.ndims is not None and self.ndims < rank:
            raise ValueError("Shape %s must have rank at least %d" % (self, rank))
        return self

    def with_rank_at_most(self, rank):
        if self.ndims is not None and self.ndims > rank:
            raise ValueError("Shape %s must have rank at most %d" % (self, rank))
        return self

    def most_specific_compatible_shape(self, other):
        """The most specific shape compatible with both: dims that differ become unknown."""
        other = as_shape(other)
        if self._dims is None or other.dims is None or self.ndims != other.ndims:
            return unknown_shape()
        return TensorShape([a.value if a.value == b.value else None for a, b in zip(self._dims, other.dims)])

    def concatenate(self, other):
        other = as_shape(other)
        if self._dims is None or other.dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other.dims)

    def __add__(self, other):
        return self.concatenate(other)

    def __radd__(self, other):
        return as_shape(other).concatenate(self)

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of Shape with unknown rank.")
        return len(self._dims)

    def __bool__(self):
        return self._dims is not None

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(d for d in self._dims)

    def __getitem__(self, key):
        if self._dims is None:
            return TensorShape(None) if isinstance(key, slice) else Dimension(None)
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

    def __eq__(self, other):
        try:
            other = as_shape(other)
        except TypeError:
            return NotImplemented
        return self.as_tuple() == other.as_tuple()

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return hash(self.as_tuple())

    def __repr__(self):  # TF1's form: TensorShape([Dimension(2), Dimension(None)])
        if self._dims is None:
            return "TensorShape(None)"
        return "TensorShape(%r)" % self._dims

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return "(%s,)" % self._dims[0]
        return "(%s)" % ", ".join(str(d) for d in self._dims)

    def as_proto_str(self):
        """TF's wording in error messages: [2,3], [?,3] or ?."""
        if self._dims is None:
            return "?"
        return "[%s]" % ",".join(str(d) for d in self._dims)


def as_shape(shape):
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def unknown_shape(rank=None):
    return TensorShape(None if rank is None else [None] * rank)


def scalar():
    return TensorShape([])


def vector(length):
    return TensorShape([length])


def matrix(rows, cols):
    return TensorShape([rows, cols])
