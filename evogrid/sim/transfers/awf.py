"""Accept when fit (Lepping's AWF): a site keeps or accepts a job iff it fits its free processors now.
A broker takes offers the same way."""

from __future__ import annotations

import numpy as np

from evogrid.sim.core import FREE, PROCS
from evogrid.sim.numba_stamp import njit


@njit(cache=True, inline="always")
def accepts(s, job, partner, jobs, sc, policy, work, log):
    """1 iff ``job``'s processors are free at ``s`` now."""
    return np.int64(jobs[PROCS, job] <= sc[s, FREE])
