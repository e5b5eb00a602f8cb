"""tensorflow.examples: the tutorials' helper modules (tensorflow.examples.tutorials.mnist.input_data)."""
