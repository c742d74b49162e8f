"""Invariants every simulated schedule must satisfy, whatever the LRMS, strategy or backend."""

from __future__ import annotations

import numpy as np

from evogrid.sim.schedule import Schedule


def check_schedule(schedule: Schedule) -> None:
    """Assert: each job once, no start before submit, capacity, FCFS order."""
    jobs = schedule.jobs
    start, end = schedule.start, schedule.end
    assert (start >= 0).all(), "a job never started"
    assert (start >= jobs.submit).all(), "a job started before its submission"
    assert schedule.site.shape == jobs.submit.shape
    for k in range(jobs.n_sites):
        mine = schedule.site == k
        assert (jobs.procs[mine] <= jobs.machine_procs[k]).all()
        times = np.concatenate([start[mine], end[mine]])
        delta = np.concatenate([jobs.procs[mine], -jobs.procs[mine]])
        # At equal times releases (negative) come first: a job may start
        # the instant another ends.
        order = np.lexsort((delta, times))
        in_use = np.cumsum(delta[order])
        assert in_use.max(initial=0) <= jobs.machine_procs[k], f"site {k} over capacity"
        if schedule.lrms[k] == "fcfs" and (
            schedule.scheme in ("local", "exchange") or schedule.pool_arrivals == "queued"
        ):
            # Queue order = arrival order: starts never overtake. (A pool site
            # whose new jobs come first starts a new job of its own before
            # older pool jobs; with queued arrivals every job waits in the
            # pool in arrival order, and a site stops at the first it can run
            # but not start.)
            assert (np.diff(start[mine]) >= 0).all(), "FCFS started jobs out of order"
