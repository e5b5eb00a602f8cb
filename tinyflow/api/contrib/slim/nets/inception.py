"""slim.nets.inception (TF 1.15): inception_v1, inception_v2 and inception_v3 under one namespace."""
from tinyflow.api.contrib.slim.nets.inception_v1 import inception_v1, inception_v1_arg_scope, inception_v1_base  # noqa
from tinyflow.api.contrib.slim.nets.inception_v2 import inception_v2, inception_v2_arg_scope, inception_v2_base  # noqa
from tinyflow.api.contrib.slim.nets.inception_v3 import inception_v3, inception_v3_arg_scope, inception_v3_base  # noqa
