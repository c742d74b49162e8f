"""The reference scheduler of Cankar's chapter 4 (compiled): jobs in priority order, each placed by
best-fit backfilling on identical nodes with shared resources.

His 4.5: "najde najzgodnejšo vrzel, v katero je mogoče vstaviti opravilo"
(the scheduler finds the earliest gap into which the job fits) and, with
more free nodes than the job's p tasks need, takes the combination with
the highest utilisation on them during the job after placing it. Here:

- time is in whole minutes and every node has 1 of each resource;
- a job of p tasks needs, on each of p distinct nodes, its shares d_r free
  for its whole duration, all from one common start;
- the start is the earliest minute at which at least p nodes have room;
  among them the p whose mean utilisation over the job's minutes (summed
  over the resources, after placing it) is highest, ties to the lower node;
- placed jobs never move (Haizea's reservations).

``backfill=False`` is a reading his text does not support but his tables fit (docs/coallocation.md):
no backfilling, a job starts no earlier than the job placed before it (Haizea's ``off``).

t_RUN, his (4.1), is the sum over the nodes of each node's last finishing
time (0 for a node that runs nothing).

Every compiled function here calls only functions of this file: numba
stamps a cached function with its own file, so a helper from elsewhere
could be served stale.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Room left on a node below which a share does not fit (shares are sums of floats).
SLACK = 1e-9


@njit(cache=True)
def _fits_from(usage, need, duration):
    """``(nodes, horizon - duration + 1)``: may a task start on node k at minute t?"""
    n_nodes, n_res, horizon = usage.shape
    out = np.zeros((n_nodes, horizon - duration + 1), dtype=np.bool_)
    for k in range(n_nodes):
        bad = np.zeros(horizon + 1, dtype=np.int64)  # prefix count of minutes without room
        for s in range(horizon):
            full = False
            for r in range(n_res):
                if usage[k, r, s] + need[r] > 1.0 + SLACK:
                    full = True
            bad[s + 1] = bad[s] + (1 if full else 0)
        for t in range(horizon - duration + 1):
            out[k, t] = bad[t + duration] == bad[t]
    return out


@njit(cache=True)
def place(usage, need, duration, tasks, first):
    """``(start, nodes)`` for a job of ``tasks`` tasks of ``need`` shares for ``duration`` minutes,
    starting at minute ``first`` or later (module docstring), or ``(-1, empty)`` when no start within
    the horizon has room."""
    n_nodes, n_res, horizon = usage.shape
    if duration > horizon:
        return -1, np.empty(0, dtype=np.int64)
    fits = _fits_from(usage, need, duration)
    for t in range(first, horizon - duration + 1):
        count = 0
        for k in range(n_nodes):
            if fits[k, t]:
                count += 1
        if count < tasks:
            continue
        score = np.full(n_nodes, -1.0)
        for k in range(n_nodes):
            if fits[k, t]:
                total = 0.0
                for r in range(n_res):
                    total += usage[k, r, t:t + duration].mean() + need[r]
                score[k] = total
        order = np.argsort(-score, kind="mergesort")  # highest utilisation first, ties to the lower node
        return t, np.sort(order[:tasks])
    return -1, np.empty(0, dtype=np.int64)


@njit(cache=True)
def schedule(need, duration, tasks, n_nodes, horizon, backfill):
    """Place jobs in the given order; ``need`` (jobs, resources) shares, ``duration`` (jobs,) whole
    minutes, ``tasks`` (jobs,); ``backfill`` False: each job no earlier than the one before it.
    Returns ``(start, last_end, horizon)``: each job's start (-1 when it did not fit within
    ``horizon`` minutes: the caller retries with a longer one), each node's last finishing minute,
    and the horizon used."""
    n_jobs, n_res = need.shape
    usage = np.zeros((n_nodes, n_res, horizon))
    start = np.full(n_jobs, -1, dtype=np.int64)
    last_end = np.zeros(n_nodes, dtype=np.int64)
    first = 0
    for j in range(n_jobs):
        t, nodes = place(usage, need[j], duration[j], tasks[j], first)
        if t < 0:
            return start, last_end, horizon
        start[j] = t
        if not backfill:
            first = t
        for k in nodes:
            for r in range(n_res):
                usage[k, r, t:t + duration[j]] += need[j, r]
            last_end[k] = max(last_end[k], t + duration[j])
    return start, last_end, horizon


#: The reference scheduler's orders (his 4.5): longest job first, highest demand first (a job's
#: largest share; he does not say how the resources combine).
STRATEGIES = ("LJF", "HDF")


def _key(strategy: str, hours: float, need: np.ndarray) -> float:
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy: unknown {strategy!r}; expected one of {STRATEGIES}")
    return -hours if strategy == "LJF" else -float(np.max(need))


def run(need: np.ndarray, hours: np.ndarray, tasks: np.ndarray, n_nodes: int,
        backfill: bool = True) -> tuple[float, float]:
    """``(t_RUN, last end)`` in hours of the jobs placed in the given order (durations rounded up
    to whole minutes; ``backfill`` False: each job no earlier than the one before it); the horizon
    doubles until every job fits."""
    minutes = np.ceil(np.asarray(hours) * 60 - 1e-9).astype(np.int64)
    horizon = int(2 * np.sum(need.max(axis=1) * minutes * tasks) / n_nodes + minutes.max()) + 1
    while True:
        start, last_end, _ = schedule(np.ascontiguousarray(need, dtype=np.float64), minutes,
                                      np.asarray(tasks, dtype=np.int64), n_nodes, horizon, backfill)
        if np.all(start >= 0):
            return float(last_end.sum()) / 60, float(last_end.max()) / 60
        horizon *= 2


def reference(jobs, strategy: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The batch as it is, in the strategy's order: ``(need, hours, tasks)``."""
    order = sorted(range(len(jobs)), key=lambda j: (_key(strategy, jobs.hours[j], jobs.need[j]), j))
    return jobs.need[order], jobs.hours[order], jobs.tasks[order]


def as_set(pre, strategy: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """His "set" approach: one surrogate job per group, in the strategy's order."""
    order = sorted(range(len(pre.groups)), key=lambda g: (_key(strategy, pre.hours[g], pre.need[g]), g))
    return (np.array([pre.need[g] for g in order]), np.array([pre.hours[g] for g in order]),
            np.array([pre.tasks[g] for g in order], dtype=np.int64))


def as_partition(jobs, pre, strategy: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """His "partition" approach: the groups in the order of their surrogates, each group's scaled
    jobs highest demand first, every job placed on its own."""
    rows = []
    groups = sorted(range(len(pre.groups)), key=lambda g: (_key(strategy, pre.hours[g], pre.need[g]), g))
    for g in groups:
        scaled = [(jobs.need[m.job] * m.scale, jobs.hours[m.job] / m.scale, jobs.tasks[m.job], m.job)
                  for m in pre.groups[g]]
        rows += sorted(scaled, key=lambda row: (-float(np.max(row[0])), row[3]))
    return (np.array([r[0] for r in rows]), np.array([r[1] for r in rows]),
            np.array([r[2] for r in rows], dtype=np.int64))
