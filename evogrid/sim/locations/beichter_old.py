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
   keine Ressource frei ist"): these sites come last, and a broker whose every site is here refuses
   the job (``refusals = "refuse"``: it never runs) or keeps it at its origin (``"keep"``).

With ``grid_slots`` (LoadLeveler's ``maxslots`` of the grid's class at a site) his slots are not the
site's processors: ``freeslots = maxslots`` less the processors of the jobs from other sites running
there, which falls only when such a job starts, not when it joins the queue (his 7.1.1: "weil das
Attribut freeSlot nur abnimmt, falls ein Job ausgeführt wird"). That is the flaw his new policy
mends: a site whose processors (LoadLeveler's starters) are taken by its own users keeps looking
free. ``jobwait`` stays every waiting job of the site (his counts the grid class's).
"""

from __future__ import annotations

from evogrid.sim.codes import REFUSED_KEY as REFUSED
from evogrid.sim.core import FREE, LIM_SLOTS, M_PROCS, PROCS, grid_running, waiting_jobs
from evogrid.sim.numba_stamp import njit

#: His ``slotFactor`` ("eine beliebig gewählte Konstante", an arbitrarily chosen constant; 5 in his code).
SLOT_FACTOR = 5


@njit(cache=True, inline="always")
def key(k, l, job, t, jobs, state, policy, work):
    """``(-free / m, -m)`` with room for the job now, ``(1 + waiting / (5 m), 0)`` without room and a
    queue under its cap, else ``(REFUSED, 0)``; with ``grid_slots``, ``free`` and ``m`` are the
    site's free and total slots (:func:`~evogrid.sim.core.grid_running` on the site as the keys see
    it: as last published, with ``REFRESH``)."""
    sc = state.sc
    m = sc[l, M_PROCS]
    free = sc[l, FREE]
    slots = policy.limits[LIM_SLOTS, l]
    if slots >= 0:
        m = slots
        free = slots - grid_running(l, jobs, state.sc, state.running)[0]
    waiting = waiting_jobs(sc, l)
    if free >= jobs[PROCS, job]:
        if waiting > 2 * m and free > m // 10 + 2:  # "something wrong with host": skipped
            return REFUSED, 0.0
        return -free / m, float(-m)
    if waiting < SLOT_FACTOR * m:
        return 1.0 + waiting / (SLOT_FACTOR * m), 0.0
    return REFUSED, 0.0
