"""Least load after assignment (information-rich; after Beichter's new policy, 7.1.2, not his rule):
the site whose share of busy processors would be lowest once it took the job."""

from __future__ import annotations

from evogrid.sim.core import FREE, M_PROCS, PROCS, waiting_jobs
from evogrid.sim.numba_stamp import njit

#: Beichter's slot factor in the tie-break.
SLOT_FACTOR = 5.0


@njit(cache=True, inline="always")
def key(k, l, job, t, jobs, state, policy, work):
    """``1 - (free - m_j) / m`` at l, ties by ``(waiting jobs + 1) / (5 m)``."""
    sc = state.sc
    m = sc[l, M_PROCS]
    waiting = waiting_jobs(sc, l)
    return 1.0 - (sc[l, FREE] - jobs[PROCS, job]) / m, (waiting + 1) / (m * SLOT_FACTOR)
