"""WAIT_HOURS (information-rich): MCT's estimated wait at the ranked site in hours, from ``ready``,
the time its work ahead would be done (evogrid.sim.locations.work_ahead.ready_time, computed by the
caller for a feature whose entry sets ``reads_ready``)."""

from __future__ import annotations

from evogrid.sim.features.est_hours import SECONDS_PER_HOUR
from evogrid.sim.numba_stamp import njit


@njit(cache=True, inline="always")
def ranking(k, l, job, t, jobs, sc, speed, ready):
    return (ready - t) / SECONDS_PER_HOUR
