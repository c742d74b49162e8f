"""State features a transfer policy may look at (docs/grid.md, TSK rulebases), by name.

Every feature is computed inside the compiled loop from the deciding site's
own state and the job on offer, *before* the job is enqueued. The registry
maps a name to a code, a default range (used to initialise and plot
rulebases) and a one-line meaning.

Adding a feature: add an entry to :data:`FEATURES` with the next code and a
branch for that code in :func:`feature_value`. The event loop never changes:
it calls :func:`feature_value` for every feature a rulebase lists.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from evogrid.sim.core import ESTIMATE, FREE, M_PROCS, PROCS, Q_HEAD, Q_TAIL, W_PROCS

SECONDS_PER_HOUR = 3600.0


@dataclass(frozen=True)
class Feature:
    """A named input of a fuzzy transfer policy."""

    name: str
    code: int
    range: tuple[float, float]
    meaning: str


FEATURES: dict[str, Feature] = {
    f.name: f
    for f in (
        Feature("NWP", 0, (0.0, 10.0), "waiting jobs' processors / m_k (normalised waiting parallelism)"),
        Feature("NJP", 1, (0.0, 1.0), "m_j / m_k (normalised job parallelism)"),
        Feature("UTIL", 2, (0.0, 1.0), "busy processors / m_k now"),
        Feature("QLEN", 3, (0.0, 100.0), "number of jobs waiting in the site's queue"),
        Feature("EST_HOURS", 4, (0.0, 48.0), "the job's run-time estimate in hours"),
    )
}


def feature_code(name: str) -> int:
    """The compiled code of a registered feature; KeyError names the known ones."""
    try:
        return FEATURES[name].code
    except KeyError:
        raise KeyError(f"unknown feature {name!r}; known: {', '.join(FEATURES)}") from None


@njit(cache=True, inline="always")
def feature_value(code, k, job, jobs, sc):
    """Value of feature ``code`` for ``job`` as seen by site ``k`` now (NaN for an unknown code).

    Codes are checked against :data:`FEATURES` before a simulation starts
    (:class:`~evogrid.sim.tsk.TSKStack`); a NaN makes the rulebase output NaN,
    which no test of ``y > 0`` accepts, rather than another feature's value.
    """
    m = sc[k, M_PROCS]
    if code == 0:
        return sc[k, W_PROCS] / m
    if code == 1:
        return jobs[PROCS, job] / m
    if code == 2:
        return 1.0 - sc[k, FREE] / m
    if code == 3:
        return float(sc[k, Q_TAIL] - sc[k, Q_HEAD])
    if code == 4:
        return jobs[ESTIMATE, job] / SECONDS_PER_HOUR
    return np.nan
