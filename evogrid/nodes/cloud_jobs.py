"""Cankar's test batches of scalable jobs (dissertation, 4.5.2), for the co-location preprocessor.

His generator, as far as he describes it: shares from {0.2, 0.4, 0.6, 0.8,
1.0} (one value for all resources of a fully balanced job, independent
ones otherwise), a given share of fully balanced jobs, scaling ranges
``d_max / d_min`` between 1.25 and 5 with mean 3.5 (``d_min`` in [0.15,
0.8], ``d_max`` in [0.2, 1]), durations uniform in 4.5 ± 2.5 h, either
one task per job or tasks uniform in [1, 0.3 |V|] ([1, 2] on 5 nodes), and
as many jobs as make the batch's demand "sorazmerna kapaciteti virov, ki
jo oblak lahko ponudi v 24 urah" (proportional to what the cloud offers in
24 hours). What he leaves open is our choice, written in
docs/coallocation.md ("Co-location"): the law of the scaling range, where
a share lies in its range (:data:`SHARE_POSITIONS`), and the proportion (fitted once to his Table
4.1's job counts without parallel jobs).
"""

from __future__ import annotations

import numpy as np

from evogrid.nodes.colocation import ScalableJobs

SHARES = (0.2, 0.4, 0.6, 0.8, 1.0)
#: The batch's demand (mean share x hours x tasks, summed) over the nodes' 24 hours, fitted so
#: that batches without parallel jobs have Table 4.1's job counts (docs/coallocation.md).
DEMAND_OF_CAPACITY = 0.81
#: The scaling range d_max / d_min: a triangular law on [1.25, 5] with mode 4.25 (mean 3.5, before
#: the bounds are clipped to his intervals; the realised ranges average about 2.8).
RANGE = (1.25, 4.25, 5.0)
LOW_BOUNDS, HIGH_BOUNDS = (0.15, 0.8), (0.2, 1.0)
#: Where a share lies inside its scaling range (his text leaves it open; "log", uniform in the
#: logarithm, is ours): uniform in the logarithm or linearly, at the geometric middle, or in the
#: top quarter (in the logarithm: the job can shrink most). Each draws one uniform number, so the
#: batches differ in the bounds only.
SHARE_POSITIONS = ("log", "linear", "middle", "top")


def _bounds(rng: np.random.Generator, share: float, position: str) -> tuple[float, float]:
    """(d_min, d_max) around ``share``: a range drawn from :data:`RANGE`, the share at a
    ``position`` (:data:`SHARE_POSITIONS`) inside it, then both clipped to his intervals."""
    ratio = rng.triangular(*RANGE)
    u = rng.uniform()
    if position == "linear":
        low = share / (1 + u * (ratio - 1))
    else:
        low = share / ratio ** {"log": u, "middle": 0.5, "top": 0.75 + 0.25 * u}[position]
    low = float(np.clip(low, *LOW_BOUNDS))
    high = float(np.clip(low * ratio, *HIGH_BOUNDS))
    return min(low, share), max(high, share)


def scalable_batch(n_nodes: int, balanced: float, parallel: bool, seed: int,
                   share_position: str = "log") -> ScalableJobs:
    """A batch for ``n_nodes`` nodes with a share ``balanced`` of fully balanced jobs (module
    docstring); ``parallel``: tasks uniform in [1, max(2, 0.3 n_nodes)], else one task each;
    ``share_position``: one of :data:`SHARE_POSITIONS`."""
    if share_position not in SHARE_POSITIONS:
        raise ValueError(f"share_position: unknown {share_position!r}; expected one of {SHARE_POSITIONS}")
    rng = np.random.default_rng(seed)
    most_tasks = max(2, int(0.3 * n_nodes)) if parallel else 1
    rows = []
    demand, target = 0.0, DEMAND_OF_CAPACITY * n_nodes * 24.0
    while demand < target:
        if rng.uniform() < balanced:
            need = np.full(3, rng.choice(SHARES))
            bounds = [_bounds(rng, need[0], share_position)] * 3
        else:
            need = rng.choice(SHARES, 3)
            bounds = [_bounds(rng, s, share_position) for s in need]
        hours = rng.uniform(2.0, 7.0)
        tasks = int(rng.integers(1, most_tasks + 1))
        rows.append((need, bounds, hours, tasks))
        demand += need.mean() * hours * tasks
    return ScalableJobs(
        need=np.array([r[0] for r in rows], dtype=np.float64),
        low=np.array([[b[0] for b in r[1]] for r in rows]),
        high=np.array([[b[1] for b in r[1]] for r in rows]),
        hours=np.array([r[2] for r in rows]),
        tasks=np.array([r[3] for r in rows], dtype=np.int64))
