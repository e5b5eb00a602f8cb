"""tf.train.Coordinator: lets the threads of an input pipeline stop together."""
import contextlib
import sys
import threading
import time

from tinyflow.graph import errors


class Coordinator:
    """Threads check `should_stop()`; any of them may `request_stop(ex)`; `join(threads)` waits for
    them and re-raises the first exception reported (OutOfRangeError, the end of the input, is not
    one: it only stops the threads)."""

    def __init__(self, clean_stop_exception_types=None):
        self._clean = tuple(clean_stop_exception_types or (errors.OutOfRangeError,))
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._exc_info = None
        self._registered = []

    def should_stop(self):
        """Whether a stop was requested."""
        return self._stop.is_set()

    def request_stop(self, ex=None):
        """Asks every thread to stop; `ex` (an exception or sys.exc_info()) is re-raised by join()."""
        with self._lock:
            if ex is not None and self._exc_info is None and not isinstance(
                    ex if isinstance(ex, BaseException) else ex[1], self._clean):
                self._exc_info = ex if isinstance(ex, tuple) else (type(ex), ex, ex.__traceback__)
            self._stop.set()

    def clear_stop(self):
        with self._lock:
            self._stop.clear()
            self._exc_info = None

    def wait_for_stop(self, timeout=None):
        """Blocks until a stop is requested (or `timeout` seconds); returns should_stop()."""
        return self._stop.wait(timeout)

    @contextlib.contextmanager
    def stop_on_exception(self):
        """A with-block whose exception requests a stop (and is reported by join)."""
        try:
            yield
        except Exception:
            self.request_stop(sys.exc_info())

    def register_thread(self, thread):
        with self._lock:
            self._registered.append(thread)

    def join(self, threads=None, stop_grace_period_secs=120, ignore_live_threads=False):
        """Waits for `threads` (and registered ones) to end after a stop; re-raises a reported exception.
        Threads still alive `stop_grace_period_secs` after the stop raise RuntimeError."""
        threads = list(threads or []) + [t for t in self._registered if t not in (threads or [])]
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(0.01):
            pass
        deadline = time.time() + stop_grace_period_secs
        for t in threads:
            t.join(max(0.0, deadline - time.time()))
        alive = [t.name for t in threads if t.is_alive()]
        with self._lock:
            self._registered = []
            exc = self._exc_info
        if exc is not None:
            raise exc[1].with_traceback(exc[2])
        if alive and not ignore_live_threads:
            raise RuntimeError("Coordinator stopped with threads still running: %s" % " ".join(alive))

    @property
    def joined(self):
        return not self._registered

    def raise_requested_exception(self):
        with self._lock:
            if self._exc_info is not None:
                raise self._exc_info[1].with_traceback(self._exc_info[2])


class LooperThread(threading.Thread):
    """tf.train.LooperThread: calls `target(*args)` repeatedly until the coordinator stops."""

    def __init__(self, coord, timer_interval_secs, target=None, args=None, kwargs=None):
        super().__init__(daemon=True)
        self._coord, self._interval = coord, timer_interval_secs
        self._target_fn, self._args, self._kwargs = target, args or (), kwargs or {}

    def run(self):
        with self._coord.stop_on_exception():
            while not self._coord.should_stop():
                self._target_fn(*self._args, **self._kwargs)
                if self._interval:
                    self._coord.wait_for_stop(self._interval)
