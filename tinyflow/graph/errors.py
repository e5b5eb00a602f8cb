"""TensorFlow's error classes (`tf.errors`), with TF's names and error codes.

Every error a Session raises for bad input is one of these, raised before anything is dispatched.
"""

OK, CANCELLED, UNKNOWN, INVALID_ARGUMENT, DEADLINE_EXCEEDED, NOT_FOUND, ALREADY_EXISTS = range(7)
PERMISSION_DENIED, RESOURCE_EXHAUSTED, FAILED_PRECONDITION, ABORTED, OUT_OF_RANGE = 7, 8, 9, 10, 11
UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS, UNAUTHENTICATED = 12, 13, 14, 15, 16


class OpError(Exception):
    """Base class of the errors a graph run raises; names the op at fault (`node_def`, `op`)."""

    error_code = UNKNOWN

    def __init__(self, node_def=None, op=None, message="", error_code=None):
        super().__init__(message)
        self.node_def = node_def
        self.op = op
        self.message = message
        if error_code is not None:
            self.error_code = error_code

    def __str__(self):
        return self.message


def _make(name, code):
    def __init__(self, node_def=None, op=None, message=""):
        OpError.__init__(self, node_def, op, message, code)
    return type(name, (OpError,), {"__init__": __init__, "error_code": code,
                                   "__doc__": "TF's %s (error code %d)." % (name, code)})


CancelledError = _make("CancelledError", CANCELLED)
UnknownError = _make("UnknownError", UNKNOWN)
InvalidArgumentError = _make("InvalidArgumentError", INVALID_ARGUMENT)
DeadlineExceededError = _make("DeadlineExceededError", DEADLINE_EXCEEDED)
NotFoundError = _make("NotFoundError", NOT_FOUND)
AlreadyExistsError = _make("AlreadyExistsError", ALREADY_EXISTS)
PermissionDeniedError = _make("PermissionDeniedError", PERMISSION_DENIED)
ResourceExhaustedError = _make("ResourceExhaustedError", RESOURCE_EXHAUSTED)
FailedPreconditionError = _make("FailedPreconditionError", FAILED_PRECONDITION)
AbortedError = _make("AbortedError", ABORTED)
OutOfRangeError = _make("OutOfRangeError", OUT_OF_RANGE)
UnimplementedError = _make("UnimplementedError", UNIMPLEMENTED)
InternalError = _make("InternalError", INTERNAL)
UnavailableError = _make("UnavailableError", UNAVAILABLE)
DataLossError = _make("DataLossError", DATA_LOSS)
UnauthenticatedError = _make("UnauthenticatedError", UNAUTHENTICATED)


def exception_type_from_error_code(error_code):
    """The OpError subclass of a TF error code (tf.errors.exception_type_from_error_code)."""
    for cls in OpError.__subclasses__():
        if cls.error_code == error_code:
            return cls
    raise KeyError(error_code)


def error_code_from_exception_type(cls):
    """The TF error code of an OpError subclass."""
    return cls.error_code


class raise_exception_on_not_ok_status:   # noqa: N801 (TF's name)
    """A context manager TF's C bridge used: the status object it yields is never set by tinyflow."""

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False
