"""Collective against simple requests (Cankar's comparison, docs/reservations.md).

Meltzer's seven SDSC-BLUE sites (``experiments/configs/meltzer7.toml``), RW1 co-reservations from the
first site's jobs with request seeds 1-5, their parts scaled by f = 1, 4, ..., 64 (capped at the machine
size) to make them harder to place, and a window without slack (deadline = earliest start +
duration: the request must start at its earliest start). Simple: Meltzer's fixed parts placed by
Algorithm 2 (cpu-count), and Cankar's simple request, the parts' sum e as three equal fixed parts
of ceil(e / 3) (evogrid.workload.reservations.equal_parts), placed the same way. Collective: the
same requests on up to N = 2, 3 or 7 sites, at least half of e / N processors on each
(evogrid.workload.reservations.collective).

Second study, jobs wider than a site: three two-week SDSC-BLUE windows as sites of m processors
(m = 768 or 896 instead of 1,152); each window's jobs wider than m become collective requests
on up to N = 3 sites (at least half of e / 3 on each, 7 days of room), placed by the collective
algorithm or as three equal fixed parts by Algorithm 2, against dropping them (preprocessing's
default); three window triples (days 14-56, 56-98, 98-140) as repetitions.

Run: ``.venv/bin/python experiments/collective_study.py`` (about 10 s). Writes
``experiments/results/reservations/{collective,wide_jobs}.{csv,json}`` and prints both tables (mean ±
sd).
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

import numpy as np

from evogrid.optimize.rundir import write_rows
from evogrid.sim.booking import ReservationRules, reservation_setup, simulate_reservations
from evogrid.sim.metrics import reservation_metrics
from evogrid.sim.scenario import Scenario
from evogrid.sim.schedule import simulate_local
from evogrid.workload import load_window
from evogrid.workload.reservations import collective, equal_parts, merge_requests, wide_jobs

ROOT = Path(__file__).parent
OUT = ROOT / "results" / "reservations"
SEEDS = (1, 2, 3, 4, 5)
SCALES = (1, 4, 8, 16, 32, 64)
SITE_SIZES = (768, 896)
TRIPLES = ((14, 28, 42), (56, 70, 84), (98, 112, 126))


def _table(rows: list[dict], keys: tuple[str, str], measures: tuple[str, ...]) -> None:
    print("| " + " | ".join(keys + measures) + " |")
    print("|" + "---|" * (len(keys) + len(measures)))
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        groups.setdefault(tuple(row[k] for k in keys), []).append(row)
    for key, group in groups.items():
        cells = []
        for m in measures:
            v = np.array([g[m] for g in group], dtype=float)
            digits = 0 if abs(v.mean()) > 100 else 3
            cells.append(f"{v.mean():,.{digits}f} ± {v.std(ddof=1):,.{digits}f}")
        print("| " + " | ".join(str(k) for k in key) + " | " + " | ".join(cells) + " |")


def collective_against_simple() -> None:
    scenario = Scenario.from_spec(str(ROOT / "configs" / "meltzer7.toml"))
    rows = []
    for scale in SCALES:
        for seed in SEEDS:
            workloads, requests, rules = reservation_setup(scenario, seed=seed)
            m = max(w.machine_procs for w in workloads)
            requests = replace(requests, parts=np.minimum(m, requests.parts * scale),
                               deadline=requests.earliest_start + requests.duration)
            for label, algorithm, r in (("simple (cpu-count)", "cpu-count", requests),
                                        ("simple, 3 equal parts (cpu-count)", "cpu-count",
                                         equal_parts(requests, 3)),
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
    write_rows(OUT / "collective", rows)
    print("\n## Collective against simple requests (mean ± sd over 5 seeds)\n")
    _table(rows, ("scale", "request"), ("success_rate", "sites_per_request", "batch_awrt"))


def wide_job_study() -> None:
    rows = []
    for m in SITE_SIZES:
        for days in TRIPLES:
            pairs = [wide_jobs(load_window(f"SDSC03@d{d}-{d + 14}"), m, 3) for d in days]
            sites = [batch for batch, _ in pairs]
            requests = merge_requests("wide jobs", [r for _, r in pairs])
            dropped = simulate_local(sites, "easy")
            n_wide = requests.n_requests
            rows.append({"site_procs": m, "wide_jobs": "dropped", "days": days[0], "n_wide": n_wide,
                         "success_rate": 0.0,
                         "mean_delay": 0.0, "wide_awrt": 0.0, "batch_awrt": float(np.mean(dropped.awrt()))})
            for label, algorithm in (("3 fixed parts (cpu-count)", "cpu-count"),
                                     ("collective N=3", "collective")):
                schedule, bookings = simulate_reservations(sites, "easy", requests,
                                                           ReservationRules(algorithm))
                ok = bookings.accepted
                delay = bookings.start[ok] - requests.earliest_start[ok]
                area = requests.collective.total_min[ok] * requests.duration[ok]
                response = delay + requests.duration[ok]
                rows.append({"site_procs": m, "wide_jobs": label, "days": days[0], "n_wide": n_wide,
                             "success_rate": ok.mean(),
                             "mean_delay": float(delay.mean()),
                             "wide_awrt": float((area * response).sum() / area.sum()),
                             "batch_awrt": float(np.mean(schedule.awrt()))})
    write_rows(OUT / "wide_jobs", rows)
    print("\n## Jobs wider than a site (mean ± sd over 3 window triples)\n")
    _table(rows, ("site_procs", "wide_jobs"),
           ("n_wide", "success_rate", "mean_delay", "wide_awrt", "batch_awrt"))


def main() -> None:
    collective_against_simple()
    wide_job_study()


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()  # --help; no options
    main()
