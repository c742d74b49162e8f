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

A job may have a leader, an earlier job of the order (``Packed.leader``): at the job's earliest
start, if at least p of its leader's nodes have room, it takes the best fit among those; or, with
``Packed.leader_waits`` (and a leader on at least p nodes), it starts at the earliest minute at
which p of its leader's nodes have room. These are two readings of the "politike" his partition
approach needs (his 4.4; ``PARTITION_POLICIES``): a group's later members go where its first
member runs when they can start there as early, or always.

t_RUN, his (4.1), is the sum over the nodes of each node's last finishing
time (0 for a node that runs nothing).

Every compiled function here calls only functions of this file: numba
stamps a cached function with its own file, so a helper from elsewhere
could be served stale.
"""

from __future__ import annotations

from typing import NamedTuple

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
def place(usage, need, duration, tasks, first, preferred, wait):
    """``(start, nodes)`` for a job of ``tasks`` tasks of ``need`` shares for ``duration`` minutes,
    starting at minute ``first`` or later (module docstring), or ``(-1, empty)`` when no start within
    the horizon has room; at that start, the nodes of ``preferred`` (bool per node) only, if at
    least ``tasks`` of them have room; with ``wait`` and at least ``tasks`` preferred nodes, the
    earliest start at which ``tasks`` of the preferred nodes have room."""
    n_nodes, n_res, horizon = usage.shape
    if duration > horizon:
        return -1, np.empty(0, dtype=np.int64)
    fits = _fits_from(usage, need, duration)
    waits = wait and preferred.sum() >= tasks
    for t in range(first, horizon - duration + 1):
        count = 0
        count_preferred = 0
        for k in range(n_nodes):
            if fits[k, t]:
                count += 1
                if preferred[k]:
                    count_preferred += 1
        if (count_preferred if waits else count) < tasks:
            continue
        only_preferred = count_preferred >= tasks
        score = np.full(n_nodes, -1.0)
        for k in range(n_nodes):
            if fits[k, t] and (preferred[k] or not only_preferred):
                total = 0.0
                for r in range(n_res):
                    total += usage[k, r, t:t + duration].mean() + need[r]
                score[k] = total
        order = np.argsort(-score, kind="mergesort")  # highest utilisation first, ties to the lower node
        return t, np.sort(order[:tasks])
    return -1, np.empty(0, dtype=np.int64)


@njit(cache=True)
def schedule(need, duration, tasks, leader, leader_waits, n_nodes, horizon, backfill):
    """Place jobs in the given order; ``need`` (jobs, resources) shares, ``duration`` (jobs,) whole
    minutes, ``tasks`` (jobs,), ``leader`` (jobs,): an earlier job whose nodes the job prefers at its
    start, or -1; ``leader_waits``: a led job waits for room on its leader's nodes instead (if the
    leader runs on at least as many nodes as it has tasks); ``backfill`` False: each job no earlier
    than the one before it.
    Returns ``(start, last_end, horizon)``: each job's start (-1 when it did not fit within
    ``horizon`` minutes: the caller retries with a longer one), each node's last finishing minute,
    and the horizon used."""
    n_jobs, n_res = need.shape
    usage = np.zeros((n_nodes, n_res, horizon))
    start = np.full(n_jobs, -1, dtype=np.int64)
    last_end = np.zeros(n_nodes, dtype=np.int64)
    on = np.zeros((n_jobs, n_nodes), dtype=np.bool_)  # the nodes each placed job runs on
    none = np.zeros(n_nodes, dtype=np.bool_)
    first = 0
    for j in range(n_jobs):
        preferred = on[leader[j]] if leader[j] >= 0 else none
        t, nodes = place(usage, need[j], duration[j], tasks[j], first, preferred, leader_waits)
        if t < 0:
            return start, last_end, horizon
        start[j] = t
        if not backfill:
            first = t
        for k in nodes:
            on[j, k] = True
            for r in range(n_res):
                usage[k, r, t:t + duration[j]] += need[j, r]
            last_end[k] = max(last_end[k], t + duration[j])
    return start, last_end, horizon


#: The reference scheduler's orders (his 4.5): longest job first, highest demand first (a job's
#: largest share; he does not say how the resources combine).
STRATEGIES = ("LJF", "HDF")
#: How the scheduler treats a partition's groups (his 4.4 leaves the "politike" open): "apart",
#: every job on its own (ours, as "se opravila znotraj množice še vedno obravnavajo posamezno"
#: reads); "leader-nodes", a group's later members prefer its first member's nodes at their own
#: earliest start; "leader-waits", they wait for room on those nodes.
PARTITION_POLICIES = ("apart", "leader-nodes", "leader-waits")


class Packed(NamedTuple):
    """Jobs in the order the scheduler takes them: ``need`` (jobs, resources) shares, ``hours``,
    ``tasks``, ``leader`` (an earlier job whose nodes the job prefers, or -1) and whether a led job
    waits for room on its leader's nodes (``leader_waits``) or only prefers them at its start."""

    need: np.ndarray
    hours: np.ndarray
    tasks: np.ndarray
    leader: np.ndarray
    leader_waits: bool = False


def packed(need, hours, tasks, leader=None, leader_waits: bool = False) -> Packed:
    """A :class:`Packed` batch with its arrays typed for the compiled scheduler; ``leader`` None: no
    job has a leader. A leader must be -1 or an earlier job."""
    tasks = np.asarray(tasks, dtype=np.int64)
    leader = np.full(len(tasks), -1, dtype=np.int64) if leader is None else np.asarray(leader, dtype=np.int64)
    if leader.shape != tasks.shape or np.any((leader < -1) | (leader >= np.arange(len(tasks)))):
        raise ValueError("leader: each job's leader must be -1 or an earlier job of the order")
    return Packed(np.ascontiguousarray(need, dtype=np.float64), np.asarray(hours, dtype=np.float64), tasks,
                  leader, bool(leader_waits))


def _key(strategy: str, hours: float, need: np.ndarray) -> float:
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy: unknown {strategy!r}; expected one of {STRATEGIES}")
    return -hours if strategy == "LJF" else -float(np.max(need))


def run(batch: Packed, n_nodes: int, backfill: bool = True) -> tuple[float, float]:
    """``(t_RUN, last end)`` in hours of the jobs placed in the batch's order (durations rounded up
    to whole minutes; ``backfill`` False: each job no earlier than the one before it); the horizon
    doubles until every job fits."""
    batch = packed(*batch)
    minutes = np.ceil(batch.hours * 60 - 1e-9).astype(np.int64)
    horizon = int(2 * np.sum(batch.need.max(axis=1) * minutes * batch.tasks) / n_nodes + minutes.max()) + 1
    while True:
        start, last_end, _ = schedule(batch.need, minutes, batch.tasks, batch.leader, batch.leader_waits,
                                      n_nodes, horizon, backfill)
        if np.all(start >= 0):
            return float(last_end.sum()) / 60, float(last_end.max()) / 60
        horizon *= 2


def reference(jobs, strategy: str) -> Packed:
    """The batch as it is, in the strategy's order."""
    order = sorted(range(len(jobs)), key=lambda j: (_key(strategy, jobs.hours[j], jobs.need[j]), j))
    return packed(jobs.need[order], jobs.hours[order], jobs.tasks[order])


def as_set(pre, strategy: str) -> Packed:
    """His "set" approach: one surrogate job per group, in the strategy's order."""
    order = sorted(range(len(pre.groups)), key=lambda g: (_key(strategy, pre.hours[g], pre.need[g]), g))
    return packed([pre.need[g] for g in order], [pre.hours[g] for g in order], [pre.tasks[g] for g in order])


def as_partition(jobs, pre, strategy: str, policy: str = "apart") -> Packed:
    """His "partition" approach: the groups in the order of their surrogates, each group's scaled
    jobs highest demand first, every job placed on its own; under ``policy`` "leader-nodes" or
    "leader-waits" each group's later members prefer or wait for its first member's nodes
    (PARTITION_POLICIES)."""
    if policy not in PARTITION_POLICIES:
        raise ValueError(f"partition policy: unknown {policy!r}; expected one of {PARTITION_POLICIES}")
    rows, leader = [], []
    groups = sorted(range(len(pre.groups)), key=lambda g: (_key(strategy, pre.hours[g], pre.need[g]), g))
    for g in groups:
        scaled = [(jobs.need[m.job] * m.scale, jobs.hours[m.job] / m.scale, jobs.tasks[m.job], m.job)
                  for m in pre.groups[g]]
        first = len(rows)
        rows += sorted(scaled, key=lambda row: (-float(np.max(row[0])), row[3]))
        leader += [-1] + [first if policy != "apart" else -1] * (len(scaled) - 1)
    return packed([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], leader,
                   policy == "leader-waits")
