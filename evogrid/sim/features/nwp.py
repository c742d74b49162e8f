"""NWP, normalised waiting parallelism: the processors the site's waiting jobs request / m_k."""

from __future__ import annotations

from evogrid.sim.core import M_PROCS, W_PROCS
from evogrid.sim.numba_stamp import njit


@njit(cache=True, inline="always")
def value(k, job, jobs, sc):
    return sc[k, W_PROCS] / sc[k, M_PROCS]


@njit(cache=True, inline="always")
def admission(k, t, s, duration, need, lead_room, state):
    return state.sc[k, W_PROCS] / state.sc[k, M_PROCS]
