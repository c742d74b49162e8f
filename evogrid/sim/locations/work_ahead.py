"""A site's estimated work ahead, which the completion-time location policies read (MCT, Min-Min,
Max-Min; a ranking rulebase's WAIT_HOURS)."""

from __future__ import annotations

from evogrid.sim.core import ESTIMATE, FREE, HEAP_JOB, M_PROCS, N_HEAP, PROCS, Q_HEAD, Q_TAIL, START_TIME
from evogrid.sim.numba_stamp import njit


@njit(cache=True, inline="always")
def ready_time(l, job, t, jobs, sc, running, out, area):
    """When site l could start ``job`` by MCT's estimate, in seconds: now if its queue is empty and the
    job fits its free processors, else now plus the estimated work ahead (the running jobs' remaining
    estimated area and the waiting jobs' estimated area) spread over its m processors.

    The waiting jobs' area is what was routed to l and has not ended (``area[l]``: ``work.area``, kept
    by the grid loop for a policy that ``reads_work_ahead``) less the running jobs' estimated area:
    one pass over l's running jobs, however long its queue. Inlined into MCT's key, which reads it for
    every candidate (as a call it cost the MCT broker benchmark some 20 %); other keys call
    :func:`ready_time_called`, as each inlined copy adds to every grid loop's compile.
    """
    if sc[l, Q_HEAD] == sc[l, Q_TAIL] and jobs[PROCS, job] <= sc[l, FREE]:
        return float(t)
    ahead = area[l]  # integer processor-seconds: exact in any order
    for i in range(sc[l, N_HEAP]):
        r = running[HEAP_JOB, l, i]
        ahead += (max(0, out[START_TIME, r] + jobs[ESTIMATE, r] - t) - jobs[ESTIMATE, r]) * jobs[PROCS, r]
    return t + ahead / sc[l, M_PROCS]


@njit(cache=True, _nrt=False)
def ready_time_called(l, job, t, jobs, sc, running, out, area):
    """:func:`ready_time` as a call, for a key that reads it only sometimes (a ranking rulebase with
    WAIT_HOURS)."""
    return ready_time(l, job, t, jobs, sc, running, out, area)
