"""Op specs: one small, checkable use of each op, for the registry-driven tests.

Each op family has a module here (math.py, array.py, nn.py, ...) with a list SPECS of OpSpec.
tests/ops/test_registry.py runs every spec: its forward value against numpy, the dtype and shape the
shape rule declared against what the lowering produced, and (grad=True) tf.gradients against
central finite differences in float64. It also fails if a registered op type appears in no spec's
graph (forward or gradient), so a new op without a spec fails the suite.
"""
import importlib
import pkgutil


class OpSpec:
    """One use of an op.

    name      test id
    build     build(tf, *inputs) -> output Tensor (or list of Tensors); inputs are placeholders
    inputs    list of numpy arrays fed to the placeholders (their dtypes give the placeholders')
    numpy     numpy(*arrays) -> expected output(s); None to skip the value check
    grad      check gradients wrt the floating inputs by finite differences (inputs cast to float64)
    grad_inputs  which inputs to differentiate (default: all floating ones)
    second_order also check the gradient of the gradient (elementwise ops)
    rtol, atol   tolerances of the value check
    static_shape  feed placeholders with full static shapes (default) or with None dims
    """

    def __init__(self, name, build, inputs, numpy=None, grad=False, grad_inputs=None, second_order=False,
                 rtol=1e-5, atol=1e-6, static_shape=True):
        self.name = name
        self.build = build
        self.inputs = inputs
        self.numpy = numpy
        self.grad = grad
        self.grad_inputs = grad_inputs
        self.second_order = second_order
        self.rtol = rtol
        self.atol = atol
        self.static_shape = static_shape

    def __repr__(self):
        return self.name


def all_specs():
    """Every SPECS list of every module in this package."""
    specs = []
    for info in pkgutil.iter_modules(__path__):
        mod = importlib.import_module(__name__ + "." + info.name)
        specs.extend(getattr(mod, "SPECS", []))
    return specs


# Registered op types a spec cannot exercise directly, with the reason. Keep this list short.
EXEMPT = {
    "Placeholder": "fed, never computed",
    "VariableV2": "state, tested in test_variables.py",
    "NoOp": "no value",
    "ReportUninitializedVariables": "host op, tested in test_variables.py",
    "IsVariableInitialized": "host op, tested in test_variables.py",
    "AssignAdd": "updates a variable, tested in test_variables.py",
    "AssignSub": "updates a variable, tested in test_variables.py",
    "CountUpTo": "updates a variable, TF 1.15's values in tests/api/test_names_ops.py",
}
