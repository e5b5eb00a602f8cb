"""Pure functions over a graph (no JAX): prune, state analysis, gradients, memory planning."""
