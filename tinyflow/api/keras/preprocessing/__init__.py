"""tf.keras.preprocessing: sequence padding."""
from tinyflow.api.keras.preprocessing import sequence  # noqa: F401
