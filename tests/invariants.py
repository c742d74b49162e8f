"""Invariants every simulated schedule must satisfy, whatever the LRMS, strategy or backend."""

from __future__ import annotations

import numpy as np
from reference_sim import earliest_start

from evogrid.sim.schedule import Schedule


def check_schedule(schedule: Schedule, joined_in_submit_order: bool = True, may_refuse: bool = False,
                   limited: tuple = ()) -> None:
    """Assert: each job once, no start before submit, capacity, FCFS order; a moved job's site holds
    the attributes it requires and its run time is scaled by the two sites' speeds.

    FCFS order is checked against the submit order, which is the order jobs join a site's queue
    unless brokers hold jobs (hand-over ``when-room``: ``joined_in_submit_order`` False).
    ``may_refuse``: brokers may refuse jobs (``Exchange.may_refuse``); a refused job never started,
    stays at its origin and never moved; the rest hold for the jobs that ran. ``limited``: per site,
    does LoadLeveler enforce the grid's slots or maxjobs there? Such a site passes over jobs from
    elsewhere, so there FCFS order holds among its own jobs."""
    jobs = schedule.jobs
    refused = schedule.refused
    assert may_refuse or not refused.any(), "a job never started"
    assert (schedule.site[refused] == jobs.origin[refused]).all() and (schedule.moves[refused] == 0).all()
    ran = ~refused
    start, end = schedule.start, schedule.end
    assert (start[ran] >= jobs.submit[ran]).all(), "a job started before its submission"
    assert schedule.site.shape == jobs.submit.shape
    for k in range(jobs.n_sites):
        mine = (schedule.site == k) & ran
        assert (jobs.procs[mine] <= jobs.machine_procs[k]).all()
        assert peak_in_use(start[mine], end[mine], jobs.procs[mine]) <= jobs.machine_procs[k], \
            f"site {k} over capacity"
        if joined_in_submit_order and schedule.lrms[k] == "fcfs" and (
            schedule.scheme in ("local", "exchange") or schedule.pool_arrivals == "queued"
        ):
            # Queue order = arrival order: starts never overtake. (A pool site
            # whose new jobs come first starts a new job of its own before
            # older pool jobs; with queued arrivals every job waits in the
            # pool in arrival order, and a site stops at the first it can run
            # but not start.)
            # (Min-Min and Max-Min may route jobs submitted at one instant in another order.)
            if limited and limited[k]:
                mine &= jobs.origin == k
            order = np.lexsort((start[mine], jobs.submit[mine]))
            assert (np.diff(start[mine][order]) >= 0).all(), "FCFS started jobs out of order"
    speed, tags, hard, _ = jobs.site_arrays
    site, origin = schedule.site, jobs.origin  # a refused job's site is its origin: the checks hold
    assert ((tags[site] & hard) == hard)[site != origin].all(), "a job moved to a site lacking a requirement"
    factor = speed[origin] / speed[site]
    scaled = np.maximum(jobs.run_time > 0, np.floor(jobs.run_time * factor + 0.5)).astype(np.int64)
    assert (schedule.run_time == np.where(site == origin, jobs.run_time, scaled)).all(), \
        "a run time not scaled by the speeds"


def peak_in_use(start: np.ndarray, end: np.ndarray, procs: np.ndarray) -> int:
    """The most processors the jobs ``[start, end)`` hold at once (0 for none)."""
    times = np.concatenate([start, end])
    delta = np.concatenate([procs, -procs])
    # At equal times releases (negative) come first: a job may start the instant another ends.
    return int(np.cumsum(delta[np.lexsort((delta, times))]).max(initial=0))


def conservative_violations(m, submit, run_time, procs, estimate, start) -> list[tuple[int, int]]:
    """Where a one-site schedule breaks conservative backfilling's promise: (time, job) pairs.

    The promise: a job started at time t delays the reservation of no job
    queued ahead of it that still waits after t. At each start time, the
    waiting jobs (in queue order) reserve their earliest fit on the jobs
    running after t, once without and once with the jobs started at t behind
    each of them; the reservations must agree. Zero-length jobs are not
    supported (they hold no processors after t).
    """
    n = len(submit)
    bad = []

    def reservations(t, ahead, run_set):
        """Reservation starts of the jobs ``ahead`` (in order) on the jobs in ``run_set``."""
        busy = [(t, start[j] + estimate[j], procs[j]) for j in run_set]
        found = []
        for w in ahead:
            s = earliest_start(m, t, procs[w], estimate[w], busy)
            busy.append((s, s + estimate[w], procs[w]))
            found.append(s)
        return found

    for t in sorted(set(start)):
        running = [j for j in range(n) if start[j] <= t < start[j] + run_time[j]]
        waiting = [e for e in range(n) if submit[e] <= t < start[e]]
        for e in waiting:
            behind = [j for j in running if start[j] == t and j > e]
            ahead = [w for w in waiting if w <= e]
            base = [j for j in running if j not in behind]
            if behind and reservations(t, ahead, base) != reservations(t, ahead, base + behind):
                bad.append((t, e))
    return bad
