"""The reservation studies of docs/reservations.md: Meltzer's co-reservation algorithms on seven
two-week SDSC-BLUE sites, and Röblitz et al.'s book-ahead setting on the first 2,000 SDSC-BLUE jobs.

Run: ``.venv/bin/python experiments/reservations_study.py`` (a few minutes once compiled);
``--only meltzer backfill`` runs some studies; Meltzer's run on his merged jobs as the configs say (his
6.2, evogrid.workload.merge), ``--as-logged`` runs them on the jobs as logged (the CSV files then end in
``_as_logged``).
Writes ``experiments/results/reservations/{meltzer_windows,cost_load,meltzer,weighted,meltzer_starts,
roblitz,roblitz_windows,roblitz_elastic,...}.csv`` (a row per run) and prints the tables of
docs/reservations.md (mean and sample sd over the seeds).

- Meltzer's 6.4 (Figs. 19-20): Algorithm 1 with four (minsize, windows) pairs, RW1 and RW3, four and
  seven sites, seeds 1-5. His Table 6: the seven sites without requests, up to his submit stop.
  His 6.9.2 (Table 20): backfill and cost-minimising Algorithm 5 on four sites, seeds 1-5.

- Meltzer: ``experiments/configs/meltzer4.toml`` and ``meltzer7.toml`` (EASY at every site; his
  6.5-6.7 ran four clusters, 6.4, 6.8 and 6.9.1 seven), RW1/RW2/RW3 made from the first site's
  jobs with seeds 1-5 (the seed also draws the site orders and shuffles the variant trees),
  Algorithms 1-4, under Meltzer's readings of his listings (the defaults) and under evogrid's
  earlier ones (``READINGS["earlier"]``: by-start order, every held reservation in the backlog,
  backfill until the queue head's earliest fit).
- Algorithm 5: RW1, his cost/start factors (his Table 18) and tariffs, seeds 1-5, with time 0 on
  Monday 0:00 and on Wednesday 18:00 of the tariff week (his first weekend from 800,000 s).
- His 6.8 (Table 17): the start-sorted Algorithms 2, 3 and backfill on his modified RW1
  (``rw1-6h``, ``rw1-6h-3``), four and seven sites, seeds 1-5 (``meltzer_starts.csv``).
- ``--only setting``: his Table 11 setting and Algorithm 1 with one candidate start, the sites'
  answers counting their queue head's reservation (Maui's, the default) or no waiting job, and the
  requests' jobs kept as batch jobs (his, the default) or taken out (``meltzer_settings.csv``).
- ``--only matched``: the four-cluster failure rates on the two-week windows whose utilisations are
  nearest his BM 0-3's (Table 6), against the first four (``matched.csv``).
- Röblitz: every 10th job (offsets 0-4 as the five repetitions) a one-site request booked
  b = 0, 6, 12, 24 h ahead with 2 h of slack; first fit, Algorithm 3 (backlog) and probe/reserve
  of plain and of elastic requests; on the first 2,000 jobs and on eight 2,000-job windows
  (``roblitz_windows.csv``); their Figs. 6-8 on the first 2,000 jobs (``roblitz_grid.csv``,
  ``roblitz_delay.csv``, ``docs/img/roblitz_fig8.png``), why static accepts fewer
  (``roblitz_twkl.csv``). The jobs are those of SDSC-BLUE's batch queues (their "sound
  batch-jobs"; ``roblitz_jobs.csv`` compares the readings); ``--jobs all`` draws from every queue
  (evogrid's earlier reading, ``*_all_queues.csv``). Each request is made at its job's submission
  and starts b hours later (their timing); ``--request-at before-start`` runs evogrid's earlier
  reading (``*_before_start.csv``).
"""

from __future__ import annotations

import argparse
import csv
from dataclasses import replace
from pathlib import Path

import numpy as np

from evogrid.sim.booking import PROBE_SLOTS, STEPS, ReservationRules, reservation_setup, simulate_reservations
from evogrid.sim.metrics import (
    backlog_until,
    reservation_metrics,
    site_reservation_metrics,
    utilization_until,
)
from evogrid.sim.scenario import Scenario, SiteConfig, load_scenario_file
from evogrid.sim.schedule import simulate_local
from evogrid.workload import load_window
from evogrid.workload.reservations import REQUEST_AT, roblitz
from evogrid.workload.swf import parse_swf
from evogrid.workload.traces import resolve_trace

OUT = Path(__file__).parent / "results" / "reservations"
IMAGES = Path(__file__).parent.parent / "docs" / "img"
#: The timing of Röblitz et al.'s requests (``--request-at``): theirs by default, the request made at
#: the job's submission and starting b hours later (``roblitz``'s default); ``before-start`` is
#: evogrid's earlier reading, requested b hours before the job's submission (CSV files
#: *_before_start.csv). The funnel study runs both.
TIMING = "submission"
#: Which SDSC-BLUE jobs the Röblitz studies draw their "sound batch-jobs" from (``--jobs``): those of
#: the log's batch queues (``batch-queues``, the default: its header names queue 0 "interactive", 1-5
#: "express", "high", "normal", "low", "standby", the others diagnostic and other queues), or every
#: job (``all``, evogrid's earlier reading; CSV files *_all_queues.csv).
JOBS = "batch-queues"
BATCH_QUEUES = (1, 2, 3, 4, 5)
SEEDS = (1, 2, 3, 4, 5)
ALGORITHMS = ("trivial", "cpu-count", "backlog", "backfill")
#: The readings of Meltzer's listings (docs/reservations.md): his; his start-sorted variants of
#: Algorithms 2 and 3 (his 6.8, Table 17); evogrid's earlier ones.
READINGS = {"meltzer": {}, "start-sorted": {"variant_order": "tree-sorted"},
            "earlier": {"variant_order": "by-start", "backlog_rule": "every-held",
                        "backfill_until": "head-fit", "status_queue": "none", "meltzer_templates": "taken"}}
#: Where time 0 falls in the tariff week (hours from Monday 0:00): ours, and his 6.9.2's first weekend
#: ("Beginn der Wochenendzeit (800000 sek) und Ende (975000 sek)") from Saturday 0:00 at 799,200 s.
WEEK_STARTS = (0, 66)
HIS_FIRST_WEEKEND = (800_000, 975_000)
#: His submit stop (6.2: "Die Batchsysteme verarbeiten Jobs, deren Submit-Zeiten kleiner als zwei
#: Wochen sind"; 6.6: "Submit-Stops (1209600 Sekunden)"), s.
T_STOP = 1_209_600
#: His Table 6, the job-only simulation of BM 0-6: jobs, utilisation (%), expansion factor and
#: wall-clock accuracy (run time / wall-clock time).
TABLE_6 = {"jobs": (2226, 1026, 2167, 1829, 1955, 1771, 2068),
           "utilization": (68, 65, 72, 84, 82, 68, 85),
           "xf": (2, 1.73, 2.04, 1.63, 2.4, 1.13, 5.92),
           "accuracy": (0.23, 0.45, 0.37, 0.40, 0.36, 0.36, 0.32)}
#: His Table 20 (four clusters, 6.9.2): per BM 0-3, reservation parts run, utilisation by jobs and by
#: reservations (%), expansion factor, average backlog time (Auftragsbestandszeit, s); Algorithm 5
#: with k = 1, s = 0 ("Kostenminimierung") and backfill ("keine Optimierung").
TABLE_20 = {"cost": {"parts": (85, 74, 74, 45), "job": (64, 63, 71, 71), "reservation": (10, 14, 9, 19),
                     "xf": (3.96, 2.56, 3.65, 5.87), "backlog": (34462, 70178, 50297, 114654)},
            "backfill": {"parts": (74, 51, 76, 49), "job": (65, 63, 70, 76), "reservation": (13, 14, 11, 12),
                         "xf": (5.07, 3.18, 3.38, 3.72), "backlog": (44945, 68355, 52518, 88980)}}
#: His cost and start factors (k, s), Table 18.
FACTORS = ((1.0, 0.0), (0.9, 0.1), (0.8, 0.2), (0.7, 0.3), (0.6, 0.4), (0.0, 1.0))
MEASURES = ("failure_rate", "unfairness", "mean_relative_start", "messages_per_request", "mean_cost")


def _day_night(requests, bookings, week_start_h: int = 0) -> dict:
    """Meltzer's Table 19(a): the shares of accepted co-reservations run wholly by day (8-18 h) and
    wholly by night (18-8 h), time 0 being hour ``week_start_h`` of the tariff week; and his Table
    19(b)'s first two rows: the mean relative start (over the variants formed) and relative cost of
    the accepted requests whose window overlaps his first weekend (800,000-975,000 s)."""
    ok = bookings.accepted
    clock = week_start_h % 24 * 3600  # the time of day at time 0
    start, end = bookings.start[ok] + clock, bookings.start[ok] + requests.duration[ok] + clock
    day0 = start // 86_400 * 86_400
    hour = (start - day0) / 3600
    by_day = (hour >= 8) & (end <= day0 + 18 * 3600)
    night_end = np.where(hour < 8, day0 + 8 * 3600, day0 + 86_400 + 8 * 3600)
    by_night = ((hour < 8) | (hour >= 18)) & (end <= night_end)
    n = max(1, int(ok.sum()))
    first, last = HIS_FIRST_WEEKEND
    weekend = ok & (requests.earliest_start < last) & (requests.deadline > first)
    nan = float("nan")
    return {"day_share": float(by_day.sum() / n), "night_share": float(by_night.sum() / n),
            "weekend_relative_start_formed": float(np.nanmean(bookings.relative_start[weekend]))
            if weekend.any() else nan,
            "weekend_relative_cost": float(bookings.relative_cost[weekend].mean()) if weekend.any() else nan}


def _at_earliest(requests, bookings) -> dict:
    """Meltzer's 6.8.5 (Fig. 28): the share of all requests reserved at their earliest start
    ("zur frühesten möglichen Startzeit"), and of those the share shorter than an hour."""
    first = bookings.start == requests.earliest_start
    n = max(1, requests.n_requests)
    short = float((requests.duration[first] < 3600).mean()) if first.any() else float("nan")
    return {"earliest_start_share": float(first.sum() / n), "earliest_under_1h": short}


def _run(workloads, lrms, requests, rules, week_start_h: int = 0) -> dict:
    schedule, bookings = simulate_reservations(workloads, lrms, requests, rules)
    batch = schedule.metrics()
    sites = site_reservation_metrics(schedule, requests, bookings)
    filtering = {m: float(np.mean([site[m] for site in sites]))  # Meltzer's Table 11, mean over sites
                 for m in ("filter_degree", "infeasibility_rate")}
    return {**reservation_metrics(schedule, requests, bookings),
            **_day_night(requests, bookings, week_start_h), **filtering, **_at_earliest(requests, bookings),
            "batch_max_wait": max(m["max_wait"] for m in batch),
            "batch_mean_wait": float(np.mean([m["mean_wait"] for m in batch]))}


#: Run Meltzer's studies on the jobs as logged (``--as-logged``), not merged as his configs say
#: (evogrid.workload.merge): the CSV files then end in ``_as_logged``.
AS_LOGGED = False
#: The window study's candidate starts' step (``--step``; evogrid.sim.booking.STEPS).
STEP = "divided"


def meltzer_scenario(sites: int, merged: bool | None = None) -> Scenario:
    """``experiments/configs/meltzer{sites}.toml``, its small jobs merged if ``merged``, or as logged if
    not (default: as the config says, merged, or as logged under ``--as-logged``)."""
    path = Path(__file__).parent / "configs" / f"meltzer{sites}.toml"
    config = load_scenario_file(path)
    if merged is None:
        config.preprocessing.merge_small_jobs &= not AS_LOGGED
    else:
        config.preprocessing.merge_small_jobs = merged
    return Scenario.from_config(config, source=path)


def _suffix() -> str:
    """The results' file-name suffix for the options that change them (``--as-logged``,
    ``--request-at before-start``, ``--jobs all``)."""
    return ("_as_logged" if AS_LOGGED else "") + ("_before_start" if TIMING == "before-start" else "") + (
        "_all_queues" if JOBS == "all" else "")


def _write(name: str, rows: list[dict]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with (OUT / f"{name}{_suffix()}.csv").open("w", newline="") as fh:
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
        scenario = meltzer_scenario(sites)
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
    scenario = meltzer_scenario(7)
    weighted = []
    for week_start in WEEK_STARTS:
        for k, s_weight in FACTORS:
            for seed in SEEDS:
                workloads, requests, rules = reservation_setup(scenario, workload="rw1", seed=seed,
                                                               algorithm="weighted", cost_weight=k,
                                                               start_weight=s_weight,
                                                               tariff_week_start_h=week_start)
                weighted.append({"week_start_h": week_start, "k": k, "s": s_weight, "seed": seed,
                                 **_run(workloads, scenario.lrms, requests, rules, week_start)})
    _write("weighted", weighted)
    print("\n## Algorithm 5 on RW1, k + s = 1 (mean ± sd over 5 seeds)\n")
    _summary(weighted, ("week_start_h", "k", "s"),
             ("mean_cost", "day_share", "night_share", "mean_relative_cost", "mean_relative_start_formed",
              "mean_relative_start", "weekend_relative_start_formed", "weekend_relative_cost",
              "failure_rate"))


def start_study() -> None:
    """Meltzer's 6.8 (Tables 16-17): the start-sorted Algorithms 2 and 3 and backfill on his modified
    RW1 (requests 30 s before their earliest start, a six-hour range; two parts on four and seven
    sites, three parts on seven)."""
    rows = []
    for sites, workload in ((4, "rw1-6h"), (7, "rw1-6h"), (7, "rw1-6h-3")):
        scenario = meltzer_scenario(sites)
        for algorithm in ("cpu-count", "backlog", "backfill"):
            for seed in SEEDS:
                workloads, requests, rules = reservation_setup(
                    scenario, workload=workload, seed=seed, algorithm=algorithm, variant_order="tree-sorted")
                rows.append({"sites": sites, "workload": workload, "algorithm": algorithm, "seed": seed,
                             **_run(workloads, scenario.lrms, requests, rules)})
    _write("meltzer_starts", rows)
    print("\n## Meltzer 6.8: start-sorted algorithms, six-hour ranges (mean ± sd over 5 seeds)\n")
    _summary(rows, ("sites", "workload", "algorithm"),
             ("failure_rate", "mean_relative_start", "earliest_start_share", "earliest_under_1h"))


#: His Table 14 (6.7, four clusters): per RW1-3, the requests only the backfill algorithm accepts and
#: only Algorithm 3 accepts, the drop of the failure rate (read as points), the first part's processors
#: and the duration of the former (mean, sd, max); and Table 15: the infeasibility rate per BM 0-3 under
#: Algorithm 3 and under the backfill algorithm.
TABLE_14 = {"rw1": (29, 6, 0.13, (100, 65, 264), (2990, 4050, 12600)),
            "rw2": (27, 6, 0.12, (78, 48, 176), (3265, 5090, 18000)),
            "rw3": (34, 3, 0.15, (104, 153, 888), (5700, 8965, 42600))}
TABLE_15 = {"rw1": ((0.59, 0.64, 0.54, 0.62), (0.48, 0.57, 0.52, 0.63)),
            "rw2": ((0.66, 0.74, 0.64, 0.75), (0.54, 0.63, 0.59, 0.65)),
            "rw3": ((0.78, 0.80, 0.77, 0.78), (0.68, 0.71, 0.76, 0.75))}
#: The backfill algorithms: his 4.5 (Algorithm 3 with backfill reservations, unsorted tree; the one
#: his 6.7 runs) and his Algorithm 4 (the same, sorted by start; evogrid's ``backfill`` by default).
BACKFILLS = {"4.5 (tree-unsorted)": "tree-unsorted", "Algorithm 4 (tree)": "tree"}


def _pm(values, digits: int) -> str:
    return f"{np.mean(values):,.{digits}f} ± {np.std(values, ddof=1):,.{digits}f}"


def backfill_study() -> None:
    """Meltzer's 6.7 (Tables 13-15): Algorithm 3 with and without backfill reservations on four sites,
    RW1-3, seeds 1-5, with both backfill algorithms (``BACKFILLS``): failure rates, the requests only
    one of the two accepts (Table 14) and each site's infeasibility rate (Table 15)."""
    scenario = meltzer_scenario(4)
    print("\n## Meltzer 6.7 on four sites (mean ± sd over 5 seeds, parts and durations pooled over them; "
          "ours | his)\n")
    print("| workload | backfill | failure rate A3 | failure rate BF | only BF | only A3 | A3 - BF | "
          "first part (procs) mean / max | duration (s) mean / max | infeasibility A3, BM 0-3 | "
          "infeasibility BF, BM 0-3 |")
    print("|" + "---|" * 11)
    def run(variant: str, seed: int, algorithm: str, order: str) -> tuple:
        workloads, requests, rules = reservation_setup(scenario, workload=variant, seed=seed,
                                                       algorithm=algorithm, variant_order=order)
        schedule, booked = simulate_reservations(workloads, scenario.lrms, requests, rules)
        infeasible = [m["infeasibility_rate"] for m in site_reservation_metrics(schedule, requests, booked)]
        return requests, booked.accepted, infeasible

    for variant in ("rw1", "rw2", "rw3"):
        his = TABLE_14[variant]
        algorithm_3 = {seed: run(variant, seed, "backlog", "tree") for seed in SEEDS}
        for label, order in BACKFILLS.items():
            rows = []
            for seed in SEEDS:
                requests, a3, inf_a3 = algorithm_3[seed]
                _, bf, inf_bf = run(variant, seed, "backfill", order)
                only = bf & ~a3
                n = requests.n_requests
                rows.append({"a3": 1 - a3.mean(), "bf": 1 - bf.mean(), "only_bf": only.sum(),
                             "only_a3": (a3 & ~bf).sum(), "drop": (only.sum() - (a3 & ~bf).sum()) / n,
                             "procs": requests.parts[only].max(axis=1), "duration": requests.duration[only],
                             "inf_a3": inf_a3, "inf_bf": inf_bf})
            procs = np.concatenate([r["procs"] for r in rows])
            duration = np.concatenate([r["duration"] for r in rows])
            inf = {a: " / ".join(f"{np.mean([r[a][k] for r in rows]):.2f}" for k in range(4))
                   for a in ("inf_a3", "inf_bf")}
            his_a3, his_bf = TABLE_15[variant]
            cells = [variant, label, _pm([r["a3"] for r in rows], 3), _pm([r["bf"] for r in rows], 3),
                     f"{_pm([r['only_bf'] for r in rows], 1)} \\| {his[0]}",
                     f"{_pm([r['only_a3'] for r in rows], 1)} \\| {his[1]}",
                     f"{_pm([r['drop'] for r in rows], 3)} \\| {his[2]}",
                     f"{procs.mean():.0f} / {procs.max(initial=0)} \\| {his[3][0]} / {his[3][2]}",
                     f"{duration.mean():,.0f} / {duration.max(initial=0):,} "
                     f"\\| {his[4][0]:,} / {his[4][2]:,}",
                     f"{inf['inf_a3']} \\| {' / '.join(map(str, his_a3))}",
                     f"{inf['inf_bf']} \\| {' / '.join(map(str, his_bf))}"]
            print("| " + " | ".join(cells) + " |")



def draw_study() -> None:
    """Meltzer's Table 11 setting (four sites, RW1-3, seeds 1-5) with his shared random draw (one
    number per request for the second part and the earliest start, 6.3 read literally) against
    evogrid's two draws: failure rate, filter degree and infeasibility rate of Algorithms 2, 3 and
    his 4.5 backfill algorithm."""
    scenario = meltzer_scenario(4)
    rows = []
    for variant in ("rw1", "rw2", "rw3"):
        for algorithm, order in (("cpu-count", "tree"), ("backlog", "tree"), ("backfill", "tree-unsorted")):
            for draw in ("independent", "shared"):
                for seed in SEEDS:
                    workloads, requests, rules = reservation_setup(
                        scenario, workload=variant, seed=seed, algorithm=algorithm, variant_order=order,
                        meltzer_draw=draw)
                    rows.append({"workload": variant, "algorithm": algorithm, "draw": draw, "seed": seed,
                                 **_run(workloads, scenario.lrms, requests, rules)})
    _write("meltzer_draw", rows)
    print("\n## Meltzer's random draw, four sites (mean ± sd over 5 seeds)\n")
    _summary(rows, ("workload", "algorithm", "draw"), ("failure_rate", "filter_degree", "infeasibility_rate"))


#: The sites' answers and the requests' jobs (docs/reservations.md): evogrid's earlier readings, the
#: queue head counted alone, and his setting (the defaults).
SETTINGS = {"none, taken": {"status_queue": "none", "meltzer_templates": "taken"},
            "head, taken": {"status_queue": "head", "meltzer_templates": "taken"},
            "head, kept": {"status_queue": "head", "meltzer_templates": "kept"}}


def setting_study() -> None:
    """Meltzer's Table 11 setting (four sites, RW1-3, seeds 1-5) under ``SETTINGS``: the sites'
    profiles counting their queue head at its earliest fit, as Maui's reservation table holds its
    first waiting job (``status_queue``), and the requests' template jobs kept as batch jobs
    (``meltzer_templates``): failure rate, filter degree and infeasibility rate of Algorithms 2, 3 and
    his 4.5 backfill algorithm; and on four and seven sites, RW1 and RW3, Algorithm 1 with one
    candidate start (his Figs. 19-20, (1, 1))."""
    rows = []
    settings = [(4, variant, algorithm, order, {}) for variant in ("rw1", "rw2", "rw3")
                for algorithm, order in (("cpu-count", "tree"), ("backlog", "tree"),
                                         ("backfill", "tree-unsorted"))]
    settings += [(sites, variant, "trivial", "tree", {"minsize": 1, "windows": 1})
                 for sites in (4, 7) for variant in ("rw1", "rw3")]
    for sites, variant, algorithm, order, window in settings:
        scenario = meltzer_scenario(sites)
        for label, setting in SETTINGS.items():
            for seed in SEEDS:
                workloads, requests, rules = reservation_setup(
                    scenario, workload=variant, seed=seed, algorithm=algorithm, variant_order=order,
                    **setting, **window)
                rows.append({"sites": sites, "workload": variant, "algorithm": algorithm,
                             "setting": label, "seed": seed,
                             **_run(workloads, scenario.lrms, requests, rules)})
    _write("meltzer_settings", rows)
    print("\n## The queue head in the sites' answers and the requests' jobs (mean ± sd over 5 seeds)\n")
    _summary(rows, ("sites", "workload", "algorithm", "setting"),
             ("failure_rate", "filter_degree", "infeasibility_rate", "mean_relative_start",
              "batch_mean_wait"))


def bound_study() -> None:
    """Meltzer's 6.7 setting (four sites, RW1-3, seeds 1-5) with t_sched as his 6.7.5 names it (the
    next job or reservation end, ``next-end``) against evogrid's reading (also a held reservation's
    start, ``next-event``): failure rate, filter degree and relative start of his 4.5 backfill
    algorithm, Algorithm 4 and Algorithm 5 (k = s = 0.5), and the requests only one of the two books."""
    scenario = meltzer_scenario(4)
    rows = []
    for variant in ("rw1", "rw2", "rw3"):
        for algorithm, order in (("backfill", "tree-unsorted"), ("backfill", "tree"), ("weighted", "tree")):
            accepted = {}
            for bound in ("next-event", "next-end"):
                for seed in SEEDS:
                    workloads, requests, rules = reservation_setup(
                        scenario, workload=variant, seed=seed, algorithm=algorithm, variant_order=order,
                        backfill_until=bound)
                    schedule, bookings = simulate_reservations(workloads, scenario.lrms, requests, rules)
                    accepted[bound, seed] = bookings.accepted
                    rows.append({"workload": variant, "algorithm": f"{algorithm} ({order})", "bound": bound,
                                 "seed": seed, **_run(workloads, scenario.lrms, requests, rules)})
            for row in rows[-2 * len(SEEDS):]:
                differ = accepted["next-event", row["seed"]] != accepted["next-end", row["seed"]]
                row["booked_by_one_only"] = int(differ.sum())
    _write("meltzer_bound", rows)
    print("\n## Meltzer's t_sched, four sites (mean ± sd over 5 seeds)\n")
    _summary(rows, ("workload", "algorithm", "bound"),
             ("failure_rate", "filter_degree", "mean_relative_start", "booked_by_one_only"))


#: Röblitz et al.'s admission rules here: first fit, Meltzer's Algorithm 3, and probe/reserve of plain
#: and of elastic requests (0.5-2 times the job's processors, Amdahl f = 0.05).
ROBLITZ_RULES = (("first-fit", None), ("backlog", None), ("probe", None), ("probe", (0.5, 2.0)))
#: Where the 2,000-job windows of the second Röblitz study start: an index among all of SDSC-BLUE's
#: jobs; each window takes the 2,000 drawn jobs (``--jobs``) from there.
JOB_WINDOWS = (0, 20_000, 50_000, 80_000, 110_000, 140_000, 170_000, 200_000)


def _roblitz_rows(window, label: str) -> list[dict]:
    rows = []
    for hours in (0, 6, 12, 24):
        for offset in range(5):
            for algorithm, elastic in ROBLITZ_RULES:
                batch, requests = roblitz(window, hours, 2, offset=offset, elastic=elastic,
                                          request_at=TIMING)
                rows.append({"jobs": label, "book_ahead_h": hours,
                             "algorithm": algorithm + (" elastic" if elastic else ""), "offset": offset,
                             **_run([batch], "easy", requests, ReservationRules(algorithm))})
    return rows


def roblitz_study() -> None:
    log = load_window("SDSC03")
    batch = _their_queues(log)
    window = log.select(batch)
    index = np.arange(window.n_jobs)
    rows = _roblitz_rows(window.select(index < 2000), "0-2000")
    _write("roblitz", rows)
    print("\n## Röblitz et al.'s setting, one site (mean ± sd over 5 request offsets)\n")
    _summary(rows, ("book_ahead_h", "algorithm"), ("failure_rate", "unfairness", "mean_relative_start",
                                                   "batch_mean_wait", "batch_max_wait"))
    windows = []
    # The same eight places in the log whichever jobs are drawn: each window opens at the first drawn
    # job at or after its index among all of the log's jobs.
    for first, at in zip(JOB_WINDOWS, np.searchsorted(np.flatnonzero(batch), JOB_WINDOWS), strict=True):
        windows += _roblitz_rows(window.select((index >= at) & (index < at + 2000)),
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


#: His 6.4 (Table 7, Figs. 19-20): Algorithm 1 with (minsize s, max_zeitfenster) pairs; Table 7 prints
#: the last as "(200,1)", his figures label it "m1 w200" and his text says "200 Startzeiten".
WINDOW_SETTINGS = ((1, 1), (1, 3), (300, 20), (1, 200))
#: His failure rates, Figs. 19(c) (RW1) and 20(c) (RW3), by (workload, minsize, windows, sites).
FIG_19_20 = {("rw1", 1, 1, 4): 0.12, ("rw1", 1, 1, 7): 0.06, ("rw1", 1, 3, 4): 0.06, ("rw1", 1, 3, 7): 0.01,
             ("rw1", 300, 20, 4): 0.07, ("rw1", 300, 20, 7): 0.02, ("rw1", 1, 200, 4): 0.06,
             ("rw1", 1, 200, 7): 0.0,
             ("rw3", 1, 1, 4): 0.3, ("rw3", 1, 1, 7): 0.11, ("rw3", 1, 3, 4): 0.08, ("rw3", 1, 3, 7): 0.05,
             ("rw3", 300, 20, 4): 0.1, ("rw3", 300, 20, 7): 0.03, ("rw3", 1, 200, 4): 0.07,
             ("rw3", 1, 200, 7): 0.02}


def window_study() -> None:
    """Meltzer's 6.4: how many candidate starts Algorithm 1 needs (Figs. 19-20): failure rate, the
    most and the mean messages per request against his N, the costliest request's share of all
    messages, four and seven sites, RW1 and RW3; the candidate starts' step by ``--step``."""
    rows = []
    for workload in ("rw1", "rw3"):
        for minsize, windows in WINDOW_SETTINGS:
            for sites in (4, 7):
                scenario = meltzer_scenario(sites)
                for seed in SEEDS:
                    workloads, requests, rules = reservation_setup(
                        scenario, workload=workload, seed=seed, algorithm="trivial", minsize=minsize,
                        windows=windows, step=STEP)
                    schedule, bookings = simulate_reservations(workloads, scenario.lrms, requests, rules)
                    metrics = reservation_metrics(schedule, requests, bookings)
                    rows.append({"workload": workload, "minsize": minsize, "windows": windows, "sites": sites,
                                 "seed": seed, "failure_rate": metrics["failure_rate"],
                                 "mean_messages": metrics["messages_per_request"],
                                 "max_messages": int(bookings.messages.max(initial=0)),
                                 "max_N": int(bookings.most_messages.max(initial=0)),
                                 "top_share": float(bookings.messages.max(initial=0)
                                                    / max(1, bookings.messages.sum())),
                                 "mean_efficiency": metrics["mean_efficiency"]})
    _write("meltzer_windows" + ("_floor" if STEP == "floor" else ""), rows)
    print(f"\n## Meltzer's 6.4 (Figs. 19-20): Algorithm 1's candidate starts, step {STEP} (mean ± sd over 5 "
          "seeds)\n")
    print("| workload | minsize | windows | sites | failure rate (ours \\| his) | most messages | most N | "
          "mean messages | mean Eff | the costliest request's share of the messages |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for key, his in FIG_19_20.items():
        mine = [r for r in rows if (r["workload"], r["minsize"], r["windows"], r["sites"]) == key]
        measures = (("max_messages", 1), ("max_N", 0), ("mean_messages", 2), ("mean_efficiency", 3),
                    ("top_share", 3))
        cells = [f"{np.mean([r[m] for r in mine]):,.{d}f} ± {np.std([r[m] for r in mine], ddof=1):,.{d}f}"
                 for m, d in measures]
        failure = np.mean([r["failure_rate"] for r in mine])
        print("| " + " | ".join(map(str, key)) + f" | {failure:.3f} \\| {his:.2f} | "
              + " | ".join(cells) + " |")


def job_only_study() -> None:
    """Meltzer's Table 6: the seven sites' jobs alone, measured up to his submit stop; as logged, and
    with his merging of small jobs as the configs run them (evogrid.workload.merge)."""
    for merged in (False, True):
        scenario = meltzer_scenario(7, merged)
        schedule = scenario.simulate_local()
        metrics, util = schedule.metrics(), utilization_until(schedule, T_STOP)
        jobs = schedule.jobs
        accuracy = jobs.run_time / np.maximum(jobs.estimate, 1)
        how = "small jobs merged (his 6.2)" if merged else "jobs as logged"
        print(f"\n## Meltzer's Table 6: jobs alone, seven sites, {how} (ours | his), t_stop = {T_STOP:,} s\n")
        print("| BM | window | jobs | utilisation % | expansion factor | wall-clock accuracy |")
        print("|---|---|---|---|---|---|")
        ours = []
        for k in range(len(scenario.workloads)):
            mine = jobs.origin == k
            ours.append((int((jobs.submit[mine] < T_STOP).sum()), 100 * util[k]["job_utilization"],
                         metrics[k]["mean_xf"], float(accuracy[mine].mean())))
        for k, row in enumerate([*ours, tuple(np.mean(ours, axis=0))]):
            his = [np.mean(TABLE_6[m]) if k == len(ours) else TABLE_6[m][k] for m in TABLE_6]
            cells = [f"{o:,.{d}f} \\| {h:,.{d}f}" for o, h, d in zip(row, his, (0, 1, 2, 2), strict=True)]
            name = "mean" if k == len(ours) else f"{k} | {scenario.workloads[k].name}"
            print(f"| {name}{' | ' if k == len(ours) else ''} | " + " | ".join(cells) + " |")


def cost_load_study() -> None:
    """Meltzer's 6.9.2 (Table 20): where the reservation load goes when Algorithm 5 only minimises cost
    (k = 1, s = 0), against backfill, on four sites; his tariffs with both week placements."""
    scenario = meltzer_scenario(4)
    runs = [("backfill", 0, {"algorithm": "backfill"})]
    runs += [("cost", week, {"algorithm": "weighted", "cost_weight": 1.0, "start_weight": 0.0})
             for week in WEEK_STARTS]
    rows = []
    for label, week, settings in runs:
        for seed in SEEDS:
            workloads, requests, rules = reservation_setup(scenario, workload="rw1", seed=seed,
                                                           tariff_week_start_h=week, **settings)
            schedule, bookings = simulate_reservations(workloads, scenario.lrms, requests, rules)
            util, metrics = utilization_until(schedule, T_STOP, requests, bookings), schedule.metrics()
            backlog = backlog_until(schedule, T_STOP, rules.accuracies(workloads), requests, bookings)
            held = (bookings.sites >= 0) & bookings.accepted[:, None]
            in_weekend = (bookings.start >= HIS_FIRST_WEEKEND[0]) & (bookings.start < HIS_FIRST_WEEKEND[1])
            for k in range(len(workloads)):
                rows.append({"run": label, "week_start_h": week, "seed": seed, "site": k,
                             "parts": int((held & (bookings.sites == k)).sum()),
                             "weekend_parts": int((held & (bookings.sites == k) & in_weekend[:, None]).sum()),
                             "job": 100 * util[k]["job_utilization"],
                             "reservation": 100 * util[k]["reservation_utilization"],
                             "xf": metrics[k]["mean_xf"], "backlog": backlog[k]["mean_backlog"],
                             "backlog_at_requests": backlog[k]["backlog_at_requests"]})
    _write("cost_load", rows)
    print("\n## Meltzer's Table 20: four sites, per site (mean over 5 seeds; ours | his)\n")
    print("| run | week start (h) | BM | parts | job util. % | reservation util. % | expansion factor | "
          "backlog time, time average (s) | at the requests (s) | parts started 800,000-975,000 s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for label, week, _ in runs:
        for k in range(4):
            mine = [r for r in rows if (r["run"], r["week_start_h"], r["site"]) == (label, week, k)]
            cells = [f"{np.mean([r[m] for r in mine]):,.{d}f} \\| {TABLE_20[label][m][k]:,.{d}f}"
                     for m, d in (("parts", 1), ("job", 1), ("reservation", 1), ("xf", 2), ("backlog", 0))]
            at_requests = np.mean([r["backlog_at_requests"] for r in mine])
            weekend = np.mean([r["weekend_parts"] for r in mine])
            print(f"| {label} | {week} | {k} | " + " | ".join(cells)
                  + f" | {at_requests:,.0f} | {weekend:.1f} |")
    print("\nbacklog time, mean of the four sites (his \"Mittel\"; time average, s; ours | his):")
    for label, week, _ in runs:
        mine = [r["backlog"] for r in rows if (r["run"], r["week_start_h"]) == (label, week)]
        his = np.floor(np.mean(TABLE_20[label]["backlog"]))  # his "Mittel", truncated: 269,591 / 4 = 67,397
        print(f"  {label}, week start {week} h: {np.mean(mine):,.0f} | {his:,.0f}")
    print("\nhis parts started 800,000-975,000 s, all sites: 16 with cost minimisation, 7 with backfill")


def _their_queues(window) -> np.ndarray:
    """Which of ``window``'s jobs Röblitz et al.'s "sound batch-jobs" are (``--jobs``): those of
    SDSC-BLUE's batch queues (:data:`BATCH_QUEUES`), or every job (evogrid's earlier reading)."""
    return np.isin(window.queue, BATCH_QUEUES) if JOBS == "batch-queues" else np.ones(window.n_jobs, bool)


def _their_jobs():
    """Their 4's jobs: "the first 2000 sound batch-jobs of the SDSC Blue Horizon workload trace"
    (ours: the first 2,000 of evogrid's SDSC03 window that :func:`_their_queues` keeps)."""
    window = load_window("SDSC03")
    window = window.select(_their_queues(window))
    return window.select(np.arange(window.n_jobs) < 2000)


def _without_requests(jobs, offset: int, lrms: str):
    """The schedule of the batch jobs that offset ``offset``'s requests leave (they do not depend on
    the book-ahead or the range), run without the requests."""
    return simulate_local([roblitz(jobs, 0, 0, offset=offset, request_at=TIMING)[0]], lrms)


#: Röblitz et al.'s experiment grid (their 4): book-ahead b (h) and time range k (h: the latest end is
#: est + run time + k hours).
BOOK_AHEAD_H = (0, 2, 4, 6, 12, 24)
TIME_RANGE_H = (0, 1, 2, 5, 10, 30)
#: Their 4.3 table: the batch jobs' mean wait (s) by book-ahead, time range 30 h, load, <1, 1>.
THEIR_WAITS = {0: 1200, 2: 1183, 4: 1906, 6: 1871, 12: 2042, 24: 4130}


def roblitz_grid_study() -> None:
    """Röblitz et al.'s experiments on the first 2,000 SDSC-BLUE jobs (their 4): successes over
    book-ahead x time range (Fig. 6), the three-step funnel's setting (Fig. 7: 2 h, 10 h, static,
    history and load, plain and elastic), and the batch wait by book-ahead at a 30 h range (4.3)."""
    first = _their_jobs()
    rows = []
    settings = [(b, k, "load", None, slots) for b in BOOK_AHEAD_H for k in TIME_RANGE_H
                for slots in PROBE_SLOTS]
    settings += [(2, 10, estimate, elastic, slots) for estimate in ("static", "history", "load")
                 for elastic in (None, (0.5, 2.0)) for slots in PROBE_SLOTS]
    settings = list(dict.fromkeys(settings))  # the grid already has (2 h, 10 h, load, plain)
    # The batch jobs left by each offset's requests do not depend on b or k: their wait alone once.
    alone = [_without_requests(first, o, "easy").metrics()[0]["mean_wait"] for o in range(5)]
    for b, k, estimate, elastic, slots in settings:
        rules = ReservationRules("probe", estimate=estimate, probe_slots=slots)
        for offset in range(5):
            batch, requests = roblitz(first, b, k, offset=offset, elastic=elastic, request_at=TIMING)
            schedule, bookings = simulate_reservations([batch], "easy", requests, rules)
            # A plain request sends one probe (none if it cannot fit its window), then reservation tries.
            tries = np.maximum(bookings.messages - 1, 0)
            rows.append({"book_ahead_h": b, "range_h": k, "estimate": estimate, "slots": slots,
                         "requests": "elastic" if elastic else "plain", "offset": offset,
                         "refused_by_site": float(np.mean(tries - bookings.accepted))
                         if not elastic else float("nan"),
                         "accepted": int(bookings.accepted.sum()), "n_requests": requests.n_requests,
                         "messages_per_request": float(bookings.messages.mean()),
                         "batch_mean_wait": schedule.metrics()[0]["mean_wait"],
                         "alone_mean_wait": alone[offset]})
    _write("roblitz_grid", rows)

    def mean(key, measure):
        fields = ("book_ahead_h", "range_h", "estimate", "requests", "slots")
        return np.mean([r[measure] for r in rows if tuple(r[f] for f in fields) == key])

    for slots in PROBE_SLOTS:
        print(f"\n## Röblitz et al.'s Fig. 6: requests accepted of 200 (load, <1, 1>, {slots} slots; "
              "mean over 5 offsets)\n")
        print("| book-ahead \\ range | " + " | ".join(f"{k} h" for k in TIME_RANGE_H) + " |")
        print("|---|" + "---|" * len(TIME_RANGE_H))
        for b in BOOK_AHEAD_H:
            print(f"| {b} h | " + " | ".join(f"{mean((b, k, 'load', 'plain', slots), 'accepted'):.1f}"
                                            for k in TIME_RANGE_H) + " |")
    print("\n## Their Fig. 7 setting (b = 2 h, range 10 h): accepted of 200, messages per request\n")
    print("| slots | estimate | requests | accepted | theirs (elastic) | messages / request | "
          "refused by the site per request |")
    print("|---|---|---|---|---|---|---|")
    for slots in PROBE_SLOTS:
        for estimate, theirs in (("static", 181), ("history", 184), ("load", 185)):
            for kind in ("plain", "elastic"):
                key = (2, 10, estimate, kind, slots)
                print(f"| {slots} | {estimate} | {kind} | {mean(key, 'accepted'):.1f} | {theirs} | "
                      f"{mean(key, 'messages_per_request'):.2f} | {mean(key, 'refused_by_site'):.2f} |")
    print("\n## Their 4.3: batch mean wait (s) by book-ahead, range 30 h (load, <1, 1>)\n")
    print("| book-ahead | slots | accepted of 200 | wait (ours \\| theirs) | "
          "without requests (ours \\| theirs) |")
    print("|---|---|---|---|---|")
    for b in BOOK_AHEAD_H:
        for slots in PROBE_SLOTS:
            key = (b, 30, "load", "plain", slots)
            print(f"| {b} h | {slots} | {mean(key, 'accepted'):.1f} | "
                  f"{mean(key, 'batch_mean_wait'):,.0f} \\| {THEIR_WAITS[b]:,} | "
                  f"{mean(key, 'alone_mean_wait'):,.0f} \\| about 700 |")



#: Their Fig. 8 (4.3): "most jobs experience no additional delay ... Fig. 8 shows the jobs waiting
#: longer (approx. 200 to 400 jobs)".
THEIR_LONGER = (200, 400)


#: The local schedulers of the Fig. 8 study: EASY, this page's, and shortest job first without
#: backfilling, whose wait rises with the book-ahead as theirs does (roblitz_lrms_study).
DELAY_LRMS = ("easy", "sjf")


def roblitz_delay_study() -> None:
    """Röblitz et al.'s Fig. 8: each batch job's additional wait (its wait with the 200 requests less
    its wait without them, s) at a 30 h range (load, <1, 1>, cover slots), per book-ahead and local
    scheduler (DELAY_LRMS): how many jobs wait longer, less and the same, mean over 5 offsets, and
    under EASY the sorted additional waits of the jobs waiting longer at offset 0 (their requests
    were drawn once) drawn as their figure."""
    from evogrid.plots import sorted_curves_plot
    first = _their_jobs()
    rows, curves = [], {}
    for lrms in DELAY_LRMS:
        for offset in range(5):
            alone = _without_requests(first, offset, lrms)
            alone_wait = alone.start - alone.jobs.submit
            for b in BOOK_AHEAD_H:
                batch, requests = roblitz(first, b, 30, offset=offset, request_at=TIMING)
                schedule, bookings = simulate_reservations([batch], lrms, requests, ReservationRules("probe"))
                extra = (schedule.start - schedule.jobs.submit) - alone_wait
                longer = extra[extra > 0]
                rows.append({"lrms": lrms, "book_ahead_h": b, "offset": offset,
                             "accepted": int(bookings.accepted.sum()), "longer": len(longer),
                             "shorter": int((extra < 0).sum()), "same": int((extra == 0).sum()),
                             "mean_extra_s": float(extra.mean()),
                             "longer_mean_extra_s": float(longer.mean()) if len(longer) else 0.0,
                             "longer_over_1h": int((extra > 3600).sum())})
                if lrms == "easy" and offset == 0:
                    curves[f"{b} h"] = longer
    _write("roblitz_delay", rows)
    print("\n## Their Fig. 8: batch jobs waiting longer, less or the same as without requests (range 30 h, "
          f"load; mean over 5 offsets; theirs: {THEIR_LONGER[0]}-{THEIR_LONGER[1]} wait longer)\n")
    print("| LRMS | book-ahead | jobs waiting longer | less | the same | longer by over 1 h | "
          "mean additional wait of those waiting longer (s) |")
    print("|---|---|---|---|---|---|---|")
    for lrms in DELAY_LRMS:
        for b in BOOK_AHEAD_H:
            mine = [r for r in rows if (r["lrms"], r["book_ahead_h"]) == (lrms, b)]
            m = {k: np.mean([r[k] for r in mine]) for k in ("longer", "shorter", "same", "longer_over_1h",
                                                           "longer_mean_extra_s")}
            print(f"| {lrms} | {b} h | {m['longer']:.1f} | {m['shorter']:.1f} | {m['same']:.1f} | "
                  f"{m['longer_over_1h']:.1f} | {m['longer_mean_extra_s']:,.0f} |")
    plot = sorted_curves_plot(IMAGES / f"roblitz_fig8{_suffix()}.png", curves, "jobs waiting longer, sorted",
                              "additional wait (s)", "Röblitz et al.'s Fig. 8 setting under EASY: additional "
                              "wait per book-ahead (offset 0)")
    print(f"\nwrote {plot}")


def roblitz_lrms_study() -> None:
    """Their 4.3 under each local scheduler (theirs is not named): the batch jobs' mean wait without
    requests (theirs about 700 s) and with the 200 requests at a 30 h range per book-ahead (load,
    <1, 1>, cover slots), mean and median over 5 offsets; and their Fig. 7 setting's successes
    (b = 2 h, range 10 h) per estimate under each."""
    from evogrid.sim.lrms import REGISTRY
    first = _their_jobs()
    rows = []
    for lrms in REGISTRY:
        for offset in range(5):
            alone = _without_requests(first, offset, lrms)
            for b in BOOK_AHEAD_H:
                batch, requests = roblitz(first, b, 30, offset=offset, request_at=TIMING)
                schedule, bookings = simulate_reservations([batch], lrms, requests, ReservationRules("probe"))
                rows.append({"lrms": lrms, "book_ahead_h": b, "offset": offset,
                             "accepted": int(bookings.accepted.sum()),
                             "batch_mean_wait": schedule.metrics()[0]["mean_wait"],
                             "alone_mean_wait": alone.metrics()[0]["mean_wait"]})
    _write("roblitz_lrms", rows)
    print("\n## Their 4.3 per local scheduler: batch mean wait (s), mean / median over 5 offsets\n")
    print("| LRMS | without requests (theirs about 700) | "
          + " | ".join(f"{b} h" for b in BOOK_AHEAD_H) + " |")
    print("|---|---|" + "---|" * len(BOOK_AHEAD_H))
    for lrms in REGISTRY:
        mine = [r for r in rows if r["lrms"] == lrms]
        cells = []
        for b in BOOK_AHEAD_H:
            waits = [r["batch_mean_wait"] for r in mine if r["book_ahead_h"] == b]
            cells.append(f"{np.mean(waits):,.0f} / {np.median(waits):,.0f}")
        alone = np.mean([r["alone_mean_wait"] for r in mine if r["book_ahead_h"] == 0])
        print(f"| {lrms} | {alone:,.0f} | " + " | ".join(cells) + " |")
    accepted = []
    for lrms in REGISTRY:
        for estimate in ("static", "history", "load"):
            for kind, elastic in (("plain", None), ("elastic", (0.5, 2.0))):
                for offset in range(5):
                    batch, requests = roblitz(first, 2, 10, offset=offset, elastic=elastic, request_at=TIMING)
                    _, bookings = simulate_reservations([batch], lrms, requests,
                                                        ReservationRules("probe", estimate=estimate))
                    accepted.append({"lrms": lrms, "estimate": estimate, "requests": kind, "offset": offset,
                                     "accepted": int(bookings.accepted.sum())})
    _write("roblitz_lrms_fig7", accepted)
    print("\n## Their Fig. 7 setting per local scheduler: accepted of 200, plain / elastic (mean over 5 "
          "offsets; theirs, elastic: static 181, history 184, load 185)\n")
    print("| LRMS | static | history | load |")
    print("|---|---|---|---|")
    def mean_accepted(*key) -> float:
        return float(np.mean([r["accepted"] for r in accepted
                              if (r["lrms"], r["estimate"], r["requests"]) == key]))

    for lrms in REGISTRY:
        cells = [" / ".join(f"{mean_accepted(lrms, estimate, kind):.1f}" for kind in ("plain", "elastic"))
                 for estimate in ("static", "history", "load")]
        print(f"| {lrms} | " + " | ".join(cells) + " |")


def roblitz_funnel_study() -> None:
    """Röblitz et al.'s Fig. 7 (their 4.2): per request, the candidates the probe returns, those over
    the threshold (0.85) and the tries the site refuses (their CRS; no try reaches a refusing local
    scheduler here: the profiles are exact), for successful and failed requests apart; book-ahead
    2 h, range 10 h, elastic <0.5, 2> and plain requests, their slot rule, 5 offsets; static also
    with thresholds just over its estimate at the fourth slot, 9 h 30 after now (0.8504); history
    also on the jobs moved to submit from 0 on (the log's window opens 5 days before its first job,
    and the history estimate records those idle days); each estimate also with the timing that
    ``--request-at`` does not choose (theirs, the request made at the job's submission and starting b
    hours later, is the default)."""
    first = _their_jobs()
    moved = replace(first, submit=first.submit - first.submit.min())
    print("\n## Their Fig. 7: the funnel per request (b = 2 h, range 10 h, cover slots; mean over the "
          "requests of 5 offsets)\n")
    print("| estimate | threshold | requests | accepted of 200 | successful: probed / over threshold / "
          "refused by the site | failed: probed / over threshold / refused by the site |")
    print("|---|---|---|---|---|---|")
    other = next(t for t in REQUEST_AT if t != TIMING)
    runs = (("static", 0.85, first, TIMING), ("static", 0.8505, first, TIMING),
            ("static", 0.86, first, TIMING), ("history", 0.85, first, TIMING),
            ("history", 0.85, moved, TIMING), ("load", 0.85, first, TIMING),
            ("static", 0.85, first, other), ("history", 0.85, first, other), ("load", 0.85, first, other))
    for estimate, threshold, jobs, timing in runs:
        label = f"{estimate}, first job at 0" if jobs is moved else estimate
        label += f", requested {timing}" if timing != TIMING else ""
        for kind, elastic in (("elastic", (0.5, 2.0)), ("plain", None)):
            funnels, accepted = [], []
            for offset in range(5):
                batch, requests = roblitz(jobs, 2, 10, offset=offset, elastic=elastic, request_at=timing)
                rules = ReservationRules("probe", estimate=estimate, threshold=threshold)
                _, bookings = simulate_reservations([batch], "easy", requests, rules)
                funnels.append((bookings.funnel, bookings.accepted))
                accepted.append(bookings.accepted.sum())
            cells = []
            for ok in (True, False):
                rows = np.concatenate([f[a == ok] for f, a in funnels])
                cells.append(" / ".join(f"{v:.2f}" for v in rows.mean(axis=0)) if len(rows) else "-")
            print(f"| {label} | {threshold} | {kind} | {np.mean(accepted):.1f} | {cells[0]} "
                  f"| {cells[1]} |")


#: Probe slots per processor count and their least gap (s): ours (5, 1,800) and finer cuts.
SLOT_SETTINGS = ((5, 1800), (10, 1800), (20, 900), (40, 600))


def roblitz_slots_study() -> None:
    """Their Fig. 7 setting (b = 2 h, range 10 h, cover slots, 5 offsets) with more probe slots per
    count (``tsn_max``, ``tss_gap``; their values are not given): requests accepted of 200 by
    estimate, plain and elastic, and the share of a successful plain request's candidates over the
    threshold that the site refuses (their "approx. 15%" under history)."""
    first = _their_jobs()
    rows = []
    for estimate in ("static", "history", "load"):
        for tsn_max, tss_gap in SLOT_SETTINGS:
            rules = ReservationRules("probe", estimate=estimate, tsn_max=tsn_max, tss_gap=tss_gap)
            for kind, elastic in (("plain", None), ("elastic", (0.5, 2.0))):
                for offset in range(5):
                    batch, requests = roblitz(first, 2, 10, offset=offset, elastic=elastic, request_at=TIMING)
                    _, bookings = simulate_reservations([batch], "easy", requests, rules)
                    ok = bookings.funnel[bookings.accepted]
                    rows.append({"estimate": estimate, "tsn_max": tsn_max, "tss_gap": tss_gap,
                                 "requests": kind, "offset": offset, "accepted": int(bookings.accepted.sum()),
                                 "over_threshold": float(ok[:, 1].sum()), "refused": float(ok[:, 2].sum())})
    _write("roblitz_slots", rows)
    print("\n## Their Fig. 7 setting with more probe slots: accepted of 200 (mean over 5 offsets) and the "
          "site's refusals among a successful plain request's candidates over the threshold\n")
    print("| estimate | slots / gap (s) | plain | elastic | refused, plain |")
    print("|---|---|---|---|---|")
    for estimate in ("static", "history", "load"):
        for tsn_max, tss_gap in SLOT_SETTINGS:
            mine = [r for r in rows if (r["estimate"], r["tsn_max"]) == (estimate, tsn_max)]
            plain = [r for r in mine if r["requests"] == "plain"]
            accepted = [np.mean([r["accepted"] for r in mine if r["requests"] == kind])
                        for kind in ("plain", "elastic")]
            share = sum(r["refused"] for r in plain) / max(1.0, sum(r["over_threshold"] for r in plain))
            print(f"| {estimate} | {tsn_max} / {tss_gap:,} | {accepted[0]:.1f} | {accepted[1]:.1f} | "
                  f"{share:.3f} |")


def roblitz_elastic_study() -> None:
    """Their Fig. 7 setting (b = 2 h, range 10 h, load, cover slots, 5 offsets), plain against elastic
    <0.5, 2> requests made from the same jobs: the requests only one of the two accepts, the elastic
    request's count over the job's, and the processor-seconds an accepted request holds."""
    first = _their_jobs()
    rows = []
    for offset in range(5):
        booked = []
        for elastic in (None, (0.5, 2.0)):
            batch, requests = roblitz(first, 2, 10, offset=offset, elastic=elastic, request_at=TIMING)
            _, bookings = simulate_reservations([batch], "easy", requests, ReservationRules("probe"))
            ok = bookings.accepted
            booked.append((requests, bookings, (bookings.procs[ok, 0] * bookings.length[ok]).mean()))
        (plain, p, p_area), (elastic, e, e_area) = booked
        ok = e.accepted
        rows.append({"offset": offset, "plain": int(p.accepted.sum()), "elastic": int(ok.sum()),
                     "only_plain": int((p.accepted & ~ok).sum()),
                     "only_elastic": int((ok & ~p.accepted).sum()),
                     "count_over_job": float(np.mean(e.procs[ok, 0] / plain.parts[ok, 0])),
                     "at_top": float(np.mean(e.procs[ok, 0] == elastic.elastic.procs_max[ok])),
                     "plain_area": float(p_area), "elastic_area": float(e_area)})
    _write("roblitz_elastic", rows)
    print("\n## Their Fig. 7 setting: plain against elastic requests (load; mean over 5 offsets)\n")
    print("| accepted plain | accepted elastic | only plain | only elastic | elastic count / job's | "
          "at the range's top | processor-seconds per accepted request, plain / elastic |")
    print("|---|---|---|---|---|---|---|")
    m = {k: np.mean([r[k] for r in rows]) for k in rows[0]}
    print(f"| {m['plain']:.1f} | {m['elastic']:.1f} | {m['only_plain']:.1f} | {m['only_elastic']:.1f} | "
          f"{m['count_over_job']:.2f} | {m['at_top']:.3f} | {m['plain_area']:,.0f} / "
          f"{m['elastic_area']:,.0f} |")


#: Readings of their "sound batch-jobs" measured side by side (``roblitz_jobs``): which queues, whether
#: only jobs the log marks completed (SWF status 1) count as sound, and whether their "wall time
#: accuracy 0.5" (their 4.3's parameters) made the wall times (twice the run time) rather than being
#: T_wkl's acc_w alone. Each maps the window and its completed-jobs mask to the jobs drawn from.
JOB_READINGS = {
    "every queue": lambda w, done: w,
    "every queue but 0 (interactive)": lambda w, done: w.select(w.queue != 0),
    "batch queues 1-5": lambda w, done: w.select(np.isin(w.queue, BATCH_QUEUES)),
    "every queue, completed": lambda w, done: w.select(done),
    "batch queues 1-5, completed": lambda w, done: w.select(np.isin(w.queue, BATCH_QUEUES) & done),
    "batch queues 1-5, wall times twice the run times": lambda w, done: _twice_the_run_time(
        w.select(np.isin(w.queue, BATCH_QUEUES))),
}


def _twice_the_run_time(jobs):
    """``jobs`` with wall times (estimates) of twice their run times (at least 1 s)."""
    return replace(jobs, estimate=np.maximum(1, 2 * jobs.run_time))


def roblitz_jobs_study() -> None:
    """Which of SDSC-BLUE's jobs their 4's "first 2000 sound batch-jobs" are: for each reading of
    :data:`JOB_READINGS`, the first 2,000 jobs' span, the batch wait without requests (theirs "approx.
    700 seconds"), their Fig. 7 setting's successes (b = 2 h, range 10 h, cover slots, 5 offsets;
    theirs 181 / 184 / 185 elastic requests) and their 4.3's batch wait at 0 and 24 h of book-ahead
    (theirs 1,200 and 4,130 s)."""
    window = load_window("SDSC03")
    raw = parse_swf(resolve_trace("SDSC03"))
    completed = dict(zip(raw.column("job_id").tolist(), (raw.column("status") == 1).tolist(), strict=True))
    done = np.array([completed[j] for j in window.job_id.tolist()])
    rows = []
    for label, reading in JOB_READINGS.items():
        kept = reading(window, done)
        first = kept.select(np.arange(kept.n_jobs) < 2000)
        row = {"jobs": label, "span_days": float(np.ptp(first.submit)) / 86_400,
               "alone_mean_wait": np.mean([_without_requests(first, o, "easy").metrics()[0]["mean_wait"]
                                           for o in range(5)])}
        for estimate in ("static", "history", "load"):
            for kind, elastic in (("plain", None), ("elastic", (0.5, 2.0))):
                accepted = []
                for offset in range(5):
                    batch, requests = roblitz(first, 2, 10, offset=offset, elastic=elastic, request_at=TIMING)
                    _, bookings = simulate_reservations([batch], "easy", requests,
                                                        ReservationRules("probe", estimate=estimate))
                    accepted.append(int(bookings.accepted.sum()))
                row[f"{estimate}_{kind}"] = float(np.mean(accepted))
        for b in (0, 24):
            waits = []
            for offset in range(5):
                batch, requests = roblitz(first, b, 30, offset=offset, request_at=TIMING)
                schedule, _ = simulate_reservations([batch], "easy", requests, ReservationRules("probe"))
                waits.append(schedule.metrics()[0]["mean_wait"])
            row[f"wait_{b}h"] = float(np.mean(waits))
        rows.append(row)
    _write("roblitz_jobs", rows)
    print("\n## Which jobs are their 'sound batch-jobs': the first 2,000 of each reading (Fig. 7 setting: "
          "accepted of 200, plain / elastic; 4.3's batch wait; mean over 5 offsets)\n")
    print("| jobs | span (days) | batch wait without requests (s) | static | history | load | "
          "4.3's wait at 0 / 24 h (s) |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['jobs']} | {r['span_days']:.1f} | {r['alone_mean_wait']:,.0f} | "
              + " | ".join(f"{r[e + '_plain']:.1f} / {r[e + '_elastic']:.1f}"
                           for e in ("static", "history", "load"))
              + f" | {r['wait_0h']:,.0f} / {r['wait_24h']:,.0f} |")
    print("| theirs | about 14 ('ca. 2 weeks') | about 700 | - / 181 | - / 184 | - / 185 | 1,200 / 4,130 |")


def _workload_end_terms(schedule, requests, bookings, acc=(0.5, 0.5)) -> np.ndarray:
    """Röblitz et al.'s T_wkl at each request's time, rebuilt from a finished one-site run (the jobs
    running and waiting then, the reservations accepted before it), in its three terms: shape (R, 3),
    T_Jr, T_Jw and the reservations' increment (s after the request). A check on the rebuilding:
    a plain request fails exactly where T_wkl lies after its latest start, which the study prints
    beside the run's own count."""
    jobs, start = schedule.jobs, schedule.start
    accepted = bookings.accepted
    end_held = bookings.start + bookings.length
    terms = np.zeros((requests.n_requests, 3))
    for r in range(requests.n_requests):
        t = requests.submit[r]
        # A job submitted at t and started at t was waiting when the request came (jobs arrive first).
        fresh = (start == t) & (jobs.submit == t)
        running = (start <= t) & (start + jobs.run_time > t) & ~fresh
        waiting = (jobs.submit <= t) & ((start > t) | fresh)
        procs = jobs.procs[running].sum()
        left = start[running] + jobs.run_time[running] - t
        t_jr = acc[0] * np.sum(jobs.procs[running] * left) / max(procs, 1)
        area = acc[1] * np.sum(jobs.procs[waiting] * jobs.estimate[waiting])
        m = jobs.machine_procs[0]
        held = accepted & (np.arange(requests.n_requests) < r) & (end_held > t)
        counted, reserved = np.zeros_like(held), 0.0
        while True:
            new = held & ~counted & (bookings.start < t + t_jr + (area + reserved) / m)
            if not new.any():
                break
            counted |= new
            reserved += np.sum((end_held[new] - np.maximum(bookings.start[new], t)) * bookings.procs[new, 0])
        terms[r] = (t_jr, area / m, reserved / m)
    return terms


def roblitz_twkl_study() -> None:
    """Why the static estimate accepts fewer plain requests than load in their Fig. 7 setting (b = 2 h,
    range 10 h, cover slots, 5 offsets): T_wkl's terms at each request, rebuilt from each run, and how
    often T_wkl lies after the request's latest start (12 h after the request; the site then refuses
    every candidate) in each run."""
    first = _their_jobs()
    rows = []
    for estimate in ("static", "history", "load"):
        for offset in range(5):
            batch, requests = roblitz(first, 2, 10, offset=offset, request_at=TIMING)
            schedule, bookings = simulate_reservations([batch], "easy", requests,
                                                       ReservationRules("probe", estimate=estimate))
            terms = _workload_end_terms(schedule, requests, bookings)
            latest = requests.deadline - requests.duration - requests.submit
            ahead = [int(((bookings.accepted & (np.arange(requests.n_requests) < r))
                          & (bookings.start > requests.submit[r])).sum()) for r in range(requests.n_requests)]
            rows.append({"estimate": estimate, "offset": offset, "accepted": int(bookings.accepted.sum()),
                         "beyond_latest_start": int((terms.sum(axis=1) > latest).sum()),
                         "t_jr_h": terms[:, 0].mean() / 3600, "t_jw_h": terms[:, 1].mean() / 3600,
                         "t_jw_median_h": float(np.median(terms[:, 1])) / 3600,
                         "reserved_h": terms[:, 2].mean() / 3600, "booked_ahead": float(np.mean(ahead)),
                         "batch_mean_wait": schedule.metrics()[0]["mean_wait"]})
    _write("roblitz_twkl", rows)
    print("\n## Their Fig. 7 setting, plain requests: T_wkl's terms at each request (mean over the requests "
          "of 5 offsets)\n")
    print("| estimate | accepted of 200 | T_wkl after the latest start | T_Jr (h) | T_Jw (h), mean / "
          "median | reservations' increment (h) | reservations booked ahead | batch mean wait (s) |")
    print("|---|---|---|---|---|---|---|---|")
    for estimate in ("static", "history", "load"):
        mine = [r for r in rows if r["estimate"] == estimate]
        m = {k: np.mean([r[k] for r in mine]) for k in rows[0] if k != "estimate"}
        print(f"| {estimate} | {m['accepted']:.1f} | {m['beyond_latest_start']:.1f} | {m['t_jr_h']:.2f} | "
              f"{m['t_jw_h']:.2f} / {m['t_jw_median_h']:.2f} | {m['reserved_h']:.2f} | "
              f"{m['booked_ahead']:.1f} | {m['batch_mean_wait']:,.0f} |")


#: His failure rates on four clusters (Table 11: Algorithms 2 and 3; backfill: Algorithm 3 less
#: Table 14's drop, read as points) and his Table 11 infeasibility ranges over BM 0-3.
HIS_FAILURE = {("rw1", "cpu-count"): 0.07, ("rw2", "cpu-count"): 0.07, ("rw3", "cpu-count"): 0.11,
               ("rw1", "backlog"): 0.51, ("rw2", "backlog"): 0.60, ("rw3", "backlog"): 0.75,
               ("rw1", "backfill"): 0.38, ("rw2", "backfill"): 0.48, ("rw3", "backfill"): 0.60}
HIS_INFEASIBILITY = {("rw1", "cpu-count"): "0.14-0.16", ("rw2", "cpu-count"): "0.17-0.22",
                     ("rw3", "cpu-count"): "0.23-0.33", ("rw1", "backlog"): "0.54-0.64",
                     ("rw2", "backlog"): "0.64-0.75", ("rw3", "backlog"): "0.77-0.80"}
WINDOW_DAYS = 14


def _window_utilizations() -> list[tuple[str, float, int]]:
    """Every whole two-week SDSC-BLUE window as one of Meltzer's sites (1,160 processors, EASY,
    small jobs merged): ``(window, utilisation up to t_stop, jobs)``."""
    config = load_scenario_file(Path(__file__).parent / "configs" / "meltzer4.toml")
    days = int(load_window("SDSC03").submit.max() // 86_400)
    windows = [f"SDSC03@d{d}-{d + WINDOW_DAYS}" for d in range(0, days - WINDOW_DAYS + 1, WINDOW_DAYS)]
    config.sites = [SiteConfig(window=w, procs=1160) for w in windows]
    schedule = Scenario.from_config(config).simulate_local()
    util = utilization_until(schedule, T_STOP)
    jobs = [int(((schedule.jobs.origin == k) & (schedule.jobs.submit < T_STOP)).sum())
            for k in range(len(windows))]
    return [(w, u["job_utilization"], n) for w, u, n in zip(windows, util, jobs, strict=True)]


def matched_study() -> None:
    """Meltzer's four-cluster failure rates on windows chosen for his utilisations: for BM 0-3 in
    turn, the unused two-week window whose utilisation (jobs alone, up to his t_stop) is nearest
    his Table 6's (68, 65, 72, 84 %), against the first four windows that ``meltzer4.toml`` runs;
    RW1-3, Algorithms 2, 3 and his 4.5 backfill, 5 seeds."""
    candidates = _window_utilizations()
    chosen: list[tuple[str, float, int]] = []
    for target in TABLE_6["utilization"][:4]:
        rest = [c for c in candidates if c not in chosen]
        chosen.append(min(rest, key=lambda c: abs(100 * c[1] - target)))
    print("\n## Two-week windows matched to Meltzer's utilisations (BM 0-3)\n")
    print("| BM | his utilisation % | window | utilisation % | jobs (his) |")
    print("|---|---|---|---|---|")
    for b, (w, u, n) in enumerate(chosen):
        print(f"| {b} | {TABLE_6['utilization'][b]} | {w} | {100 * u:.1f} | {n:,} ({TABLE_6['jobs'][b]:,}) |")
    first = meltzer_scenario(4)
    config = load_scenario_file(Path(__file__).parent / "configs" / "meltzer4.toml")
    config.sites = [SiteConfig(window=w, procs=1160) for w, _, _ in chosen]
    rows = []
    for label, scenario in (("first four", first), ("matched", Scenario.from_config(config))):
        for variant in ("rw1", "rw2", "rw3"):
            for algorithm in ("cpu-count", "backlog", "backfill"):
                for seed in SEEDS:
                    order = {"variant_order": "tree-unsorted"} if algorithm == "backfill" else {}
                    workloads, requests, rules = reservation_setup(scenario, workload=variant, seed=seed,
                                                                   algorithm=algorithm, **order)
                    result = _run(workloads, scenario.lrms, requests, rules)
                    rows.append({"windows": label, "workload": variant, "algorithm": algorithm, "seed": seed,
                                 "requests": requests.n_requests, "failure_rate": result["failure_rate"],
                                 "infeasibility_rate": result["infeasibility_rate"]})
    _write("matched", rows)
    print("\n## Failure and infeasibility rates: first four | matched | his (mean ± sd, 5 seeds)\n")
    print("| workload | algorithm | failure rate | infeasibility rate |")
    print("|---|---|---|---|")
    for variant in ("rw1", "rw2", "rw3"):
        for algorithm in ("cpu-count", "backlog", "backfill"):
            cells = []
            for measure, his in (("failure_rate", HIS_FAILURE), ("infeasibility_rate", HIS_INFEASIBILITY)):
                parts = [_pm([r[measure] for r in rows if (r["windows"], r["workload"], r["algorithm"])
                              == (label, variant, algorithm)], 3) for label in ("first four", "matched")]
                cells.append(" \\| ".join([*parts, str(his.get((variant, algorithm), "-"))]))
            print(f"| {variant} | {algorithm} | " + " | ".join(cells) + " |")


STUDIES = {f.__name__.removesuffix("_study"): f for f in (
    window_study, job_only_study, cost_load_study, meltzer_study, start_study, backfill_study, draw_study,
    bound_study, setting_study, roblitz_study, roblitz_grid_study, roblitz_delay_study, roblitz_lrms_study,
    roblitz_funnel_study, roblitz_slots_study,
    roblitz_elastic_study, roblitz_twkl_study, roblitz_jobs_study, matched_study)}

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=list(STUDIES), default=list(STUDIES),
                        help="the studies to run (default: all, in this order)")
    parser.add_argument("--as-logged", action="store_true",
                        help="Meltzer's studies on the jobs as logged, not merged as his 6.2 (CSV files "
                             "*_as_logged.csv)")
    parser.add_argument("--step", choices=list(STEPS), default="divided",
                        help="the window study's candidate starts' step: divided (Meltzer's listing 1) or "
                             "floor (our earlier reading; CSV file meltzer_windows_floor.csv)")
    parser.add_argument("--request-at", choices=list(REQUEST_AT), default="submission",
                        help="the Röblitz studies' timing: submission (theirs: requested at the job's "
                             "submission, starting b hours later) or before-start (evogrid's earlier "
                             "reading: requested b hours before the submission; CSV files "
                             "*_before_start.csv)")
    parser.add_argument("--jobs", choices=("batch-queues", "all"), default="batch-queues",
                        help="the Röblitz studies' jobs: those of SDSC-BLUE's batch queues 1-5 (their "
                             "'sound batch-jobs', read as not interactive) or every job (evogrid's "
                             "earlier reading; CSV files *_all_queues.csv)")
    args = parser.parse_args()
    AS_LOGGED = args.as_logged
    STEP = args.step
    TIMING = args.request_at
    JOBS = args.jobs
    for name in args.only:
        STUDIES[name]()
