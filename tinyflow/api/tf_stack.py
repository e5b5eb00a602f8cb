"""tf_stack (TF 1.15's tensorflow.python.util.tf_stack, reached as tf.flags.tf_decorator.tf_stack): the
Python stack as frames, through per-thread source maps (StackTraceMapper) and file filters
(StackTraceFilter) that code generators such as autograph push."""
from __future__ import absolute_import, division, print_function  # noqa: F401 (names of TF's module)

import collections
import inspect
import linecache
import threading

import six  # noqa: F401 (a name of TF's module)

TB_FILENAME, TB_LINENO, TB_FUNCNAME, TB_CODEDICT = 0, 1, 2, 3
_source_mapper_stacks = collections.defaultdict(list)
_source_filter_stacks = collections.defaultdict(list)


class StackFrame(collections.namedtuple("StackFrame", ["filename", "lineno", "name", "globals",
                                                       "func_start_lineno"])):
    """One frame of extract_stack: file, line, function name, its globals and first line."""


class StackTraceTransform:
    """A per-thread stack of transforms, entered with `with`."""

    _stack_dict = None
    _thread_key = None

    def __enter__(self):
        self.reset()
        if self._thread_key is None:
            self._thread_key = threading.get_ident()
        stack = self._stack_dict[self._thread_key]
        self.parent = stack[-1] if stack else None
        stack.append(self)
        return self

    def __exit__(self, unused_type, unused_value, unused_traceback):
        top = self._stack_dict[self._thread_key].pop()
        assert top is self, "Concurrent access?"

    def reset(self):
        pass


class StackTraceMapper(StackTraceTransform):
    """get_effective_source_map() -> {(filename, lineno): (filename, lineno, function)} applied to frames."""

    _stack_dict = _source_mapper_stacks

    def reset(self):
        self._effective_source_map = None

    def get_effective_source_map(self):
        raise NotImplementedError("subclasses need to override this")


class StackTraceFilter(StackTraceTransform):
    """get_filtered_filenames() -> the files whose frames extract_stack leaves out."""

    _stack_dict = _source_filter_stacks

    def reset(self):
        self._filtered_filenames = None

    def get_filtered_filenames(self):
        raise NotImplementedError("subclasses need to override this")


class CurrentModuleFilter(StackTraceFilter):
    """Leaves out the frames of the module that makes it (and those its parent filters)."""

    def __init__(self):
        frame = inspect.currentframe()
        try:
            outer = frame.f_back if frame is not None else None
            self._filename = inspect.getsourcefile(outer) if outer is not None else None
        finally:
            del frame

    def get_filtered_filenames(self):
        if self._filtered_filenames is None:
            self._filtered_filenames = frozenset((self._filename,))
            if self.parent is not None:
                self._filtered_filenames |= self.parent.get_filtered_filenames()
        return self._filtered_filenames


def extract_stack(limit=-1):
    """The caller's stack, outermost frame first (the innermost `limit` when limit >= 0), mapped and
    filtered by this thread's innermost StackTraceMapper / StackTraceFilter."""
    key = threading.get_ident()
    mappers, filters = _source_mapper_stacks[key], _source_filter_stacks[key]
    source_map = mappers[-1].get_effective_source_map() if mappers else {}
    skipped = filters[-1].get_filtered_filenames() if filters else frozenset()
    frames, f = [], inspect.currentframe().f_back
    while f is not None and (limit < 0 or len(frames) < limit):
        code = f.f_code
        filename, lineno, name = code.co_filename, f.f_lineno, code.co_name
        if filename not in skipped:
            filename, lineno, name = source_map.get((filename, lineno), (filename, lineno, name))
            frames.append(StackFrame(filename, lineno, name, f.f_globals, code.co_firstlineno))
        f = f.f_back
    return frames[::-1]


def convert_stack(stack, include_func_start_lineno=False):
    """(filename, lineno, name, source line[, func_start_lineno]) tuples of extract_stack's frames."""
    def rows():
        for frame in stack:
            linecache.checkcache(frame.filename)
            line = linecache.getline(frame.filename, frame.lineno, frame.globals)
            line = line.strip() if line else None
            if include_func_start_lineno:
                yield (frame.filename, frame.lineno, frame.name, line, frame.func_start_lineno)
            else:
                yield (frame.filename, frame.lineno, frame.name, line)
    return tuple(rows())
