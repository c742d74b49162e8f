"""UTIL: the share of the site's processors busy now."""

from __future__ import annotations

from evogrid.sim.core import FREE, M_PROCS
from evogrid.sim.numba_stamp import njit


@njit(cache=True, inline="always")
def value(k, job, jobs, sc):
    return 1.0 - sc[k, FREE] / sc[k, M_PROCS]
