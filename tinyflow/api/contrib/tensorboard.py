"""tf.contrib.tensorboard.plugins.projector: the embedding projector's config (ProjectorConfig,
EmbeddingInfo, SpriteMetadata: TF's messages, formats/tf_protos.py) and visualize_embeddings, which
writes it as `projector_config.pbtxt` beside a FileWriter's events, where TensorBoard's projector
plugin reads it."""
import os
import sys
import types


def visualize_embeddings(summary_writer, config):
    """Writes `config` (a ProjectorConfig) in protobuf text format to <logdir>/projector_config.pbtxt."""
    from google.protobuf import text_format
    logdir = summary_writer.get_logdir()
    if logdir is None:
        raise ValueError("Summary writer must have a logdir")
    with open(os.path.join(logdir, "projector_config.pbtxt"), "w") as f:
        f.write(text_format.MessageToString(config))


def __getattr__(name):
    if name in ("ProjectorConfig", "EmbeddingInfo", "SpriteMetadata", "projector_config_pb2"):
        from tinyflow.formats import tf_protos
        return getattr(tf_protos, name)
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


projector = sys.modules[__name__]   # tf.contrib.tensorboard.plugins.projector is this module
plugins = types.ModuleType(__name__ + ".plugins", "tf.contrib.tensorboard.plugins")
plugins.projector = projector
