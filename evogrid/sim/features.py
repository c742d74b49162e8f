"""State features a transfer policy may look at (docs/grid.md, TSK rulebases), by code.

Every feature is computed inside the compiled loop from the deciding site's
own state and the job on offer, *before* the job is enqueued. The loop knows
features by code only; their names, default ranges and meanings are the
registry :data:`evogrid.sim.registry.FEATURES`, which rulebase files, the
CLI and the optimisers read.

Adding a feature: a branch for the next code in :func:`feature_value` and an
entry with that code in the registry. The event loop never changes: it
calls :func:`feature_value` for every feature a rulebase lists.
"""

from __future__ import annotations

import numpy as np

from evogrid.sim.codes import (
    F_EST_HOURS,
    F_LOAD_AFTER,
    F_NJP,
    F_NWP,
    F_QLEN,
    F_SPEED,
    F_UTIL,
)
from evogrid.sim.core import ESTIMATE, FREE, M_PROCS, PROCS, Q_HEAD, Q_TAIL, W_PROCS
from evogrid.sim.numba_stamp import njit

SECONDS_PER_HOUR = 3600.0

@njit(cache=True, inline="always")
def feature_value(code, k, job, jobs, sc):
    """Value of feature ``code`` for ``job`` as seen by site ``k`` now (NaN for an unknown code).

    Codes are checked against :data:`evogrid.sim.registry.FEATURES` before a simulation
    starts (:meth:`~evogrid.sim.tsk.TSKStack.stack`); a NaN makes the rulebase output NaN,
    which no test of ``y > 0`` accepts, rather than another feature's value.
    """
    m = sc[k, M_PROCS]
    if code == F_NWP:
        return sc[k, W_PROCS] / m
    if code == F_NJP:
        return jobs[PROCS, job] / m
    if code == F_UTIL:
        return 1.0 - sc[k, FREE] / m
    if code == F_QLEN:
        return float(sc[k, Q_TAIL] - sc[k, Q_HEAD])
    if code == F_EST_HOURS:
        return jobs[ESTIMATE, job] / SECONDS_PER_HOUR
    return np.nan


@njit(cache=True, inline="always")
def ranking_feature(code, k, l, job, jobs, sc, speed):
    """Value of feature ``code`` for site l as a home for site k's ``job`` (a ranking rulebase's input).

    ``LOAD_AFTER``: l's load after taking the job, ``1 - (free - m_j) / m_l``;
    ``SPEED``: ``s_l / s_k``; ``EST_HOURS``: the estimate at l's speed; the
    other transfer features as l would see them (:func:`feature_value`).
    ``WAIT_HOURS`` (MCT's estimated wait at l) needs the queues and is
    computed by the grid loop (evogrid.sim.grid).
    """
    if code == F_LOAD_AFTER:
        return 1.0 - (sc[l, FREE] - jobs[PROCS, job]) / sc[l, M_PROCS]
    if code == F_SPEED:
        return speed[l] / speed[k]
    if code == F_EST_HOURS:
        return jobs[ESTIMATE, job] * speed[k] / speed[l] / SECONDS_PER_HOUR
    return feature_value(code, l, job, jobs, sc)
