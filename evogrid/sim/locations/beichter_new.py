"""Beichter's new policy (his 7.1.2; information-rich): sites with room for the job and an empty
queue first, least loaded after it is handed over; else the shortest queue, after the job joins it,
relative to five times the site's size; a site whose queue is full last.

His clusters run one-slot jobs and leave the grid ``minFree = min(freestarters, freeslots,
maxjobs - running)`` free slots of ``minMax = min(maxstarters, maxslots, maxjobs)``. Here his
starters are the processors, so without LoadLeveler's limits ``minFree`` is the free processors and
``minMax`` the site's size, and "after the job" takes the job's processors (his ``minFree - 1``).
With ``grid_slots`` (``maxslots``), ``freeslots`` is ``maxslots`` less the processors of the grid's
running jobs (:func:`~evogrid.sim.core.grid_running`) and the queue cap ``5
maxslots``; with ``grid_maxjobs`` (``maxjobs``), ``freejobs = maxjobs - running``, ``running`` the
grid's running jobs. His formula counts a job as one slot; for a job of m_j processors ours asks
for room (``min(free processors, freeslots) >= m_j``) and ``freejobs >= 1``, as LoadLeveler counts a
job once, and takes ``min(free processors - m_j, freeslots - m_j, freejobs - 1)`` as what is left
after it (his ``minFree - 1`` for one-slot jobs; docs/grid.md).
His code (listing in 7.1.2) as the key, phase by phase:

1. ``minFree > 0 && jobwait == 0`` (room now and an empty queue; his text asks only for room:
   "falls eine Ressource freie Kapazität für die Ausführung eines Jobs hat, also minFree > 0"):
   ``(minFree - 1) / minMax`` highest first, ties by the larger capacity ("wird die Ressource mit
   der größeren Kapazität minMax verwendet"; his code compares maxstarters, the same here);
2. otherwise, if ``jobwait < 5 maxslots``: lowest ``(jobwait + 1) / (5 minMax)`` first;
3. neither: he refuses the job: these sites come last, and a broker whose every site is here
   refuses it (``refusals = "refuse"``) or keeps it at its origin (``"keep"``).
"""

from __future__ import annotations

from evogrid.sim.codes import REFUSED_KEY as REFUSED
from evogrid.sim.core import FREE, LIM_MAXJOBS, LIM_SLOTS, M_PROCS, NEVER, PROCS, grid_running, waiting_jobs
from evogrid.sim.locations.beichter_old import SLOT_FACTOR
from evogrid.sim.numba_stamp import njit


@njit(cache=True, inline="always")
def key(k, l, job, t, jobs, state, policy, work):
    """``(-(free - m_j) / m, -m)`` with room for the job and no job waiting, ``(1 + (waiting + 1) /
    (5 m), 0)`` otherwise while the queue is under its cap, else ``(REFUSED, 0)``; with
    ``grid_slots`` or ``grid_maxjobs``, ``free`` is ``minFree`` and the shares are of ``minMax``, the
    cap ``5 maxslots``."""
    sc = state.sc
    m = sc[l, M_PROCS]
    free = sc[l, FREE]
    capacity = m
    cap = SLOT_FACTOR * m
    free_jobs = NEVER  # his freejobs, jobs the grid's user may still start there
    slots, maxjobs = policy.limits[LIM_SLOTS, l], policy.limits[LIM_MAXJOBS, l]
    if slots >= 0 or maxjobs >= 0:
        used, running = grid_running(l, jobs, sc, state.running)
        if slots >= 0:
            free = min(free, slots - used)
            capacity = min(capacity, slots)
            cap = SLOT_FACTOR * slots
        if maxjobs >= 0:
            free_jobs = maxjobs - running
            capacity = min(capacity, maxjobs)
    need = jobs[PROCS, job]
    waiting = waiting_jobs(sc, l)
    if free >= need and free_jobs >= 1 and waiting == 0:
        return -min(free - need, free_jobs - 1) / capacity, float(-m)
    if waiting < cap:
        return 1.0 + (waiting + 1) / (SLOT_FACTOR * capacity), 0.0
    return REFUSED, 0.0
