"""Beichter's original policy (his 3.4, the IBM grid scheduler's; information-rich): sites with
room for the job first, least loaded before it is handed over; else the shortest queue relative to
five times the site's size; a site whose queue is full, or that looks broken, last.

His clusters run one-slot jobs; here a slot is a processor and "free capacity" (his ``freeSlots >
0``) is room for the job now (``free >= m_j``). His code (listing in 3.4) as the key, phase by phase:

1. room now: ``freeslots / maxslots`` highest first, ties by the larger ``maxslots``; except a site
   with ``jobwait > 2 maxslots`` and ``freeslots > maxslots // 10 + 2`` ("something wrong with
   host"), which his code skips;
2. no room: ``jobwait < 5 maxslots`` ("max. Warteschlangenlänge = maxSlots * slotFactor"), lowest
   ``jobwait / (5 maxslots)`` first;
3. neither: he refuses the job ("der Scheduler antwortet dem Klienten mit der Fehlermeldung, dass
   keine Ressource frei ist"); evogrid cannot refuse, so these sites come last, and a broker whose
   every site is here keeps the job at its origin (first among equal keys).
"""

from __future__ import annotations

from evogrid.sim.core import FREE, M_PROCS, PROCS, waiting_jobs
from evogrid.sim.numba_stamp import njit

#: His ``slotFactor`` ("eine beliebig gewählte Konstante", an arbitrarily chosen constant; 5 in his code).
SLOT_FACTOR = 5
#: The key of a site his policy would not hand the job to.
REFUSED = 3.0


@njit(cache=True, inline="always")
def key(k, l, job, t, jobs, state, policy, work):
    """``(-free / m, -m)`` with room for the job now, ``(1 + waiting / (5 m), 0)`` without room and a
    queue under its cap, else ``(REFUSED, 0)``."""
    sc = state.sc
    m = sc[l, M_PROCS]
    free = sc[l, FREE]
    waiting = waiting_jobs(sc, l)
    if free >= jobs[PROCS, job]:
        if waiting > 2 * m and free > m // 10 + 2:  # "something wrong with host": skipped
            return REFUSED, 0.0
        return -free / m, float(-m)
    if waiting < SLOT_FACTOR * m:
        return 1.0 + waiting / (SLOT_FACTOR * m), 0.0
    return REFUSED, 0.0
