"""User run-time estimates after Tsafrir, Etsion and Feitelson (docs/workload_models.md).

D. Tsafrir, Y. Etsion and D. G. Feitelson, "Modeling user runtime estimates"
(JSSPP 2005). Users pick a few round values, and the maximum allowed is the
most popular one. The model builds an estimate histogram, then deals its
values out to the jobs so that no estimate is below its run time:

1. number of distinct values from the number of jobs (a piecewise linear fit
   through (20, 10), (200, 20), (1000, 35), (10000, 90), (70000, 340),
   (250000, 565));
2. the head, 20 values: the maximum, the 15 values popular in all four traces
   the authors studied (5, 10, 15, 20, 30 min; 1, 2, 3, 4, 5, 6, 8, 10, 12,
   18 h) below it, then round multiples (200, 100, 50, 10, 5, 2, 1 h; 20, 10,
   5 min) counting down from the maximum; their shares follow
   ``14.0491 exp(-0.177531 x) + 0.462513`` % for popularity ranks x = 2..20,
   together 89 %, rank 1 (the maximum) takes the rest of the 89 %; which time
   gets which rank follows the four traces' table of time rank against
   popularity rank (a rank is placed no later than its latest place in them,
   otherwise the more popular of two random picks from the ranks seen so far);
3. the tail, the other values: times ``y = (a - 1) x / (a - x)`` of the
   maximum at relative rank x, ``a = 1 + 12.1039 n^-0.6026`` for n values,
   whole minutes (moved by 10-30 s where they would collide); shares
   ``795.6 x^-2.267`` for ranks x = 21, ..., scaled to the remaining 11 %,
   matched to the times at random;
4. shares to job counts (each value at least one job, rounding evened out
   over the largest values first);
5. jobs in decreasing run time each take a random value among those still
   free and at least their run time.

Our implementation from the paper's description and parameters; the random
draws come from a seeded numpy generator. Run times above the maximum
estimate are cut to it (counted). User-supplied bins, which the authors'
program also takes, are not built.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from evogrid.errors import EvogridError

MINUTE, HOUR = 60, 3600
#: Values in the head of the histogram.
HEAD = 20
#: Share of jobs (percent) whose estimate is one of the head values.
HEAD_SHARE = 89.0
#: Head shares a * exp(b * rank) + c (percent), ranks 2..20.
HEAD_SIZE = (14.0491, -0.177531, 0.462513)
#: Tail shares a * rank ** b before scaling, ranks 21...
TAIL_SIZE = (795.6, -2.267)
#: The values popular in all four traces, most popular first (s).
JOINT = (tuple(m * MINUTE for m in (5, 15, 10, 20, 30))
         + tuple(h * HOUR for h in (1, 2, 3, 4, 5, 6, 8, 10, 12, 18)))
#: Round multiples that complete the head, tried in this order (s).
ROUND = tuple(h * HOUR for h in (200, 100, 50, 10, 5, 2, 1)) + tuple(m * MINUTE for m in (20, 10, 5))
#: (number of jobs, number of distinct values) through which the count of values is interpolated.
VALUES_BY_JOBS = ((0, 0), (20, 10), (200, 20), (1000, 35), (10000, 90), (70000, 340), (250000, 565))
#: Popularity rank of each head time rank (0 = the maximum, then ascending time) in the four
#: traces the authors studied (SDSC Blue, CTC, KTH, LLNL Blue).
TIME_RANK_TO_POPULARITY = (
    (3, 1, 1, 1), (1, 3, 4, 6), (4, 4, 10, 5), (17, 2, 14, 3), (13, 12, 20, 7), (7, 9, 2, 2), (8, 8, 3, 18),
    (18, 18, 7, 19), (2, 6, 12, 4), (6, 7, 6, 11), (16, 11, 19, 20), (10, 20, 5, 9), (5, 16, 18, 10),
    (15, 5, 16, 14), (14, 14, 9, 13), (19, 13, 17, 16), (11, 10, 15, 15), (12, 15, 13, 17), (9, 17, 8, 8),
    (20, 19, 11, 12))


@dataclass(frozen=True)
class Estimates:
    """Estimates dealt to jobs.

    Attributes:
        estimate: each job's estimate (s), >= its run time.
        run_time: the run times (s), those above the maximum estimate cut to it.
        cut: how many run times were cut.
        histogram: distinct estimate (s) -> number of jobs.
    """

    estimate: np.ndarray
    run_time: np.ndarray
    cut: int
    histogram: dict[int, int]


def _round(x: float) -> int:
    return math.floor(x + 0.5)


def distinct_values(n_jobs: int) -> int:
    """How many distinct estimates ``n_jobs`` jobs use (step 1)."""
    if n_jobs >= VALUES_BY_JOBS[-1][0]:
        return VALUES_BY_JOBS[-1][1]
    k = next(k for k, (jobs, _) in enumerate(VALUES_BY_JOBS) if n_jobs <= jobs)
    (x0, y0), (x1, y1) = VALUES_BY_JOBS[max(k - 1, 0)], VALUES_BY_JOBS[k]
    return y0 + (_round((n_jobs - x0) * (y1 - y0) / (x1 - x0)) if x1 > x0 else 0)


def head_times(max_estimate: int) -> list[int]:
    """The head values: the maximum first, then the others ascending (step 2)."""
    times = [max_estimate] + [t for t in JOINT if t < max_estimate]
    for multiple in ROUND:
        for t in range(max_estimate // multiple * multiple, 0, -multiple):
            if len(times) == HEAD:
                break
            if t not in times:
                times.append(t)
    return [max_estimate] + sorted(times[1:])


def head_shares(n: int) -> list[float]:
    """Shares (percent) of the ``n`` head values by popularity rank, most popular first."""
    a, b, c = HEAD_SIZE
    others = [a * math.exp(b * rank) + c for rank in range(2, n + 1)]
    return sorted([HEAD_SHARE - sum(others), *others], reverse=True)


def popularity_ranks(n: int, rng: np.random.Generator) -> list[int]:
    """The popularity rank (1 = most popular) of each of ``n`` head time ranks."""
    latest = {}
    for time_rank in range(HEAD - 1, -1, -1):
        for rank in TIME_RANK_TO_POPULARITY[time_rank]:
            latest.setdefault(rank, time_rank)
    chosen: list[int] = []
    pool: list[int] = []
    for time_rank in range(n):
        pool += [r for r in TIME_RANK_TO_POPULARITY[time_rank] if r <= n and r not in chosen]
        due = [r for r in range(1, n + 1) if latest.get(r, HEAD) <= time_rank and r not in chosen]
        if time_rank == 0:
            rank = 1
        elif due:
            rank = due[0]
        elif pool:
            rank = min(pool[int(k)] for k in rng.integers(0, len(pool), 2))
        else:  # fewer than 20 head values: a rank never listed this early
            rank = min(r for r in range(1, n + 1) if r not in chosen)
        chosen.append(rank)
        pool = [r for r in pool if r != rank]
    return chosen


def tail_times(max_estimate: int, n: int, taken: set[int], a: float) -> list[int]:
    """Up to ``n`` tail values (s), ascending, none in ``taken`` (step 3)."""
    times: list[int] = []
    for i in range(1, n + 1):
        x = i / n
        base = _round((a - 1) * x / (a - x) * max_estimate / MINUTE) * MINUTE
        for offset in (0, 30, -30, 20, -20, 10, -10):
            t = base + offset
            if 0 < t < max_estimate and t not in taken:
                times.append(t)
                taken.add(t)
                break
    return sorted(times)


def histogram(n_jobs: int, max_estimate: int, rng: np.random.Generator) -> dict[int, int]:
    """Distinct estimate (s) -> number of jobs, for ``n_jobs`` jobs (steps 1-4)."""
    values = distinct_values(n_jobs)
    head = head_times(max_estimate)
    shares = head_shares(len(head))
    share = {t: shares[rank - 1] for t, rank in zip(head, popularity_ranks(len(head), rng), strict=True)}
    tail = tail_times(max_estimate, max(values - len(head), 0), set(head), 1 + 12.1039 * values ** -0.6026)
    if tail:
        a, b = TAIL_SIZE
        sizes = np.array([a * (HEAD + 1 + i) ** b for i in range(len(tail))])
        sizes *= (100.0 - HEAD_SHARE) / sizes.sum()
        share.update(zip(rng.permutation(tail).tolist(), rng.permutation(sizes).tolist(), strict=True))
    jobs = {t: max(1, _round(p * n_jobs / 100.0)) for t, p in sorted(share.items())}
    return _even_out(jobs, n_jobs)


def _even_out(jobs: dict[int, int], n_jobs: int) -> dict[int, int]:
    """Make the counts sum to ``n_jobs``: proportionally, then one job at a time, then bins cut to
    one job, then emptied, largest bins first (step 4)."""
    diff = n_jobs - sum(jobs.values())
    attempt = 0
    while diff:
        sign, left = (1, diff) if diff > 0 else (-1, -diff)
        f = left / sum(jobs.values())
        for t in sorted(jobs, key=lambda t: -jobs[t]):
            count = jobs[t]
            if count == 0:
                continue
            change = (math.ceil(f * count), 1, count - 1, count)[min(attempt, 3)]
            if sign < 0:
                change = min(change, count - (attempt < 3))
            change = min(change, left)
            jobs[t] += sign * change
            left -= change
            if left == 0:
                break
        diff = sign * left
        attempt += 1
    return {t: c for t, c in jobs.items() if c}


def tsafrir05(run_time: np.ndarray, max_estimate: int, *, seed: int) -> Estimates:
    """Estimates for jobs of the given run times (s), the largest allowed being ``max_estimate`` (s).

    Raises:
        EvogridError: ``max_estimate`` below one hour (the authors' lower bound), or too many long
            jobs for the histogram (then raise the maximum).
    """
    if max_estimate < HOUR:
        raise EvogridError(f"the maximum estimate must be at least one hour (3600 s), got {max_estimate}")
    rng = np.random.default_rng(seed)
    cut = int((run_time > max_estimate).sum())
    run_time = np.minimum(run_time, max_estimate)
    hist = histogram(run_time.size, max_estimate, rng)
    values = np.repeat(np.array(sorted(hist, reverse=True)), [hist[t] for t in sorted(hist, reverse=True)])
    order = np.argsort(-run_time, kind="stable")
    longest = run_time[order]
    if (short := np.flatnonzero(longest > values)).size:
        k = int(short[0])
        raise EvogridError(f"the estimate model has {k} values of at least {int(longest[k])} s for {k + 1} "
                           f"jobs that long: raise the maximum estimate (now {max_estimate} s)")
    estimate = np.empty_like(run_time)
    u = rng.random(run_time.size)
    hi = 0
    for j in range(run_time.size):
        while hi < run_time.size - 1 and longest[j] <= values[hi + 1]:
            hi += 1
        k = j + int(u[j] * (hi - j + 1))
        estimate[order[j]] = values[k]
        values[k], values[j] = values[j], values[k]
    return Estimates(estimate, run_time, cut, hist)
