"""Lowering: a pruned subgraph -> one Python function -> jax.jit (and the reference executor)."""
