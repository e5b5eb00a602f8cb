"""tf.contrib.predictor.from_saved_model: a SavedModel's signature as a Python callable."""
from tinyflow.api.saved_model import constants as C


class SavedModelPredictor:
    """Calls one signature of a SavedModel: predictor({input key: value}) -> {output key: numpy value}."""

    def __init__(self, export_dir, signature_def_key=None, signature_def=None, input_names=None, output_names=None,
                 tags=None, graph=None, config=None):
        from tinyflow.api.saved_model.loader import load
        from tinyflow.graph.core import Graph
        from tinyflow.runtime.session import Session
        self._graph = graph or Graph()
        self._session = Session(graph=self._graph, config=config)
        tags = [C.SERVING] if tags is None else ([tags] if isinstance(tags, str) else list(tags))
        with self._graph.as_default():
            meta = load(self._session, tags, export_dir)
        if input_names is None or output_names is None:
            if signature_def is None:
                key = signature_def_key or C.DEFAULT_SERVING_SIGNATURE_DEF_KEY
                if key not in meta.signature_def:
                    raise ValueError("Could not find signature \"{}\". Please choose from: {}".format(
                        key, ", ".join(sorted(meta.signature_def))))
                signature_def = meta.signature_def[key]
            input_names = {k: v.name for k, v in signature_def.inputs.items()}
            output_names = {k: v.name for k, v in signature_def.outputs.items()}
        self._feed_tensors = {k: self._graph.get_tensor_by_name(v) for k, v in input_names.items()}
        self._fetch_tensors = {k: self._graph.get_tensor_by_name(v) for k, v in output_names.items()}

    graph = property(lambda self: self._graph)
    session = property(lambda self: self._session)
    feed_tensors = property(lambda self: dict(self._feed_tensors))
    fetch_tensors = property(lambda self: dict(self._fetch_tensors))

    def __call__(self, input_dict):
        unknown = set(input_dict) - set(self._feed_tensors)
        if unknown:
            raise ValueError("Got unexpected keys in input_dict: {}\nexpected: {}".format(
                sorted(unknown), sorted(self._feed_tensors)))
        feed = {self._feed_tensors[k]: v for k, v in input_dict.items()}
        return self._session.run(self._fetch_tensors, feed_dict=feed)

    def __repr__(self):
        return "SavedModelPredictor with feed tensors {} and fetch_tensors {}".format(self._feed_tensors,
                                                                                       self._fetch_tensors)


def from_saved_model(export_dir, signature_def_key=None, signature_def=None, input_names=None, output_names=None,
                     tags=None, graph=None, config=None):
    """A predictor (callable on {input key: value}) of a SavedModel's signature (default "serving_default")."""
    return SavedModelPredictor(export_dir, signature_def_key, signature_def, input_names, output_names, tags, graph,
                               config)
