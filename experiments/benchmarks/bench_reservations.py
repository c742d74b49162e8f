"""Reservation benchmarks: the loop with advance reservations (evogrid.sim.reservation_loop).

Run: ``.venv/bin/python experiments/benchmarks/bench_reservations.py``

Prints one line per case and appends it to ``experiments/benchmarks/results.csv``.
Cases: Röblitz's setting (the first 2,000 SDSC-BLUE jobs, every 10th a
request booked 6 h ahead) and a two-week SDSC-BLUE window (``SDSC03@d14-28``)
with every 10th job a request, under each LRMS and both admission rules.
The issue's target (a two-week 7-site RW1 scenario with co-reservations in
<= 50 ms) needs co-reservations, which are still to come; these cases are
the single-site baseline. Best of several warm runs.
"""

from __future__ import annotations

import os
import platform

from bench_foundation import best_of, report

from evogrid.sim.schedule import simulate_with_reservations
from evogrid.workload import load_window
from evogrid.workload.reservations import roblitz


def main() -> None:
    print(f"# evogrid reservation benchmarks on {platform.node()} ({os.cpu_count()} cores), "
          f"python {platform.python_version()}")
    cases = {
        "first 2,000 SDSC-BLUE jobs": roblitz(load_window("SDSC03"), 6, 2, first_jobs=2000),
        "SDSC03@d14-28": roblitz(load_window("SDSC03@d14-28"), 6, 2),
    }
    for label, (batch, requests) in cases.items():
        for lrms in ("fcfs", "easy", "list", "conservative"):
            for admission in ("first-fit", "backlog"):
                def run(lrms=lrms, admission=admission, batch=batch, requests=requests):
                    simulate_with_reservations([batch], lrms, [requests], admission)

                run()  # compile / load from cache
                report(f"{label} ({batch.n_jobs} jobs, {requests.n_requests} requests) {lrms} {admission}",
                       best_of(run) * 1e3, "ms", "-")


if __name__ == "__main__":
    main()
