"""tf.flags (tf.app.flags): TF 1.15's command-line flags, which ARE absl-py's `absl.flags`.

As TF 1.15's tensorflow/python/platform/flags.py does: every name of absl.flags (DEFINE_string,
DEFINE_multi_string, DEFINE_enum, mark_flag_as_required, FlagValues, the error classes, ...), the
DEFINE_* functions also take TF's old keyword names (flag_name, default_value, docstring), and FLAGS
parses sys.argv on the first read of a flag instead of raising absl's UnparsedFlagAccessError.
"""
from __future__ import absolute_import, division, print_function  # noqa: F401 (names of TF's module)

import functools as _functools
import logging as _logging
import sys as _sys

from absl.flags import *  # noqa: F401,F403 (tf.flags is absl.flags: all its names)
from absl import flags as _absl_flags

from tinyflow.api import tf_decorator  # noqa: F401 (tf.flags.tf_decorator, as TF 1.15's module has it)

# The DEFINE_* wrappers below define flags for their caller's module, not for this one (absl's key flags).
_absl_flags.disclaim_key_flags()

_RENAMED_ARGUMENTS = {"flag_name": "name", "default_value": "default", "docstring": "help"}


def _wrap_define_function(original_function):
    """tf.flags.DEFINE_*: absl's, also accepting TF's old keyword names."""

    @_functools.wraps(original_function)
    def wrapper(*args, **kwargs):
        renamed = [old for old in _RENAMED_ARGUMENTS if old in kwargs]
        for old in renamed:
            kwargs[_RENAMED_ARGUMENTS[old]] = kwargs.pop(old)
        if renamed:
            _logging.warning("Use of the keyword argument names (flag_name, default_value, docstring) is "
                             "deprecated, please use (name, default, help) instead.")
        return original_function(*args, **kwargs)

    return wrapper


class _FlagValuesWrapper:
    """tf.flags.FLAGS: absl's FLAGS, parsing sys.argv on the first read of a flag before it was parsed
    (absl raises UnparsedFlagAccessError there; TF 1.x scripts read flags without tf.app.run)."""

    def __init__(self, flags_object):
        self.__dict__["__wrapped"] = flags_object

    def __getattribute__(self, name):
        if name == "__dict__":
            return super().__getattribute__(name)
        return self.__dict__["__wrapped"].__getattribute__(name)

    def __getattr__(self, name):
        wrapped = self.__dict__["__wrapped"]
        if not wrapped.is_parsed():
            wrapped(_sys.argv)
        return wrapped.__getattr__(name)

    def __setattr__(self, name, value):
        return self.__dict__["__wrapped"].__setattr__(name, value)

    def __delattr__(self, name):
        return self.__dict__["__wrapped"].__delattr__(name)

    def __dir__(self):
        return self.__dict__["__wrapped"].__dir__()

    def __getitem__(self, name):
        return self.__dict__["__wrapped"].__getitem__(name)

    def __setitem__(self, name, flag):
        return self.__dict__["__wrapped"].__setitem__(name, flag)

    def __len__(self):
        return self.__dict__["__wrapped"].__len__()

    def __iter__(self):
        return self.__dict__["__wrapped"].__iter__()

    def __str__(self):
        return self.__dict__["__wrapped"].__str__()

    def __call__(self, *args, **kwargs):
        return self.__dict__["__wrapped"].__call__(*args, **kwargs)


DEFINE_string = _wrap_define_function(_absl_flags.DEFINE_string)
DEFINE_boolean = _wrap_define_function(_absl_flags.DEFINE_boolean)
DEFINE_bool = DEFINE_boolean
DEFINE_float = _wrap_define_function(_absl_flags.DEFINE_float)
DEFINE_integer = _wrap_define_function(_absl_flags.DEFINE_integer)

FLAGS = _FlagValuesWrapper(_absl_flags.FLAGS)
