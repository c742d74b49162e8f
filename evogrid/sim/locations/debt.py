"""The debt account (Lepping's dissertation, 11.2.1), as evogrid reads it: a site asks first the
partners that have used the most of its processors, less what it has used of theirs.

The dissertation names the idea ("einem Schuldenkonto der Arbeitslast, wobei diejenigen Sites bei
Jobabgaben zuerst angefragt werden, die bei der eigenen Site schon viele Ressourcen extern
verbraucht haben und umgekehrt") but gives no unit, update or start value and runs no experiment
with it; the account here is evogrid's design (docs/grid.md).
"""

from __future__ import annotations

from evogrid.sim.numba_stamp import njit


@njit(cache=True, inline="always")
def key(k, l, job, t, jobs, state, policy, work):
    """Minus k's account with l: the processor-seconds of l's jobs completed at k, less those of
    k's jobs completed at l (``work.delegated[1]``, kept by the loop); the largest account first."""
    area = work.delegated[1]
    return area[k, l] - area[l, k], 0.0
