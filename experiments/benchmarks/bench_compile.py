"""Cold compile time of the simulators: the first call of each loop with an empty numba cache.

Run: ``.venv/bin/python experiments/benchmarks/bench_compile.py [--lrms fcfs easy ...]
[--phases local grid reservations] [--top 5]``

For each LRMS, a fresh process with an empty ``NUMBA_CACHE_DIR`` runs, in
order, the loop of 2 sites alone and a 2-site exchange grid (AWF) on two one-job
sites, as ``evogrid.sim.schedule.warm_up`` does, and, with ``--phases ...
reservations``, one site taking a reservation (the grid loop compiled for
sites that hold reservations, as the test run's cache fill does); it prints
the seconds of each first call and the functions numba spent most time
compiling in it (exclusive of the functions they call, from numba's
``numba:compile`` events). One core. Appends each first call to
``results.csv`` (see :mod:`bench_foundation`). Compare commits with
``compare_commits.py --bench bench_compile.py`` (this VM's speed drifts: only
runs in one session compare).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

from bench_foundation import report

_CHILD = """
import json, sys, time
import numpy as np
from numba.core import event
from evogrid.policy.strategies import Exchange
from evogrid.sim.booking import simulate_reservations
from evogrid.sim.schedule import simulate_grid, simulate_local
from evogrid.workload.model import Workload
from evogrid.workload.reservations import Reservations

class Exclusive(event.Listener):
    # Seconds per function, less the time of the compiles nested in it.
    def __init__(self):
        self.stack, self.seconds = [], {}
    def on_start(self, ev):
        self.stack.append([time.perf_counter(), 0.0])
    def on_end(self, ev):
        start, nested = self.stack.pop()
        took = time.perf_counter() - start
        if self.stack:
            self.stack[-1][1] += took
        name = ev.data["dispatcher"].py_func.__qualname__
        self.seconds[name] = self.seconds.get(name, 0.0) + took - nested

one = np.ones(1, dtype=np.int64)
sites = [Workload("warm-up", m, 0 * one, one, one, one, one, 0 * one) for m in (2, 4)]
lrms = (sys.argv[1],) * 2
phases = {
    "local": lambda: simulate_local(sites, lrms),
    "grid": lambda: simulate_grid(sites, lrms, Exchange("awf", transfer=("awf", "awf"))),
    "reservations": lambda: simulate_reservations(
        sites[:1], lrms[0], Reservations("warm-up", 0 * one, one, 3 * one, one, one[:, None])),
}
took = {}
for phase in sys.argv[2:]:
    listener = Exclusive()
    with event.install_listener("numba:compile", listener):
        t0 = time.perf_counter()
        phases[phase]()
        took[phase] = {"seconds": time.perf_counter() - t0, "functions": listener.seconds}
print(json.dumps(took))
"""


def cold_compile(lrms: str, phases: list[str]) -> dict:
    """``{phase: {"seconds": s, "functions": {name: s}}}`` from a fresh process with an empty cache,
    the phases run in order in it."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        done = subprocess.run([sys.executable, "-c", _CHILD, lrms, *phases], env=env, capture_output=True,
                              text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


#: What each phase's first call runs, for the report.
PHASES = {"local": "2 sites alone", "grid": "2-site grid (AWF)",
          "reservations": "single site with reservations"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lrms", nargs="+", default=["fcfs"], help="LRMS names (default: fcfs)")
    parser.add_argument("--phases", nargs="+", choices=list(PHASES), default=["local", "grid"],
                        help="first calls to time, in this order in one process (default: local grid)")
    parser.add_argument("--top", type=int, default=5, help="functions to list per phase (default: 5)")
    args = parser.parse_args()
    for lrms in args.lrms:
        took = cold_compile(lrms, args.phases)
        for phase in args.phases:
            report(f"first call, empty cache, {lrms}, {PHASES[phase]}", took[phase]["seconds"], "s", "-")
            ranked = sorted(took[phase]["functions"].items(), key=lambda item: -item[1])[:args.top]
            for name, seconds in ranked:
                print(f"    {seconds:7.1f} s compiling {name}", flush=True)


if __name__ == "__main__":
    main()
