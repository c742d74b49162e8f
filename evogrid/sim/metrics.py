"""Schedule metrics (formulas: docs/model.md, Metrics), vectorised over jobs, one row per site.

Conventions: ``tau_k`` are the jobs *submitted* at site k, ``pi_k`` the jobs
*executed* there; ``SA_j = p_j * m_j`` (squashed area, processor-seconds).
Times are seconds; utilisation is a fraction in [0, 1] (tables print %).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from evogrid.sim.booking import Bookings
    from evogrid.sim.schedule import GridJobs, Schedule
    from evogrid.workload.reservations import Reservations

#: Bounded-slowdown threshold tau in seconds.
BSLD_TAU_SECONDS = 10.0


def _per_site_sum(site: np.ndarray, values: np.ndarray, K: int) -> np.ndarray:
    return np.bincount(site, weights=values, minlength=K)[:K]


def _per_site_span(site: np.ndarray, start: np.ndarray, end: np.ndarray,
                   K: int) -> tuple[np.ndarray, np.ndarray]:
    """(first start, last end) in seconds of the jobs run at each site, shape (K,) each; 0 where none ran.

    A mask per site rather than ``np.minimum.at`` / ``np.maximum.at``:
    ``ufunc.at`` took 25 ms per call on SDSC-BLUE, a tenth of ``evogrid
    simulate``'s run time.
    """
    first = np.zeros(K, dtype=np.int64)
    last = np.zeros(K, dtype=np.int64)
    for k in range(K):
        mine = site == k
        if mine.any():
            first[k], last[k] = start[mine].min(), end[mine].max()
    return first, last


def _safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.full(num.shape, np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


def awrt_per_site(jobs: GridJobs, start: np.ndarray, run_time: np.ndarray | None = None,
                  by: np.ndarray | None = None) -> np.ndarray:
    """AWRT_k (s) over the jobs submitted at each site, shape (K,), for start times ``start`` (jobs with
    start -1, refused, are left out).

    ``run_time``: seconds each job ran where it ran (default: as logged; sites
    of different speeds change it, and with it the job's weight SA_j). ``by``: the site each job
    counts at instead of its origin (e.g. the site that ran it).
    """
    run_time = jobs.run_time if run_time is None else run_time
    site = jobs.origin if by is None else by
    sa = np.where(start >= 0, run_time.astype(np.float64) * jobs.procs, 0.0)  # refused jobs never ran
    response = (start + run_time - jobs.submit).astype(np.float64)
    K = jobs.n_sites
    return _safe_div(_per_site_sum(site, sa * response, K), _per_site_sum(site, sa, K))


def site_metrics(schedule: Schedule) -> list[dict[str, float]]:
    """Metrics per site, as a list of K dicts with keys:

    ``site``, ``machine_procs``, ``lrms``, ``jobs_submitted``, ``jobs_executed``,
    ``jobs_refused`` (tau_k's jobs a broker refused, :attr:`Schedule.refused`; every other value
    leaves them out), ``awrt`` (s, over tau_k), ``mean_wait`` and ``max_wait`` (s, tau_k),
    ``mean_bsld`` (tau_k),
    ``mean_xf`` (expansion factor (wait + p) / requested time, tau_k), ``makespan`` (C_max over
    pi_k, s), ``utilization`` (U_k, fraction),
    ``utilization_first_start`` (U_k over [first start, C_max], fraction),
    ``sa`` (SA_k over pi_k, processor-seconds), ``dsa`` (SA_k / SA of tau_k).

    ``utilization`` measures the busy fraction over ``[0, C_max]``, 0 being the
    window start: this is what the dissertation's tables report (it matches
    them within 0.1 points, see docs/reproduction.md). The usual formula,
    measured from the first start (the dissertation's Eq. 7.6), is
    ``utilization_first_start``; the two differ only when a window's first job arrives late
    (SDSC03@0-5: day 5).
    """
    jobs = schedule.jobs
    K = jobs.n_sites
    refused = schedule.refused
    ran = ~refused
    p = schedule.run_time.astype(np.float64)
    sa = p * jobs.procs
    start = schedule.start
    end = start + schedule.run_time
    wait = (start - jobs.submit).astype(np.float64)
    bsld = np.maximum((wait + p) / np.maximum(p, BSLD_TAU_SECONDS), 1.0)
    xf = (wait + p) / np.maximum(jobs.estimate, 1)

    origin, site = jobs.origin, schedule.site
    n_sub = np.bincount(origin, minlength=K)[:K]
    n_refused = np.bincount(origin[refused], minlength=K)[:K]
    n_ran = (n_sub - n_refused).astype(np.float64)  # of tau_k
    n_exec = np.bincount(site[ran], minlength=K)[:K]
    sa_sub = _per_site_sum(origin[ran], sa[ran], K)
    sa_exec = _per_site_sum(site[ran], sa[ran], K)
    first_start, makespan = _per_site_span(site[ran], start[ran], end[ran], K)
    span_from_first = np.where(n_exec > 0, makespan - first_start, 0).astype(np.float64)

    awrt = awrt_per_site(jobs, start, schedule.run_time)
    mean_wait = _safe_div(_per_site_sum(origin[ran], wait[ran], K), n_ran)
    mean_bsld = _safe_div(_per_site_sum(origin[ran], bsld[ran], K), n_ran)
    mean_xf = _safe_div(_per_site_sum(origin[ran], xf[ran], K), n_ran)
    max_wait = np.array([wait[ran & (origin == k)].max(initial=0.0) for k in range(K)])
    util = _safe_div(sa_exec, jobs.machine_procs * makespan.astype(np.float64))
    util_first = _safe_div(sa_exec, jobs.machine_procs * span_from_first)
    rows = []
    for k in range(K):
        rows.append(
            {
                "site": jobs.workloads[k].name,
                "machine_procs": int(jobs.machine_procs[k]),
                "lrms": schedule.lrms[k],
                "jobs_submitted": int(n_sub[k]),
                "jobs_executed": int(n_exec[k]),
                "jobs_refused": int(n_refused[k]),
                "awrt": float(awrt[k]),
                "mean_wait": float(mean_wait[k]),
                "max_wait": float(max_wait[k]),
                "mean_bsld": float(mean_bsld[k]),
                "mean_xf": float(mean_xf[k]),
                "makespan": int(makespan[k]) if n_exec[k] else 0,
                "utilization": float(util[k]),
                "utilization_first_start": float(util_first[k]),
                "sa": float(sa_exec[k]),
                "dsa": float(_safe_div(sa_exec[k : k + 1], sa_sub[k : k + 1])[0]),
            }
        )
    return rows


def grid_utilization(schedule: Schedule) -> float:
    """U_o: total SA / (sum of m_k * latest end), a fraction (span from time 0, as U_k)."""
    jobs = schedule.jobs
    ran = schedule.ran
    sa = float(np.sum(schedule.run_time[ran].astype(np.float64) * jobs.procs[ran]))
    span = float(np.max(schedule.end[ran], initial=0))
    return sa / (float(jobs.machine_procs.sum()) * span) if span > 0 else float("nan")


def load_imbalance(schedule: Schedule) -> float:
    """The spread of the sites' utilisation over one span [0, latest end]: max_k U_k - min_k U_k, a
    fraction (0: every site equally busy). U_k = executed SA at k / (m_k x span)."""
    jobs = schedule.jobs
    ran = schedule.ran
    span = float(np.max(schedule.end[ran], initial=0))
    if span <= 0:
        return 0.0
    sa = _per_site_sum(schedule.site[ran], schedule.run_time[ran].astype(np.float64) * jobs.procs[ran],
                       jobs.n_sites)
    util = sa / (jobs.machine_procs * span)
    return float(util.max() - util.min())


def busy_procs_over_time(schedule: Schedule, site: int) -> tuple[np.ndarray, np.ndarray]:
    """Step function of processors in use at ``site``: (times s, busy processors)."""
    mine = schedule.ran_at(site)
    return _step_series(schedule.start[mine], schedule.end[mine], schedule.jobs.procs[mine])


def queue_length_over_time(schedule: Schedule, site: int | None = None, *, waited_only: bool = False
                           ) -> tuple[np.ndarray, np.ndarray]:
    """Step function of waiting jobs at ``site``, or in the whole grid (None): (times s, jobs waiting),
    one value per instant at which jobs arrive or start (after that instant's changes);
    ``waited_only``: only the instants at which a job starts to wait or stops waiting (jobs that
    start on arrival are left out).

    Under a central pool whose new jobs try their own site first (the published rule,
    evogrid.sim.grid) the grid's waiting jobs are the pool's, and with ``waited_only`` the instants
    are those at which jobs enter or leave the pool.
    """
    mine = schedule.ran if site is None else schedule.ran_at(site)
    waits = mine & (schedule.start > schedule.jobs.submit) if waited_only else mine
    ones = np.ones(int(waits.sum()), dtype=np.int64)
    return _step_series(schedule.jobs.submit[waits], schedule.start[waits], ones)


def moved_share_by_width(schedule: Schedule, edges: Sequence[int]) -> np.ndarray:
    """Shape (K, len(edges) - 1): per site, the share (%) of its own jobs (by origin) with
    ``edges[i] <= procs < edges[i + 1]`` that ran at another site; NaN where it submitted none."""
    jobs = schedule.jobs
    K, classes = jobs.n_sites, len(edges) - 1
    width = np.searchsorted(np.asarray(edges), jobs.procs, side="right") - 1
    known = (width >= 0) & (width < classes)
    flat = jobs.origin[known] * classes + width[known]
    submitted = np.bincount(flat, minlength=K * classes).reshape(K, classes)
    moved = np.bincount(flat, weights=schedule.site[known] != jobs.origin[known], minlength=K * classes)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(submitted > 0, 100.0 * moved.reshape(K, classes) / submitted, np.nan)


def _step_series(
    up_at: np.ndarray, down_at: np.ndarray, amount: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    times = np.concatenate([up_at, down_at])
    delta = np.concatenate([amount, -amount])
    order = np.argsort(times, kind="stable")
    times, level = times[order], np.cumsum(delta[order])
    last = np.append(times[1:] != times[:-1], True)  # one value per instant
    return times[last], level[last]


def migration_matrices(schedule: Schedule) -> tuple[np.ndarray, np.ndarray]:
    """``(M_n, M_SA)``, shape (K, K): row l, column k = the share of the jobs
    submitted at l that ran at k, by count and by squashed area (rows sum to 1; refused jobs left out)."""
    jobs = schedule.jobs
    K = jobs.n_sites
    ran = schedule.ran
    sa = schedule.run_time[ran].astype(np.float64) * jobs.procs[ran]
    flat = jobs.origin[ran] * K + schedule.site[ran]
    counts = np.bincount(flat, minlength=K * K).reshape(K, K).astype(np.float64)
    areas = np.bincount(flat, weights=sa, minlength=K * K).reshape(K, K)
    return (
        _safe_div(counts, counts.sum(axis=1, keepdims=True).repeat(K, axis=1)),
        _safe_div(areas, areas.sum(axis=1, keepdims=True).repeat(K, axis=1)),
    )


def move_stats(schedule: Schedule) -> dict[str, float]:
    """Per-job migration counts: mean, std, max, and the number of jobs that moved."""
    moves = schedule.moves
    return {
        "mean": float(moves.mean()),
        "std": float(moves.std()),
        "max": int(moves.max(initial=0)),
        "jobs_moved": int((moves > 0).sum()),
    }


#: Metrics where smaller is better, compared as ``(base - grid) / base``.
TIME_METRICS = ("awrt", "mean_wait", "mean_bsld", "makespan")


def improvements(base: list[dict], grid: list[dict]) -> list[dict[str, float]]:
    """delta% per site of every time metric against a baseline (positive = better),
    and the change of utilisation in points."""
    out = []
    for b, g in zip(base, grid, strict=True):
        row = {f"delta_{m}_pct": 100.0 * (b[m] - g[m]) / b[m] if b[m] else float("nan") for m in TIME_METRICS}
        row["delta_utilization_points"] = 100.0 * (g["utilization"] - b["utilization"])
        out.append(row)
    return out


def _waiting_counts(schedule: Schedule, requests: Reservations, bookings: Bookings,
                    site: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Per accepted request: the batch jobs waiting at its parts' sites (or at ``site`` only) when
    it was made, and how many of those still wait when it starts."""
    jobs = schedule.jobs
    by_site = {k: (jobs.submit[jobs.origin == k], schedule.start[jobs.origin == k])
               for k in range(jobs.n_sites) if site is None or k == site}
    accepted = np.flatnonzero(bookings.accepted)
    waiting, still = np.zeros(accepted.size, np.int64), np.zeros(accepted.size, np.int64)
    for i, r in enumerate(accepted):
        made, begins = requests.submit[r], bookings.start[r]
        for k in bookings.sites[r]:
            if k not in by_site:
                continue
            submit, start = by_site[k]
            was = (submit <= made) & (start > made)
            waiting[i] += int(was.sum())
            still[i] += int((was & (start > begins)).sum())
    return waiting, still


def unfairness(schedule: Schedule, requests: Reservations, bookings: Bookings,
               site: int | None = None) -> float:
    """Of the batch jobs waiting at a site when an accepted request with a part there was made, the
    share still waiting when it started; pooled over the requests' parts (at ``site``, or all sites)."""
    waiting, still = _waiting_counts(schedule, requests, bookings, site)
    return float(still.sum() / waiting.sum()) if waiting.sum() else 0.0


def mean_unfairness(schedule: Schedule, requests: Reservations, bookings: Bookings) -> float:
    """Meltzer's average Unfairness-Grad: per accepted request, ``warte_noch / warte_vor`` (the jobs
    waiting at its sites when it was made, and of those the ones still waiting when it starts; 0
    when none waited), averaged over the accepted requests."""
    waiting, still = _waiting_counts(schedule, requests, bookings, None)
    if waiting.size == 0:
        return 0.0
    return float(np.where(waiting > 0, still / np.maximum(waiting, 1), 0.0).mean())


def refused_area_share(requests: Reservations, bookings: Bookings) -> float:
    """The share of the requested processor-seconds (duration x processors of all parts) refused."""
    area = requests.duration * requests.parts.sum(axis=1)
    total = area.sum()
    return float(area[~bookings.accepted].sum() / total) if total else 0.0


def reservation_metrics(schedule: Schedule, requests: Reservations, bookings: Bookings) -> dict[str, float]:
    """The reservation users' measures (docs/reservations.md), over all requests.

    ``failure_rate``: share refused (``infeasible`` of them could never fit);
    ``area_failure_rate``: share of the requested processor-seconds refused
    (a rule that refuses the large requests fails few by count, many by area);
    ``mean_relative_start``: over accepted ones, ``(start - earliest) /
    (deadline - duration - earliest)``, with the duration as held (an elastic
    request's on its chosen count; 0 where the window leaves no choice);
    ``mean_relative_start_formed``: Meltzer's, over the variants formed (his algorithms only);
    ``mean_cost`` and ``mean_relative_cost`` (0: the cheapest admissible
    variant, 1: the dearest); ``messages_per_request`` (reservations and roll-backs) and
    ``messages_with_status_per_request`` (and the status queries, as Meltzer's Table 9 counts);
    Meltzer's ``mean_efficiency`` (``Bookings.efficiency``, his Algorithms 1-4);
    ``unfairness`` (:func:`unfairness`, all sites) and Meltzer's per-request
    ``mean_unfairness`` (:func:`mean_unfairness`).
    """
    ok = bookings.accepted
    n = requests.n_requests
    slack = (requests.deadline - bookings.length - requests.earliest_start)[ok]  # length: as held
    relative = np.divide((bookings.start - requests.earliest_start)[ok], slack, out=np.zeros(int(ok.sum())),
                         where=slack > 0)
    return {
        "requests": n,
        "infeasible": int(bookings.infeasible.sum()),
        "failure_rate": float(1 - ok.mean()) if n else 0.0,
        "area_failure_rate": refused_area_share(requests, bookings),
        "mean_relative_start": float(relative.mean()) if relative.size else 0.0,
        "mean_cost": float(bookings.cost[ok].mean()) if ok.any() else 0.0,
        "mean_relative_cost": float(bookings.relative_cost[ok].mean()) if ok.any() else 0.0,
        "mean_relative_start_formed": float(np.nanmean(bookings.relative_start))
        if np.isfinite(bookings.relative_start).any() else float("nan"),
        "messages_per_request": float(bookings.messages.mean()) if n else 0.0,
        "messages_with_status_per_request": float((bookings.messages + bookings.status_queries).mean())
        if n else 0.0,
        "mean_efficiency": float(np.nanmean(bookings.efficiency))
        if np.isfinite(bookings.efficiency).any() else float("nan"),
        "unfairness": unfairness(schedule, requests, bookings),
        "mean_unfairness": mean_unfairness(schedule, requests, bookings),
    }


def _area_before(start: np.ndarray, seconds: np.ndarray, procs: np.ndarray, t_stop: float) -> float:
    """Processor-seconds of intervals ``[start, start + seconds)`` that fall before ``t_stop``."""
    inside = np.clip(start + seconds, None, t_stop) - np.clip(start, None, t_stop)
    return float((np.maximum(inside, 0) * procs).sum())


def _check_until(name: str, schedule: Schedule, t_stop: float, requests: Reservations | None,
                 bookings: Bookings | None) -> None:
    """The inputs Meltzer's averages up to ``t_stop`` share: ValueError naming ``name``'s problem."""
    if t_stop <= 0:
        raise ValueError(f"{name}: t_stop must be > 0 seconds, got {t_stop}")
    if schedule.stopped_bounds is not None:
        raise ValueError(f"{name}: the run stopped early, and unstarted jobs have no start or end")
    if bookings is not None and requests is None:
        raise ValueError(f"{name}: bookings need the requests they answer")


def utilization_until(schedule: Schedule, t_stop: float, requests: Reservations | None = None,
                      bookings: Bookings | None = None) -> list[dict[str, float]]:
    """Meltzer's average utilisation (his 6.1, "Durchschnittliche Auslastung"), per site:
    ``Util = (cs_jobs + cs_reservierungen) / (max_cpus * t_stop)``, where only the processor-seconds
    before the submit stop ``t_stop`` (s) count, a job or part running across it pro rata ("werden
    nur anteilig bei der Berechnung der Auslastung berücksichtigt").

    Keys: ``job_utilization`` (cs_jobs), ``reservation_utilization`` (the held parts; 0 without
    ``bookings``) and ``utilization`` (their sum), fractions of ``m_k * t_stop``. Our
    ``utilization`` of :func:`site_metrics` instead divides by the last end, which counts the
    run-out after the stop.
    """
    _check_until("utilization_until", schedule, t_stop, requests, bookings)
    jobs = schedule.jobs
    held = bookings is not None
    if held:
        parts, seconds = bookings.held(requests)
    rows = []
    for k in range(jobs.n_sites):
        mine = schedule.ran_at(k)
        job_area = _area_before(schedule.start[mine], schedule.run_time[mine], jobs.procs[mine], t_stop)
        held_area = 0.0
        if held:
            r_idx, i_idx = np.nonzero((bookings.sites == k) & bookings.accepted[:, None])
            held_area = _area_before(bookings.start[r_idx], seconds[r_idx], parts[r_idx, i_idx], t_stop)
        capacity = float(jobs.machine_procs[k]) * t_stop
        rows.append({"site": jobs.workloads[k].name, "job_utilization": job_area / capacity,
                     "reservation_utilization": held_area / capacity,
                     "utilization": (job_area + held_area) / capacity})
    return rows


def backlog_until(schedule: Schedule, t_stop: float, acc: np.ndarray, requests: Reservations | None = None,
                  bookings: Bookings | None = None) -> list[dict[str, float]]:
    """Meltzer's backlog time per site (his 4.4.1 "Auftragsbestandszeit", Listing 4), averaged two ways.

    The backlog of site k at time t: ``B_k(t) = (acc_k * sum of estimate * procs over the jobs
    waiting or running there at t + sum of duration * procs over the parts it holds at t) / m_k``
    (s): a job counts from its submit to its end, with its whole estimate (his listing), a held part
    from its request's submit to its end, unweighted. His Table 20(b) and Fig. 23(a) give an
    average per site without saying how it was sampled, and Fig. 23(a) gives one for the simulation
    of jobs alone, which has no status requests; so our reading is the time average:

    - ``mean_backlog``: the average of ``B_k`` over ``[0, t_stop)`` (s), exactly (each job and part
      adds its weight times the overlap of its interval with ``[0, t_stop)``);
    - ``backlog_at_requests``: as a cross-check, the mean of ``B_k`` at the submits of the requests
      before ``t_stop``, each request not counting its own parts (NaN without requests).

    ``acc``: per site, shape (K,) (:meth:`evogrid.sim.booking.ReservationRules.accuracies`). Jobs
    count at the site that ran them from their submit, so a schedule where jobs moved between
    sites (exchange) has no backlog here: ValueError.
    """
    _check_until("backlog_until", schedule, t_stop, requests, bookings)
    jobs = schedule.jobs
    acc = np.asarray(acc, dtype=np.float64)
    if acc.shape != (jobs.n_sites,):
        raise ValueError(f"backlog_until: acc needs one ratio per site ({jobs.n_sites}), "
                         f"got shape {acc.shape}")
    if schedule.moves.any():
        raise ValueError("backlog_until: jobs moved between sites, and a schedule keeps no arrival time "
                         "at the site that ran them")
    end = schedule.start + schedule.run_time
    asked = np.empty(0, dtype=np.int64) if requests is None else requests.submit[requests.submit < t_stop]
    none = np.empty(0, dtype=np.int64)
    if bookings is not None:
        parts, _ = bookings.held(requests)
        held_end = bookings.start + bookings.length
    rows = []
    for k in range(jobs.n_sites):
        mine = schedule.ran_at(k)
        job_w = acc[k] * (jobs.estimate[mine] * jobs.procs[mine])
        job_since, job_until = jobs.submit[mine], end[mine]
        r_idx, part_w, part_since, part_until = none, np.empty(0), none, none
        if bookings is not None:
            r_idx, i_idx = np.nonzero((bookings.sites == k) & bookings.accepted[:, None])
            part_w = (bookings.length[r_idx] * parts[r_idx, i_idx]).astype(np.float64)
            part_since, part_until = requests.submit[r_idx], held_end[r_idx]
        weight = np.concatenate([job_w, part_w])
        since, until = np.concatenate([job_since, part_since]), np.concatenate([job_until, part_until])
        inside = np.maximum(np.minimum(until, t_stop) - np.minimum(since, t_stop), 0)
        m = float(jobs.machine_procs[k])
        row = {"site": jobs.workloads[k].name, "mean_backlog": float((weight * inside).sum()) / (m * t_stop),
               "backlog_at_requests": float("nan")}
        if asked.size:
            # At a request's submit a: the jobs with since <= a < until (since <= until always), and the
            # parts of the requests before it in submit order that have not ended (a part ending by a
            # was booked before a, so by an earlier request).
            at = (_weight_up_to(job_since, job_w, asked) - _weight_up_to(job_until, job_w, asked)
                  + _weight_up_to(r_idx, part_w, np.arange(asked.size), side="left")
                  - _weight_up_to(part_until, part_w, asked))
            row["backlog_at_requests"] = float(at.mean()) / m
        rows.append(row)
    return rows


def _weight_up_to(keys: np.ndarray, weights: np.ndarray, points: np.ndarray,
                  side: str = "right") -> np.ndarray:
    """Per point, the sum of ``weights`` whose key is at most the point (``side="left"``: below it)."""
    order = np.argsort(keys, kind="stable")
    total = np.concatenate([[0.0], np.cumsum(weights[order])])
    return total[np.searchsorted(keys[order], points, side=side)]


def _filtering(degrees: np.ndarray) -> dict[str, float]:
    known = degrees[~np.isnan(degrees)]
    if known.size == 0:
        return {"filter_degree": float("nan"), "infeasibility_rate": float("nan")}
    return {"filter_degree": float(known.mean()), "infeasibility_rate": float((known == 1.0).mean())}


def site_reservation_metrics(schedule: Schedule, requests: Reservations, bookings: Bookings) -> list[dict]:
    """Per site: ``parts`` held, ``reserved_area`` (processor-seconds), ``utilization_with_reservations``
    (jobs' and reservations' processor time over ``m_k * [0, last end]``), ``unfairness`` there, and
    Meltzer's ``filter_degree`` (mean Filterungsgrad over the requests the site was a candidate for)
    and ``infeasibility_rate`` (Undurchführbarkeitsrate: the share of those where it refused every
    part variant); NaN for algorithms that are not his."""
    parts, seconds = bookings.held(requests)
    out = []
    for k in range(schedule.jobs.n_sites):
        r_idx, i_idx = np.nonzero((bookings.sites == k) & bookings.accepted[:, None])
        area = float((parts[r_idx, i_idx] * seconds[r_idx]).sum())
        mine = schedule.ran_at(k)
        job_area = float((schedule.run_time[mine] * schedule.jobs.procs[mine]).sum())
        end = max(int(schedule.end[mine].max(initial=0)),
                  int((bookings.start[r_idx] + seconds[r_idx]).max(initial=0)))
        out.append({
            "site": schedule.jobs.workloads[k].name,
            "parts": int(r_idx.size),
            "reserved_area": area,
            "utilization_with_reservations": (job_area + area) / (schedule.jobs.machine_procs[k] * end)
            if end else 0.0,
            "unfairness": unfairness(schedule, requests, bookings, k),
            **_filtering(bookings.filtered[:, k]),
        })
    return out
