"""Beichter's new policy (his 7.1.2; information-rich): sites with room for the job and an empty
queue first, least loaded after it is handed over; else the shortest queue, after the job joins it,
relative to five times the site's size; a site whose queue is full last.

His clusters run one-slot jobs and leave the grid ``minFree = min(freestarters, freeslots,
maxjobs - running)`` free slots of ``minMax = min(maxstarters, maxslots, maxjobs)``; evogrid's sites
have no LoadLeveler starter or per-user limits, so here ``minFree`` is the free processors and
``minMax`` the site's size, and "after the job" takes the job's processors (his ``minFree - 1``).
With ``grid_slots`` (``maxslots``), ``minFree = min(free processors, freeslots)`` (his starters are
the processors; :func:`~evogrid.sim.locations.beichter_old.free_slots`), ``minMax = min(m,
maxslots)`` and the queue cap ``5 maxslots``; ``maxjobs`` is the grid cap, which excludes a site
rather than ranking it (docs/grid.md).
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
from evogrid.sim.core import FREE, M_PROCS, PROCS, waiting_jobs
from evogrid.sim.locations.beichter_old import SLOT_FACTOR, free_slots
from evogrid.sim.numba_stamp import njit


@njit(cache=True, inline="always")
def key(k, l, job, t, jobs, state, policy, work):
    """``(-(free - m_j) / m, -m)`` with room for the job and no job waiting, ``(1 + (waiting + 1) /
    (5 m), 0)`` otherwise while the queue is under its cap, else ``(REFUSED, 0)``; with
    ``grid_slots``, ``free`` is ``minFree`` and the shares are of ``minMax``, the cap ``5 maxslots``."""
    sc = state.sc
    m = sc[l, M_PROCS]
    free = sc[l, FREE]
    capacity = m
    cap = SLOT_FACTOR * m
    slots = policy.grid_slots[l]
    if slots >= 0:
        free = min(free, free_slots(l, slots, jobs, state))
        capacity = min(m, slots)
        cap = SLOT_FACTOR * slots
    need = jobs[PROCS, job]
    waiting = waiting_jobs(sc, l)
    if free >= need and waiting == 0:
        return -(free - need) / capacity, float(-m)
    if waiting < cap:
        return 1.0 + (waiting + 1) / (SLOT_FACTOR * capacity), 0.0
    return REFUSED, 0.0
