"""The op registry: every op type is one OpDef holding all of its rules. No JAX here.

Passes look rules up here and never switch on op type. A rule's signature:
  shape(in_shapes, attrs, values) -> [TensorShape]   values[i]: input i's constant value or None
  dtype(in_dtypes, attrs)         -> [DType]
  grad(op, *out_grads)            -> one Tensor or None per input, built from graph ops
  lower(attrs, *arrays)           -> array or tuple of arrays (jax or numpy)
  check(attrs, *arrays)           -> (ok, *data): a run-time condition on the inputs' values
  check_message(op, *data)        -> the InvalidArgumentError message when ok is False (numpy data)
"""

NOT_SET = object()  # grad=NOT_SET: nobody said; grad=None: "not differentiable"


class OpDef:
    """All the rules of one op type.

    Flags the generic passes and lowering read:
      ref_inputs  inputs that are variable references this op updates; `lower` gets their current
                  values and returns their new values (in order); output 0 is the first new value
      overwrites  the op ignores the current value of its refs (Assign): no initialized value needed
      needs_key   random op: `lower(attrs, key, *inputs)` gets a per-run PRNG key first
      static      the output depends only on input *shapes* (Shape, Size, Rank): computed at trace time
      stateful    never pruned by common-subexpression passes, never constant-folded
      host        computed by the Session in Python, not in the jitted function: host(session, op)
      host_compute  computed by the Session from its inputs' values, which the jitted function fetches:
                  host_compute(session, op, input_values) -> one value per output (a summary's bytes)
      host_feed   produced by the Session before each run and fed to the jitted function:
                  host_feed(session, op) -> one numpy value per output (a tf.data iterator's next batch)
      inplace     (input, output) pairs whose buffer the output may reuse (memory planner)
      check       a condition on the input values that TF checks when the op runs (Assert, an index
                  in range): computed inside the jitted function; when it fails the Session raises
                  InvalidArgumentError with check_message and keeps every variable as it was
    """

    def __init__(self, name, shape, dtype, grad=NOT_SET, lower=None, inplace=(), ref_inputs=(),
                 overwrites=False, needs_key=False, static=False, stateful=False, host=None,
                 infer_back=None, check=None, check_message=None, host_compute=None, host_feed=None):
        self.name = name
        self.shape = shape
        self.dtype = dtype
        self.grad = grad
        self.lower = lower
        self.inplace = tuple(inplace)
        self.ref_inputs = tuple(ref_inputs)
        self.overwrites = overwrites
        self.needs_key = needs_key
        self.static = static
        self.stateful = stateful or bool(ref_inputs) or needs_key
        self.host = host
        self.infer_back = infer_back
        self.check = check
        self.host_compute = host_compute
        self.host_feed = host_feed
        self.check_message = check_message

    def __repr__(self):
        return "OpDef(%s)" % self.name


_REGISTRY = {}


def register_op(name, shape, dtype, **rules):
    """Registers op type `name` with its rules (see OpDef); returns the OpDef."""
    if name in _REGISTRY:
        raise KeyError("Op type %r is already registered" % name)
    opdef = OpDef(name, shape, dtype, **rules)
    _REGISTRY[name] = opdef
    return opdef


def get_op_def(name):
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError("Op type not registered '%s'" % name) from None


def registered_ops():
    """All OpDefs, by name."""
    return dict(_REGISTRY)


# Small rule builders shared by many ops.
def same_as_input(i=0):
    """dtype rule: one output with the dtype of input i."""
    return lambda dtypes, attrs: [dtypes[i]]


def from_attr(key):
    """dtype rule: one output with the dtype in attrs[key]."""
    return lambda dtypes, attrs: [attrs[key]]


def shape_of_input(i=0):
    """shape rule: one output with the shape of input i."""
    return lambda shapes, attrs, values: [shapes[i]]
