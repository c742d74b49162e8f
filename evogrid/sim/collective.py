"""Cankar's collective requests (compiled): up to N sites at once, at least d processors on each and
e in all, one common start (docs/reservations.md, "Collective requests").

For one candidate start, ``avail[k]`` is the fewest processors site k has
free over the request's interval. A site with ``avail >= d`` is eligible. A
set S of sites gets, in order of ``avail`` (largest first, ties by index),
d processors each, and the rest of e from the front of that order up to
each site's ``avail``; S is feasible when that reaches e. Its efficiency
factor is the product over S of the sites' utilisation after placement,
``(m_k - avail_k + a_k) / m_k``.

Placement at a start: greedy (the eligible sites by ``avail``, largest
first, until e is reached or N are taken), then up to ``L1 * N`` best
improving swaps (a site of S for an eligible one outside, the largest
factor over all pairs; stop when none improves), then ``L2 * N`` random
swaps kept when they improve (a seeded 64-bit LCG, the same in the
reference twin). The request goes to the earliest candidate start with a
feasible set.
"""

from __future__ import annotations

import numpy as np

from evogrid.sim.numba_stamp import njit

#: Cankar's defaults for the two swap phases (swaps per allowed site).
L1_SWAPS, L2_SWAPS = 7, 10
_LCG_A = np.uint64(6364136223846793005)
_LCG_C = np.uint64(1442695040888963407)


@njit(cache=True, inline="always")
def lcg_seed(seed, r):
    """The generator's state for request ``r`` of a simulation seeded with ``seed``."""
    return np.uint64(seed) * _LCG_A + np.uint64(r)


@njit(cache=True, inline="always")
def lcg_next(state):
    """``(draw, state)``: the next 31-bit draw of a 64-bit linear congruential generator."""
    state = state * _LCG_A + _LCG_C
    return np.int64(state >> np.uint64(33)), state


@njit(cache=True, inline="always")
def _by_avail(sites, n, avail):
    """Sort ``sites[:n]`` by ``avail`` descending, ties by site index (insertion sort: n is small)."""
    for i in range(1, n):
        s = sites[i]
        j = i
        while j > 0 and (avail[sites[j - 1]] < avail[s]
                         or (avail[sites[j - 1]] == avail[s] and sites[j - 1] > s)):
            sites[j] = sites[j - 1]
            j -= 1
        sites[j] = s


@njit(cache=True)
def allocate(sites, n, avail, machine, need, alloc):
    """Fill ``alloc[:n]`` for the set ``sites[:n]`` (sorted by :func:`_by_avail` in place); returns
    its efficiency factor, or -1.0 when it cannot hold the request. ``need = (d, e)``."""
    d, e = need
    _by_avail(sites, n, avail)
    rest = max(e - n * d, 0)
    factor = 1.0
    for i in range(n):
        k = sites[i]
        extra = min(rest, avail[k] - d)
        alloc[i] = d + extra
        rest -= extra
        factor *= (machine[k] - avail[k] + alloc[i]) / machine[k]
    return -1.0 if rest > 0 else factor


@njit(cache=True)
def place(avail, machine, need, limits, state, chosen, alloc):
    """The placement at one candidate start (module docstring): ``(n, factor, state)`` with the
    sites in ``chosen[:n]`` and their processors in ``alloc[:n]``; n = 0 when none is feasible.

    ``avail``, ``machine``: (K,) processors; ``need = (d, e, N)``; ``limits = (L1, L2)``; ``state``:
    the generator's state (uint64).
    """
    d, e, N = need
    K = avail.shape[0]
    eligible = np.empty(K, dtype=np.int64)
    m = 0
    for k in range(K):
        if avail[k] >= d:
            eligible[m] = k
            m += 1
    _by_avail(eligible, m, avail)
    n = total = 0
    while n < min(m, N) and total < e:
        chosen[n] = eligible[n]
        total += avail[eligible[n]]
        n += 1
    if total < e or n == 0:
        return 0, 0.0, state
    best = allocate(chosen, n, avail, machine, (d, e), alloc)
    trial = np.empty(K, dtype=np.int64)
    trial_alloc = np.empty(K, dtype=np.int64)
    for _ in range(limits[0] * N):  # best improving swap, while there is one
        top, top_i, top_j = best, -1, -1
        for i in range(n):
            for j in range(m):
                if _member(chosen, n, eligible[j]):
                    continue
                factor = _swapped(chosen, n, i, eligible[j], avail, machine, (d, e), trial, trial_alloc)
                if factor > top:
                    top, top_i, top_j = factor, i, eligible[j]
        if top_i < 0:
            break
        best = _swapped(chosen, n, top_i, top_j, avail, machine, (d, e), chosen, alloc)
    outside = m - n
    for _ in range(limits[1] * N):  # random swaps, kept when they improve
        if outside == 0:
            break
        draw, state = lcg_next(state)
        i = draw % n
        draw, state = lcg_next(state)
        pick = draw % outside
        j = -1
        for x in range(m):  # the pick-th eligible site outside the set
            if not _member(chosen, n, eligible[x]):
                if pick == 0:
                    j = eligible[x]
                    break
                pick -= 1
        factor = _swapped(chosen, n, i, j, avail, machine, (d, e), trial, trial_alloc)
        if factor > best:
            best = _swapped(chosen, n, i, j, avail, machine, (d, e), chosen, alloc)
    return n, best, state


@njit(cache=True, inline="always")
def _member(sites, n, k):
    for i in range(n):  # noqa: SIM110 (a plain loop compiles; any() over a generator does not)
        if sites[i] == k:
            return True
    return False


@njit(cache=True)
def _swapped(chosen, n, i, j, avail, machine, need, out, out_alloc):
    """The factor of ``chosen[:n]`` with its i-th site replaced by j, written (sorted) to ``out``."""
    for x in range(n):
        out[x] = chosen[x]
    out[i] = j
    return allocate(out, n, avail, machine, need, out_alloc)
