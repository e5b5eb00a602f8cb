"""tf.pywrap_tensorflow: the one name of TF's C++ bridge that scripts use, NewCheckpointReader."""


def NewCheckpointReader(filepattern):
    """A reader of the checkpoint's tensors (tf.train.NewCheckpointReader)."""
    from tinyflow.api import train
    return train.NewCheckpointReader(filepattern)
