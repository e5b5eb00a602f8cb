"""Lowering: a pruned subgraph -> one Python function -> jax.jit (and the reference executor).

Importing this package installs the backend hooks graph/ and ops/ call (graph/backend.py).
"""
from tinyflow.lower import subgraph  # noqa: F401 (installs the backend)
