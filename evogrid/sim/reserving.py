"""How the compiled loop books reservation requests: what the admission algorithms
(evogrid.sim.admission, one file each; the loop is :mod:`evogrid.sim.grid`'s, compiled for a mode
with reservations, ``evogrid.sim.core.reserving_mode``) read of the sites and share.

Requests (docs/reservations.md) arrive next to the batch jobs. An algorithm
places a request on its own (first fit, Röblitz et al.'s probe/reserve,
Cankar's collective placement) or through Meltzer's variant tree
(:func:`co_admit`, rules in :mod:`evogrid.sim.co_admission`), where its
flags say which starts a site admits (the backlog, :func:`backlog_from`;
backfill reservations) or that each site's TSK admission rulebase admits the
parts offered to it (features: :func:`admission_feature`). An accepted part
holds its processors over ``[start, start + duration)`` (``State.held``,
evogrid.sim.core).

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

from evogrid.sim import features
from evogrid.sim.co_admission import (
    ANY_START,
    BACKLOG_OR_BACKFILL,
    C_ASKS_PYTHON,
    C_BACKFILL_BOUND,
    C_BACKLOG_RULE,
    C_MINSIZE,
    C_RULED,
    C_START_RULE,
    C_STATUS_QUEUE,
    C_STEP,
    C_WINDOWS,
    EVERY_HELD,
    HEAD_FIT,
    HOURS_PER_WEEK,
    N_CONFIG,
    NEXT_END,
    STATUS_HEAD,
    RequestParts,
    candidate_starts,
    choose,
    fill_fits,
    start_at,
)
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
    START_TIME,
    hold,
    site_profile,
)
from evogrid.sim.numba_stamp import njit
from evogrid.sim.profile import (
    P_TIME,
    earliest_fit,
    reserve,
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
def workload_end(k, t, acc, run_left, jobs, state):
    """Röblitz et al.'s approximate end of site k's known workload, T_wkl (their 3.2.3; s, rounded
    up), with ``acc = (acc_r, acc_w)``; ``run_left``: a running job's remaining time is its remaining
    run time (their j_ret, "the remaining execution time", beside the waiting jobs' "wall time
    limit"), else the time to its estimated end (evogrid's earlier reading).

    ``T_Jr``: the running jobs' remaining times times acc_r, averaged
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
        end = state.out[START_TIME, job] + jobs[RUN_TIME, job] if run_left else running[RUN_EST_END, k, i]
        running_area += jobs[PROCS, job] * max(end - t, 0)
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
def next_scheduling_event(k, t, ends_only, state):
    """Meltzer's t_sched at site k: the first time after ``t`` its plan knows an event, the
    earliest estimated end of a running job or start or end of a held reservation; with
    ``ends_only`` the earliest end of either (his 6.7.5; NEVER if none)."""
    sc, running, held, held_n = state.sc, state.running, state.held, state.held_n
    t_sched = np.int64(NEVER)
    for i in range(sc[k, N_RUN]):
        if running[RUN_EST_END, k, i] > t:
            t_sched = min(t_sched, running[RUN_EST_END, k, i])
    for h in range(held_n[k]):
        if held[H_END, k, h] > t:
            t_sched = min(t_sched, held[H_END, k, h])
        if not ends_only and held[H_START, k, h] > t:
            t_sched = min(t_sched, held[H_START, k, h])
    return t_sched


@njit(cache=True)
def _next_planned_start(k, jobs, state, n):
    """Site k's next planned start after now: its queue head's earliest fit on the profile, or its
    next reservation's start (NEVER if neither)."""
    held, held_n = state.held, state.held_n
    t = np.int64(NEVER)
    for h in range(held_n[k]):
        if not held[H_TAKEN, k, h]:
            t = min(t, held[H_START, k, h])
    fit, _, _ = _head_fit(k, jobs, state, n)
    if fit >= 0:
        t = min(t, state.profile[P_TIME, fit])
    return t


@njit(cache=True, inline="always")
def _head_fit(k, jobs, state, n):
    """``(breakpoint, processors, duration)``: where site k's queue head fits earliest on the
    profile (``n`` breakpoints, in ``state.profile``) for its estimate (at least 1 s); breakpoint -1
    if no job waits (a queued job fits its machine)."""
    queue, sc = state.queue, state.sc
    if sc[k, Q_TAIL] == sc[k, Q_HEAD]:
        return -1, 0, 0
    head = queue[k, sc[k, Q_HEAD]]
    need, duration = jobs[PROCS, head], max(jobs[ESTIMATE, head], 1)
    return earliest_fit(state.profile, n, need, duration), need, duration


@njit(cache=True, inline="always")
def plan_head(k, jobs, state, n):
    """Site k's queue head held at its earliest fit on the profile (``n`` breakpoints, in
    ``state.profile``), as Maui's reservation table holds the job reservation of its first waiting
    job (RESERVATIONDEPTH 1); returns the new breakpoint count."""
    fit, need, duration = _head_fit(k, jobs, state, n)
    return n if fit < 0 else reserve(state.profile, n, fit, need, duration)


@njit(cache=True)
def admission_feature(code, k, t, s, duration, need, lead_room, state):
    """Admission feature ``code`` of a part of ``need`` processors at site k over ``[s, s + duration)``,
    asked at time ``t`` (:func:`evogrid.sim.features.admission_value`; NaN for an unknown code, which
    no rulebase accepts). ``lead_room = (backlog, next planned start)`` of the site (s). Not inlined:
    one call site in the admission's loop over candidate starts."""
    return features.admission_value(code, k, t, s, duration, need, lead_room, state)


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
        for c in range(starts[3]):
            if fit[k, c] < need:
                continue
            s = start_at(starts, c)
            for h in range(nf):
                x[h] = admission_feature(meta[k, META_CODES + h], k, t, s, duration, need, lead_room, state)
            allow[i, k, c] = rulebase_output(params, meta, k, x, e) > 0.0


@njit(cache=True)
def admitted_starts(k, t, starts, duration, rule, jobs, state, n, admitted):
    """``admitted[c]``: does site k's admission rule let candidate c of ``starts``
    (:func:`~evogrid.sim.co_admission.candidate_starts`) in (the algorithm's ``C_START_RULE``:
    every start, or Meltzer's Algorithms 3-5)?
    ``rule = (config, acc)``; site k's profile (``n`` breakpoints) is in ``state.profile``.

    ``backlog`` (Algorithm 3): ``s >= t + backlog(s)``, the backlog by ``C_BACKLOG_RULE``.
    ``backlog-or-backfill`` (Algorithms 4 and 5) also admits a variant ending before t_sched
    (``NEXT_EVENT``, ``NEXT_END``) or by the next planned start (``HEAD_FIT``).
    """
    config, acc = rule
    count = starts[3]
    start_rule = np.int64(config[C_START_RULE])
    if start_rule == ANY_START:
        for c in range(count):
            admitted[c] = True
        return
    until = np.int64(-1)  # a variant ending by then is a backfill reservation
    if start_rule == BACKLOG_OR_BACKFILL:
        bound = np.int64(config[C_BACKFILL_BOUND])
        if bound != HEAD_FIT:  # "t_ende kleiner ... als t_sched"
            until = next_scheduling_event(k, t, bound == NEXT_END, state) - 1
        else:
            until = _next_planned_start(k, jobs, state, n)
    requested = requested_area(k, jobs, state)
    every = np.int64(config[C_BACKLOG_RULE]) == EVERY_HELD
    for c in range(count):
        s = start_at(starts, c)
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
    """Place request ``r`` (parts on distinct sites, a common start) at time ``t`` through Meltzer's
    variant tree, with the admission algorithm's flags (``C_START_RULE``, ``C_RULED``, ... of
    evogrid.sim.co_admission, from its registry entry, evogrid.sim.admission); a one-site request
    has its site fixed."""
    requests, parts, orders, _ = book
    config, acc, tariff, cum, rulebases, asked = rules
    sc, profile = state.sc, state.profile
    duration = requests[R_DURATION, r]
    earliest = requests[R_EARLIEST, r]
    starts = candidate_starts(earliest, requests[R_DEADLINE, r] - duration, np.int64(config[C_MINSIZE]),
                              np.int64(config[C_WINDOWS]), np.int64(config[C_STEP]))
    count = starts[3]
    nparts = 0
    while nparts < parts.shape[0] and parts[nparts, r] > 0:
        nparts += 1
    nsites = 1 if requests[R_SITE, r] >= 0 else orders.shape[0]
    request = RequestParts(r, parts, nparts)
    fit = np.full((sc.shape[0], count), -1, dtype=np.int64)
    ruled = config[C_RULED] != 0
    shape = (nparts, sc.shape[0], count) if ruled else (0, 0, 0)
    # A Python policy's answers were written into ``asked`` before the request (evogrid.sim.grid).
    allow = asked if config[C_ASKS_PYTHON] != 0 else np.zeros(shape, dtype=np.bool_)
    admitted = np.empty(count, dtype=np.bool_)
    for o in range(nsites):
        k = orders[o, r]
        n = site_profile(k, t, jobs, state)
        admitted_starts(k, t, starts, duration, (config, acc[k]), jobs, state, n, admitted)
        lead_room = (np.int64(0), np.int64(0))
        if ruled:
            lead_room = (backlog_seconds(k, acc[k], jobs, state), _next_planned_start(k, jobs, state, n))
        # The status answer (his listing 3) after the rules that read the plain profile.
        if config[C_STATUS_QUEUE] == STATUS_HEAD:
            n = plan_head(k, jobs, state, n)
        fill_fits(profile, n, k, starts, duration, admitted, fit)
        if ruled:
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


def new_bookings(book: tuple) -> Booked:
    """The :class:`Booked` of :func:`book_request` before any request: every one refused."""
    R, parts, K = book[0].shape[1], book[1], book[2].shape[0]
    return Booked(np.full(R, -1, dtype=np.int64), np.full(parts.shape, -1, dtype=np.int64),
                  np.zeros(R, dtype=np.int64), np.full((3, R), np.nan),
                  np.full(parts.shape, -1, dtype=np.int64), np.full(R, -1, dtype=np.int64),
                  np.full((K, R), np.nan), np.full((2, R), -1, dtype=np.int64),
                  np.zeros((3, R), dtype=np.int64))


def no_answers() -> np.ndarray:
    """The ``asked`` table of rules whose algorithm asks no Python policy (the rules' last array)."""
    return np.zeros((0, 0, 0), dtype=np.bool_)


def no_requests(n_sites: int) -> tuple:
    """``(book, rules)`` of a run without requests, typed as a run with them (one compiled loop)."""
    book = (np.zeros((N_REQUEST_FIELDS, 0), dtype=np.int64), np.zeros((1, 0), dtype=np.int64),
            np.zeros((n_sites, 0), dtype=np.int64), np.zeros((n_sites, 1), dtype=np.int64))
    stack = TSKStack.empty()
    rules = (np.zeros(N_CONFIG), np.zeros(n_sites), np.zeros((n_sites, HOURS_PER_WEEK)),
             np.zeros((n_sites, HOURS_PER_WEEK + 1)), (stack.params, stack.meta), no_answers())
    return book, rules
