"""The AWRT location policy (Lepping's dissertation, 12.5.1, "Eine AWRT-basierte Lokationspolitik"):
partners are sorted by the AWRT of the jobs delegated to them so far, the shortest first; evogrid
tries partners never delegated to first (in index order)."""

from __future__ import annotations

from evogrid.sim.numba_stamp import njit


@njit(cache=True, inline="always")
def key(k, l, job, t, jobs, state, policy, work):
    """The AWRT (s) of the jobs k delegated to l that have completed; -1 while none has."""
    num, den = work.delegated[0], work.delegated[1]
    return (num[k, l] / den[k, l] if den[k, l] > 0 else -1.0), 0.0
