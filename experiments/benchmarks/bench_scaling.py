"""How a single site's cost grows with the number of jobs, at normal load and under overload.

Run: ``.venv/bin/python experiments/benchmarks/bench_scaling.py [--lrms easy list ...]
[--loads 0.7 0.95 1.2] [--sizes 25000 50000 ...] [--budget 60] [--grid awf pool aa]``

``--grid``: instead, two such sites exchanging jobs under each named strategy (AWF, the central
pool, the active request; each site ``--sizes`` jobs of its own, seeds 1 and 2), the grid loop's
cost (evogrid.sim.grid): under AWF the sites' queues are indexed as a single site's, and so is
the central pool (EASY or LIST at every site); the active request's queues are not.

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
from dataclasses import replace

from bench_foundation import report, run_core

from evogrid.policy.strategies import AcceptWhenFit, ActiveRequest, CentralPool
from evogrid.sim.lrms import REGISTRY
from evogrid.sim.schedule import GridJobs, simulate_grid
from evogrid.workload import synthetic_workload

MACHINE_PROCS = 1024
SIZES = (25_000, 50_000, 100_000, 200_000, 400_000)
#: ``--grid`` strategies: the exchange of two sites.
GRID_STRATEGIES = {"awf": AcceptWhenFit, "pool": CentralPool, "aa": ActiveRequest}


def seconds_for(jobs: GridJobs, lrms: str, strategy: str = "") -> float:
    """Best of 3 warm runs (one if a run takes 2 s or more); with ``strategy``, the grid's."""
    exchange = GRID_STRATEGIES[strategy]().exchange(jobs) if strategy else None
    best = math.inf
    for _ in range(3):
        t0 = time.perf_counter()
        if exchange is None:
            run_core(jobs, lrms)
        else:
            simulate_grid(jobs, lrms, exchange)
        best = min(best, time.perf_counter() - t0)
        if best >= 2.0:
            break
    return best


def sites(n: int, load: float, strategy: str) -> GridJobs:
    """One site's ``n`` synthetic jobs, or with ``strategy`` two sites' (seeds 1 and 2)."""
    seeds = (1, 2) if strategy else (1,)
    logs = [synthetic_workload(n, MACHINE_PROCS, load=load, seed=seed) for seed in seeds]
    return GridJobs.merge([replace(w, name=f"site{i}") for i, w in enumerate(logs)])


def series(lrms: str, load: float, sizes: list[int], budget: float,
           strategy: str = "") -> list[tuple[int, float]]:
    """``(jobs, seconds)`` per size, stopping after the first size over ``budget`` seconds."""
    # Compile outside the timing: the plain loop, and (a queue over 512 positions) the indexed one.
    seconds_for(sites(3000, 3.0, strategy), lrms, strategy)
    done = []
    for n in sizes:
        done.append((n, seconds_for(sites(n, load, strategy), lrms, strategy)))
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
    parser.add_argument("--grid", nargs="+", default=[], choices=list(GRID_STRATEGIES),
                        help="two sites exchanging jobs under these strategies instead of one site")
    args = parser.parse_args()
    for strategy in args.grid or [""]:
        case = f"grid {strategy} " if strategy else ""
        for lrms in args.lrms:
            for load in args.loads:
                done = series(lrms, load, args.sizes, args.budget, strategy)
                times = " -> ".join(f"{s * 1e3:.0f}" for _, s in done)
                sizes = " -> ".join(f"{n // 1000}k" for n, _ in done)
                print(f"# {case}{lrms} load {load}: {sizes} jobs: {times} ms", flush=True)
                if len(done) > 1:
                    span = f"{done[0][0]}-{done[-1][0]} jobs"
                    label = f"scaling {case}{lrms} load {load} {span}, growth per doubling"
                    report(label, growth_per_doubling(done), "x/doubling", "<= 2.3 (8x jobs, <= 12x time)")
                for n, s in done:
                    report(f"scaling {case}{lrms} load {load} {n} jobs", s, "s", "-")


if __name__ == "__main__":
    main()
