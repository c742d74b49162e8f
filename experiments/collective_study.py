"""Collective against simple requests (Cankar's comparison, docs/reservations.md).

Meltzer's seven SDSC-BLUE sites (``experiments/configs/meltzer7.toml``), RW1 co-reservations from the
first site's jobs with request seeds 1-5, their parts scaled by f = 1, 4, 8, 16 (capped at the machine
size) to make them harder to place, and a window without slack (deadline = earliest start +
duration: the request must start at its earliest start). Simple: Meltzer's fixed parts placed by
Algorithm 2 (cpu-count). Collective: the same requests on up to N = 2, 3 or 7 sites, at least half
of e / N processors on each, e = the parts' sum (evogrid.workload.reservations.collective).

Run: ``.venv/bin/python experiments/collective_study.py`` (about a minute). Writes
``experiments/results/reservations/collective.csv`` and prints the table (mean ± sd over the seeds).
"""

from __future__ import annotations

import csv
from dataclasses import replace
from pathlib import Path

import numpy as np

from evogrid.sim.booking import reservation_setup, simulate_reservations
from evogrid.sim.metrics import reservation_metrics
from evogrid.sim.scenario import Scenario
from evogrid.workload.reservations import collective

ROOT = Path(__file__).parent
OUT = ROOT / "results" / "reservations"
SEEDS = (1, 2, 3, 4, 5)
SCALES = (1, 4, 8, 16)


def main() -> None:
    scenario = Scenario.from_spec(str(ROOT / "configs" / "meltzer7.toml"))
    rows = []
    for scale in SCALES:
        for seed in SEEDS:
            workloads, requests, rules = reservation_setup(scenario, seed=seed)
            m = max(w.machine_procs for w in workloads)
            requests = replace(requests, parts=np.minimum(m, requests.parts * scale),
                               deadline=requests.earliest_start + requests.duration)
            for label, algorithm, r in (("simple (cpu-count)", "cpu-count", requests),
                                        ("collective N=2", "collective", collective(requests, 2)),
                                        ("collective N=3", "collective", collective(requests, 3)),
                                        ("collective N=7", "collective", collective(requests, 7))):
                schedule, bookings = simulate_reservations(workloads, scenario.lrms, r,
                                                           replace(rules, algorithm=algorithm))
                placed = bookings.procs[bookings.accepted]
                failure = reservation_metrics(schedule, r, bookings)["failure_rate"]
                spread = float((placed > 0).sum(axis=1).mean()) if len(placed) else 0.0
                rows.append({"scale": scale, "request": label, "seed": seed, "success_rate": 1.0 - failure,
                             "sites_per_request": spread, "batch_awrt": float(np.mean(schedule.awrt()))})
    OUT.mkdir(parents=True, exist_ok=True)
    with (OUT / "collective.csv").open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print("| parts x | request | success rate | sites per accepted request | batch AWRT (s) |")
    print("|---|---|---|---|---|")
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        groups.setdefault((row["scale"], row["request"]), []).append(row)
    for (scale, label), group in groups.items():
        cells = [np.array([g[k] for g in group]) for k in ("success_rate", "sites_per_request", "batch_awrt")]
        print(f"| {scale} | {label} | {cells[0].mean():.3f} ± {cells[0].std(ddof=1):.3f} | "
              f"{cells[1].mean():.2f} | {cells[2].mean():,.0f} ± {cells[2].std(ddof=1):,.0f} |")


if __name__ == "__main__":
    main()
