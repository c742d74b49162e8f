"""The reservation studies of docs/reservations.md: Meltzer's co-reservation algorithms on seven
two-week SDSC-BLUE sites, and Röblitz et al.'s book-ahead setting on the first 2,000 SDSC-BLUE jobs.

Run: ``.venv/bin/python experiments/reservations_study.py`` (a few minutes once compiled).
Writes ``experiments/results/reservations/{meltzer,weighted,meltzer_starts,roblitz,roblitz_windows}.csv``
(a row per run) and prints the tables of docs/reservations.md (mean and sample sd over the seeds).

- Meltzer: ``experiments/configs/meltzer4.toml`` and ``meltzer7.toml`` (EASY at every site; his
  6.5-6.7 ran four clusters, 6.4, 6.8 and 6.9.1 seven), RW1/RW2/RW3 made from the first site's
  jobs with seeds 1-5 (the seed also draws the site orders and shuffles the variant trees),
  Algorithms 1-4, under Meltzer's readings of his listings (the defaults) and under evogrid's
  earlier ones (``READINGS["earlier"]``: by-start order, every held reservation in the backlog,
  backfill until the queue head's earliest fit).
- Algorithm 5: RW1, his cost/start factors (his Table 18) and tariffs, seeds 1-5.
- His 6.8 (Table 17): the start-sorted Algorithms 2, 3 and backfill on his modified RW1
  (``rw1-6h``, ``rw1-6h-3``), four and seven sites, seeds 1-5 (``meltzer_starts.csv``).
- Röblitz: every 10th job (offsets 0-4 as the five repetitions) a one-site request booked
  b = 0, 6, 12, 24 h ahead with 2 h of slack; first fit, Algorithm 3 (backlog) and probe/reserve
  of plain and of elastic requests; on the first 2,000 jobs and on eight 2,000-job windows
  (``roblitz_windows.csv``).
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from evogrid.sim.booking import ReservationRules, reservation_setup, simulate_reservations
from evogrid.sim.metrics import reservation_metrics, site_reservation_metrics
from evogrid.sim.scenario import Scenario
from evogrid.workload import load_window
from evogrid.workload.reservations import roblitz

OUT = Path(__file__).parent / "results" / "reservations"
SEEDS = (1, 2, 3, 4, 5)
ALGORITHMS = ("trivial", "cpu-count", "backlog", "backfill")
#: The readings of Meltzer's listings (docs/reservations.md): his; his start-sorted variants of
#: Algorithms 2 and 3 (his 6.8, Table 17); evogrid's earlier ones.
READINGS = {"meltzer": {}, "start-sorted": {"variant_order": "tree-sorted"},
            "earlier": {"variant_order": "by-start", "backlog_rule": "every-held",
                        "backfill_until": "head-fit"}}
#: His cost and start factors (k, s), Table 18.
FACTORS = ((1.0, 0.0), (0.9, 0.1), (0.8, 0.2), (0.7, 0.3), (0.6, 0.4), (0.0, 1.0))
MEASURES = ("failure_rate", "unfairness", "mean_relative_start", "messages_per_request", "mean_cost")


def _day_night(requests, bookings) -> dict:
    """Meltzer's Table 19(a): the shares of accepted co-reservations run wholly by day (8-18 h) and
    wholly by night (18-8 h)."""
    ok = bookings.accepted
    start, end = bookings.start[ok], bookings.start[ok] + requests.duration[ok]
    day0 = start // 86_400 * 86_400
    hour = (start - day0) / 3600
    by_day = (hour >= 8) & (end <= day0 + 18 * 3600)
    night_end = np.where(hour < 8, day0 + 8 * 3600, day0 + 86_400 + 8 * 3600)
    by_night = ((hour < 8) | (hour >= 18)) & (end <= night_end)
    n = max(1, int(ok.sum()))
    return {"day_share": float(by_day.sum() / n), "night_share": float(by_night.sum() / n)}


def _run(workloads, lrms, requests, rules) -> dict:
    schedule, bookings = simulate_reservations(workloads, lrms, requests, rules)
    batch = schedule.metrics()
    sites = site_reservation_metrics(schedule, requests, bookings)
    filtering = {m: float(np.mean([site[m] for site in sites]))  # Meltzer's Table 11, mean over sites
                 for m in ("filter_degree", "infeasibility_rate")}
    return {**reservation_metrics(schedule, requests, bookings), **_day_night(requests, bookings),
            **filtering,
            "batch_max_wait": max(m["max_wait"] for m in batch),
            "batch_mean_wait": float(np.mean([m["mean_wait"] for m in batch]))}


def _write(name: str, rows: list[dict]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with (OUT / f"{name}.csv").open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def _summary(rows: list[dict], keys: tuple[str, ...], measures: tuple[str, ...]) -> None:
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        groups.setdefault(tuple(row[k] for k in keys), []).append(row)
    print("| " + " | ".join(keys + measures) + " |")
    print("|" + "---|" * (len(keys) + len(measures)))
    for key, group in groups.items():
        cells = []
        for m in measures:
            values = np.array([g[m] for g in group], dtype=float)
            digits = 0 if values.mean() > 100 else 3
            cells.append(f"{values.mean():,.{digits}f} ± {values.std(ddof=1):,.{digits}f}")
        print("| " + " | ".join(str(k) for k in key) + " | " + " | ".join(cells) + " |")


def meltzer_study() -> None:
    rows = []
    for sites in (4, 7):
        scenario = Scenario.from_spec(str(Path(__file__).parent / "configs" / f"meltzer{sites}.toml"))
        for variant in ("rw1", "rw2", "rw3"):
            for algorithm in ALGORITHMS:
                for reading, settings in READINGS.items():
                    for seed in SEEDS:
                        workloads, requests, rules = reservation_setup(scenario, workload=variant, seed=seed,
                                                                       algorithm=algorithm, **settings)
                        rows.append({"sites": sites, "workload": variant, "algorithm": algorithm,
                                     "reading": reading, "seed": seed,
                                     **_run(workloads, scenario.lrms, requests, rules)})
    _write("meltzer", rows)
    print("\n## Meltzer, four and seven sites, Algorithms 1-4 (mean ± sd over 5 seeds)\n")
    _summary(rows, ("sites", "workload", "algorithm", "reading"),
             ("failure_rate", "mean_unfairness", "filter_degree", "infeasibility_rate", "mean_relative_start",
              "mean_relative_start_formed", "messages_per_request", "messages_with_status_per_request",
              "mean_efficiency", "batch_max_wait"))
    scenario = Scenario.from_spec(str(Path(__file__).parent / "configs" / "meltzer7.toml"))
    weighted = []
    for k, s_weight in FACTORS:
        for seed in SEEDS:
            workloads, requests, rules = reservation_setup(scenario, workload="rw1", seed=seed,
                                                           algorithm="weighted", cost_weight=k,
                                                           start_weight=s_weight)
            weighted.append({"k": k, "s": s_weight, "seed": seed,
                             **_run(workloads, scenario.lrms, requests, rules)})
    _write("weighted", weighted)
    print("\n## Algorithm 5 on RW1, k + s = 1 (mean ± sd over 5 seeds)\n")
    _summary(weighted, ("k", "s"), ("mean_cost", "day_share", "night_share", "mean_relative_cost",
                                    "mean_relative_start_formed", "mean_relative_start", "failure_rate"))


def start_study() -> None:
    """Meltzer's 6.8 (Tables 16-17): the start-sorted Algorithms 2 and 3 and backfill on his modified
    RW1 (requests 30 s before their earliest start, a six-hour range; two parts on four and seven
    sites, three parts on seven)."""
    rows = []
    for sites, workload in ((4, "rw1-6h"), (7, "rw1-6h"), (7, "rw1-6h-3")):
        scenario = Scenario.from_spec(str(Path(__file__).parent / "configs" / f"meltzer{sites}.toml"))
        for algorithm in ("cpu-count", "backlog", "backfill"):
            for seed in SEEDS:
                workloads, requests, rules = reservation_setup(
                    scenario, workload=workload, seed=seed, algorithm=algorithm, variant_order="tree-sorted")
                rows.append({"sites": sites, "workload": workload, "algorithm": algorithm, "seed": seed,
                             **_run(workloads, scenario.lrms, requests, rules)})
    _write("meltzer_starts", rows)
    print("\n## Meltzer 6.8: start-sorted algorithms, six-hour ranges (mean ± sd over 5 seeds)\n")
    _summary(rows, ("sites", "workload", "algorithm"), ("failure_rate", "mean_relative_start"))


def backfill_gain_study() -> None:
    """Meltzer's Table 14: the requests only backfill accepts (against Algorithm 3) and only Algorithm 3
    accepts, with the first part's processors and the duration of the former; four sites, 5 seeds."""
    scenario = Scenario.from_spec(str(Path(__file__).parent / "configs" / "meltzer4.toml"))
    print("\n## Meltzer's Table 14 on four sites (per seed mean; mean ± sd over 5 seeds)\n")
    print("| workload | only backfill | only Algorithm 3 | failure rate A3 - backfill | first part (procs) | "
          "duration (s) |")
    print("|---|---|---|---|---|---|")
    for variant in ("rw1", "rw2", "rw3"):
        rows = []
        for seed in SEEDS:
            booked = {}
            for algorithm in ("backlog", "backfill"):
                workloads, requests, rules = reservation_setup(scenario, workload=variant, seed=seed,
                                                               algorithm=algorithm)
                booked[algorithm] = simulate_reservations(workloads, scenario.lrms, requests, rules)[1]
            only_bf = booked["backfill"].accepted & ~booked["backlog"].accepted
            only_a3 = booked["backlog"].accepted & ~booked["backfill"].accepted
            rows.append((only_bf.sum(), only_a3.sum(), (only_bf.sum() - only_a3.sum()) / requests.n_requests,
                         requests.parts[only_bf].max(axis=1).mean(), requests.duration[only_bf].mean()))
        cells = [f"{np.mean(c):,.{d}f} ± {np.std(c, ddof=1):,.{d}f}"
                 for c, d in zip(zip(*rows, strict=True), (1, 1, 3, 0, 0), strict=True)]
        print(f"| {variant} | " + " | ".join(cells) + " |")


#: Röblitz et al.'s admission rules here: first fit, Meltzer's Algorithm 3, and probe/reserve of plain
#: and of elastic requests (0.5-2 times the job's processors, Amdahl f = 0.05).
ROBLITZ_RULES = (("first-fit", None), ("backlog", None), ("probe", None), ("probe", (0.5, 2.0)))
#: Where the 2,000-job windows of the second Röblitz study start (job index in SDSC-BLUE).
JOB_WINDOWS = (0, 20_000, 50_000, 80_000, 110_000, 140_000, 170_000, 200_000)


def _roblitz_rows(window, label: str) -> list[dict]:
    rows = []
    for hours in (0, 6, 12, 24):
        for offset in range(5):
            for algorithm, elastic in ROBLITZ_RULES:
                batch, requests = roblitz(window, hours, 2, offset=offset, elastic=elastic)
                rows.append({"jobs": label, "book_ahead_h": hours,
                             "algorithm": algorithm + (" elastic" if elastic else ""), "offset": offset,
                             **_run([batch], "easy", requests, ReservationRules(algorithm))})
    return rows


def roblitz_study() -> None:
    window = load_window("SDSC03")
    index = np.arange(window.n_jobs)
    rows = _roblitz_rows(window.select(index < 2000), "0-2000")
    _write("roblitz", rows)
    print("\n## Röblitz et al.'s setting, one site (mean ± sd over 5 request offsets)\n")
    _summary(rows, ("book_ahead_h", "algorithm"), ("failure_rate", "unfairness", "mean_relative_start",
                                                   "batch_mean_wait", "batch_max_wait"))
    windows = []
    for first in JOB_WINDOWS:
        windows += _roblitz_rows(window.select((index >= first) & (index < first + 2000)),
                                 f"{first}-{first + 2000}")
    _write("roblitz_windows", windows)
    print("\n## Batch mean wait (s) against book-ahead in 2,000-job windows (mean over 5 offsets)\n")
    print("| jobs | algorithm | 0 h | 6 h | 12 h | 24 h | failure rate, 0 / 24 h |")
    print("|---|---|---|---|---|---|---|")
    mean = {}
    for row in windows:
        mean.setdefault((row["jobs"], row["algorithm"], row["book_ahead_h"]), []).append(row)
    rises: dict[str, int] = {}
    for jobs in dict.fromkeys(r["jobs"] for r in windows):
        for algorithm in dict.fromkeys(r["algorithm"] for r in windows):
            waits = [np.mean([r["batch_mean_wait"] for r in mean[jobs, algorithm, h]])
                     for h in (0, 6, 12, 24)]
            fails = [np.mean([r["failure_rate"] for r in mean[jobs, algorithm, h]]) for h in (0, 24)]
            rises[algorithm] = rises.get(algorithm, 0) + int(waits[3] > waits[0])
            print(f"| {jobs} | {algorithm} | " + " | ".join(f"{w:,.0f}" for w in waits)
                  + f" | {fails[0]:.2f} / {fails[1]:.2f} |")
    print("\nwindows where the wait at 24 h exceeds the wait at 0 h: "
          + ", ".join(f"{a} {n} of {len(JOB_WINDOWS)}" for a, n in rises.items()))


if __name__ == "__main__":
    meltzer_study()
    start_study()
    backfill_gain_study()
    roblitz_study()
