"""tf.keras.experimental (TF 1.15): the cosine learning-rate decays (as schedules), the premade LinearModel and
WideDeepModel, PeepholeLSTMCell, SequenceFeatures, SavedModel export, and the multiprocessing pools' shutdown
(tinyflow's Keras runs its data in threads: there are no pools to end)."""
from tinyflow.api.keras.layers_local import SequenceFeatures  # noqa: F401
from tinyflow.api.keras.premade import LinearModel, WideDeepModel  # noqa: F401
from tinyflow.api.keras.recurrent import PeepholeLSTMCell  # noqa: F401
from tinyflow.api.keras.schedules import (CosineDecay, CosineDecayRestarts, LinearCosineDecay,  # noqa: F401
                                          NoisyLinearCosineDecay)


def terminate_keras_multiprocessing_pools(grace_period=0.1, use_sigkill=False):
    """Ends the worker pools of use_multiprocessing=True; tinyflow starts none, so nothing is left to end."""
    return []


def export_saved_model(model, saved_model_path, custom_objects=None, as_text=False, input_signature=None,
                       serving_only=False):
    """A SavedModel of the model: the serving graph (tag "serve", signature "serving_default" of the model's
    inputs and outputs, as TF 1.15's), the weights in variables/variables and the architecture in
    assets/saved_model.json. (TF 1.15 keys its variables/variables by object path; tinyflow's by variable
    name, which tf.saved_model.loader.load and load_from_saved_model both read.)"""
    import os
    from tinyflow.api.keras import backend as K
    from tinyflow.api.saved_model import predict_signature_def
    from tinyflow.api.saved_model.builder import SavedModelBuilder
    if not getattr(model, "inputs", None):
        raise NotImplementedError("tinyflow exports a model called on inputs (a Sequential with an input shape, or a "
                                  "functional model); build the model first")
    signature = predict_signature_def(dict(zip(model.input_names, model.inputs)),
                                      dict(zip(model.output_names, model.outputs)))
    builder = SavedModelBuilder(saved_model_path)
    builder.add_meta_graph_and_variables(K.get_session(), ["serve"], {"serving_default": signature})
    builder.save(as_text)
    os.makedirs(os.path.join(saved_model_path, "assets"), exist_ok=True)
    with open(os.path.join(saved_model_path, "assets", "saved_model.json"), "w") as f:
        f.write(model.to_json())


def load_from_saved_model(saved_model_path, custom_objects=None):
    """The Keras model export_saved_model wrote (TF 1.15's too): built from assets/saved_model.json, its weights
    restored from variables/variables."""
    import os
    from tinyflow.api.keras.models import model_from_json
    with open(os.path.join(saved_model_path, "assets", "saved_model.json")) as f:
        model = model_from_json(f.read(), custom_objects=custom_objects)
    model.load_weights(os.path.join(saved_model_path, "variables", "variables"))
    return model
