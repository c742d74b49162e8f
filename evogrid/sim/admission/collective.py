"""Cankar's placement of collective requests: on up to N sites, at least d processors each and e in
all, at the earliest start where some site's free processors rise (evogrid.sim.collective holds the
greedy sites and the improving swaps)."""

from __future__ import annotations

import numpy as np

from evogrid.sim.admission.base import Algorithm
from evogrid.sim.co_admission import C_L1, C_L2, C_SEED, interval_price
from evogrid.sim.collective import lcg_seed
from evogrid.sim.collective import place as place_on_sites
from evogrid.sim.core import M_PROCS, N_RUN, hold, site_profile
from evogrid.sim.numba_stamp import njit
from evogrid.sim.profile import P_FREE, P_TIME
from evogrid.sim.reserving import R_DEADLINE, R_DURATION, R_EARLIEST, R_SITE_MIN, R_SITES_MAX, R_TOTAL_MIN


@njit(cache=True, inline="always")
def _least_free(steps, n, s, duration):
    """The fewest processors free over ``[s, s + duration)`` on one site's copied profile ``steps``
    (rows time, free; ``n`` breakpoints, the first at or before ``s``)."""
    i = 0
    while i + 1 < n and steps[0, i + 1] <= s:
        i += 1
    low = steps[1, i]
    i += 1
    while i < n and steps[0, i] < s + duration:
        low = min(low, steps[1, i])
        i += 1
    return low


@njit(cache=True)
def place(r, t, book, rules, jobs, state, booked):
    """Place collective request ``r`` at time ``t`` (evogrid.sim.collective): at the earliest
    candidate start, the instants where some site's free processors rise (and the earliest start
    itself), that has a feasible set of sites."""
    requests = book[0]
    config, _, tariff, cum, _, _ = rules
    sc, profile, held_n = state.sc, state.profile, state.held_n
    K = held_n.shape[0]
    duration = requests[R_DURATION, r]
    first = max(t, requests[R_EARLIEST, r])
    last = requests[R_DEADLINE, r] - duration
    cap = 2
    for k in range(K):
        cap = max(cap, sc[k, N_RUN] + 2 * held_n[k] + 2)
    steps = np.empty((K, 2, cap), dtype=np.int64)
    counts = np.empty(K, dtype=np.int64)
    starts = np.empty(K * cap + 1, dtype=np.int64)
    starts[0] = first
    found = 1
    for k in range(K):
        n = site_profile(k, t, jobs, state)
        counts[k] = n
        for i in range(n):
            steps[k, 0, i] = profile[P_TIME, i]
            steps[k, 1, i] = profile[P_FREE, i]
            if i > 0 and profile[P_FREE, i] > profile[P_FREE, i - 1] and first < profile[P_TIME, i] <= last:
                starts[found] = profile[P_TIME, i]
                found += 1
    starts = np.sort(starts[:found])
    machine = np.empty(K, dtype=np.int64)
    for k in range(K):
        machine[k] = sc[k, M_PROCS]
    need = (requests[R_SITE_MIN, r], requests[R_TOTAL_MIN, r], requests[R_SITES_MAX, r])
    limits = (np.int64(config[C_L1]), np.int64(config[C_L2]))
    rng = lcg_seed(np.int64(config[C_SEED]), r)
    avail = np.empty(K, dtype=np.int64)
    chosen = np.empty(K, dtype=np.int64)
    alloc = np.empty(K, dtype=np.int64)
    for c in range(found):
        s = starts[c]
        if s > last or (c > 0 and s == starts[c - 1]):
            continue
        for k in range(K):
            avail[k] = _least_free(steps[k], counts[k], s, duration)
        n, _, rng = place_on_sites(avail, machine, need, limits, rng, chosen, alloc)
        if n == 0:
            continue
        accepted, sites, messages, prices = booked.accepted, booked.sites, booked.messages, booked.prices
        procs, length = booked.procs, booked.length
        accepted[r] = s
        messages[r] = n
        length[r] = duration
        cost = 0.0
        for i in range(n):
            k = chosen[i]
            sites[i, r] = k
            procs[i, r] = alloc[i]
            cost += alloc[i] * interval_price(tariff, cum, k, s, s + duration)
            hold(k, s, s + duration, alloc[i], state)
        prices[0, r] = cost
        prices[1, r] = cost
        prices[2, r] = cost
        return


def check(requests) -> str | None:
    """Collective requests only, placed by the grid."""
    if requests.collective is None or (requests.site >= 0).any():
        return "the collective algorithm needs collective requests that the grid places " \
               "(evogrid.workload.reservations.collective)"
    return None


ENTRY = Algorithm("collective", 8, "information-rich",
                  "Cankar: collective requests on up to N sites, >= d each, >= e in all; earliest start "
                  "where free processors rise, greedy sites, best and random improving swaps",
                  place=place, check=check)
