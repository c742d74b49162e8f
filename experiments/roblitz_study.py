"""Röblitz, Schintke and Wendler's elastic-reservation experiments (their 4) on SDSC-BLUE.

One site under EASY; every 10th of 2,000 jobs a one-site request; probe/reserve with their
estimates (static, history, load); their Figs. 6-8 and 4.3, as docs/reservations.md reports them.

Run: ``.venv/bin/python experiments/roblitz_study.py`` (about 9 minutes once compiled); ``--only
roblitz_grid roblitz_funnel`` runs some studies. Each prints the tables of docs/reservations.md
(means over the five request offsets) and writes into ``experiments/results/reservations/``
(file names take the options' suffix, below):

- ``roblitz``: every 10th job (offsets 0-4 as the five repetitions) a one-site request booked
  b = 0, 6, 12, 24 h ahead with 2 h of slack; first fit, Meltzer's Algorithm 3 (backlog) and
  probe/reserve of plain and of elastic requests: ``roblitz.csv`` (the first 2,000 jobs) and
  ``roblitz_windows.csv`` (eight 2,000-job windows), a row per run.
- ``roblitz_grid``: Figs. 6-7 and the 4.3 wait on the first 2,000 jobs, ``roblitz_grid.csv``.
- ``roblitz_delay``: Fig. 8, ``roblitz_delay.csv`` and ``docs/img/roblitz_fig8.png``.
- ``roblitz_lrms``: 4.3 and Fig. 7 under every LRMS, ``roblitz_lrms.csv``, ``roblitz_lrms_fig7.csv``.
- ``roblitz_funnel``: the Fig. 7 funnel (printed only).
- ``roblitz_slots``: more probe slots, ``roblitz_slots.csv``.
- ``roblitz_elastic``: plain against elastic requests, a row per offset, ``roblitz_elastic.csv``.
- ``roblitz_twkl``: why static accepts fewer (T_wkl's terms rebuilt), ``roblitz_twkl.csv``.
- ``roblitz_jobs``: which jobs their "sound batch-jobs" are, a row per reading,
  ``roblitz_jobs.csv`` (draws its own jobs: no suffix).

The jobs are those of SDSC-BLUE's batch queues (their "sound batch-jobs"); ``--jobs all`` draws from
every queue (evogrid's earlier reading; suffix ``_all_queues``). Each request is made at its job's
submission and starts b hours later (their timing); ``--request-at before-start`` runs evogrid's
earlier reading (suffix ``_before_start``).
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

import numpy as np
from reservations_study import _run, _summary

from evogrid.optimize.rundir import write_csv
from evogrid.sim.booking import PROBE_SLOTS, ReservationRules, simulate_reservations
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
JOB_SETS = ("batch-queues", "all")
BATCH_QUEUES = (1, 2, 3, 4, 5)
#: The processor range of their elastic requests (their 4: "the factor pairs <1, 1> and <0.5, 2>").
ELASTIC = (0.5, 2.0)


def _suffix() -> str:
    """The results' file-name suffix for the options that change them (``--request-at
    before-start``, ``--jobs all``)."""
    return ("_before_start" if TIMING == "before-start" else "") + ("_all_queues" if JOBS == "all" else "")


def _write(name: str, rows: list[dict], suffixed: bool = True) -> None:
    """``rows`` (dicts with the same keys) as ``OUT/name<suffix>.csv``; ``suffixed=False`` for a study
    that the options do not change."""
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{name}{_suffix() if suffixed else ''}.csv"
    write_csv(path, list(rows[0]), [list(row.values()) for row in rows])


def _drawn(window) -> np.ndarray:
    """The mask of ``window``'s jobs that Röblitz et al.'s "sound batch-jobs" are (``--jobs``): those
    of SDSC-BLUE's batch queues (:data:`BATCH_QUEUES`), or every job (evogrid's earlier reading)."""
    return _batch_queues(window) if JOBS == "batch-queues" else np.ones(window.n_jobs, bool)


def _first(jobs, n: int = 2000):
    """The first ``n`` of ``jobs`` (their study's 2,000)."""
    return jobs.select(np.arange(jobs.n_jobs) < n)


def _their_jobs():
    """Their 4's jobs: "the first 2000 sound batch-jobs of the SDSC Blue Horizon workload trace"
    (ours: the first 2,000 of evogrid's SDSC03 window that :func:`_drawn` keeps)."""
    window = load_window("SDSC03")
    return _first(window.select(_drawn(window)))


#: Röblitz et al.'s admission rules here: first fit, Meltzer's Algorithm 3, and probe/reserve of plain
#: and of elastic requests (0.5-2 times the job's processors, Amdahl f = 0.05).
ROBLITZ_RULES = (("first-fit", None), ("backlog", None), ("probe", None), ("probe", ELASTIC))
#: Where the 2,000-job windows of the second Röblitz study start: an index among the jobs of
#: evogrid's SDSC03 window (every queue); each window takes the 2,000 drawn jobs (``--jobs``) from
#: the first drawn one at or after it, and is labelled by the indices it spans.
JOB_WINDOWS = (0, 20_000, 50_000, 80_000, 110_000, 140_000, 170_000, 200_000)


def _roblitz_rows(jobs, label: str) -> list[dict]:
    """One row per book-ahead (0, 6, 12, 24 h), offset and rule of :data:`ROBLITZ_RULES` on ``jobs``:
    the reservation measures and the batch jobs' mean and longest wait (s)."""
    rows = []
    for hours in (0, 6, 12, 24):
        for offset in range(5):
            for algorithm, elastic in ROBLITZ_RULES:
                batch, requests = roblitz(jobs, hours, 2, offset=offset, elastic=elastic,
                                          request_at=TIMING)
                rows.append({"jobs": label, "book_ahead_h": hours,
                             "algorithm": algorithm + (" elastic" if elastic else ""), "offset": offset,
                             **_run([batch], "easy", requests, ReservationRules(algorithm))})
    return rows


def roblitz_study() -> None:
    """Every 10th job a one-site request with 2 h of slack, b = 0-24 h ahead, under first fit,
    Algorithm 3 and probe/reserve (plain and elastic): on the first 2,000 drawn jobs
    (``roblitz.csv``) and on eight 2,000-job windows across the log (``roblitz_windows.csv``)."""
    log = load_window("SDSC03")
    mask = _drawn(log)
    drawn_index, drawn = np.flatnonzero(mask), log.select(mask)
    rows = _roblitz_rows(_first(drawn), "0-2000")
    _write("roblitz", rows)
    print("\n## Röblitz et al.'s setting, one site (mean ± sd over 5 request offsets)\n")
    _summary(rows, ("book_ahead_h", "algorithm"), ("failure_rate", "unfairness", "mean_relative_start",
                                                   "batch_mean_wait", "batch_max_wait"))
    windows = []
    position = np.arange(drawn.n_jobs)
    for at in np.searchsorted(drawn_index, JOB_WINDOWS):
        jobs = drawn.select((position >= at) & (position < at + 2000))
        if jobs.n_jobs != 2000:
            raise SystemExit(f"the window from job {drawn_index[at]}: {jobs.n_jobs} drawn jobs, not 2,000")
        windows += _roblitz_rows(jobs, f"{drawn_index[at]}-{drawn_index[at + 1999] + 1}")
    _write("roblitz_windows", windows)
    print("\n## Batch mean wait (s) against book-ahead in 2,000-job windows (mean over 5 offsets)\n")
    print("| jobs | algorithm | 0 h | 6 h | 12 h | 24 h | failure rate, 0 / 24 h |")
    print("|---|---|---|---|---|---|---|")
    by_run = {}
    for row in windows:
        by_run.setdefault((row["jobs"], row["algorithm"], row["book_ahead_h"]), []).append(row)
    rises: dict[str, int] = {}
    for label in dict.fromkeys(r["jobs"] for r in windows):
        for algorithm in dict.fromkeys(r["algorithm"] for r in windows):
            waits = [np.mean([r["batch_mean_wait"] for r in by_run[label, algorithm, h]])
                     for h in (0, 6, 12, 24)]
            fails = [np.mean([r["failure_rate"] for r in by_run[label, algorithm, h]]) for h in (0, 24)]
            rises[algorithm] = rises.get(algorithm, 0) + int(waits[3] > waits[0])
            print(f"| {label} | {algorithm} | " + " | ".join(f"{w:,.0f}" for w in waits)
                  + f" | {fails[0]:.2f} / {fails[1]:.2f} |")
    print("\nwindows where the wait at 24 h exceeds the wait at 0 h: "
          + ", ".join(f"{a} {n} of {len(JOB_WINDOWS)}" for a, n in rises.items()))


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
#: Their 4.3's batch wait without reservations ("approx. 700 seconds").
THEIR_ALONE_WAIT = "about 700"
#: Their Fig. 7 setting: book-ahead and time range (h); the estimates and their successes (elastic
#: requests, of 200); the processor range of elastic requests, and the two kinds of request.
FIG_7 = (2, 10)
ESTIMATES = ("static", "history", "load")
THEIR_FIG_7 = {"static": 181, "history": 184, "load": 185}
KINDS = (("plain", None), ("elastic", ELASTIC))


def _fig7_runs(jobs, rules: ReservationRules, elastic=None, lrms: str = "easy", timing: str | None = None):
    """Their Fig. 7 setting on ``jobs`` under ``rules``: ``(offset, requests, schedule, bookings)``
    for each of the 5 request offsets (``timing``: ``--request-at``'s unless given)."""
    for offset in range(5):
        batch, requests = roblitz(jobs, *FIG_7, offset=offset, elastic=elastic, request_at=timing or TIMING)
        schedule, bookings = simulate_reservations([batch], lrms, requests, rules)
        yield offset, requests, schedule, bookings


def roblitz_grid_study() -> None:
    """Röblitz et al.'s experiments on the first 2,000 SDSC-BLUE jobs (their 4): successes over
    book-ahead x time range (Fig. 6), the three-step funnel's setting (Fig. 7: 2 h, 10 h, static,
    history and load, plain and elastic), and the batch wait by book-ahead at a 30 h range (4.3)."""
    first = _their_jobs()
    rows = []
    settings = [(b, k, "load", None, slots) for b in BOOK_AHEAD_H for k in TIME_RANGE_H
                for slots in PROBE_SLOTS]
    settings += [(*FIG_7, estimate, elastic, slots) for estimate in ESTIMATES
                 for _, elastic in KINDS for slots in PROBE_SLOTS]
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
        for estimate in ESTIMATES:
            for kind, _ in KINDS:
                key = (*FIG_7, estimate, kind, slots)
                print(f"| {slots} | {estimate} | {kind} | {mean(key, 'accepted'):.1f} | "
                      f"{THEIR_FIG_7[estimate]} | {mean(key, 'messages_per_request'):.2f} | "
                      f"{mean(key, 'refused_by_site'):.2f} |")
    print("\n## Their 4.3: batch mean wait (s) by book-ahead, range 30 h (load, <1, 1>)\n")
    print("| book-ahead | slots | accepted of 200 | wait (ours \\| theirs) | "
          "without requests (ours \\| theirs) |")
    print("|---|---|---|---|---|")
    for b in BOOK_AHEAD_H:
        for slots in PROBE_SLOTS:
            key = (b, 30, "load", "plain", slots)
            print(f"| {b} h | {slots} | {mean(key, 'accepted'):.1f} | "
                  f"{mean(key, 'batch_mean_wait'):,.0f} \\| {THEIR_WAITS[b]:,} | "
                  f"{mean(key, 'alone_mean_wait'):,.0f} \\| {THEIR_ALONE_WAIT} |")



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
        for estimate in ESTIMATES:
            for kind, elastic in KINDS:
                for offset, _, _, bookings in _fig7_runs(first, ReservationRules("probe", estimate=estimate),
                                                         elastic, lrms):
                    accepted.append({"lrms": lrms, "estimate": estimate, "requests": kind, "offset": offset,
                                     "accepted": int(bookings.accepted.sum())})
    _write("roblitz_lrms_fig7", accepted)
    print("\n## Their Fig. 7 setting per local scheduler: accepted of 200, plain / elastic (mean over 5 "
          "offsets; theirs, elastic: " + ", ".join(f"{e} {n}" for e, n in THEIR_FIG_7.items()) + ")\n")
    print("| LRMS | static | history | load |")
    print("|---|---|---|---|")
    def mean_accepted(*key) -> float:
        return float(np.mean([r["accepted"] for r in accepted
                              if (r["lrms"], r["estimate"], r["requests"]) == key]))

    for lrms in REGISTRY:
        cells = [" / ".join(f"{mean_accepted(lrms, estimate, kind):.1f}" for kind, _ in KINDS)
                 for estimate in ESTIMATES]
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
        rules = ReservationRules("probe", estimate=estimate, threshold=threshold)
        for kind, elastic in KINDS[::-1]:
            funnels, accepted = [], []
            for _, _, _, bookings in _fig7_runs(jobs, rules, elastic, timing=timing):
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
    for estimate in ESTIMATES:
        for tsn_max, tss_gap in SLOT_SETTINGS:
            rules = ReservationRules("probe", estimate=estimate, tsn_max=tsn_max, tss_gap=tss_gap)
            for kind, elastic in KINDS:
                for offset, _, _, bookings in _fig7_runs(first, rules, elastic):
                    ok = bookings.funnel[bookings.accepted]
                    rows.append({"estimate": estimate, "tsn_max": tsn_max, "tss_gap": tss_gap,
                                 "requests": kind, "offset": offset, "accepted": int(bookings.accepted.sum()),
                                 "over_threshold": float(ok[:, 1].sum()), "refused": float(ok[:, 2].sum())})
    _write("roblitz_slots", rows)
    print("\n## Their Fig. 7 setting with more probe slots: accepted of 200 (mean over 5 offsets) and the "
          "site's refusals among a successful plain request's candidates over the threshold\n")
    print("| estimate | slots / gap (s) | plain | elastic | refused, plain |")
    print("|---|---|---|---|---|")
    for estimate in ESTIMATES:
        for tsn_max, tss_gap in SLOT_SETTINGS:
            mine = [r for r in rows if (r["estimate"], r["tsn_max"]) == (estimate, tsn_max)]
            plain = [r for r in mine if r["requests"] == "plain"]
            accepted = [np.mean([r["accepted"] for r in mine if r["requests"] == kind]) for kind, _ in KINDS]
            share = sum(r["refused"] for r in plain) / max(1.0, sum(r["over_threshold"] for r in plain))
            print(f"| {estimate} | {tsn_max} / {tss_gap:,} | {accepted[0]:.1f} | {accepted[1]:.1f} | "
                  f"{share:.3f} |")


def roblitz_elastic_study() -> None:
    """Their Fig. 7 setting (b = 2 h, range 10 h, load, cover slots, 5 offsets), plain against elastic
    <0.5, 2> requests made from the same jobs: the requests only one of the two accepts, the elastic
    request's count over the job's, and the processor-seconds an accepted request holds."""
    first = _their_jobs()
    rows = []
    rules = ReservationRules("probe")
    for (offset, plain, _, p), (_, elastic, _, e) in zip(_fig7_runs(first, rules),
                                                        _fig7_runs(first, rules, ELASTIC), strict=True):
        p_area, e_area = ((b.procs[b.accepted, 0] * b.length[b.accepted]).mean() for b in (p, e))
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


def _twice_the_run_time(jobs):
    """``jobs`` with wall times (estimates) of twice their run times (at least 1 s)."""
    return replace(jobs, estimate=np.maximum(1, 2 * jobs.run_time))


def _batch_queues(jobs) -> np.ndarray:
    """The mask of ``jobs`` in SDSC-BLUE's batch queues (:data:`BATCH_QUEUES`)."""
    return np.isin(jobs.queue, BATCH_QUEUES)


#: Readings of their "sound batch-jobs" measured side by side (``roblitz_jobs``): which queues, whether
#: only jobs the log marks completed (SWF status 1) count as sound, and whether their "wall time
#: accuracy 0.5" (their 4.3's parameters) describes how the wall times were made (twice the run
#: time; T_wkl's acc_w stays 0.5) rather than T_wkl's acc_w on the logged wall times. Each maps the
#: window and its completed-jobs mask to the jobs drawn from.
JOB_READINGS = {
    "every queue": lambda w, done: w,
    "every queue but 0 (interactive)": lambda w, done: w.select(w.queue != 0),
    "batch queues 1-5": lambda w, done: w.select(_batch_queues(w)),
    "every queue, completed": lambda w, done: w.select(done),
    "batch queues 1-5, completed": lambda w, done: w.select(_batch_queues(w) & done),
    "batch queues 1-5, wall times twice the run times": lambda w, done: _twice_the_run_time(
        w.select(_batch_queues(w))),
}


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
        first = _first(kept)
        row = {"jobs": label, "span_days": float(np.ptp(first.submit)) / 86_400,
               "alone_mean_wait": np.mean([_without_requests(first, o, "easy").metrics()[0]["mean_wait"]
                                           for o in range(5)])}
        for estimate in ESTIMATES:
            for kind, elastic in KINDS:
                accepted = [int(bookings.accepted.sum()) for _, _, _, bookings
                            in _fig7_runs(first, ReservationRules("probe", estimate=estimate), elastic)]
                row[f"{estimate}_{kind}"] = float(np.mean(accepted))
        for b in (0, 24):
            waits = []
            for offset in range(5):
                batch, requests = roblitz(first, b, 30, offset=offset, request_at=TIMING)
                schedule, _ = simulate_reservations([batch], "easy", requests, ReservationRules("probe"))
                waits.append(schedule.metrics()[0]["mean_wait"])
            row[f"wait_{b}h"] = float(np.mean(waits))
        rows.append(row)
    _write("roblitz_jobs", rows, suffixed=False)
    print("\n## Which jobs are their 'sound batch-jobs': the first 2,000 of each reading (Fig. 7 setting: "
          "accepted of 200, plain / elastic; 4.3's batch wait; mean over 5 offsets)\n")
    print("| jobs | span (days) | batch wait without requests (s) | static | history | load | "
          "4.3's wait at 0 / 24 h (s) |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['jobs']} | {r['span_days']:.1f} | {r['alone_mean_wait']:,.0f} | "
              + " | ".join(f"{r[e + '_plain']:.1f} / {r[e + '_elastic']:.1f}"
                           for e in ESTIMATES)
              + f" | {r['wait_0h']:,.0f} / {r['wait_24h']:,.0f} |")
    print(f"| theirs | about 14 ('ca. 2 weeks') | {THEIR_ALONE_WAIT} | "
          + " | ".join(f"- / {THEIR_FIG_7[e]}" for e in ESTIMATES)
          + f" | {THEIR_WAITS[0]:,} / {THEIR_WAITS[24]:,} |")


def _workload_end_terms(schedule, requests, bookings, rules: ReservationRules) -> np.ndarray:
    """Röblitz et al.'s T_wkl at each request's time, rebuilt from a finished one-site run under
    ``rules`` (``load_rule = "workload-end"``: running jobs counted by their remaining run time): the
    jobs running and waiting then and the reservations accepted before it. Shape (R, 3): T_Jr, T_Jw
    and the reservations' increment, s after the request. A check on the rebuilding: a plain request
    whose T_wkl lies after its latest start must fail, which the study prints beside the run's own
    count."""
    if rules.load_rule != "workload-end" or schedule.jobs.machine_procs.size != 1:
        raise ValueError("rebuilds Röblitz et al.'s T_wkl (load_rule workload-end) at one site")
    jobs, start = schedule.jobs, schedule.start
    m = jobs.machine_procs[0]
    accepted = bookings.accepted
    end_held = bookings.start + bookings.length
    terms = np.zeros((requests.n_requests, 3))
    for r in range(requests.n_requests):
        t = requests.submit[r]
        # At time t jobs arrive before requests, and each arrival's scheduling pass runs at once: a job
        # submitted and started at t was running when the request came.
        running = (start <= t) & (start + jobs.run_time > t)
        waiting = (jobs.submit <= t) & (start > t)
        procs = jobs.procs[running].sum()
        left = start[running] + jobs.run_time[running] - t
        t_jr = rules.acc_running * np.sum(jobs.procs[running] * left) / max(procs, 1)
        area = rules.acc_waiting * np.sum(jobs.procs[waiting] * jobs.estimate[waiting])
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
    range 10 h, cover slots, 5 offsets): T_wkl's terms at each request, rebuilt from each run; how
    often T_wkl lies after the request's latest start (12 h after the request; the site then refuses
    every candidate) and how many requests fail otherwise."""
    first = _their_jobs()
    rows = []
    for estimate in ESTIMATES:
        rules = ReservationRules("probe", estimate=estimate)
        for offset, requests, schedule, bookings in _fig7_runs(first, rules):
            terms = _workload_end_terms(schedule, requests, bookings, rules)
            latest = requests.deadline - requests.duration - requests.submit
            beyond = terms.sum(axis=1) > latest
            if (beyond & bookings.accepted).any():
                raise SystemExit(f"{estimate}, offset {offset}: a request accepted after its rebuilt T_wkl")
            ahead = [int(((bookings.accepted & (np.arange(requests.n_requests) < r))
                          & (bookings.start > requests.submit[r])).sum()) for r in range(requests.n_requests)]
            rows.append({"estimate": estimate, "offset": offset, "accepted": int(bookings.accepted.sum()),
                         "beyond_latest_start": int(beyond.sum()),
                         "failed_otherwise": int((~bookings.accepted & ~beyond).sum()),
                         "t_jr_h": terms[:, 0].mean() / 3600, "t_jw_h": terms[:, 1].mean() / 3600,
                         "t_jw_median_h": float(np.median(terms[:, 1])) / 3600,
                         "reserved_h": terms[:, 2].mean() / 3600, "booked_ahead": float(np.mean(ahead)),
                         "batch_mean_wait": schedule.metrics()[0]["mean_wait"]})
    _write("roblitz_twkl", rows)
    print("\n## Their Fig. 7 setting, plain requests: T_wkl's terms at each request (mean over the requests "
          "of 5 offsets)\n")
    print("| estimate | accepted of 200 | T_wkl after the latest start | failed otherwise | T_Jr (h) | "
          "T_Jw (h), mean / median | reservations' increment (h) | reservations booked ahead | "
          "batch mean wait (s) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for estimate in ESTIMATES:
        mine = [r for r in rows if r["estimate"] == estimate]
        m = {k: np.mean([r[k] for r in mine]) for k in rows[0] if k != "estimate"}
        print(f"| {estimate} | {m['accepted']:.1f} | {m['beyond_latest_start']:.1f} | "
              f"{m['failed_otherwise']:.1f} | {m['t_jr_h']:.2f} | "
              f"{m['t_jw_h']:.2f} / {m['t_jw_median_h']:.2f} | {m['reserved_h']:.2f} | "
              f"{m['booked_ahead']:.1f} | {m['batch_mean_wait']:,.0f} |")


STUDIES = {f.__name__.removesuffix("_study"): f for f in (
    roblitz_study, roblitz_grid_study, roblitz_delay_study, roblitz_lrms_study, roblitz_funnel_study,
    roblitz_slots_study, roblitz_elastic_study, roblitz_twkl_study, roblitz_jobs_study)}

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", choices=list(STUDIES), default=list(STUDIES),
                        help="the studies to run (default: all, in this order)")
    parser.add_argument("--request-at", choices=list(REQUEST_AT), default=TIMING,
                        help="when a request is made: submission (theirs: at the job's submission, "
                             "starting b hours later) or before-start (evogrid's earlier reading: b "
                             "hours before the submission; file names end in _before_start)")
    parser.add_argument("--jobs", choices=tuple(JOB_SETS), default=JOBS,
                        help="SDSC-BLUE's batch queues 1-5 (their 'sound batch-jobs') or every queue "
                             "(evogrid's earlier reading; file names end in _all_queues)")
    args = parser.parse_args()
    TIMING, JOBS = args.request_at, args.jobs
    for name in args.only:
        STUDIES[name]()
