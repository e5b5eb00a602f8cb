"""tf.logging: TF 1.15's logging (tensorflow/python/platform/tf_logging.py) on Python's logging module.

Messages go to the logger "tensorflow". As in TF, the first use gives that logger a handler writing
`INFO:tensorflow:message` lines (logging.BASIC_FORMAT) to stderr (stdout in an interactive shell, at
level INFO there), unless the root logger already has a handler (then the root's handler prints them,
as under absl's app.run); the level is Python's default (WARN) until set_verbosity.
"""
import logging as _logging
import sys as _sys
import threading as _threading
from logging import DEBUG, ERROR, FATAL, INFO, WARN

__all__ = ["DEBUG", "ERROR", "FATAL", "INFO", "WARN", "TaskLevelStatusMessage", "debug", "error", "fatal", "flush",
           "get_verbosity", "info", "log", "log_every_n", "log_first_n", "log_if", "set_verbosity", "vlog", "warn",
           "warning", "get_logger"]

_logger = None
_logger_lock = _threading.Lock()
_log_counter_per_token = {}


def _get_caller(offset=3):
    """The code and frame of the first caller outside this file (log_every_n counts per calling line)."""
    f = _sys._getframe(offset)
    our_file = f.f_code.co_filename
    f = f.f_back
    while f:
        if f.f_code.co_filename != our_file:
            return f.f_code, f
        f = f.f_back
    return None, None


def get_logger():
    """tf.get_logger(): the logger "tensorflow", given TF's stderr handler on first use."""
    global _logger
    if _logger:
        return _logger
    with _logger_lock:
        if _logger:
            return _logger
        logger = _logging.getLogger("tensorflow")
        if not _logging.getLogger().handlers and not logger.handlers:
            # TF's rule: a configured root logger prints our records; else one handler of our own
            interactive = hasattr(_sys, "ps1") or bool(_sys.flags.interactive)
            if interactive:
                logger.setLevel(INFO)
            handler = _logging.StreamHandler(_sys.stdout if interactive else _sys.stderr)
            handler.setFormatter(_logging.Formatter(_logging.BASIC_FORMAT, None))
            logger.addHandler(handler)
        _logger = logger
        return _logger


def log(level, msg, *args, **kwargs):
    get_logger().log(level, msg, *args, **kwargs)


def debug(msg, *args, **kwargs):
    get_logger().debug(msg, *args, **kwargs)


def info(msg, *args, **kwargs):
    get_logger().info(msg, *args, **kwargs)


def warning(msg, *args, **kwargs):
    get_logger().warning(msg, *args, **kwargs)


def warn(msg, *args, **kwargs):
    get_logger().warning(msg, *args, **kwargs)


def error(msg, *args, **kwargs):
    get_logger().error(msg, *args, **kwargs)


def fatal(msg, *args, **kwargs):
    get_logger().fatal(msg, *args, **kwargs)


def TaskLevelStatusMessage(msg):  # noqa: N802 (TF's name)
    """TF logs a task's status message as an error."""
    error(msg)


def flush():
    raise NotImplementedError()


def vlog(level, msg, *args, **kwargs):
    get_logger().log(level, msg, *args, **kwargs)


def _next_count(token):
    """How many times `token` (a file and line) was counted before: 0 the first time."""
    _log_counter_per_token[token] = 1 + _log_counter_per_token.get(token, -1)
    return _log_counter_per_token[token]


def _file_and_line():
    code, f = _get_caller()
    return ("<unknown>", 0) if code is None else (code.co_filename, f.f_lineno)


def log_every_n(level, msg, n, *args):
    """Logs 'msg % args' the 1st, (n+1)st, (2n+1)st... time this line runs."""
    log_if(level, msg, not _next_count(_file_and_line()) % n, *args)


def log_first_n(level, msg, n, *args):
    """Logs 'msg % args' only the first n times this line runs."""
    log_if(level, msg, _next_count(_file_and_line()) < n, *args)


def log_if(level, msg, condition, *args):
    """Logs 'msg % args' at level only if condition holds."""
    if condition:
        vlog(level, msg, *args)


def get_verbosity():
    """The level below which messages are dropped."""
    return get_logger().getEffectiveLevel()


def set_verbosity(v):
    """Drops messages below level v (DEBUG, INFO, WARN, ERROR, FATAL)."""
    get_logger().setLevel(v)
