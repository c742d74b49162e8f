"""LEAD: a reservation part's start's lead over now, (s - t) / (s - t + backlog_k): 0 when it starts
now, 0.5 where the site's backlog clears, towards 1 far beyond it."""

from __future__ import annotations

from evogrid.sim.numba_stamp import njit


@njit(cache=True, inline="always")
def admission(k, t, s, duration, need, lead_room, state):
    lead = s - t
    return 1.0 if lead + lead_room[0] == 0 else lead / (lead + lead_room[0])
