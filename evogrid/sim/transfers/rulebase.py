"""A TSK fuzzy rulebase per partner decides (docs/grid.md): ``rulebase_of[s, partner]`` of the
stack, fed the features it names, accepts iff its output y > 0; where a feature lies beyond the
rulebase's bounds (``policy.rb_bounds``, infinite unless the guard ``outside_range = "awf"`` is on),
the site decides as AWF instead."""

from __future__ import annotations

import numpy as np

from evogrid.sim import features
from evogrid.sim.numba_stamp import njit
from evogrid.sim.transfers import awf
from evogrid.sim.tsk import META_CODES, META_FEATURES, rulebase_output


@njit(cache=True, inline="always")
def accepts(s, job, partner, jobs, sc, policy, work, log):
    """1 iff the rulebase ``s`` uses with ``partner`` (the offering site for a foreign job, the
    first partner in location order for an own job) outputs y > 0; AWF's answer (the job fits the
    free processors) where a feature lies beyond the rulebase's bounds. Each rulebase decision is
    appended to the log arrays while they have room (recording on); AWF's answers are not."""
    rulebase_of, rb_params, rb_meta = policy.rulebase_of, policy.rb_params, policy.rb_meta
    bounds = policy.rb_bounds
    x, scratch = work.x, work.exponents
    r = rulebase_of[s, partner]
    nf = rb_meta[r, META_FEATURES]
    outside = False
    for h in range(nf):
        x[h] = features.transfer_value(rb_meta[r, META_CODES + h], s, job, jobs, sc)
        outside |= x[h] < bounds[r, h, 0] or x[h] > bounds[r, h, 1]
    if outside:
        return awf.accepts(s, job, partner, jobs, sc, policy, work, log)
    y = rulebase_output(rb_params, rb_meta, r, x, scratch)
    log_ids, log_vals, n_log = log
    if n_log[0] < log_ids.shape[0]:
        i = n_log[0]
        log_ids[i, 0] = s
        log_ids[i, 1] = partner
        for h in range(nf):
            log_vals[i, h] = x[h]
        log_vals[i, log_vals.shape[1] - 1] = y
        n_log[0] += 1
    return np.int64(y > 0.0)
