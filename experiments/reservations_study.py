"""The Meltzer studies of docs/reservations.md: his co-reservation algorithms on four and seven
two-week SDSC-BLUE sites (Röblitz et al.'s experiments are experiments/roblitz_study.py).

Run: ``.venv/bin/python experiments/reservations_study.py`` (a few minutes once compiled);
``--only meltzer backfill`` runs some studies; Meltzer's run on his merged jobs as the configs say (his
6.2, evogrid.workload.merge), ``--as-logged`` runs them on the jobs as logged (the CSV files then end in
``_as_logged``).
Writes ``experiments/results/reservations/{meltzer_windows,cost_load,meltzer,weighted,meltzer_starts,
...}.csv`` (a row per run) and prints the tables of docs/reservations.md (mean and sample sd over
the seeds).

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
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from evogrid.optimize.rundir import write_csv
from evogrid.sim.booking import STEPS, reservation_setup, simulate_reservations
from evogrid.sim.metrics import (
    backlog_until,
    reservation_metrics,
    site_reservation_metrics,
    utilization_until,
)
from evogrid.sim.scenario import Scenario, SiteConfig, load_scenario_file
from evogrid.workload import load_window

OUT = Path(__file__).parent / "results" / "reservations"
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
    """The results' file-name suffix for the option that changes them (``--as-logged``)."""
    return "_as_logged" if AS_LOGGED else ""


def _write(name: str, rows: list[dict]) -> None:
    """``rows`` (dicts with the same keys) as ``OUT/name<suffix>.csv``, written atomically."""
    OUT.mkdir(parents=True, exist_ok=True)
    write_csv(OUT / f"{name}{_suffix()}.csv", list(rows[0]), [list(row.values()) for row in rows])


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
    bound_study, setting_study, matched_study)}

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", choices=list(STUDIES), default=list(STUDIES),
                        help="the studies to run (default: all, in this order)")
    parser.add_argument("--as-logged", action="store_true",
                        help="Meltzer's studies on the jobs as logged, not merged as his 6.2 (CSV files "
                             "*_as_logged.csv)")
    parser.add_argument("--step", choices=list(STEPS), default="divided",
                        help="the window study's candidate starts' step: divided (Meltzer's listing 1) or "
                             "floor (our earlier reading; CSV file meltzer_windows_floor.csv)")
    args = parser.parse_args()
    AS_LOGGED = args.as_logged
    STEP = args.step
    for name in args.only:
        STUDIES[name]()
