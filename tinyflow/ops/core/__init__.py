"""The core op families: base (tensors from Python values, make_op), array, math, indexing and
sequence ops. They build on one another (math needs array's reshape, array needs math's casts,
indexing needs both), so they are the one import cycle the layer check allows; every other op
family imports the core, never the other way round. Helpers several families share live in util."""
