"""A pure-Python twin of Cankar's co-allocation (evogrid.nodes.cankar), written from his listings
(dissertation, 3.3) in plain lists and loops, drawing the same random numbers in the same order."""

from __future__ import annotations

import itertools

MASK = (1 << 64) - 1
A, C = 6364136223846793005, 1442695040888963407


class Draws:
    """The 64-bit linear congruential generator of the compiled code."""

    def __init__(self, seed: int) -> None:
        self.state = (seed * A + C) & MASK

    def __call__(self, n: int) -> int:
        self.state = (self.state * A + C) & MASK
        return (self.state >> 33) % n


def free_over(pool, j, start, duration):
    """a^t_j: node j's fewest free units of each resource over the reservation."""
    cap, occ = pool
    return [cap[j][i] - max(occ[j][i][start:start + duration]) for i in range(len(cap[j]))]


def discover(pool, labels, d, want, count, draws):
    cap, _ = pool
    ok = [j for j in range(len(cap))
          if labels[j] & want == want and all(cap[j][i] >= d[i] for i in range(len(d)))]
    for x in range(min(count, len(ok))):
        y = x + draws(len(ok) - x)
        ok[x], ok[y] = ok[y], ok[x]
    return ok[:min(count, len(ok))], len(ok)


def starts(pool, nodes, d, window):
    """Phase III: slots where some node is free for the whole reservation and some amount rises."""
    cap, occ = pool
    earliest, latest, duration = window
    out = set()
    for j in nodes:
        for t in range(earliest, latest + 1):
            window = range(t, t + duration)
            free = all(cap[j][i] - occ[j][i][s] >= d[i] for s in window for i in range(len(d)))
            if free and (t == earliest or any(occ[j][i][t] < occ[j][i][t - 1] for i in range(len(d)))):
                out.add(t)
    return sorted(out)


def efficiency(pool, free, chosen, e):
    cap, _ = pool
    u = 1.0
    for i in range(len(e)):
        capacity = 0.0
        used = 0.0
        for j in chosen:
            capacity += cap[j][i]
            used += cap[j][i] - free[j][i]
        u *= (e[i] + used) / capacity
    return u


def pick_max(values, pool_, draws):
    top = max(values[j] for j in pool_)
    ties = [x for x, j in enumerate(pool_) if values[j] == top]
    return ties[draws(len(ties))]


def select_and_swap(pool, free, available, n, e, tries, draws):
    cap, _ = pool
    r = len(e)
    rest = list(available)
    chosen = []
    for k in range(n):
        x = pick_max({j: free[j][k % r] for j in rest}, rest, draws)
        chosen.append(rest.pop(x))
    sums = [sum(free[j][i] for j in chosen) for i in range(r)]
    c, m = 1, 0
    while any(sums[i] < e[i] for i in range(r)) and c <= tries and m < len(rest):
        m += 1
        worst = [(e[i] - sums[i]) / sum(cap[j][i] for j in chosen) for i in range(r)]
        ne = pick_max(worst, list(range(r)), draws)
        candidate = sorted(rest, key=lambda j: -free[j][ne])[m - 1]  # stable: ties by position
        perm = list(chosen)
        for x in range(n - 1, 0, -1):
            y = draws(x + 1)
            perm[x], perm[y] = perm[y], perm[x]
        k, swapped = 0, False
        while k < n and c <= tries and not swapped:
            out = perm[k]
            after = [sums[i] - free[out][i] + free[candidate][i] for i in range(r)]
            swapped = all(after[i] >= min(sums[i], e[i]) for i in range(r))
            if swapped:
                chosen[chosen.index(out)] = candidate
                rest[rest.index(candidate)] = out
                sums = after
                m = 0
            k += 1
            c += 1
    return chosen, rest


def co_allocate(pool, labels, request, limits, seed):
    """``(start, nodes, amounts, efficiency)`` or None, as evogrid.nodes.cankar.co_allocate."""
    n, d, e, want, window = request
    m_init, m_max, l1, l2 = limits
    draws = Draws(seed)
    cap, _ = pool
    r = len(e)
    multiple, returned_all = m_init, False
    while multiple <= m_max and not returned_all:
        nodes, qualified = discover(pool, labels, d, want, multiple * n, draws)
        if len(nodes) < n:
            return None
        returned_all = len(nodes) == qualified
        if any(sum(sorted((cap[j][i] for j in nodes), reverse=True)[:n]) < e[i] for i in range(r)):
            multiple *= 2
            continue
        for t in starts(pool, nodes, d, window):
            free = {j: free_over(pool, j, t, window[2]) for j in nodes}
            available = [j for j in nodes if all(free[j][i] >= d[i] for i in range(r))]
            if len(available) < n:
                continue
            if len(available) == n:
                chosen, rest = list(available), []
            else:
                chosen, rest = select_and_swap(pool, free, available, n, e, l1 * n, draws)
            if any(sum(free[j][i] for j in chosen) < e[i] for i in range(r)):
                continue
            if rest:
                best = efficiency(pool, free, chosen, e)
                for _ in range(l2 * n):
                    x, y = draws(n), draws(len(rest))
                    trial = list(chosen)
                    trial[x] = rest[y]
                    u = efficiency(pool, free, trial, e)
                    if all(sum(free[j][i] for j in trial) >= e[i] for i in range(r)) and u >= best:
                        rest[y] = chosen[x]
                        chosen, best = trial, u
            amounts = []
            for j in chosen:
                row = []
                for i in range(r):
                    surplus = e[i] - n * d[i]
                    spare = sum(free[k][i] - d[i] for k in chosen)
                    share = (free[j][i] - d[i]) / spare if surplus > 0 and spare > 0 else 0.0
                    row.append(d[i] + share * max(surplus, 0.0))
                amounts.append(row)
            return t, chosen, amounts, efficiency(pool, free, chosen, e)
        multiple *= 2
    return None


def optimum(pool, nodes, request):
    """``(start, efficiency)`` of the best N-set of ``nodes`` by itertools, or None."""
    n, d, e, _, window = request
    r = len(e)
    for t in starts(pool, nodes, d, window):
        free = {j: free_over(pool, j, t, window[2]) for j in nodes}
        available = [j for j in nodes if all(free[j][i] >= d[i] for i in range(r))]
        feasible = [efficiency(pool, free, s, e) for s in itertools.combinations(available, n)
                    if all(sum(free[j][i] for j in s) >= e[i] for i in range(r))]
        if feasible:
            return t, max(feasible)
    return None


def pack(need, minutes, tasks, leader, waits, n_nodes, horizon, backfill=True):
    """The reference scheduler of evogrid.nodes.packing, literally: each job in order at the first
    minute (without ``backfill``: no earlier than the job before it) with ``tasks`` nodes that have
    room all along, on the ones with the highest utilisation after it (ties to the lower node);
    a job with a leader (``leader[j]`` >= 0, an earlier job; ``leader`` None: none has one) takes
    only its leader's nodes at that minute if enough of them have room; with ``waits``, if its
    leader runs on at least ``tasks`` nodes, the first minute at which enough of those have room.
    Returns (starts, each node's last end)."""
    leader = [-1] * len(need) if leader is None else list(leader)
    usage = [[[0.0] * horizon for _ in range(len(need[0]))] for _ in range(n_nodes)]
    starts, last, runs_on = [], [0] * n_nodes, []
    for j, (d, dur, p) in enumerate(zip(need, minutes, tasks, strict=True)):
        placed = None
        for t in range(0 if backfill or not starts else starts[-1], horizon - dur + 1):
            window = range(t, t + dur)
            ok = [k for k in range(n_nodes)
                  if all(usage[k][r][s] + d[r] <= 1.0 + 1e-9 for r in range(len(d)) for s in window)]
            led = [k for k in ok if leader[j] >= 0 and k in runs_on[leader[j]]]
            if waits and leader[j] >= 0 and len(runs_on[leader[j]]) >= p and len(led) < p:
                continue
            if len(ok) >= p:
                if len(led) >= p:
                    ok = led
                score = {k: sum(sum(usage[k][r][t:t + dur]) / dur + d[r] for r in range(len(d))) for k in ok}
                placed = (t, sorted(sorted(ok, key=lambda k: (-score[k], k))[:p]))
                break
        if placed is None:
            starts.append(-1)
            return starts, last
        t, nodes = placed
        runs_on.append(nodes)
        starts.append(t)
        for k in nodes:
            for r in range(len(d)):
                for s in range(t, t + dur):
                    usage[k][r][s] += d[r]
            last[k] = max(last[k], t + dur)
    return starts, last
