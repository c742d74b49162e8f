"""Röblitz et al.'s probe/reserve: one-site (elastic) requests, start times probed per processor count,
their success estimated, the first accepted candidate in the order of preferences reserved
(evogrid.sim.probe holds the probing and the estimates)."""

from __future__ import annotations

import numpy as np

from evogrid.sim.admission.base import Algorithm
from evogrid.sim.co_admission import (
    BACKLOG_CLEARS,
    C_ACC_RUNNING,
    C_ACC_WAITING,
    C_ESTIMATE,
    C_HISTORY_SECONDS,
    C_LOAD_RULE,
    C_PREFERENCES,
    C_SLOTS,
    C_SUCCESS_SECONDS,
    C_THRESHOLD,
    C_TSN_MAX,
    C_TSS_GAP,
    N_PREFERENCES,
    WORKLOAD_END,
)
from evogrid.sim.core import M_PROCS, PROCS, RUN_TIME, SITE, START_TIME, hold, site_profile
from evogrid.sim.numba_stamp import njit
from evogrid.sim.probe import (
    HISTORY,
    K_COST,
    K_DURATION,
    K_PROCS,
    K_SITE,
    K_START,
    N_CANDIDATE_ROWS,
    preference_order,
    probe_candidates,
)
from evogrid.sim.reserving import (
    R_DEADLINE,
    R_EARLIEST,
    R_PROCS_MAX,
    R_PROCS_MIN,
    R_SITE,
    R_TABLE,
    backlog_seconds,
    workload_end,
)


@njit(cache=True, inline="always")
def _add_busy(busy, n, delta, start, end, procs):
    """Count ``procs`` busy at the samples ``i * delta`` (i < n) within ``[start, end)`` (s), as
    changes in ``busy``."""
    first, after = (start + delta - 1) // delta, min((end + delta - 1) // delta, n)
    if first < after:
        busy[first] += procs
        busy[after] -= procs


@njit(cache=True)
def idle_history(k, t, delta, jobs, state, booked):
    """Röblitz et al.'s history H of site k at time ``t`` (their 3.2.3: "For a time interval [begin,
    end) the number of idle processors is taken at time begin"): ``(idle, n, delta, m)`` with
    ``idle[i]`` the processors neither running a job nor held by a reservation at ``i * delta`` (s),
    for the n samples before t. Rebuilt from the schedule so far (O(jobs + requests) per call)."""
    n = (t + delta - 1) // delta
    busy = np.zeros(n + 1)
    out = state.out
    for j in range(jobs.shape[1]):
        start = out[START_TIME, j]
        if start >= 0 and out[SITE, j] == k:
            _add_busy(busy, n, delta, start, start + jobs[RUN_TIME, j], jobs[PROCS, j])
    for q in range(booked.accepted.shape[0]):
        if booked.accepted[q] >= 0:
            for i in range(booked.sites.shape[0]):
                if booked.sites[i, q] == k:
                    _add_busy(busy, n, delta, booked.accepted[q], booked.accepted[q] + booked.length[q],
                              booked.procs[i, q])
    m = state.sc[k, M_PROCS]
    idle = np.empty(n)
    level = 0.0
    for i in range(n):
        level += busy[i]
        idle[i] = m - level
    return idle, n, delta, m


@njit(cache=True)
def place(r, t, book, rules, jobs, state, booked):
    """Röblitz et al.'s probe/reserve of request ``r`` at time ``t`` (evogrid.sim.probe): its site, or
    (site -1) every site in the request's order that has its fewest processors, is probed with the
    request's durations at that site's speed (``durations[k]``); the candidates of all of them go
    into one preference order, and the first whose site accepts it (it starts once the site's known
    workload has ended: :func:`workload_end`, theirs, or Meltzer's backlog, ``C_LOAD_RULE``) is
    reserved."""
    requests, _, orders, durations = book
    config, acc, tariff, cum, _, _ = rules
    sc, profile = state.sc, state.profile
    K = state.running.shape[1]
    nsites = 1 if requests[R_SITE, r] >= 0 else orders.shape[0]
    tsn_max = np.int64(config[C_TSN_MAX])
    counts = max(0, requests[R_PROCS_MAX, r] - requests[R_PROCS_MIN, r] + 1)
    cand = np.empty((N_CANDIDATE_ROWS, nsites * counts * tsn_max))
    clear = np.zeros(K, dtype=np.int64)
    found = sent = probed = 0
    for o in range(nsites):
        k = orders[o, r]
        low, high = requests[R_PROCS_MIN, r], min(requests[R_PROCS_MAX, r], sc[k, M_PROCS])
        if high < low:
            continue  # not a resource candidate: the site is smaller than the request
        rule = np.int64(config[C_LOAD_RULE])
        if rule == BACKLOG_CLEARS:
            clear[k] = t + backlog_seconds(k, acc[k], jobs, state)
        else:
            accuracy = (config[C_ACC_RUNNING], config[C_ACC_WAITING])
            clear[k] = workload_end(k, t, accuracy, rule == WORKLOAD_END, jobs, state)
        n = site_profile(k, t, jobs, state)
        table = durations[k, requests[R_TABLE, r]:requests[R_TABLE, r] + high - low + 1]
        if np.int64(config[C_ESTIMATE]) == HISTORY:
            history = idle_history(k, t, np.int64(config[C_HISTORY_SECONDS]), jobs, state, booked)
        else:
            history = (np.zeros(0), np.int64(0), np.int64(1), sc[k, M_PROCS])
        window = (t, requests[R_EARLIEST, r], requests[R_DEADLINE, r], clear[k])
        new, probes, slots = probe_candidates(
            profile, n, window, (low, high), table,
            (tsn_max, np.int64(config[C_TSS_GAP]), np.int64(config[C_ESTIMATE]), config[C_SUCCESS_SECONDS],
             config[C_THRESHOLD], np.int64(config[C_SLOTS])),
            (tariff, cum, k), cand[:, found:], history)
        cand[K_SITE, found:found + new] = k
        found += new
        sent += probes
        probed += slots
    accepted, sites, messages, prices = booked.accepted, booked.sites, booked.messages, booked.prices
    held_procs, length = booked.procs, booked.length
    booked.funnel[0, r], booked.funnel[1, r] = probed, found
    for c in preference_order(cand, found, config[C_PREFERENCES:C_PREFERENCES + N_PREFERENCES]):
        sent += 1
        start = np.int64(cand[K_START, c])
        k = np.int64(cand[K_SITE, c])
        if start < clear[k]:
            booked.funnel[2, r] += 1
            continue  # the site refuses a start before its backlog clears
        procs, duration = np.int64(cand[K_PROCS, c]), np.int64(cand[K_DURATION, c])
        accepted[r] = start
        sites[0, r] = k
        prices[0, r] = cand[K_COST, c]
        held_procs[0, r] = procs
        length[r] = duration
        hold(k, start, start + duration, procs, state)
        break
    messages[r] = sent


def check(requests) -> str | None:
    """The probe places one-part requests."""
    wide = np.flatnonzero((requests.parts > 0).sum(axis=1) > 1)
    if wide.size:
        r = int(wide[0])
        return f"request {r}: probe places one-part requests, not {int((requests.parts[r] > 0).sum())} parts"
    return None


ENTRY = Algorithm("probe", 7, "information-rich",
                  "Röblitz et al.: one-site (elastic) requests, probe start times per processor count, "
                  "estimate success, reserve by preference; no start before the backlog clears",
                  place=place, check=check)
