"""Step timing shared by the tutorial-style scripts (importable under TF 1.15's Python 3.7 too)."""
import json
import time


class Steps(object):
    """Times each training step; report() prints one line the benchmark parses."""

    def __init__(self):
        self.t0, self.times, self.cpu = time.perf_counter(), [], []

    def run(self, fn):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        self.times.append(time.perf_counter() - t)
        self.cpu.append(time.process_time() - c)   # all the process's threads: steadier on a busy machine
        return out

    def report(self, **extra):
        later, later_cpu = sorted(self.times[1:]) or [0.0], sorted(self.cpu[1:]) or [0.0]
        info = {"steps": len(self.times), "first_step_s": self.times[0] if self.times else 0.0,
                "step_s": later[len(later) // 2], "step_cpu_s": later_cpu[len(later_cpu) // 2],
                "script_s": time.perf_counter() - self.t0}
        info.update(extra)
        print("BENCH " + json.dumps(info))
