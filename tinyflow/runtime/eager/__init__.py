"""Eager execution's engine: running one op at a time, its tensors and variables, the gradient tape."""
