"""PART: a reservation part's processors / m_k."""

from __future__ import annotations

from evogrid.sim.core import M_PROCS
from evogrid.sim.numba_stamp import njit


@njit(cache=True, inline="always")
def admission(k, t, s, duration, need, lead_room, state):
    return need / state.sc[k, M_PROCS]
