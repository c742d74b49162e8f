"""RESERVED: the share of m_k x duration already reserved at the site over the part's interval."""

from __future__ import annotations

from evogrid.sim.core import H_END, H_PROCS, H_START, M_PROCS
from evogrid.sim.numba_stamp import njit


@njit(cache=True, inline="always")
def admission(k, t, s, duration, need, lead_room, state):
    held, held_n = state.held, state.held_n
    overlap = 0
    for h in range(held_n[k]):
        inside = min(held[H_END, k, h], s + duration) - max(held[H_START, k, h], s)
        overlap += max(inside, 0) * held[H_PROCS, k, h]
    return overlap / (state.sc[k, M_PROCS] * duration)
