"""tf.keras.preprocessing: sequence padding, text tokenizing, image augmentation."""
from tinyflow.api.keras.preprocessing import image, sequence, text  # noqa: F401
