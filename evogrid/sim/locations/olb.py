"""Opportunistic load balancing (information-rich): the site with the most free processors now."""

from __future__ import annotations

from evogrid.sim.core import FREE, waiting_jobs
from evogrid.sim.numba_stamp import njit


@njit(cache=True, inline="always")
def key(k, l, job, t, jobs, state, policy, work):
    """Minus l's free processors, ties by its waiting jobs."""
    sc = state.sc
    return float(-sc[l, FREE]), float(waiting_jobs(sc, l))
