"""Röblitz et al.'s probe/reserve admission of (elastic) one-site requests (compiled).

An elastic request may run on any processor count n in ``[procs_min,
procs_max]`` for ``durations[n - procs_min]`` seconds (its speedup model,
evogrid.workload.reservations); a plain one has one count. The broker:

1. adapts the range to the request's window: a count whose duration does
   not fit ``[max(now, earliest start), deadline]`` is not probed (nor is
   one wider than the site);
2. probes each remaining count (one message each): the site returns up to
   ``tsn_max`` start times where n processors stay free for the duration on
   its availability profile, all ending by the deadline, each at least
   ``tss_gap`` seconds after the one before. ``cover`` (theirs, 3.2.3: "the
   requested period of time [est, let] should be well covered") aims the
   i-th at ``first + i * step``, ``step = max(tss_gap, (lst - first) /
   (tsn_max - 1))`` spreading them up to the latest start ``lst``, and takes
   the earliest fit at or after it; ``earliest`` (evogrid's earlier reading)
   packs them: the first fit at or after the earliest start, each next one
   ``tss_gap`` after the one before;
3. estimates each candidate's success: ``load``, 1 iff it starts when the
   site's backlog has cleared (Meltzer's backlog, evogrid.sim.reserving)
   and 0 before; ``static``, ``1 - exp(-(start - now) / h)``; or
   ``history`` (:func:`history_success`), from the site's idle processors
   recorded every delta seconds before now at the same time of day;
4. keeps candidates whose estimate is at least ``threshold``, sorts them by
   the preference list (earliest end, lowest cost, highest estimated
   success; ties in probing order) and tries to reserve them in that order
   (one message each); the site accepts the first that starts no earlier
   than its backlog clears.

The probe reads the site's profile: information-rich, like Meltzer's 2-5.
"""

from __future__ import annotations

import numpy as np

from evogrid.sim.co_admission import SLOTS_COVER, interval_price
from evogrid.sim.numba_stamp import njit
from evogrid.sim.profile import fit_from

#: Preferences of an elastic request, by code (evogrid.workload.reservations.PREFERENCES).
EARLIEST_END, LOWEST_COST, HIGHEST_SUCCESS, FEWEST_PROCESSORS = 0, 1, 2, 3
#: Success estimates, by code.
LOAD, STATIC, HISTORY = 0, 1, 2
DAY_SECONDS = 86_400
#: Rows of the float64 candidate array: processors, start (s), duration (s), estimated success, cost.
K_PROCS, K_START, K_DURATION, K_SUCCESS, K_COST, K_SITE = range(6)
N_CANDIDATE_ROWS = 6


@njit(cache=True, inline="always")
def same_daytime(a, a_seconds, b, b_seconds):
    """Whether ``[a, a + a_seconds)`` and ``[b, b + b_seconds)`` (s) meet in the time of day: one
    starts within the other, on the 24-hour circle (a day or longer meets every time)."""
    if a_seconds >= DAY_SECONDS or b_seconds >= DAY_SECONDS:
        return True
    return (b - a) % DAY_SECONDS < a_seconds or (a - b) % DAY_SECONDS < b_seconds


@njit(cache=True)
def history_success(history, s, d, procs):
    """Röblitz et al.'s esr_H (3.2.3) of a candidate of ``procs`` processors over ``[s, s + d)``:
    ``aip``, the mean of the recorded idle processors over the intervals whose time of day meets
    the candidate's (their daily pattern dp), gives 1 if ``2 procs <= aip``, ``2 - 2 procs / aip``
    if ``procs <= aip``, else 0. ``history = (idle, n, delta, m)``: ``idle[i]`` at ``i * delta``
    (s), n of them; with none recorded, aip is the site's m processors (our choice)."""
    idle, n_recorded, delta, m = history
    total = 0.0
    count = 0
    for i in range(n_recorded):
        if same_daytime(i * delta, delta, s, d):
            total += idle[i]
            count += 1
    aip = total / count if count > 0 else float(m)
    if 2 * procs <= aip:
        return 1.0
    if procs <= aip:
        return 2.0 - 2.0 * procs / aip
    return 0.0


@njit(cache=True)
def probe_candidates(profile, n, window, counts, durations, config, price, cand, history):
    """Fill ``cand`` (N_CANDIDATE_ROWS, cap) with the probed candidates that pass the threshold;
    returns ``(found, probes, probed)``: their number, the processor counts probed (one message each)
    and the start times probed before the threshold (Röblitz et al.'s Fig. 7 counts both).

    ``window = (now, earliest start, deadline, backlog clears)`` (s); ``counts = (procs_min,
    procs_max)``; ``durations[n - procs_min]``: seconds on n processors; ``config = (tsn_max,
    tss_gap, estimate, h in s, threshold, slots)``; ``price(start, end)`` per processor is given as
    ``price = (tariff, cum, site)`` (evogrid.sim.co_admission.interval_price); ``history``: see
    :func:`history_success` (read only by the history estimate).
    """
    now, earliest, deadline, clear = window
    tsn_max, gap, estimate, h, threshold, slots = config
    tariff, cum, k = price
    first = max(now, earliest)
    gap = max(np.int64(gap), 1)
    found = probes = probed = 0
    for procs in range(counts[0], counts[1] + 1):
        d = durations[procs - counts[0]]
        if first + d > deadline:
            continue
        probes += 1
        x = first
        step = gap
        if slots == SLOTS_COVER and tsn_max > 1:
            step = max(gap, (deadline - d - first) // (tsn_max - 1))
        for i in range(np.int64(tsn_max)):
            s = fit_from(profile, n, procs, d, x)
            if s + d > deadline:
                break
            probed += 1
            if estimate == LOAD:
                success = 1.0 if s >= clear else 0.0
            elif estimate == STATIC:
                success = 1.0 - np.exp(-(s - now) / h)
            else:
                success = history_success(history, s, d, procs)
            if success >= threshold:
                cand[K_PROCS, found] = procs
                cand[K_START, found] = s
                cand[K_DURATION, found] = d
                cand[K_SUCCESS, found] = success
                cand[K_COST, found] = procs * interval_price(tariff, cum, k, s, s + d)
                found += 1
            x = max(s + gap, first + (i + 1) * step)
    return found, probes, probed


@njit(cache=True, inline="always")
def _before(cand, a, b, preferences):
    """Candidate a comes before b by the first preference that tells them apart."""
    for p in preferences:
        if p == EARLIEST_END:
            x, y = cand[K_START, a] + cand[K_DURATION, a], cand[K_START, b] + cand[K_DURATION, b]
        elif p == LOWEST_COST:
            x, y = cand[K_COST, a], cand[K_COST, b]
        elif p == HIGHEST_SUCCESS:
            x, y = -cand[K_SUCCESS, a], -cand[K_SUCCESS, b]
        elif p == FEWEST_PROCESSORS:
            x, y = cand[K_PROCS, a], cand[K_PROCS, b]
        else:
            continue
        if x != y:
            return x < y
    return False


@njit(cache=True)
def preference_order(cand, found, preferences):
    """Indices of the ``found`` candidates sorted by ``preferences`` (codes, most important first;
    -1 entries unused), ties kept in probing order (a stable insertion sort)."""
    order = np.arange(found)
    for i in range(1, found):
        c = order[i]
        j = i
        while j > 0 and _before(cand, c, order[j - 1], preferences):
            order[j] = order[j - 1]
            j -= 1
        order[j] = c
    return order
