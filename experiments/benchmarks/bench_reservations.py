"""Reservation benchmarks: the loop with reservations (evogrid.sim.reserving).

Run: ``.venv/bin/python experiments/benchmarks/bench_reservations.py``

Prints one line per case and appends it to ``experiments/benchmarks/results.csv``.
Cases:

- Meltzer's setting (``experiments/configs/meltzer7.toml``): seven two-week
  SDSC-BLUE sites, EASY, RW1 co-reservations from the first site's jobs,
  each admission algorithm (target: <= 50 ms each), and the same sites
  without requests in the core's EASY loop and in the reservation loop;
- Röblitz's setting (the first 2,000 SDSC-BLUE jobs, every 10th a request
  booked 6 h ahead) and a two-week window (``SDSC03@d14-28``) with every
  10th job a request, one site, first fit, under each LRMS; and the first
  2,000 jobs with probe/reserve of plain and of elastic requests under EASY;
- Cankar's collective placement of Meltzer's RW1 requests on up to 3 of the
  seven sites, and its cost per request beyond the loop without requests.

Best of several warm runs of the simulation alone (requests already made).
"""

from __future__ import annotations

import argparse
import os
import platform
from pathlib import Path

import numpy as np
from bench_foundation import best_of, report

from evogrid.sim.booking import ReservationRules, reservation_setup, simulate_reservations
from evogrid.sim.scenario import Scenario
from evogrid.sim.schedule import simulate_local
from evogrid.workload import load_window
from evogrid.workload.reservations import Reservations, roblitz

MELTZER = Path(__file__).resolve().parents[1] / "configs" / "meltzer7.toml"


def main() -> None:
    print(f"# evogrid reservation benchmarks on {platform.node()} ({os.cpu_count()} cores), "
          f"python {platform.python_version()}")
    scenario = Scenario.from_spec(str(MELTZER))
    none = Reservations("none", *(np.zeros(0, dtype=np.int64) for _ in range(4)), np.zeros((0, 1), np.int64))
    batch_only = scenario.workloads
    simulate_local(batch_only, "easy")
    simulate_reservations(batch_only, "easy", none)
    report("meltzer7 without requests, core EASY loop",
           best_of(lambda: simulate_local(batch_only, "easy")) * 1e3, "ms", "-")
    report("meltzer7 without requests, reservation loop EASY",
           best_of(lambda: simulate_reservations(batch_only, "easy", none)) * 1e3, "ms", "-")
    for algorithm in ("trivial", "cpu-count", "backlog", "backfill", "weighted"):
        workloads, requests, rules = reservation_setup(scenario, algorithm=algorithm)

        def grid(workloads=workloads, requests=requests, rules=rules):
            simulate_reservations(workloads, "easy", requests, rules)

        grid()  # compile / load from cache
        jobs = sum(w.n_jobs for w in workloads)
        report(f"meltzer7 rw1 ({jobs} jobs, {requests.n_requests} co-res.) {algorithm}",
               best_of(grid) * 1e3, "ms", "<= 50 ms")
    workloads, requests, rules = reservation_setup(scenario, algorithm="collective", collective_sites=3)
    reserved_none = best_of(lambda: simulate_reservations(workloads, "easy", none))

    def collective(workloads=workloads, requests=requests, rules=rules):
        simulate_reservations(workloads, "easy", requests, rules)

    collective()
    seconds = best_of(collective)
    report(f"meltzer7 rw1 ({requests.n_requests} collective requests, N = 3) collective", seconds * 1e3, "ms",
           "-")
    report("  the same, per collective request beyond the loop without requests",
           (seconds - reserved_none) / requests.n_requests * 1e6, "us", "microseconds")
    cases = {
        "first 2,000 SDSC-BLUE jobs": roblitz(load_window("SDSC03"), 6, 2, first_jobs=2000),
        "SDSC03@d14-28": roblitz(load_window("SDSC03@d14-28"), 6, 2),
    }
    for label, (batch, requests) in cases.items():
        for lrms in ("fcfs", "easy", "list", "conservative"):
            def one_site(lrms=lrms, batch=batch, requests=requests):
                simulate_reservations([batch], lrms, requests, ReservationRules("first-fit"))

            one_site()
            report(f"{label} ({batch.n_jobs} jobs, {requests.n_requests} requests) {lrms} first-fit",
                   best_of(one_site) * 1e3, "ms", "-")
    for elastic in (None, (0.5, 2.0)):  # Röblitz et al.'s probe/reserve, plain and elastic requests
        batch, requests = roblitz(load_window("SDSC03"), 6, 2, first_jobs=2000, elastic=elastic)

        def probe(batch=batch, requests=requests):
            simulate_reservations([batch], "easy", requests, ReservationRules("probe"))

        probe()
        report(f"first 2,000 SDSC-BLUE jobs, {requests.n_requests} {'elastic ' if elastic else ''}requests, "
               "easy probe", best_of(probe) * 1e3, "ms", "-")


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()  # --help; no options
    main()
