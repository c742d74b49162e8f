"""Grid-layer benchmarks: one grid evaluation with fuzzy rulebases at every site.

Run: ``.venv/bin/python experiments/benchmarks/bench_grid.py``

The target case (docs/benchmarks.md) is KTH@0-5 + SDSC03@0-5, FCFS, a 10-rule
rulebase at both sites (<= 10 ms warm, one core). For the profile, the same
jobs also run through the local-only loop and the grid loop with the local,
AWF, pool and (EASY) active-request strategies, and grids of 3 and 5 sites
are timed, the 3-site grid also with the shipped co-evolved rulebases. The
5-site grid also runs with heterogeneous sites (speeds 4:2:1:1:2, site
attributes and hard and preferred job requirements) under brokers with MCT
and least load (target: within 2x of the same grid under AWF, per job), when
this commit has them.
Times are the best of 7 warm runs; merging the workloads is done once
outside the timing, as an optimiser does.
"""

from __future__ import annotations

import argparse
import os
import platform
from pathlib import Path

from bench_foundation import best_of, report

from evogrid.policy.rulebase import Rulebase
from evogrid.policy.strategies import AcceptWhenFit, ActiveRequest, CentralPool, FuzzyPolicy, Local
from evogrid.sim.schedule import GridJobs, simulate_grid, simulate_local
from evogrid.workload import load_window

try:  # older commits without heterogeneous sites (Broker, Sites) time the rest
    from evogrid.policy.strategies import Broker
    from evogrid.sim.sites import Requirement, Sites

    HETEROGENEOUS = Sites(
        speed=(4.0, 2.0, 1.0, 1.0, 2.0),
        attributes=({"arch": "x86", "mem": "high"}, {"arch": "x86"}, {"arch": "arm"}, {"arch": "x86"},
                    {"arch": "x86", "mem": "high"}),
        requirements=(Requirement("arch", "x86", 0.3), Requirement("mem", "high", 0.2, "preferred", 1)))
except ImportError:
    HETEROGENEOUS = None

GRIDS = {
    2: ("KTH@0-5", "SDSC03@0-5"),
    3: ("KTH@0-5", "SDSC03@0-5", "HPC2N@0-5"),
    5: ("KTH@0-5", "SDSC03@0-5", "HPC2N@0-5", "THUNDER@0-5", "ATLAS@0-5"),
}
REPEATS = 7
COEVOLVED = Path(__file__).resolve().parents[2] / "trained_rulebases" / "coevolved" / "kth_sdsc03_hpc2n"


def time_case(label: str, jobs: GridJobs, lrms: str, strategy, target: str = "-") -> None:
    exchange = strategy.exchange(jobs)
    simulate_grid(jobs, lrms, exchange)  # compile / load from the cache
    seconds = best_of(lambda: simulate_grid(jobs, lrms, exchange), REPEATS)
    report(f"{label} ({len(jobs.submit):,} jobs)", seconds * 1e3, "ms", target)


def main() -> None:
    print(f"# evogrid grid benchmarks on {platform.node()} ({os.cpu_count()} cores), "
          f"python {platform.python_version()}")
    for K, windows in GRIDS.items():
        jobs = GridJobs.merge([load_window(w) for w in windows])
        rulebases = FuzzyPolicy({k: Rulebase.random(10, seed=k) for k in range(K)})
        target = "<= 10 ms" if K == 2 else "-"
        time_case(f"{K} sites FCFS, 10-rule rulebase at every site", jobs, "fcfs", rulebases, target)
        if K == 3:
            # A late co-evolution pairing: more exchange and decisions than random rulebases.
            evolved = {k: Rulebase.load(COEVOLVED / f"{w.split('@')[0].lower()}.json")
                       for k, w in enumerate(windows)}
            time_case("3 sites FCFS, shipped co-evolved rulebases, AWRT location", jobs, "fcfs",
                      FuzzyPolicy(evolved, location="awrt"))
        if K == 5:
            time_case("5 sites EASY, AWF", jobs, "easy", AcceptWhenFit())
            if HETEROGENEOUS is not None:
                heterogeneous = GridJobs.merge([load_window(w) for w in windows], HETEROGENEOUS)
                for location in ("least-load", "mct"):
                    time_case(f"5 sites EASY, speeds and requirements, broker {location}", heterogeneous,
                              "easy", Broker(location), "<= 2x AWF")
        if K != 2:
            continue
        simulate_local(jobs, "fcfs")
        seconds = best_of(lambda jobs=jobs: simulate_local(jobs, "fcfs"), REPEATS)
        report(f"2 sites FCFS, local-only loop ({len(jobs.submit):,} jobs)", seconds * 1e3, "ms", "-")
        time_case("2 sites FCFS, grid loop, local strategy", jobs, "fcfs", Local())
        time_case("2 sites FCFS, grid loop, AWF", jobs, "fcfs", AcceptWhenFit())
        time_case("2 sites FCFS, rulebase at KTH, AWF at SDSC (EFS training)", jobs, "fcfs",
                  FuzzyPolicy({0: Rulebase.random(10, seed=0)}))
        time_case("2 sites FCFS, grid loop, FCFS-JS pool", jobs, "fcfs", CentralPool("first"))
        time_case("2 sites EASY, 10-rule rulebase at every site", jobs, "easy", rulebases)
        time_case("2 sites EASY, grid loop, AA", jobs, "easy", ActiveRequest())
        time_case("2 sites EASY, grid loop, AA start rule", jobs, "easy", ActiveRequest("start"))


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()  # --help; no options
    main()
