"""benchmarks/train_step.py on a deep MLP: 784 -> 20 x 256 -> 10 (21 layers, 42 variables; Adam adds
84 slots). Many variables make the order in which donated buffers meet their new values matter
(issue 17, item 1: a step that copies parameters it could update in place).
Target: every optimizer <= 1.05x hand-written jax+optax.

    python benchmarks/train_step_deep.py [--steps N] [--only adam,momentum] [--hlo adam]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_step  # noqa: E402

train_step.SIZES = [784] + [256] * 20 + [10]

if __name__ == "__main__":
    train_step.main()
