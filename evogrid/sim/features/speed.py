"""SPEED: the ranked site's speed / the job's home site's speed."""

from __future__ import annotations

from evogrid.sim.numba_stamp import njit


@njit(cache=True, inline="always")
def ranking(k, l, job, t, jobs, sc, speed, ready):
    return speed[l] / speed[k]
