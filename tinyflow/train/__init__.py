"""tf.train: optimizers, global step, learning-rate schedules, Saver."""
from .optimizer import GradientDescentOptimizer, Optimizer
from .step import get_global_step, get_or_create_global_step, create_global_step
