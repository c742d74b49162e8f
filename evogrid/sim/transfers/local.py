"""No exchange: a site keeps its own jobs and declines every offer."""

from __future__ import annotations

import numpy as np

from evogrid.sim.core import HOME
from evogrid.sim.numba_stamp import njit


@njit(cache=True, inline="always")
def accepts(s, job, partner, jobs, sc, policy, work, log):
    """1 iff ``job`` was submitted at ``s``."""
    return np.int64(s == jobs[HOME, job])
