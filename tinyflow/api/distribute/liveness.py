"""Who is still alive in a multi-process job, and a coordination service that outlives process 0.

JAX's coordination service normally runs inside process 0, and a JAX client that loses it aborts
its process at once (a fatal C++ error: no Python exception, no TF error, the others' last steps
lost). tinyflow runs the service in a small helper process instead (service_main.py, started by
process 0, gone when the last process of the job has gone), so any process may die, process 0
included, and the others get a Python exception.

Beside the service, the helper is a liveness hub: each process keeps one TCP connection to it. A
process that dies (kill -9, a crash) drops its connection; the operating system closes it at
once, and the hub tells every other process within milliseconds. A data-parallel Session's next
step then raises tf.errors.UnavailableError naming the process before anything is dispatched
(runtime/placement.py's PEERS hook), and a step waiting in a collective with it raises the same.
A process that ends says so first (`bye`, from an atexit hook): "exited", or "failed" with the
exception that ended it.
"""
import atexit
import os
import socket
import subprocess
import sys
import threading
import time

from tinyflow.graph import errors
from tinyflow.runtime import placement

_KEY = "tinyflow/liveness_hub"
WAIT_FOR_NEWS = 2.0   # seconds a failed step waits for the hub's word of who died (it trails the collective's error)


def start_service(coordinator_address, num_processes, timeout):
    """Process 0: starts the helper (JAX's service bound where JAX would bind it, and the hub)."""
    bind = "[::]:" + coordinator_address.rsplit(":", 1)[1]
    helper = subprocess.Popen([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                            "service_main.py"), bind, str(num_processes), str(timeout)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              start_new_session=True)
    line = helper.stdout.readline().decode()
    if not line.startswith("ready "):
        raise errors.UnavailableError(None, None, "tinyflow: the coordination service of the job could not start "
                                      "on %s (exit status %s)" % (bind, helper.poll()))
    return helper, int(line.split()[1])


class _RemoteService:
    """What jax.distributed keeps as process 0's service: the helper runs it; shutdown is the
    helper's business (it ends when the last process has gone)."""

    def __init__(self, helper):
        self.helper = helper

    def shutdown(self):
        pass


class Peers:
    """This process's view of the others (placement.PEERS): who has gone, and how."""

    def __init__(self, client, process_id, num_processes, coordinator_host, hub_port=None, timeout=30):
        self.process_id, self.num_processes = process_id, num_processes
        self.gone = {}   # process index -> (time.time() the hub said so, "died" | "exited" | "failed: ...")
        self._news = threading.Condition()
        if hub_port is not None:
            client.key_value_set(_KEY, str(hub_port))
        else:
            hub_port = int(client.blocking_key_value_get(_KEY, timeout * 1000))
        self._sock = socket.create_connection((coordinator_host.strip("[]"), hub_port), timeout=timeout)
        self._sock.settimeout(None)
        self._sock.sendall(b"hello %d\n" % process_id)
        threading.Thread(target=self._listen, name="tinyflow-liveness", daemon=True).start()
        atexit.register(self.leave)

    def _listen(self):
        for line in self._sock.makefile("r", encoding="utf-8", errors="replace"):
            words = line.rstrip("\n").split(" ", 2)
            if words[0] == "gone" and len(words) == 3:
                with self._news:
                    self.gone[int(words[1])] = (time.time(), words[2])
                    self._news.notify_all()

    def leave(self):
        """atexit: says how this process ends ("failed: ..." when an exception ended the program)."""
        failed = getattr(sys, "last_value", None)
        how = "failed: %s: %s" % (type(failed).__name__, failed) if failed is not None else "exited"
        try:
            self._sock.sendall(("bye %d %s\n" % (self.process_id, how.replace("\n", " ")[:300])).encode())
        except OSError:
            pass

    def _failed(self):
        return {k: v for k, v in self.gone.items() if v[1] != "exited"}

    def check(self):
        """Before a step: UnavailableError if a process of the job died or failed (the step could not finish)."""
        if self.gone and self._failed():
            raise self.error(None)

    def error(self, cause):
        """The UnavailableError of a step that could not finish; `cause` is the collective's message
        (None: refused before dispatch). Waits up to WAIT_FOR_NEWS s for the hub to say who went."""
        with self._news:
            self._news.wait_for(lambda: self.gone, WAIT_FOR_NEWS if cause is not None else 0)
            gone = dict(self.gone)
        failed = {k: v for k, v in gone.items() if v[1] != "exited"} or gone
        if failed:
            now = time.time()
            who = "; ".join("process %d %s %.1f s ago%s" % (k, "exited" if how == "exited" else (
                "died" if how == "died" else "failed (%s)" % how[len("failed: "):]), now - t,
                " (process 0 ran JAX's coordinator)" if k == 0 else "") for k, (t, how) in sorted(failed.items()))
        else:
            who = "another process failed or died"
        msg = ("tinyflow: process %d of the data-parallel job could not finish the step: %s. Restart the job; "
               "a MonitoredTrainingSession with a checkpoint_dir resumes from the last checkpoint"
               % (self.process_id, who))
        return errors.UnavailableError(None, None, msg + ("" if cause is None else " (%s)" % cause))


def install(peers):
    placement.PEERS = peers
