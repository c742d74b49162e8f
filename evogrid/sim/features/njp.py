"""NJP, normalised job parallelism: the job's processors / m_k."""

from __future__ import annotations

from evogrid.sim.core import M_PROCS, PROCS
from evogrid.sim.numba_stamp import njit


@njit(cache=True, inline="always")
def value(k, job, jobs, sc):
    return jobs[PROCS, job] / sc[k, M_PROCS]
