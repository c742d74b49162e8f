"""Cankar's co-allocation of exactly N nodes for a collective request, phases I-VI (compiled).

M. Cankar, doctoral dissertation, 3.3; docs/coallocation.md quotes the
phases and says where the listings needed a reading. In short, on a node
pool (:class:`evogrid.nodes.pool.NodePool`) with free amounts ``a_ij(t) =
r_ij - Z_ij(t)`` per 5-minute slot:

- I: discovery returns ``M * N`` nodes (a seeded random sample) that meet
  the qualitative requirements and have ``r_ij >= d_i`` for every resource;
  fewer than N: rejected.
- II: for each resource, the N largest capacities must reach ``e_i``;
  otherwise M doubles and discovery runs again (rejected beyond ``M_max``
  or when discovery would return the same nodes).
- III: the candidate starts: slots where some node is free (``a_ij >= d_i``
  for every resource) over the whole reservation and some free amount rises
  (the window's first slot counts as a rise).
- IV: at each candidate start, earliest first, the nodes free over the whole
  reservation (``V_a``), their least free amounts over it (``a^t``); more
  than N: SelectAndSwap (one node per resource in turn, the most free of
  that resource, then swaps toward feasibility, at most ``L1 * N`` tries);
  the first start whose set holds ``e_i`` of every resource wins.
- V: ``L2 * N`` random swaps, each kept when the set stays feasible and the
  worst-case efficiency estimate (3.3) does not fall.
- VI: each node reserves ``d_i`` plus a share of ``e_i - N d_i`` in
  proportion to its spare amount ``a^t_ij - d_i``.

Random choices use a 64-bit linear congruential generator whose draws the
pure-Python twin (tests/reference_nodes.py) repeats exactly.

Every compiled function here calls only functions of this file: numba
stamps a cached function with its own file only, so a helper from
elsewhere could be served stale.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: The outcome codes of :func:`co_allocate` (``outcome``): where the search ended.
PLACED, TOO_FEW_NODES, CAPACITY_SHORT, NO_START = 0, 1, 2, 3
OUTCOMES = ("placed", "too few nodes (phase I)", "capacities short (phase II)",
            "no feasible start (phase IV)")
_A = np.uint64(6364136223846793005)
_C = np.uint64(1442695040888963407)


@njit(cache=True)
def draw(state, n):
    """``(x, state)``: a draw from ``0..n-1`` and the generator's next state (uint64)."""
    state = state * _A + _C
    return np.int64((state >> np.uint64(33)) % np.uint64(n)), state


@njit(cache=True)
def first_state(seed):
    """The generator's state for a placement seeded with ``seed``."""
    return np.uint64(seed) * _A + _C


@njit(cache=True)
def least_free(capacity, occupancy, nodes, first, duration):
    """``(pool size, R)``, rows ``nodes`` filled: each node's fewest free units of each resource
    over slots ``[first, first + duration)``, ``a^t_ij = r_ij - max Z_ij``."""
    r = capacity.shape[1]
    out = np.zeros(capacity.shape)
    for j in nodes:
        for i in range(r):
            top = occupancy[j, i, first]
            for s in range(first + 1, first + duration):
                top = max(top, occupancy[j, i, s])
            out[j, i] = capacity[j, i] - top
    return out


@njit(cache=True)
def discover(capacity, labels, need, count, state):
    """Phase I: ``(nodes, n_qualified, state)``: up to ``count`` nodes, a seeded random sample of
    those with every label of ``need.labels`` and ``r_ij >= d_i`` for every resource."""
    per_node, labels_needed = need
    ok = _holding(capacity, np.flatnonzero(labels & labels_needed == labels_needed), per_node)
    m = ok.shape[0]
    take = min(count, m)
    for x in range(take):  # a partial Fisher-Yates shuffle
        y, state = draw(state, m - x)
        ok[x], ok[x + y] = ok[x + y], ok[x]
    return ok[:take].copy(), m, state


@njit(cache=True)
def capacities_suffice(capacity, nodes, n_nodes, total):
    """Phase II: does, for every resource, the sum of the ``n_nodes`` largest capacities among
    ``nodes`` reach ``total[i]``?"""
    for i in range(capacity.shape[1]):
        values = np.sort(capacity[nodes, i])[::-1]
        if values[:n_nodes].sum() < total[i]:
            return False
    return True


@njit(cache=True)
def candidate_starts(capacity, occupancy, nodes, per_node, window):
    """Phase III: the slots where some node of ``nodes`` is free (``a_ij >= d_i``) over the whole
    reservation and some free amount of it rises; ``window = (earliest, latest, duration)`` in
    slots (the latest start; the first slot of the window counts as a rise)."""
    earliest, latest, duration = window
    r = capacity.shape[1]
    starts = np.zeros(latest - earliest + 1, dtype=np.bool_)
    for j in nodes:
        ok = np.empty(latest + duration - earliest, dtype=np.bool_)
        for s in range(earliest, latest + duration):
            ok[s - earliest] = True
            for i in range(r):
                if capacity[j, i] - occupancy[j, i, s] < per_node[i]:
                    ok[s - earliest] = False
        run = 0  # free slots in a row, counted backwards: A^s_j(t) = 1 when run >= duration
        for s in range(latest + duration - 1, earliest - 1, -1):
            run = run + 1 if ok[s - earliest] else 0
            if s > latest or run < duration:
                continue
            rises = s == earliest
            for i in range(r):
                if s > earliest and occupancy[j, i, s] < occupancy[j, i, s - 1]:
                    rises = True
            if rises:
                starts[s - earliest] = True
    return np.flatnonzero(starts) + earliest


@njit(cache=True)
def _sums(free, chosen):
    return free[chosen].sum(axis=0)


@njit(cache=True)
def _feasible(sums, total):
    for i in range(sums.shape[0]):  # noqa: SIM110 (all() over a generator does not compile)
        if sums[i] < total[i]:
            return False
    return True


@njit(cache=True)
def _holding(amounts, nodes, per_node):
    """The nodes of ``nodes`` whose row of ``amounts`` holds ``per_node`` of every resource."""
    out = np.empty(nodes.shape[0], dtype=np.int64)
    m = 0
    for j in nodes:
        if _feasible(amounts[j], per_node):
            out[m] = j
            m += 1
    return out[:m]


@njit(cache=True)
def efficiency(capacity, free, chosen, total):
    """The worst-case efficiency estimate (3.3) of nodes ``chosen`` at a start: the product over
    the resources of ``(e_i + sum Z^t_ij) / sum r_ij``."""
    u = 1.0
    for i in range(capacity.shape[1]):
        cap = 0.0
        used = 0.0
        for j in chosen:
            cap += capacity[j, i]
            used += capacity[j, i] - free[j, i]
        u *= (total[i] + used) / cap
    return u


@njit(cache=True)
def _pick_max(values, pool, state):
    """``(index into pool, state)``: a node of ``pool`` with the largest value, chosen at random
    among ties."""
    top = values[pool[0]]
    for j in pool:
        top = max(top, values[j])
    ties = 0
    for j in pool:
        if values[j] == top:
            ties += 1
    k, state = draw(state, ties)
    for x in range(pool.shape[0]):
        if values[pool[x]] == top:
            if k == 0:
                return x, state
            k -= 1
    return -1, state


@njit(cache=True)
def select_and_swap(capacity, free, available, n_nodes, total, tries, state):
    """Phase IV's SelectAndSwap: ``(chosen, rest, state)``, N nodes from ``available`` (more than
    N) and the others; ``tries`` = L1 * N swap tries at most."""
    r = free.shape[1]
    rest = available.copy()
    chosen = np.empty(n_nodes, dtype=np.int64)
    for k in range(n_nodes):  # one node per resource in turn, the most free of that resource
        x, state = _pick_max(free[:, k % r], rest, state)
        chosen[k] = rest[x]
        rest = np.delete(rest, x)
    c = 1
    m = 0
    sums = _sums(free, chosen)
    while not _feasible(sums, total) and c <= tries and m < rest.shape[0]:
        m += 1
        worst = np.empty(r)  # the most infeasible resource: the largest u~_i (3.3), less 1
        for i in range(r):
            worst[i] = (total[i] - sums[i]) / capacity[chosen, i].sum()
        ne, state = _pick_max(worst, np.arange(r), state)
        order = rest[np.argsort(-free[rest, ne], kind="mergesort")]
        candidate = order[m - 1]
        perm = chosen.copy()
        for x in range(n_nodes - 1, 0, -1):  # Fisher-Yates: the set's nodes in random order
            y, state = draw(state, x + 1)
            perm[x], perm[y] = perm[y], perm[x]
        k = 0
        swapped = False
        while k < n_nodes and c <= tries and not swapped:
            out = perm[k]
            after = sums - free[out] + free[candidate]
            swapped = True
            for i in range(r):
                if after[i] < min(sums[i], total[i]):
                    swapped = False
            if swapped:
                for x in range(n_nodes):
                    if chosen[x] == out:
                        chosen[x] = candidate
                for x in range(rest.shape[0]):
                    if rest[x] == candidate:
                        rest[x] = out
                sums = after
                m = 0
            k += 1
            c += 1
    return chosen, rest, state


@njit(cache=True)
def improve(capacity, free, chosen, rest, total, tries, state):
    """Phase V: ``tries`` = L2 * N random swaps (a node of the set for one of ``rest``), each kept
    when the set stays feasible and its efficiency estimate does not fall; returns the state."""
    if rest.shape[0] == 0:
        return state
    best = efficiency(capacity, free, chosen, total)
    for _ in range(tries):
        x, state = draw(state, chosen.shape[0])
        y, state = draw(state, rest.shape[0])
        out, into = chosen[x], rest[y]
        chosen[x] = into
        u = efficiency(capacity, free, chosen, total)
        if _feasible(_sums(free, chosen), total) and u >= best:
            rest[y] = out
            best = u
        else:
            chosen[x] = out
    return state


@njit(cache=True)
def split(free, chosen, per_node, total):
    """Phase VI: ``(N, R)`` amounts: ``d_i`` each, plus ``e_i - N d_i`` shared in proportion to
    ``a^t_ij - d_i`` (exactly ``e_i`` in all; ``d_i`` each when nothing is left to share)."""
    n, r = chosen.shape[0], free.shape[1]
    out = np.empty((n, r))
    for i in range(r):
        surplus = total[i] - n * per_node[i]
        spare = 0.0
        for j in chosen:
            spare += free[j, i] - per_node[i]
        for x in range(n):
            share = (free[chosen[x], i] - per_node[i]) / spare if surplus > 0 and spare > 0 else 0.0
            out[x, i] = per_node[i] + share * max(surplus, 0.0)
    return out


@njit(cache=True)
def co_allocate(capacity, labels, occupancy, request, limits, seed, given):
    """Cankar's phases I-VI for one request (module docstring); nothing is reserved here
    (:func:`evogrid.nodes.pool.NodePool.reserve` books a result).

    ``request = (n_nodes, per_node (R,), total (R,), labels, window)`` with ``window = (earliest,
    latest, duration)`` in slots (latest: the latest start); ``limits = (M_init, M_max, L1, L2)``.
    ``given``: the nodes phase I returns on every pass instead of its sample (empty: sample),
    less those without the labels or ``r_ij >= d_i``.
    Returns ``(outcome, start slot, nodes (N,), amounts (N, R), efficiency, passes)``: ``start``
    -1 and no nodes unless ``outcome == PLACED``; ``passes``: discovery rounds run.
    """
    n_nodes, per_node, total, labels_needed, window = request
    m_init, m_max, l1, l2 = limits
    earliest, latest, duration = window
    state = first_state(seed)
    r = capacity.shape[1]
    none = (np.empty(0, dtype=np.int64), np.empty((0, r)))
    multiple = m_init
    passes = 0
    outcome = TOO_FEW_NODES
    returned_all = False  # then discovery would return the same nodes again: rejected
    while multiple <= m_max and not returned_all:
        passes += 1
        if given.shape[0] > 0:  # phase I's filter still applies to the nodes it is given
            nodes = _holding(capacity, given[labels[given] & labels_needed == labels_needed], per_node)
            qualified = nodes.shape[0]
        else:
            nodes, qualified, state = discover(capacity, labels, (per_node, labels_needed),
                                               multiple * n_nodes, state)
        if nodes.shape[0] < n_nodes:
            return TOO_FEW_NODES, -1, none[0], none[1], 0.0, passes
        returned_all = nodes.shape[0] == qualified
        if not capacities_suffice(capacity, nodes, n_nodes, total):
            outcome = CAPACITY_SHORT
            multiple *= 2
            continue
        outcome = NO_START
        for start in candidate_starts(capacity, occupancy, nodes, per_node, window):
            free_all = least_free(capacity, occupancy, nodes, start, duration)
            available = _holding(free_all, nodes, per_node)
            if available.shape[0] < n_nodes:
                continue
            if available.shape[0] == n_nodes:
                chosen, rest = available, np.empty(0, dtype=np.int64)
            else:
                chosen, rest, state = select_and_swap(capacity, free_all, available, n_nodes,
                                                      total, l1 * n_nodes, state)
            if not _feasible(_sums(free_all, chosen), total):
                continue
            state = improve(capacity, free_all, chosen, rest, total, l2 * n_nodes, state)
            amounts = split(free_all, chosen, per_node, total)
            return PLACED, start, chosen, amounts, efficiency(capacity, free_all, chosen, total), passes
        multiple *= 2
    return outcome, -1, none[0], none[1], 0.0, passes


@njit(cache=True)
def optimum(capacity, occupancy, nodes, request):
    """By brute force over every N-set of ``nodes``: ``(start slot, efficiency, chosen)`` of the
    optimal solution (his 3.2: the earliest start, then the highest efficiency factor), or ``(-1,
    0.0, empty)`` when no N-set is feasible. ``request`` as for :func:`co_allocate`."""
    n_nodes, per_node, total, _, window = request
    r = capacity.shape[1]
    for start in candidate_starts(capacity, occupancy, nodes, per_node, window):
        free = least_free(capacity, occupancy, nodes, start, window[2])
        available = _holding(free, nodes, per_node)
        n_av = available.shape[0]
        if n_av < n_nodes:
            continue
        best = -1.0
        best_set = np.empty(n_nodes, dtype=np.int64)
        index = np.arange(n_nodes)
        while True:
            chosen = available[index]
            feasible = True
            for i in range(r):
                if free[chosen, i].sum() < total[i]:
                    feasible = False
            if feasible:
                u = efficiency(capacity, free, chosen, total)
                if u > best:
                    best = u
                    best_set[:] = chosen
            k = n_nodes - 1  # the next N-set in lexicographic order
            while k >= 0 and index[k] == n_av - n_nodes + k:
                k -= 1
            if k < 0:
                break
            index[k] += 1
            for x in range(k + 1, n_nodes):
                index[x] = index[x - 1] + 1
        if best >= 0.0:
            return start, best, best_set
    return -1, 0.0, np.empty(0, dtype=np.int64)
