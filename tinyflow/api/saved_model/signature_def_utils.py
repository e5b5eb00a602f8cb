"""tf.saved_model.signature_def_utils: SignatureDefs (the named inputs and outputs a server calls)."""
from tinyflow.api.saved_model import constants as C
from tinyflow.api.saved_model.utils import build_tensor_info
from tinyflow.formats.protos import meta_graph_pb2

_DT_STRING, _DT_FLOAT = 7, 1


def build_signature_def(inputs=None, outputs=None, method_name=None):
    """A SignatureDef of {key: TensorInfo} inputs and outputs and a method name."""
    sig = meta_graph_pb2().SignatureDef()
    for key, info in (inputs or {}).items():
        sig.inputs[key].CopyFrom(info)
    for key, info in (outputs or {}).items():
        sig.outputs[key].CopyFrom(info)
    if method_name is not None:
        sig.method_name = method_name
    return sig


def predict_signature_def(inputs, outputs):
    """A Predict SignatureDef of {key: Tensor} inputs and outputs."""
    if not inputs:
        raise ValueError("Prediction inputs cannot be None or empty.")
    if not outputs:
        raise ValueError("Prediction outputs cannot be None or empty.")
    return build_signature_def({k: build_tensor_info(t) for k, t in inputs.items()},
                               {k: build_tensor_info(t) for k, t in outputs.items()}, C.PREDICT_METHOD_NAME)


def _examples_info(examples, what):
    from tinyflow.graph.core import Tensor
    if examples is None:
        raise ValueError("%s examples cannot be None." % what)
    info = build_tensor_info(examples) if isinstance(examples, Tensor) else None
    if info is None or info.dtype != _DT_STRING:
        raise ValueError("%s examples must be a string Tensor." % what)
    return info


def classification_signature_def(examples, classes, scores):
    """A Classify SignatureDef: serialized tf.Examples in, string classes and/or float scores out."""
    inputs = {C.CLASSIFY_INPUTS: _examples_info(examples, "Classification")}
    if classes is None and scores is None:
        raise ValueError("Classification classes and scores cannot both be None.")
    outputs = {}
    if classes is not None:
        outputs[C.CLASSIFY_OUTPUT_CLASSES] = build_tensor_info(classes)
        if outputs[C.CLASSIFY_OUTPUT_CLASSES].dtype != _DT_STRING:
            raise ValueError("Classification classes must be a string Tensor.")
    if scores is not None:
        outputs[C.CLASSIFY_OUTPUT_SCORES] = build_tensor_info(scores)
        if outputs[C.CLASSIFY_OUTPUT_SCORES].dtype != _DT_FLOAT:
            raise ValueError("Classification scores must be a float Tensor.")
    return build_signature_def(inputs, outputs, C.CLASSIFY_METHOD_NAME)


def regression_signature_def(examples, predictions):
    """A Regress SignatureDef: serialized tf.Examples in, float predictions out."""
    inputs = {C.REGRESS_INPUTS: _examples_info(examples, "Regression")}
    if predictions is None:
        raise ValueError("Regression predictions cannot be None.")
    out = build_tensor_info(predictions)
    if out.dtype != _DT_FLOAT:
        raise ValueError("Regression output must be a float Tensor.")
    return build_signature_def(inputs, {C.REGRESS_OUTPUTS: out}, C.REGRESS_METHOD_NAME)


def supervised_train_signature_def(inputs, loss, predictions=None, metrics=None):
    return _supervised(C.SUPERVISED_TRAIN_METHOD_NAME, inputs, loss, predictions, metrics)


def supervised_eval_signature_def(inputs, loss, predictions=None, metrics=None):
    return _supervised(C.SUPERVISED_EVAL_METHOD_NAME, inputs, loss, predictions, metrics)


def _supervised(method_name, inputs, loss, predictions, metrics):
    if not inputs:
        raise ValueError("{} inputs cannot be None or empty.".format(method_name))
    outputs = {}
    for group in (loss, predictions, metrics):
        outputs.update({k: build_tensor_info(t) for k, t in (group or {}).items()})
    return build_signature_def({k: build_tensor_info(t) for k, t in inputs.items()}, outputs, method_name)


def is_valid_signature(signature_def):
    """True for a well-formed Predict, Classify or Regress SignatureDef (TF Serving's rules)."""
    if signature_def is None:
        return False
    s, ins, outs = signature_def, set(signature_def.inputs), set(signature_def.outputs)
    if s.method_name == C.PREDICT_METHOD_NAME:
        return bool(ins) and bool(outs)
    if s.method_name == C.REGRESS_METHOD_NAME:
        return (ins == {C.REGRESS_INPUTS} and s.inputs[C.REGRESS_INPUTS].dtype == _DT_STRING
                and outs == {C.REGRESS_OUTPUTS} and s.outputs[C.REGRESS_OUTPUTS].dtype == _DT_FLOAT)
    if s.method_name == C.CLASSIFY_METHOD_NAME:
        allowed = {C.CLASSIFY_OUTPUT_CLASSES: _DT_STRING, C.CLASSIFY_OUTPUT_SCORES: _DT_FLOAT}
        return (ins == {C.CLASSIFY_INPUTS} and s.inputs[C.CLASSIFY_INPUTS].dtype == _DT_STRING and bool(outs)
                and outs <= set(allowed) and all(s.outputs[k].dtype == allowed[k] for k in outs))
    return False
