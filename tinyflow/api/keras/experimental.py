"""tf.keras.experimental (TF 1.15): the cosine learning-rate decays (as schedules) and the multiprocessing
pools' shutdown (tinyflow's Keras runs its data in threads: there are no pools to end)."""
from tinyflow.api.keras.schedules import (CosineDecay, CosineDecayRestarts, LinearCosineDecay,  # noqa: F401
                                          NoisyLinearCosineDecay)


def terminate_keras_multiprocessing_pools(grace_period=0.1, use_sigkill=False):
    """Ends the worker pools of use_multiprocessing=True; tinyflow starts none, so nothing is left to end."""
    return []
