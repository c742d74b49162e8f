"""EASY backfilling: a job may pass the blocked head if it does not delay the head's reservation."""

from __future__ import annotations

from evogrid.sim.lrms.base import SKIP, START, Lrms
from evogrid.sim.numba_stamp import njit


@njit(cache=True, inline="always")
def easy_rule(t, need, estimate, T, extra):
    """EASY backfilling: start a job that does not delay the head's reservation.

    It ends (by its estimate) by the shadow time ``T``, or it uses only the
    ``extra`` processors spare at ``T`` (which it then takes).
    """
    if t + estimate <= T:
        return START, extra
    if need <= extra:
        return START, extra - need
    return SKIP, extra


@njit(cache=True, inline="always")
def easy_may_start(t, need, estimate, T, extra):
    """Might EASY start a job needing at least ``need`` processors for at least ``estimate`` s?"""
    return t + estimate <= T or need <= extra


ENTRY = Lrms("easy", 1, "EASY backfilling: jobs may pass the head if they do not delay its reservation",
             easy_rule, uses_shadow=True, may_start=easy_may_start)
