"""Minimum completion time (information-rich): the site where the job would end first by the
estimates. Min-Min and Max-Min use the same key and route jobs submitted together in order of it."""

from __future__ import annotations

from evogrid.sim.core import ESTIMATE
from evogrid.sim.locations.work_ahead import ready_time
from evogrid.sim.numba_stamp import njit


@njit(cache=True, inline="always")
def key(k, l, job, t, jobs, state, policy, work):
    """The job's estimated end at l (s): :func:`ready_time` plus its estimate at l's speed."""
    speed = policy.sites.speed
    ready = ready_time(l, job, t, jobs, state.sc, state.running, state.out, work.area)
    return ready + jobs[ESTIMATE, job] * speed[k] / speed[l], 0.0
