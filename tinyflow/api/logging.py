"""tf.logging: TF 1.15's logging functions on Python's logging module (logger "tensorflow")."""
import logging as _logging

DEBUG, INFO, WARN, ERROR, FATAL = _logging.DEBUG, _logging.INFO, _logging.WARN, _logging.ERROR, _logging.FATAL

_logger = _logging.getLogger("tensorflow")
if not _logger.handlers:  # TF's default: messages go to stderr with the level's letter
    _handler = _logging.StreamHandler()
    _handler.setFormatter(_logging.Formatter("%(levelname).1s %(message)s"))
    _logger.addHandler(_handler)
    _logger.setLevel(WARN)
_counts = {}


def get_logger():
    return _logger


def set_verbosity(v):
    """Messages below level v (DEBUG, INFO, WARN, ERROR, FATAL) are dropped."""
    _logger.setLevel(v)


def get_verbosity():
    return _logger.getEffectiveLevel()


def log(level, msg, *args, **kwargs):
    _logger.log(level, msg, *args, **kwargs)


def debug(msg, *args, **kwargs):
    _logger.debug(msg, *args, **kwargs)


def info(msg, *args, **kwargs):
    _logger.info(msg, *args, **kwargs)


def warning(msg, *args, **kwargs):
    _logger.warning(msg, *args, **kwargs)


warn = warning


def error(msg, *args, **kwargs):
    _logger.error(msg, *args, **kwargs)


def fatal(msg, *args, **kwargs):
    _logger.fatal(msg, *args, **kwargs)


def vlog(level, msg, *args, **kwargs):
    _logger.log(level, msg, *args, **kwargs)


def _counted(key):
    _counts[key] = _counts.get(key, 0) + 1
    return _counts[key]


def log_every_n(level, msg, n, *args):
    """Logs msg the 1st, (n+1)th, (2n+1)th... time this line runs."""
    import inspect
    frame = inspect.currentframe().f_back
    if (_counted((frame.f_code.co_filename, frame.f_lineno)) - 1) % n == 0:
        log(level, msg, *args)


def log_first_n(level, msg, n, *args):
    """Logs msg only the first n times this line runs."""
    import inspect
    frame = inspect.currentframe().f_back
    if _counted((frame.f_code.co_filename, frame.f_lineno)) <= n:
        log(level, msg, *args)
