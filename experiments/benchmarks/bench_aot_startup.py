"""Start-up without numba at run time: the local EASY loop compiled ahead of time (a measurement).

Run: ``.venv/bin/python experiments/benchmarks/bench_aot_startup.py``

``evogrid simulate SDSC03 --lrms easy`` spends about 1.4 s in numba's own
start-up (import, target context, loading the cached loop; docs/benchmarks.md)
around a 0.08 s simulation. This script measures what ahead-of-time
compilation would give: it compiles the same event loop (``core.new_state`` +
``core._local_loop`` in EASY mode) into an extension module with
``numba.pycc`` in a temporary directory, then times a fresh process that
imports only numpy, that module and ``evogrid.workload``, loads SDSC-BLUE
from the parsed cache and simulates it, and checks that the start times equal
the JIT core's. Nothing in evogrid uses the module: whether to ship AOT
builds is an open decision (``numba.pycc`` is deprecated).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from bench_foundation import report

from evogrid.sim.schedule import simulate_local
from evogrid.workload import load_window

_BUILD = """
import numpy as np
from numba.pycc import CC
from evogrid.sim import core
from evogrid.sim.lrms import EASY
cc = CC("evogrid_aot_local")
cc.output_dir = {out!r}

@cc.export("run_local_easy", "i8[:](i8[:,::1], i8[::1], i8[::1], i8[::1], f8[::1])")
def run_local_easy(jobs, machine_procs, codes, group, cutoff):
    state = core.new_state(jobs, machine_procs, codes, machine_procs.shape[0], 0)
    bounds = np.zeros((2, machine_procs.shape[0]))
    core._local_loop(jobs, codes, group, cutoff, state, bounds, EASY)
    return state.out[core.START_TIME].copy()

cc.compile()
"""

_RUN = """
import sys, time
t0 = time.perf_counter()
import numpy as np
import evogrid_aot_local
from evogrid.workload import load_window
w = load_window("SDSC03")
# core.pack_jobs and lrms.EASY by hand: importing evogrid.sim imports numba.
jobs = np.ascontiguousarray(np.stack([w.submit, w.run_time, w.estimate, w.procs,
                                      np.zeros_like(w.submit)]).astype(np.int64))
start = evogrid_aot_local.run_local_easy(jobs, np.array([w.machine_procs], dtype=np.int64),
                                         np.array([1], dtype=np.int64), jobs[4].copy(), np.zeros(1))
assert "numba" not in sys.modules
np.save(sys.argv[1], start)
print(time.perf_counter() - t0)
"""


def main() -> None:
    jit_start = simulate_local([load_window("SDSC03")], "easy").start  # also warms the parse cache
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", _BUILD.format(out=tmp)], check=True)
        report("AOT build of the local EASY loop (numba.pycc)", time.perf_counter() - t0, "s", "-")
        env_path = f"{tmp}:{Path(__file__).resolve().parents[2]}"
        saved = Path(tmp) / "start.npy"
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", _RUN, str(saved)], check=True, cwd=tmp,
                           env={**os.environ, "PYTHONPATH": env_path}, capture_output=True)
            best = min(best, time.perf_counter() - t0)
        report("AOT: fresh process, load SDSC-BLUE + simulate EASY", best, "s", "(0.8 s for the CLI)")
        same = np.array_equal(np.load(saved), jit_start)
        print(f"start times identical to the JIT core: {same}")
        if not same:
            raise SystemExit(1)


if __name__ == "__main__":
    main()
