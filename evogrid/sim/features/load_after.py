"""LOAD_AFTER: the ranked site's load after taking the job, 1 - (free - m_j) / m_l."""

from __future__ import annotations

from evogrid.sim.core import FREE, M_PROCS, PROCS
from evogrid.sim.numba_stamp import njit


@njit(cache=True, inline="always")
def ranking(k, l, job, t, jobs, sc, speed, ready):
    return 1.0 - (sc[l, FREE] - jobs[PROCS, job]) / sc[l, M_PROCS]
