"""Cankar's preprocessor for co-location and vertical scaling of jobs (dissertation, chapter 4).

A job o has shares ``d_r`` of each resource (CPU, RAM, I/O) of a node per
task, bounds ``d_min_r <= d_r <= d_max_r`` within which it scales, a
duration t at its shares and p parallel tasks (4.2). Scaling is linear over
all resources, ``d'_r = s d_r`` (4.7), and the duration inversely
proportional, ``t' = t / s`` (4.8), so ``s`` ranges over ``[max_r d_min_r /
d_r, min_r d_max_r / d_r]``.

The preprocessor (4.3; docs/coallocation.md, "Co-location") turns a batch of
jobs into a partition of groups to run together:

1. classify each job by its RAM and I/O shares against its CPU share (4.2,
   threshold alpha) into nine classes;
2. merge fully complementary classes, (gt, gt) with (lt, lt) and (lt, gt)
   with (gt, lt): jobs sorted by p (descending) and by the share of the
   scarcest resource r_MAX (class A descending, class B ascending); each job
   of A tries the jobs of B with the same p, in order, until one merges
   with it (docs/coallocation.md says why not only the first); a pair merges when the
   sizes ``w = t max_r d_r`` differ by less than a factor W (4.5) and the
   pair, scaled to share one node in the shortest time t_pair (4.10), ends
   no later than the two jobs one after the other; a parallel job without a
   partner of its p tries a group of jobs whose p sum to its p;
3. merge the rest over partially complementary classes (4.11) the same way;
4. scale every job still alone to a whole node (its largest share 1) where
   its bounds allow, else keep it as it is.

The scheduler then gets either one surrogate job per group (the "set"
approach) or the groups themselves (the "partition" approach).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: Resources, in column order.
RESOURCES = ("cpu", "ram", "io")
LT, EQ, GT = "lt", "eq", "gt"
#: His chosen parameters (4.5.3): alpha = 0.1 and W = 1.75.
ALPHA, W = 0.1, 1.75
#: Step 2's pairs of fully complementary classes (RAM, I/O), class A first.
FULL_PAIRS = (((GT, GT), (LT, LT)), ((LT, GT), (GT, LT)))
#: Step 3's pairs of partially complementary classes, and what each gathers (4.11).
PARTIAL_PAIRS = (((EQ, GT), (EQ, LT)), ((LT, EQ), (GT, EQ)))
PARTIAL_GATHERS = {
    (LT, EQ): ((LT, EQ), (LT, LT), (LT, GT)),
    (EQ, LT): ((EQ, LT), (LT, LT), (GT, LT)),
    (EQ, GT): ((EQ, GT), (LT, GT), (GT, GT)),
    (GT, EQ): ((GT, EQ), (GT, LT), (GT, GT)),
}


@dataclass(frozen=True)
class ScalableJobs:
    """A batch of scalable jobs (module docstring).

    Attributes:
        need: (jobs, 3) shares ``d_r`` per task of a node, in (0, 1].
        low, high: (jobs, 3) the scaling bounds ``d_min_r`` and ``d_max_r``.
        hours: (jobs,) durations at the shares ``need``.
        tasks: (jobs,) parallel tasks p, each on its own node.
    """

    need: np.ndarray
    low: np.ndarray
    high: np.ndarray
    hours: np.ndarray
    tasks: np.ndarray

    def __post_init__(self) -> None:
        if not (np.all(self.low <= self.need + 1e-12) and np.all(self.need <= self.high + 1e-12)):
            raise ValueError("scalable jobs: every share must lie within its bounds")
        if np.any(self.need <= 0) or np.any(self.high > 1 + 1e-12):
            raise ValueError("scalable jobs: shares must lie in (0, 1]")

    def __len__(self) -> int:
        return len(self.hours)

    def scale_range(self, j: int) -> tuple[float, float]:
        """The factors s job j may be scaled by."""
        return float(np.max(self.low[j] / self.need[j])), float(np.min(self.high[j] / self.need[j]))


@dataclass(frozen=True)
class Member:
    """A job of a group, scaled by ``scale`` (shares x scale, duration / scale)."""

    job: int
    scale: float = 1.0


@dataclass
class Preprocessed:
    """The partition: groups of jobs to run together, each with the duration of its longest
    member (t_pair for a merged group) and its surrogate's shares and tasks; ``optimizations``:
    how many times t_pair was minimised (4.10) on the way, the count his 4.5.5 times."""

    groups: list[list[Member]] = field(default_factory=list)
    hours: list[float] = field(default_factory=list)
    need: list[np.ndarray] = field(default_factory=list)
    tasks: list[int] = field(default_factory=list)
    optimizations: int = 0

    def add(self, members: list[Member], hours: float, need: np.ndarray, tasks: int) -> None:
        self.groups.append(members)
        self.hours.append(hours)
        self.need.append(need)
        self.tasks.append(tasks)


def classify(jobs: ScalableJobs, alpha: float = ALPHA) -> list[tuple[str, str]]:
    """Each job's class (4.2, 4.3): its RAM and its I/O share against its CPU share, each ``lt``
    below 1 - alpha, ``gt`` above 1 + alpha, else ``eq``."""
    def q(ratio: float) -> str:
        return LT if ratio < 1 - alpha else GT if ratio > 1 + alpha else EQ
    ratios = jobs.need[:, 1:] / jobs.need[:, :1]
    return [(q(a), q(b)) for a, b in ratios]


def pair_scales(jobs: ScalableJobs, a: int, b: int):
    """``(s_a, s_b, t_pair)``: the scales that let jobs a and b share a node in the shortest time
    t_pair = max of their scaled durations (4.9, 4.10), or None when no scales let them share it.

    For a duration T each job takes the least scale that ends it by T, ``max(low, t / T)``;
    feasibility only grows with T, so T is found by bisection (his OpenOpt minimisation, done
    exactly).
    """
    lo_a, hi_a = jobs.scale_range(a)
    lo_b, hi_b = jobs.scale_range(b)
    t_a, t_b = float(jobs.hours[a]), float(jobs.hours[b])

    def scales(T: float) -> tuple[float, float] | None:
        s_a, s_b = max(lo_a, t_a / T), max(lo_b, t_b / T)
        shared = jobs.need[a] * s_a + jobs.need[b] * s_b
        if s_a > hi_a + 1e-12 or s_b > hi_b + 1e-12 or np.any(shared > 1 + 1e-12):
            return None
        return s_a, s_b

    slow = max(t_a / lo_a, t_b / lo_b)
    if scales(slow) is None:
        return None
    fast = max(t_a / hi_a, t_b / hi_b)
    if scales(fast) is None:
        for _ in range(100):
            mid = (fast + slow) / 2
            if scales(mid) is None:
                fast = mid
            else:
                slow = mid
        fast = slow
    s_a, s_b = scales(fast)
    return s_a, s_b, max(t_a / s_a, t_b / s_b)


def _similar(jobs: ScalableJobs, a: int, b: int, w: float) -> bool:
    """(4.4, 4.5): the sizes ``t max_r d_r`` differ by less than a factor w."""
    size = jobs.hours * jobs.need.max(axis=1)
    return max(size[a], size[b]) / min(size[a], size[b]) < w


def _merge_pair(jobs: ScalableJobs, a: int, b: int, w: float, out: Preprocessed,
                failed: set[tuple[int, int]] | None):
    """(s_a, s_b, t_pair) of a pair that merges, else None: similar sizes, shared node, and no
    longer than the two one after the other (at their own shares). A pair that failed once fails
    again (the test depends on the two jobs only, and symmetrically): with a ``failed`` set (not
    his: :func:`preprocess`'s ``retry_failed=False``) it is not minimised twice; a retry cannot
    change the groups, only the count his 4.5.5 reports."""
    key = (min(a, b), max(a, b))
    if (failed is not None and key in failed) or not _similar(jobs, a, b, w):
        return None
    out.optimizations += 1
    scaled = pair_scales(jobs, a, b)
    if scaled is None or scaled[2] > jobs.hours[a] + jobs.hours[b]:
        if failed is not None:
            failed.add(key)
        return None
    return scaled


def _merge_group(jobs: ScalableJobs, a: int, group: list[int], w: float, out: Preprocessed,
                 failed: set[tuple[int, int]] | None):
    """A parallel job a with jobs whose tasks sum to a's: the first (most tasks) pairs with a as
    two jobs do, the others fill the room a leaves on its other nodes, ending by t_pair. Returns
    the members (a first) and t_pair, or None."""
    first = _merge_pair(jobs, a, group[0], w, out, failed)
    if first is None:
        return None
    s_a, s_b, t_pair = first
    members = [Member(a, s_a), Member(group[0], s_b)]
    for b in group[1:]:
        lo, hi = jobs.scale_range(b)
        s = max(lo, jobs.hours[b] / t_pair)
        if s > hi + 1e-12 or np.any(jobs.need[a] * s_a + jobs.need[b] * s > 1 + 1e-12):
            return None
        members.append(Member(b, s))
    return members, t_pair


def _sorted(jobs: ScalableJobs, members: list[int], r_max: int, descending: bool) -> list[int]:
    """By tasks (descending), then by the r_MAX share (descending or ascending), ties by index."""
    sign = -1 if descending else 1
    return sorted(members, key=lambda j: (-jobs.tasks[j], sign * jobs.need[j, r_max], j))


def _merge_classes(jobs: ScalableJobs, class_a: list[int], class_b: list[int], r_max: int,
                   merged: set[int], out: Preprocessed, w: float,
                   failed: set[tuple[int, int]] | None) -> None:
    """Step 2 (and 3) for one pair of classes: each job of A with the jobs of B of its tasks, in
    order, until one merges (else, if parallel, with a group of B), then each parallel job of B
    left with a group of A; ``failed``: the pairs that did not merge, or None (:func:`_merge_pair`)."""
    for side_a, side_b, a_first in ((class_a, class_b, True), (class_b, class_a, False)):
        sorted_b = _sorted(jobs, side_b, r_max, not a_first)  # the keys do not change: sort once
        for a in _sorted(jobs, side_a, r_max, a_first):
            if a in merged:
                continue
            order_b = [j for j in sorted_b if j not in merged and j != a]
            partners = [b for b in order_b if jobs.tasks[b] == jobs.tasks[a]]
            if partners:
                if a_first:  # equal tasks: A's jobs look for a partner, in B's order (his 4.3.2)
                    for b in partners:
                        done = _merge_pair(jobs, a, b, w, out, failed)
                        if done is not None:
                            s_a, s_b, t_pair = done
                            _record(jobs, out, [Member(a, s_a), Member(b, s_b)], t_pair)
                            merged.update((a, b))
                            break
                continue
            if jobs.tasks[a] == 1:
                continue
            group = _group(jobs, a, [b for b in order_b if jobs.tasks[b] < jobs.tasks[a]])
            if group:
                done = _merge_group(jobs, a, group, w, out, failed)
                if done is not None:
                    _record(jobs, out, done[0], done[1])
                    merged.add(a)
                    merged.update(group)


def _group(jobs: ScalableJobs, a: int, candidates: list[int]) -> list[int]:
    """Jobs of ``candidates`` (in order) whose tasks sum to a's exactly: the one with the most tasks
    first, then greedily in order (his rule names the first only); [] if none."""
    if not candidates:
        return []
    first = max(candidates, key=lambda b: jobs.tasks[b])  # max keeps the earliest of equals
    group, left = [first], int(jobs.tasks[a] - jobs.tasks[first])
    for b in candidates:
        if left == 0:
            break
        if b != first and jobs.tasks[b] <= left:
            group.append(b)
            left -= int(jobs.tasks[b])
    return group if left == 0 else []


def _record(jobs: ScalableJobs, out: Preprocessed, members: list[Member], t_pair: float) -> None:
    """A merged group and its surrogate (4.4): equal tasks, the shares' sum; else the largest sum
    of the first member's shares with another's, on the first member's tasks."""
    first = members[0]
    shares = [jobs.need[m.job] * m.scale for m in members]
    if all(jobs.tasks[m.job] == jobs.tasks[first.job] for m in members):
        need = np.sum(shares, axis=0)
    else:
        need = np.max([shares[0] + s for s in shares[1:]], axis=0)
    out.add(members, t_pair, need, int(jobs.tasks[first.job]))


def preprocess(jobs: ScalableJobs, alpha: float = ALPHA, w: float = W,
               retry_failed: bool = True) -> Preprocessed:
    """His four steps (module docstring); every job ends in exactly one group. ``retry_failed``:
    step 3 minimises again a pair that failed in step 2, as his bound counts (4.5.5: every job
    with every job of its complement "v obeh korakih", in both steps); False skips it, which
    changes the count of minimisations only, not the groups."""
    classes = classify(jobs, alpha)
    r_max = int(np.argmax((jobs.need * jobs.hours[:, None]).sum(axis=0)))  # the scarcest resource
    members: dict[tuple[str, str], list[int]] = {}
    for j, c in enumerate(classes):
        members.setdefault(c, []).append(j)
    out = Preprocessed()
    merged: set[int] = set()
    failed: set[tuple[int, int]] | None = None if retry_failed else set()
    for a, b in FULL_PAIRS:
        _merge_classes(jobs, members.get(a, []), members.get(b, []), r_max, merged, out, w, failed)
    gathered = {c: [j for src in srcs for j in members.get(src, []) if j not in merged]
                for c, srcs in PARTIAL_GATHERS.items()}
    for a, b in PARTIAL_PAIRS:
        _merge_classes(jobs, gathered[a], gathered[b], r_max, merged, out, w, failed)
    for j in range(len(jobs)):
        if j in merged:
            continue
        whole = 1.0 / float(jobs.need[j].max())  # step 4: the largest share becomes 1, if allowed
        scale = whole if whole <= jobs.scale_range(j)[1] + 1e-12 else 1.0
        out.add([Member(j, scale)], float(jobs.hours[j]) / scale, jobs.need[j] * scale, int(jobs.tasks[j]))
    return out
