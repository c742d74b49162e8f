"""BEFORE_NEXT: 1 if the part ends by the site's next planned start (Meltzer's backfill test), else 0."""

from __future__ import annotations

from evogrid.sim.numba_stamp import njit


@njit(cache=True, inline="always")
def admission(k, t, s, duration, need, lead_room, state):
    return 1.0 if s + duration <= lead_room[1] else 0.0
