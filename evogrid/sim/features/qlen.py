"""QLEN: the number of jobs waiting in the site's queue."""

from __future__ import annotations

from evogrid.sim.core import waiting_jobs
from evogrid.sim.numba_stamp import njit


@njit(cache=True, inline="always")
def value(k, job, jobs, sc):
    return float(waiting_jobs(sc, k))
