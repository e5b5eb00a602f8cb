"""The helper process of a multi-process job (started by process 0, run as a script: it imports no
tinyflow): JAX's coordination service, and a liveness hub.

    python service_main.py BIND_ADDRESS NUM_PROCESSES TIMEOUT_SECONDS

Why a process of its own: a JAX client that loses the coordination service aborts its process at
once (a C++ fatal error, no Python exception), so a service inside process 0 takes every other
process down with it. Here it outlives process 0 and stays up until the last process has gone.

The hub: every process holds one TCP connection to it ("hello K"); a process that ends says
"bye K exited" or "bye K failed: ..." first, one that dies (kill -9, a crash) drops its connection
without it. Either way the hub tells every other process at once: "gone K died|exited|failed: ...".
Prints "ready PORT" (the hub's port) once the service is up; exits when every process that said
hello has gone (every one of the job), or when process 0 (its stdin) and every connection are gone and
nobody connects for TIMEOUT seconds.
"""
import selectors
import socket
import sys


def main():
    bind, num_processes, timeout = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    import jaxlib._jax as _jax
    service = _jax.get_distributed_runtime_service(bind, num_processes, heartbeat_timeout=timeout,
                                                   shutdown_timeout=timeout, recoverable=True)
    if socket.has_dualstack_ipv6():
        hub = socket.create_server(("", 0), family=socket.AF_INET6, dualstack_ipv6=True)
    else:
        hub = socket.create_server(("", 0))
    sel = selectors.DefaultSelector()
    sel.register(hub, selectors.EVENT_READ, "hub")
    sel.register(sys.stdin, selectors.EVENT_READ, "parent")
    print("ready %d" % hub.getsockname()[1], flush=True)
    conns = {}   # socket -> [process index or None, how it left or None, bytes not yet parsed]
    gone, parent_gone = [0], False
    while True:
        if not conns and (gone[0] >= num_processes or parent_gone):
            # everyone has gone, or process 0 has and nobody is connected: latecomers get `timeout` s
            events = [] if gone[0] >= num_processes else sel.select(timeout)
            if not events:
                break
        else:
            events = sel.select()
        for key, _ in events:
            if key.data == "hub":
                conn, _ = hub.accept()
                conns[conn] = [None, None, b""]
                sel.register(conn, selectors.EVENT_READ, "conn")
            elif key.data == "parent":
                if not sys.stdin.buffer.read1(4096):
                    sel.unregister(sys.stdin)
                    parent_gone = True
            else:
                _read(key.fileobj, conns, sel, gone)
    service.shutdown()


def _read(conn, conns, sel, gone):
    state = conns[conn]
    try:
        data = conn.recv(4096)
    except OSError:
        data = b""
    if data:
        state[2] += data
        while b"\n" in state[2]:
            line, state[2] = state[2].split(b"\n", 1)
            words = line.decode("utf-8", "replace").split(" ", 2)
            if words[0] == "hello" and len(words) > 1:
                state[0] = int(words[1])
            elif words[0] == "bye" and len(words) > 2:
                state[1] = words[2]
        return
    sel.unregister(conn)
    conn.close()
    del conns[conn]
    if state[0] is not None:   # tell everyone else, at once
        gone[0] += 1
        message = ("gone %d %s\n" % (state[0], state[1] or "died")).encode()
        for other in list(conns):
            try:
                other.sendall(message)
            except OSError:
                pass


if __name__ == "__main__":
    main()
