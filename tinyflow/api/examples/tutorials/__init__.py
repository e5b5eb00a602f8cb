"""tensorflow.examples.tutorials."""
