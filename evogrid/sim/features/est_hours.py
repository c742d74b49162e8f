"""EST_HOURS: the job's run-time estimate in hours; as a ranking feature, at the ranked site's speed."""

from __future__ import annotations

from evogrid.sim.core import ESTIMATE
from evogrid.sim.numba_stamp import njit

SECONDS_PER_HOUR = 3600.0


@njit(cache=True, inline="always")
def value(k, job, jobs, sc):
    return jobs[ESTIMATE, job] / SECONDS_PER_HOUR


@njit(cache=True, inline="always")
def ranking(k, l, job, t, jobs, sc, speed, ready):
    return jobs[ESTIMATE, job] * speed[k] / speed[l] / SECONDS_PER_HOUR
