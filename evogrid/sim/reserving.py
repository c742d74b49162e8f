"""How the compiled loop books reservation requests (:func:`book_request`; the loop is
:mod:`evogrid.sim.grid`'s, compiled for a mode with reservations, ``evogrid.sim.core.reserving_mode``).

Requests (docs/reservations.md) arrive next to the batch jobs. With the
EXACT algorithm a one-site request is accepted at its earliest fit at or
after ``max(now, earliest start)`` on its site's availability profile
(running jobs to their estimated end, and the reservations accepted
before), if it then ends by its deadline (:func:`admit`); otherwise one of
Meltzer's algorithms places its parts on distinct sites at a common start
(:func:`co_admit`, rules in :mod:`evogrid.sim.co_admission`), or each
site's TSK admission rulebase admits the parts offered to it (features:
:func:`admission_feature`), or Röblitz et al.'s probe/reserve places a
one-site, possibly elastic, request (:func:`probe_reserve`, rules in
:mod:`evogrid.sim.probe`). An accepted
part holds its processors over ``[start, start + duration)``
(``State.held``, evogrid.sim.core).

The sites' LRMS are the core's (:func:`evogrid.sim.core.lrms_scan`, any
registered LRMS): a site that holds reservations judges its queue on its
profile with them (:func:`evogrid.sim.core.profile_scan`), so accepted
reservations always find their processors free (jobs are cut at their
estimate); a site that holds none schedules as it would without requests.
Jobs move between sites as the grid's exchange strategy says.

Arrays: ``requests`` int64, shape (N_REQUEST_FIELDS, R), sorted by
``R_SUBMIT``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba.extending import overload

from evogrid.sim.co_admission import (
    BACKFILL,
    BACKLOG,
    C_ACC_RUNNING,
    C_ACC_WAITING,
    C_ALGORITHM,
    C_BACKFILL_BOUND,
    C_BACKLOG_RULE,
    C_ESTIMATE,
    C_HISTORY_SECONDS,
    C_L1,
    C_L2,
    C_LOAD_RULE,
    C_MINSIZE,
    C_PREFERENCES,
    C_SEED,
    C_SLOTS,
    C_SUCCESS_SECONDS,
    C_THRESHOLD,
    C_TSN_MAX,
    C_TSS_GAP,
    C_WINDOWS,
    COLLECTIVE,
    EVERY_HELD,
    EXACT,
    HOURS_PER_WEEK,
    N_CONFIG,
    N_PREFERENCES,
    NEXT_EVENT,
    PROBE,
    RULEBASE,
    WEIGHTED,
    WORKLOAD_END,
    RequestParts,
    candidate_starts,
    choose,
    fill_fits,
    interval_price,
)
from evogrid.sim.codes import F_BEFORE_NEXT, F_LEAD, F_NWP, F_PART, F_RESERVED
from evogrid.sim.collective import lcg_seed, place
from evogrid.sim.core import (
    ESTIMATE,
    H_END,
    H_PROCS,
    H_START,
    H_TAKEN,
    M_PROCS,
    N_RUN,
    NEVER,
    PROCS,
    Q_HEAD,
    Q_TAIL,
    RUN_EST_END,
    RUN_JOB,
    RUN_TIME,
    SITE,
    START_TIME,
    W_PROCS,
    compiles_reservations,
    hold,
    site_profile,
    take_starting,
)
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
from evogrid.sim.profile import (
    P_FREE,
    P_TIME,
    breakpoint_at,
    earliest_fit,
)
from evogrid.sim.tsk import META_CODES, META_FEATURES, TSKStack, rulebase_output


class Booked(NamedTuple):
    """What became of each reservation request (:func:`new_bookings`; R requests, P parts, K sites)."""

    accepted: np.ndarray  #: int64 (R,): the accepted start (s), -1 where refused
    sites: np.ndarray  #: int64 (P, R): each part's site, -1
    messages: np.ndarray  #: int64 (R,): the messages sent for it
    prices: np.ndarray  #: float64 (3, R): its cost, and the cheapest and dearest admissible variant's
    procs: np.ndarray  #: int64 (P, R): the processors each part holds, -1
    length: np.ndarray  #: int64 (R,): how long they are held (s), -1 where refused
    #: float64 (K, R): Meltzer's Filterungsgrad, the share of the part variants a candidate site
    #: refuses (of those Algorithm 1 would form there); NaN where not placed by his algorithms
    filtered: np.ndarray
    #: int64 (2, R): the earliest and latest start (s) of an accepted request's admissible variants
    #: (Meltzer's min_start and max_start), -1 where refused or not placed by his algorithms
    span: np.ndarray
    #: int64 (3, R): Röblitz et al.'s funnel of a probed request (their Fig. 7): the candidates
    #: probed, those over the success threshold, and those the site refused before one was
    #: accepted (a start before its known workload ends, or before Meltzer's backlog clears under
    #: that load rule); 0 for other algorithms
    funnel: np.ndarray


#: Rows of ``requests``: times (s), the booked site (-1: any), and the processor counts a request may
#: run on with the offset of their durations in the ``durations`` table (plain requests: one count,
#: the largest part's; ``durations[k]``: at site k's speed, evogrid.sim.booking).
R_SUBMIT, R_EARLIEST, R_DEADLINE, R_DURATION, R_SITE, R_PROCS_MIN, R_PROCS_MAX, R_TABLE = range(8)
#: ... and a collective request's most sites N, least processors per site d and in all e.
R_SITES_MAX, R_SITE_MIN, R_TOTAL_MIN = range(8, 11)
N_REQUEST_FIELDS = 11
@njit(cache=True)
def requested_area(k, jobs, state):
    """Processor-seconds site k's waiting and running jobs request: the sum of estimate * procs
    (running jobs with their whole estimate, as Meltzer's listing 4 writes it)."""
    queue, sc, running = state.queue, state.sc, state.running
    requested = 0  # summed exactly: the result does not depend on the order
    for i in range(sc[k, Q_HEAD], sc[k, Q_TAIL]):
        job = queue[k, i]
        requested += jobs[ESTIMATE, job] * jobs[PROCS, job]
    for i in range(sc[k, N_RUN]):
        job = running[RUN_JOB, k, i]
        requested += jobs[ESTIMATE, job] * jobs[PROCS, job]
    return requested


@njit(cache=True, inline="always")
def backlog_from(k, acc, requested, before, state):
    """Meltzer's backlog of site k (seconds, rounded up): ``(acc * requested + sum over held
    reservations starting before ``before`` of duration * procs) / m_k`` (``requested``:
    :func:`requested_area`; ``before = NEVER``: every held reservation)."""
    held, held_n = state.held, state.held_n
    reserved = 0
    for h in range(held_n[k]):
        if held[H_START, k, h] < before:
            reserved += (held[H_END, k, h] - held[H_START, k, h]) * held[H_PROCS, k, h]
    return np.int64(np.ceil((acc * requested + reserved) / state.sc[k, M_PROCS]))


@njit(cache=True)
def backlog_seconds(k, acc, jobs, state):
    """Site k's backlog counting every held reservation (the probe's and the admission features')."""
    return backlog_from(k, acc, requested_area(k, jobs, state), NEVER, state)


@njit(cache=True)
def workload_end(k, t, acc, jobs, state):
    """Röblitz et al.'s approximate end of site k's known workload, T_wkl (their 3.2.3; s, rounded
    up), with ``acc = (acc_r, acc_w)``.

    ``T_Jr``: the running jobs' remaining times (to their estimated end) times acc_r, averaged
    weighted by processors; ``T_Jw``: the waiting jobs' processors times wall times times acc_w, over
    the site's processors; T_wkl = now + T_Jr + T_Jw, then lengthened by the held reservations
    active between now and T_wkl, each by its remaining processor-seconds over the site's
    processors, until no further one starts before it (their "iteratively increasing T_wkl for
    such reservations"; the increment is our reading). Sums are exact integers, so the result
    does not depend on the order of the jobs or reservations.
    """
    queue, sc, running, held, held_n = state.queue, state.sc, state.running, state.held, state.held_n
    m = sc[k, M_PROCS]
    running_procs = running_area = 0
    for i in range(sc[k, N_RUN]):
        job = running[RUN_JOB, k, i]
        running_procs += jobs[PROCS, job]
        running_area += jobs[PROCS, job] * max(running[RUN_EST_END, k, i] - t, 0)
    waiting_area = 0
    for i in range(sc[k, Q_HEAD], sc[k, Q_TAIL]):
        job = queue[k, i]
        waiting_area += jobs[PROCS, job] * jobs[ESTIMATE, job]
    base = t + (acc[0] * running_area / running_procs if running_procs else 0.0)
    reserved = 0
    end = base + acc[1] * waiting_area / m
    counted = np.zeros(held_n[k], dtype=np.bool_)
    grew = True
    while grew:
        grew = False
        for h in range(held_n[k]):
            if not counted[h] and held[H_START, k, h] < end and held[H_END, k, h] > t:
                counted[h] = True
                reserved += (held[H_END, k, h] - max(held[H_START, k, h], t)) * held[H_PROCS, k, h]
                grew = True
        end = base + (acc[1] * waiting_area + reserved) / m
    return np.int64(np.ceil(end))


@njit(cache=True)
def next_scheduling_event(k, t, state):
    """Meltzer's t_sched at site k: the first time after ``t`` its plan knows an event, the
    earliest estimated end of a running job or start or end of a held reservation (NEVER if none)."""
    sc, running, held, held_n = state.sc, state.running, state.held, state.held_n
    t_sched = np.int64(NEVER)
    for i in range(sc[k, N_RUN]):
        if running[RUN_EST_END, k, i] > t:
            t_sched = min(t_sched, running[RUN_EST_END, k, i])
    for h in range(held_n[k]):
        for x in (held[H_START, k, h], held[H_END, k, h]):
            if x > t:
                t_sched = min(t_sched, x)
    return t_sched


@njit(cache=True, _nrt=False)
def admit(r, t, book, jobs, state, booked):
    """Accept one-site request ``r`` at time ``t`` at its exact earliest fit if that meets its deadline."""
    requests, parts = book[0], book[1]
    sc, profile = state.sc, state.profile
    k = requests[R_SITE, r]
    need = parts[0, r]
    if need > sc[k, M_PROCS]:
        return
    not_before = max(t, requests[R_EARLIEST, r])
    n = site_profile(k, t, jobs, state)
    first, n = breakpoint_at(profile, n, not_before)
    duration = requests[R_DURATION, r]
    start = profile[P_TIME, earliest_fit(profile, n, need, duration, first)]
    if start + duration > requests[R_DEADLINE, r]:
        return
    accepted, sites, messages, procs, length = booked.accepted, booked.sites, booked.messages, booked.procs, \
        booked.length
    accepted[r] = start
    sites[0, r] = k
    messages[r] = 1
    procs[0, r] = need
    length[r] = duration
    hold(k, start, start + duration, need, state)


@njit(cache=True)
def _next_planned_start(k, jobs, state, n):
    """Site k's next planned start after now: its queue head's earliest fit on the profile, or its
    next reservation's start (NEVER if neither)."""
    queue, sc, profile, held, held_n = state.queue, state.sc, state.profile, state.held, state.held_n
    t = np.int64(NEVER)
    for h in range(held_n[k]):
        if not held[H_TAKEN, k, h]:
            t = min(t, held[H_START, k, h])
    if sc[k, Q_TAIL] > sc[k, Q_HEAD]:
        head = queue[k, sc[k, Q_HEAD]]
        t = min(t, profile[P_TIME, earliest_fit(profile, n, jobs[PROCS, head], max(jobs[ESTIMATE, head], 1))])
    return t


@njit(cache=True)
def admission_feature(code, k, t, s, duration, need, lead_room, state):
    """Admission feature ``code`` of a part of ``need`` processors at site k over ``[s, s + duration)``,
    asked at time ``t`` (docs/reservations.md; NaN for an unknown code, which no rulebase accepts).

    ``lead_room = (backlog, next planned start)`` of the site (s).
    """
    sc, held, held_n = state.sc, state.held, state.held_n
    m = sc[k, M_PROCS]
    if code == F_NWP:
        return sc[k, W_PROCS] / m
    if code == F_LEAD:  # 0: starts now, 0.5: when the backlog clears, -> 1 far beyond it
        lead = s - t
        return 1.0 if lead + lead_room[0] == 0 else lead / (lead + lead_room[0])
    if code == F_PART:
        return need / m
    if code == F_RESERVED:
        overlap = 0
        for h in range(held_n[k]):
            inside = min(held[H_END, k, h], s + duration) - max(held[H_START, k, h], s)
            overlap += max(inside, 0) * held[H_PROCS, k, h]
        return overlap / (m * duration)
    if code == F_BEFORE_NEXT:
        return 1.0 if s + duration <= lead_room[1] else 0.0
    return np.nan


@njit(cache=True)
def _fill_allow(k, t, request, starts, duration, lead_room, fits, rulebases, state):
    """``allow[i, k, c]``: site k's rulebase (index k of the stack) accepts part i of ``request``
    (a :class:`~evogrid.sim.co_admission.RequestParts`) at candidate c, asked only where the part
    fits; ``fits = (fit, allow)``."""
    r, parts, nparts = request.r, request.parts, request.n
    fit, allow = fits
    params, meta = rulebases
    nf = meta[k, META_FEATURES]
    x = np.empty(nf)
    e = np.empty(params.shape[1])
    for i in range(nparts):
        need = parts[i, r]
        for c in range(starts[2]):
            if fit[k, c] < need:
                continue
            s = starts[0] + c * starts[1]
            for h in range(nf):
                x[h] = admission_feature(meta[k, META_CODES + h], k, t, s, duration, need, lead_room, state)
            allow[i, k, c] = rulebase_output(params, meta, k, x, e) > 0.0


@njit(cache=True)
def admitted_starts(k, t, starts, duration, rule, jobs, state, n, admitted):
    """``admitted[c]``: does site k's admission rule let candidate c of ``starts = (earliest, inc,
    count)`` in (Meltzer's Algorithms 3-5; every start for the others)? ``rule = (config, acc)``;
    site k's profile (``n`` breakpoints) is in ``state.profile``.

    Algorithm 3: ``s >= t + backlog(s)``, the backlog by ``C_BACKLOG_RULE``. Algorithms 4 and 5
    also admit a variant ending before t_sched (``NEXT_EVENT``) or by the next planned start
    (``HEAD_FIT``).
    """
    config, acc = rule
    earliest, inc, count = starts
    algorithm = np.int64(config[C_ALGORITHM])
    if algorithm != BACKLOG and algorithm != BACKFILL and algorithm != WEIGHTED:
        for c in range(count):
            admitted[c] = True
        return
    until = np.int64(-1)  # a variant ending by then is a backfill reservation
    if algorithm != BACKLOG:
        if np.int64(config[C_BACKFILL_BOUND]) == NEXT_EVENT:
            until = next_scheduling_event(k, t, state) - 1  # "t_ende kleiner ... als t_sched"
        else:
            until = _next_planned_start(k, jobs, state, n)
    requested = requested_area(k, jobs, state)
    every = np.int64(config[C_BACKLOG_RULE]) == EVERY_HELD
    for c in range(count):
        s = earliest + c * inc
        before = np.int64(NEVER) if every else s
        admitted[c] = s >= t + backlog_from(k, acc, requested, before, state) or s + duration <= until


@njit(cache=True, inline="always")
def _filter_degree(k, r, parts, nparts, count, fits, sc):
    """Meltzer's Filterungsgrad of site k for request ``r``: of the part variants Algorithm 1 would
    form there (every part the machine can hold, at every candidate start), the share the site
    refuses (``fits = (fit, allow)`` as :func:`evogrid.sim.co_admission.walk` takes them); NaN
    where it forms none."""
    fit, allow = fits
    ruled = allow.shape[0] > 0
    formed = refused = 0
    for i in range(nparts):
        if parts[i, r] > sc[k, M_PROCS]:
            continue
        for c in range(count):
            formed += 1
            if fit[k, c] < parts[i, r] or (ruled and not allow[i, k, c]):
                refused += 1
    return refused / formed if formed else np.nan


@njit(cache=True)
def co_admit(r, t, book, rules, jobs, state, booked):
    """Place request ``r`` (parts on distinct sites, a common start) at time ``t`` by one of
    Meltzer's algorithms or the sites' admission rulebases (evogrid.sim.co_admission); a one-site
    request has its site fixed."""
    requests, parts, orders, _ = book
    config, acc, tariff, cum, rulebases = rules
    sc, profile = state.sc, state.profile
    algorithm = np.int64(config[C_ALGORITHM])
    duration = requests[R_DURATION, r]
    earliest = requests[R_EARLIEST, r]
    inc, count = candidate_starts(earliest, requests[R_DEADLINE, r] - duration, np.int64(config[C_MINSIZE]),
                                  np.int64(config[C_WINDOWS]))
    nparts = 0
    while nparts < parts.shape[0] and parts[nparts, r] > 0:
        nparts += 1
    nsites = 1 if requests[R_SITE, r] >= 0 else orders.shape[0]
    request = RequestParts(r, parts, nparts)
    starts = (earliest, inc, count)
    fit = np.full((sc.shape[0], count), -1, dtype=np.int64)
    ruled = algorithm == RULEBASE
    shape = (nparts, sc.shape[0], count) if ruled else (0, 0, 0)
    allow = np.zeros(shape, dtype=np.bool_)
    admitted = np.empty(count, dtype=np.bool_)
    for o in range(nsites):
        k = orders[o, r]
        n = site_profile(k, t, jobs, state)
        admitted_starts(k, t, starts, duration, (config, acc[k]), jobs, state, n, admitted)
        fill_fits(profile, n, k, earliest, inc, count, duration, admitted, fit)
        if ruled:
            lead_room = (backlog_seconds(k, acc[k], jobs, state), _next_planned_start(k, jobs, state, n))
            _fill_allow(k, t, request, starts, duration, lead_room, (fit, allow), rulebases, state)
        booked.filtered[k, r] = _filter_degree(k, r, parts, nparts, count, (fit, allow), sc)
    accepted, sites, messages, prices = booked.accepted, booked.sites, booked.messages, booked.prices
    procs, length = booked.procs, booked.length
    chosen = np.empty(max(nparts, 1), dtype=np.int64)
    start, sent, costs, span = choose(request, (fit, allow), orders, nsites, starts, duration, config,
                                      (tariff, cum), chosen)
    messages[r] = sent
    if start < 0:
        return
    accepted[r] = start
    prices[0, r], prices[1, r], prices[2, r] = costs
    booked.span[0, r], booked.span[1, r] = span
    length[r] = duration
    for i in range(nparts):
        sites[i, r] = chosen[i]
        procs[i, r] = parts[i, r]
        hold(chosen[i], start, start + duration, parts[i, r], state)


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
def probe_reserve(r, t, book, rules, jobs, state, booked):
    """Röblitz et al.'s probe/reserve of request ``r`` at time ``t`` (evogrid.sim.probe): its site, or
    (site -1) every site in the request's order that has its fewest processors, is probed with the
    request's durations at that site's speed (``durations[k]``); the candidates of all of them go
    into one preference order, and the first whose site accepts it (it starts once the site's known
    workload has ended: :func:`workload_end`, theirs, or Meltzer's backlog, ``C_LOAD_RULE``) is
    reserved."""
    requests, _, orders, durations = book
    config, acc, tariff, cum, _ = rules
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
        if np.int64(config[C_LOAD_RULE]) == WORKLOAD_END:
            clear[k] = workload_end(k, t, (config[C_ACC_RUNNING], config[C_ACC_WAITING]), jobs, state)
        else:
            clear[k] = t + backlog_seconds(k, acc[k], jobs, state)
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
def collective_admit(r, t, book, rules, jobs, state, booked):
    """Place collective request ``r`` at time ``t`` (evogrid.sim.collective): at the earliest
    candidate start, the instants where some site's free processors rise (and the earliest start
    itself), that has a feasible set of sites."""
    requests = book[0]
    config, _, tariff, cum, _ = rules
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
        n, _, rng = place(avail, machine, need, limits, rng, chosen, alloc)
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


@njit(cache=True, _nrt=True)
def book_request(r, t, book, rules, jobs, state, booked):
    """Request ``r`` arrives at time ``t``: its admission algorithm places it or refuses it, and
    reservations accepted to start now take their processors. A call, not inlined: one compiled
    copy serves every loop that takes requests. With numba's runtime, unlike the loop that calls
    it (which would pass its ``_nrt=False`` on): the algorithms allocate scratch arrays."""
    algorithm = np.int64(rules[0][C_ALGORITHM])
    if algorithm == EXACT:
        admit(r, t, book, jobs, state, booked)
    elif algorithm == PROBE:
        probe_reserve(r, t, book, rules, jobs, state, booked)
    elif algorithm == COLLECTIVE:
        collective_admit(r, t, book, rules, jobs, state, booked)
    else:
        co_admit(r, t, book, rules, jobs, state, booked)
    take_starting(t, state)


def book_in_mode(mode, r, t, book, rules, jobs, state, booked):
    """:func:`book_request` in a loop compiled for ``mode`` (a literal); compiled for modes whose
    sites may hold reservations only (the overload below), so the other loops never compile the
    admission algorithms."""


@overload(book_in_mode, prefer_literal=True)
def _book_in_mode(mode, r, t, book, rules, jobs, state, booked):
    if not compiles_reservations(mode):
        def never(mode, r, t, book, rules, jobs, state, booked):
            return None
        return never

    def book_it(mode, r, t, book, rules, jobs, state, booked):
        book_request(r, t, book, rules, jobs, state, booked)
    return book_it


def new_bookings(book: tuple) -> Booked:
    """The :class:`Booked` of :func:`book_request` before any request: every one refused."""
    R, parts, K = book[0].shape[1], book[1], book[2].shape[0]
    return Booked(np.full(R, -1, dtype=np.int64), np.full(parts.shape, -1, dtype=np.int64),
                  np.zeros(R, dtype=np.int64), np.full((3, R), np.nan),
                  np.full(parts.shape, -1, dtype=np.int64), np.full(R, -1, dtype=np.int64),
                  np.full((K, R), np.nan), np.full((2, R), -1, dtype=np.int64),
                  np.zeros((3, R), dtype=np.int64))


def no_requests(n_sites: int) -> tuple:
    """``(book, rules)`` of a run without requests, typed as a run with them (one compiled loop)."""
    book = (np.zeros((N_REQUEST_FIELDS, 0), dtype=np.int64), np.zeros((1, 0), dtype=np.int64),
            np.zeros((n_sites, 0), dtype=np.int64), np.zeros((n_sites, 1), dtype=np.int64))
    stack = TSKStack.empty()
    rules = (np.zeros(N_CONFIG), np.zeros(n_sites), np.zeros((n_sites, HOURS_PER_WEEK)),
             np.zeros((n_sites, HOURS_PER_WEEK + 1)), (stack.params, stack.meta))
    return book, rules
