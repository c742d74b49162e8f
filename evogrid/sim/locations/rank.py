"""Learned rankings: site k's TSK ranking rulebase (``rulebase_of[k, k]``) scores each site, the
highest first (docs/grid.md)."""

from __future__ import annotations

from evogrid.sim import features
from evogrid.sim.locations.work_ahead import ready_time_called
from evogrid.sim.numba_stamp import njit
from evogrid.sim.tsk import META_CODES, META_FEATURES, rulebase_output


@njit(cache=True, inline="always")
def key(k, l, job, t, jobs, state, policy, work):
    """Minus the output of k's ranking rulebase for l; its features are seen at l (WAIT_HOURS: MCT's
    estimated wait there, in hours)."""
    rb_params, rb_meta = policy.rb_params, policy.rb_meta
    r = policy.rulebase_of[k, k]
    waits = False  # does the rulebase read the wait at l?
    for h in range(rb_meta[r, META_FEATURES]):
        waits = waits or features.reads_ready(rb_meta[r, META_CODES + h])
    sc, speed = state.sc, policy.sites.speed
    ready = ready_time_called(l, job, t, jobs, sc, state.running, state.out, work.area) if waits else 0.0
    x, scratch = work.x, work.exponents
    for h in range(rb_meta[r, META_FEATURES]):
        x[h] = features.ranking_value(rb_meta[r, META_CODES + h], k, l, job, t, jobs, sc, speed, ready)
    return -rulebase_output(rb_params, rb_meta, r, x, scratch), 0.0
