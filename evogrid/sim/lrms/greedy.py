"""LIST (greedy) scheduling: every job that fits starts, in queue order."""

from __future__ import annotations

from evogrid.sim.lrms.base import START, Lrms
from evogrid.sim.numba_stamp import njit


@njit(cache=True, inline="always")
def list_rule(t, need, estimate, T, extra):
    """LIST (greedy): start whatever fits."""
    return START, extra


@njit(cache=True, inline="always")
def always(t, need, estimate, T, extra):
    """A rule's ``may_start`` where every job that fits starts."""
    return True


ENTRY = Lrms("list", 2, "LIST (greedy): every job that fits starts, in queue order", list_rule,
             may_start=always)
