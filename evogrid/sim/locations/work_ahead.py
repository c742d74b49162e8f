"""A site's estimated work ahead, which the completion-time location policies read (MCT, Min-Min,
Max-Min; a ranking rulebase's WAIT_HOURS)."""

from __future__ import annotations

from evogrid.sim.core import ESTIMATE, FREE, HEAP_JOB, M_PROCS, N_HEAP, PROCS, Q_HEAD, Q_TAIL, START_TIME
from evogrid.sim.numba_stamp import njit


@njit(cache=True, _nrt=False)
def ready_time(l, job, t, jobs, sc, running, out, area):
    """When site l could start ``job`` by MCT's estimate, in seconds: now if its queue is empty and the
    job fits its free processors, else now plus the estimated work ahead (the running jobs' remaining
    estimated area and the waiting jobs' estimated area) spread over its m processors.

    The waiting jobs' area is what was routed to l and has not ended (``area[l]``: ``work.area``, kept
    by the grid loop for a policy that ``reads_work_ahead``) less the running jobs' estimated area:
    one pass over l's running jobs, however long its queue. Not inlined: two keys call it (MCT's and
    the ranking rulebase's), and each inlined copy would add to every grid loop's compile.
    """
    if sc[l, Q_HEAD] == sc[l, Q_TAIL] and jobs[PROCS, job] <= sc[l, FREE]:
        return float(t)
    ahead = area[l]  # integer processor-seconds: exact in any order
    for i in range(sc[l, N_HEAP]):
        r = running[HEAP_JOB, l, i]
        ahead += (max(0, out[START_TIME, r] + jobs[ESTIMATE, r] - t) - jobs[ESTIMATE, r]) * jobs[PROCS, r]
    return t + ahead / sc[l, M_PROCS]
