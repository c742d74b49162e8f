"""Foundation benchmarks: parsing, single-site LRMS speed, scaling, compile time.

Run: ``.venv/bin/python experiments/benchmarks/bench_foundation.py``

Prints one line per case and appends it to ``experiments/benchmarks/results.csv``;
the targets are in docs/benchmarks.md.
Times are the best of several warm runs on one core unless the case says
otherwise; memory is the peak resident set of a fresh process.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from evogrid.sim import core
from evogrid.sim.schedule import GridJobs, lrms_code
from evogrid.workload import load_window, parse_swf, resolve_trace
from evogrid.workload.parse_cache import cached_parse

RESULTS = Path(__file__).with_name("results.csv")
REPEATS = 5


def best_of(fn, repeats: int = REPEATS) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def report(case: str, value: float, unit: str, target: str) -> None:
    line = f"{case:<44} {value:>12.4g} {unit:<10} (target {target})"
    print(line, flush=True)
    new = not RESULTS.exists()
    with RESULTS.open("a", newline="") as fh:
        writer = csv.writer(fh)
        if new:
            writer.writerow(["when", "host", "case", "value", "unit", "target"])
        writer.writerow([datetime.now(UTC).isoformat(timespec="seconds"), platform.node(), case,
                         f"{value:.6g}", unit, target])


def run_core(jobs: GridJobs, lrms: str) -> np.ndarray:
    codes = np.full(jobs.n_sites, lrms_code(lrms), dtype=np.int64)
    return core.run_local(jobs.packed, jobs.machine_procs, codes)


def bench_parsing() -> None:
    path = resolve_trace("SDSC03")
    report("parse SDSC-BLUE cold (no cache)", best_of(lambda: parse_swf(path), 3), "s", "<= 1.5 s")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["EVOGRID_CACHE_DIR"] = tmp
        cached_parse(path)
        report("parse SDSC-BLUE from the parsed cache", best_of(lambda: cached_parse(path)), "s",
               "<= 0.1 s")


def bench_lrms() -> None:
    w = load_window("SDSC03")
    jobs = GridJobs.merge([w])
    targets = {"fcfs": ">= 5e6", "easy": ">= 2e6", "list": ">= 2e6", "conservative": ">= 1e6"}
    for lrms, target in targets.items():
        run_core(jobs, lrms)  # compile / load from cache
        seconds = best_of(lambda lrms=lrms: run_core(jobs, lrms))
        report(f"SDSC-BLUE whole log ({w.n_jobs} jobs) {lrms}", w.n_jobs / seconds, "jobs/s", target)


_SCALING_CHILD = """
import json, resource, sys, time
import numpy as np
from evogrid.sim.schedule import GridJobs
from bench_foundation import run_core
from evogrid.workload import synthetic_workload
n = int(sys.argv[1])
w = synthetic_workload(n, 1024, load=0.9, seed=1)
jobs = GridJobs.merge([w])
run_core(jobs, "easy")
t0 = time.perf_counter(); run_core(jobs, "easy"); dt = time.perf_counter() - t0
print(json.dumps({"seconds": dt, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def bench_scaling() -> None:
    for n in (10_000, 100_000, 1_000_000):
        out = subprocess.run([sys.executable, "-c", _SCALING_CHILD, str(n)], capture_output=True,
                             text=True, check=True, cwd=Path(__file__).parent).stdout
        result = json.loads(out.strip().splitlines()[-1])
        target = "<= 1 s" if n == 1_000_000 else "-"
        report(f"synthetic {n} jobs EASY (m=1024, load 0.9)", result["seconds"], "s", target)
        report(f"synthetic {n} jobs EASY peak RSS (process)", result["peak_mb"], "MB",
               "<= 500 MB" if n == 1_000_000 else "-")


_FIRST_CALL_CHILD = """
import time
t0 = time.perf_counter()
from evogrid.sim.schedule import simulate_local
from evogrid.workload import synthetic_workload
simulate_local([synthetic_workload(100, 16)], "easy")
print(time.perf_counter() - t0)
"""


def bench_first_call() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, NUMBA_CACHE_DIR=tmp)
        for label in ("cold (empty numba cache)", "warm (cached across processes)"):
            out = subprocess.run([sys.executable, "-c", _FIRST_CALL_CHILD], capture_output=True,
                                 text=True, check=True, env=env).stdout
            report(f"first call incl. import, {label}", float(out.strip().splitlines()[-1]), "s",
                   "<= 10 s")


def main() -> None:
    print(f"# evogrid foundation benchmarks on {platform.node()} ({os.cpu_count()} cores), "
          f"python {platform.python_version()}")
    bench_parsing()
    bench_lrms()
    bench_scaling()
    bench_first_call()


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()  # --help; no options
    main()
