"""How a single site's cost grows with the number of jobs, at normal load and under overload.

Run: ``.venv/bin/python experiments/benchmarks/bench_scaling.py [--lrms easy list ...]
[--loads 0.7 0.95 1.2] [--sizes 25000 50000 ...] [--budget 60]``

Synthetic jobs (:func:`evogrid.workload.synthetic_workload`, seed 1) on one
site of 1,024 processors, one core, warm numba cache. Each case prints the
time per size (best of 3 runs below 2 s, one run above) and the growth per
doubling of the jobs (the geometric mean over the sizes: 2.0 is linear, 4.0
quadratic, 8.0 cubic). A series stops at the first size that took longer
than ``--budget`` seconds. Appends each case to ``results.csv`` (see
:mod:`bench_foundation`).
"""

from __future__ import annotations

import argparse
import math
import time

from bench_foundation import report, run_core

from evogrid.sim.lrms import REGISTRY
from evogrid.sim.schedule import GridJobs
from evogrid.workload import synthetic_workload

MACHINE_PROCS = 1024
SIZES = (25_000, 50_000, 100_000, 200_000, 400_000)


def seconds_for(jobs: GridJobs, lrms: str) -> float:
    """Best of 3 warm runs (one if a run takes 2 s or more)."""
    best = math.inf
    for _ in range(3):
        t0 = time.perf_counter()
        run_core(jobs, lrms)
        best = min(best, time.perf_counter() - t0)
        if best >= 2.0:
            break
    return best


def series(lrms: str, load: float, sizes: list[int], budget: float) -> list[tuple[int, float]]:
    """``(jobs, seconds)`` per size, stopping after the first size over ``budget`` seconds."""
    # Compile outside the timing: the plain loop, and (a queue over 512 positions) the indexed one.
    run_core(GridJobs.merge([synthetic_workload(3000, MACHINE_PROCS, load=3.0, seed=1)]), lrms)
    done = []
    for n in sizes:
        jobs = GridJobs.merge([synthetic_workload(n, MACHINE_PROCS, load=load, seed=1)])
        done.append((n, seconds_for(jobs, lrms)))
        if done[-1][1] > budget:
            break
    return done


def growth_per_doubling(done: list[tuple[int, float]]) -> float:
    """The time's growth per doubling of the jobs, from the first to the last size."""
    (n0, s0), (n1, s1) = done[0], done[-1]
    return (s1 / s0) ** (1.0 / math.log2(n1 / n0))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lrms", nargs="+", default=list(REGISTRY), choices=list(REGISTRY))
    parser.add_argument("--loads", nargs="+", type=float, default=[0.7, 0.95, 1.2])
    parser.add_argument("--sizes", nargs="+", type=int, default=list(SIZES))
    parser.add_argument("--budget", type=float, default=60.0,
                        help="stop a series after the first size that took longer (s)")
    args = parser.parse_args()
    for lrms in args.lrms:
        for load in args.loads:
            done = series(lrms, load, args.sizes, args.budget)
            times = " -> ".join(f"{s * 1e3:.0f}" for _, s in done)
            sizes = " -> ".join(f"{n // 1000}k" for n, _ in done)
            print(f"# {lrms} load {load}: {sizes} jobs: {times} ms", flush=True)
            if len(done) > 1:
                report(f"scaling {lrms} load {load} {done[0][0]}-{done[-1][0]} jobs, growth per doubling",
                       growth_per_doubling(done), "x/doubling", "<= 2.3 (8x jobs, <= 12x time)")
            for n, s in done:
                report(f"scaling {lrms} load {load} {n} jobs", s, "s", "-")


if __name__ == "__main__":
    main()
