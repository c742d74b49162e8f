"""QLEN: the number of jobs waiting in the site's queue."""

from __future__ import annotations

from evogrid.sim.core import Q_HEAD, Q_TAIL
from evogrid.sim.numba_stamp import njit


@njit(cache=True, inline="always")
def value(k, job, jobs, sc):
    return float(sc[k, Q_TAIL] - sc[k, Q_HEAD])
