"""The compiled event loop of sites without exchange that also take reservations.

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
part holds its processors over ``[start, start + duration)``. Every LRMS
works on the profile: a batch job starts only if it fits from now for its
estimate, so accepted reservations always find their processors free (jobs
are cut at their estimate). FCFS stops at the first job that does not fit,
LIST skips it, EASY reserves the first one at its earliest fit and
conservative backfilling every one.

With no request, every LRMS gives the schedule of :mod:`evogrid.sim.core`
(the tests check this on random workloads): the profile is the general
form of EASY's shadow time. It costs a profile pass per event, so the
other loops keep their own fast rules.

Arrays: ``requests`` int64, shape (N_REQUEST_FIELDS, R), sorted by
``R_SUBMIT``; ``held`` int64, shape (N_HELD_FIELDS, K, R), the accepted
reservations of each site not yet ended (``held_n[k]`` of them).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from evogrid.sim import lrms
from evogrid.sim.co_admission import (
    BACKFILL,
    BACKLOG,
    C_ALGORITHM,
    C_ESTIMATE,
    C_L1,
    C_L2,
    C_MINSIZE,
    C_PREFERENCES,
    C_SEED,
    C_SUCCESS_SECONDS,
    C_THRESHOLD,
    C_TSN_MAX,
    C_TSS_GAP,
    C_WINDOWS,
    COLLECTIVE,
    EXACT,
    PROBE,
    RULEBASE,
    candidate_starts,
    choose,
    fill_fits,
    interval_price,
)
from evogrid.sim.codes import F_BEFORE_NEXT, F_LEAD, F_NWP, F_PART, F_RESERVED
from evogrid.sim.collective import lcg_seed, place
from evogrid.sim.core import (
    ESTIMATE,
    FREE,
    HOME,
    M_PROCS,
    N_RUN,
    NEVER,
    PROCS,
    Q_HEAD,
    Q_TAIL,
    RUN_JOB,
    START_TIME,
    SUBMIT,
    W_PROCS,
    build_profile,
    close_queue,
    complete_jobs,
    enqueue,
    new_state,
    next_completion,
    start_job,
)
from evogrid.sim.probe import (
    K_COST,
    K_DURATION,
    K_PROCS,
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
    first_short_step,
    reserve,
)
from evogrid.sim.tsk import META_CODES, META_FEATURES, rulebase_output

#: Rows of ``requests``: times (s), the booked site (-1: any), and the processor counts a request may
#: run on with the offset of their durations in the ``durations`` table (plain requests: one count,
#: the largest part's).
R_SUBMIT, R_EARLIEST, R_DEADLINE, R_DURATION, R_SITE, R_PROCS_MIN, R_PROCS_MAX, R_TABLE = range(8)
#: ... and a collective request's most sites N, least processors per site d and in all e.
R_SITES_MAX, R_SITE_MIN, R_TOTAL_MIN = range(8, 11)
N_REQUEST_FIELDS = 11
H_START, H_END, H_PROCS, H_TAKEN = range(4)
N_HELD_FIELDS = 4
#: The core's start and completion bookkeeping in this mode keeps every site's running jobs
#: sorted by estimated end, which each profile pass starts from.
KEEP_RUN_LIST = lrms.CONSERVATIVE


#: Extra rows of this loop's ``profile`` array: the sites' reservations as changes of the free count
#: (time, processors), sorted by time, and the merged profile being written.
D_TIME, D_DELTA, M_TIME, M_FREE = 3, 4, 5, 6
N_PROFILE_ROWS = 7


@njit(cache=True, inline="always")
def _add_change(profile, d, x, delta):
    """Insert the change ``(x, delta)`` into the ``d`` sorted ones (a site holds few reservations)."""
    i = d
    while i > 0 and profile[D_TIME, i - 1] > x:
        profile[D_TIME, i] = profile[D_TIME, i - 1]
        profile[D_DELTA, i] = profile[D_DELTA, i - 1]
        i -= 1
    profile[D_TIME, i] = x
    profile[D_DELTA, i] = delta
    return d + 1


@njit(cache=True)
def _site_profile(k, t, jobs, sc, running, profile, held, held_n):
    """Site k's profile at time ``t``: running jobs and accepted reservations; returns its size.

    A reservation that has started is already out of the free count: it comes
    back at its end. One to come is taken over its interval. The running
    jobs' profile and the reservations' sorted changes are merged in one
    pass (breakpoints: the union of both).
    """
    n = build_profile(k, t, sc, running, jobs, profile)
    d = 0
    for h in range(held_n[k]):
        end = held[H_END, k, h]
        if end <= t:
            continue
        if not held[H_TAKEN, k, h]:
            d = _add_change(profile, d, max(held[H_START, k, h], t), -held[H_PROCS, k, h])
        d = _add_change(profile, d, end, held[H_PROCS, k, h])
    if d == 0:
        return n
    i = j = m = 0
    base = reserved = 0
    while i < n or j < d:
        x = min(profile[P_TIME, i] if i < n else NEVER, profile[D_TIME, j] if j < d else NEVER)
        if i < n and profile[P_TIME, i] == x:
            base = profile[P_FREE, i]
            i += 1
        while j < d and profile[D_TIME, j] == x:
            reserved += profile[D_DELTA, j]
            j += 1
        profile[M_TIME, m] = x
        profile[M_FREE, m] = base + reserved
        m += 1
    for b in range(m):
        profile[P_TIME, b] = profile[M_TIME, b]
        profile[P_FREE, b] = profile[M_FREE, b]
    return m


@njit(cache=True, _nrt=False)
def profile_pass(k, t, code, jobs, queue, sc, running, out, profile, held, held_n):
    """Site k's LRMS ``code`` over its queue at time ``t``, on the profile (module docstring)."""
    head = sc[k, Q_HEAD]
    tail = sc[k, Q_TAIL]
    if head == tail:
        return
    n = _site_profile(k, t, jobs, sc, running, profile, held, held_n)
    write = read = head
    reserving = code == lrms.EASY or code == lrms.CONSERVATIVE
    while read < tail:
        job = queue[k, read]
        need = jobs[PROCS, job]
        d = jobs[ESTIMATE, job]
        read += 1
        if first_short_step(profile, n, need, d) < 0:
            sc[k, W_PROCS] -= need
            start_job(k, t, job, KEEP_RUN_LIST, code, jobs, sc, running, out)
            n = reserve(profile, n, 0, need, max(d, 1))  # held at least until its end is processed
            if write == head:
                head += 1  # nothing kept yet: the queue just gets shorter at the front
                write += 1
            continue
        queue[k, write] = job
        write += 1
        if code == lrms.FCFS:
            break
        if reserving:  # held at least 1 s, as EASY's rule holds a zero-length head's processors
            n = reserve(profile, n, earliest_fit(profile, n, need, d), need, max(d, 1))
            reserving = code == lrms.CONSERVATIVE  # EASY reserves for the first one only
    close_queue(k, head, read, write, tail, queue, sc)


@njit(cache=True)
def backlog_seconds(k, acc, jobs, queue, sc, running, held, held_n):
    """Meltzer's backlog of site k (seconds): ``(sum over waiting and running jobs of acc * estimate *
    procs + sum over accepted reservations not yet ended of duration * procs) / m_k``, rounded up."""
    requested = 0  # processor-seconds, summed exactly: the result does not depend on the order
    for i in range(sc[k, Q_HEAD], sc[k, Q_TAIL]):
        job = queue[k, i]
        requested += jobs[ESTIMATE, job] * jobs[PROCS, job]
    for i in range(sc[k, N_RUN]):
        job = running[RUN_JOB, k, i]
        requested += jobs[ESTIMATE, job] * jobs[PROCS, job]
    reserved = 0
    for h in range(held_n[k]):
        reserved += (held[H_END, k, h] - held[H_START, k, h]) * held[H_PROCS, k, h]
    return np.int64(np.ceil((acc * requested + reserved) / sc[k, M_PROCS]))


@njit(cache=True, inline="always")
def _hold(k, start, end, procs, held, held_n):
    """Site k accepts a reservation of ``procs`` processors over ``[start, end)``."""
    h = held_n[k]
    held[H_START, k, h] = start
    held[H_END, k, h] = end
    held[H_PROCS, k, h] = procs
    held[H_TAKEN, k, h] = 0
    held_n[k] += 1


@njit(cache=True, _nrt=False)
def admit(r, t, book, jobs, state, profile, held, held_n, booked):
    """Accept one-site request ``r`` at time ``t`` at its exact earliest fit if that meets its deadline."""
    requests, parts = book[0], book[1]
    _, sc, running = state
    k = requests[R_SITE, r]
    need = parts[0, r]
    if need > sc[k, M_PROCS]:
        return
    not_before = max(t, requests[R_EARLIEST, r])
    n = _site_profile(k, t, jobs, sc, running, profile, held, held_n)
    first, n = breakpoint_at(profile, n, not_before)
    duration = requests[R_DURATION, r]
    start = profile[P_TIME, earliest_fit(profile, n, need, duration, first)]
    if start + duration > requests[R_DEADLINE, r]:
        return
    accepted, sites, messages, _, procs, length = booked
    accepted[r] = start
    sites[0, r] = k
    messages[r] = 1
    procs[0, r] = need
    length[r] = duration
    _hold(k, start, start + duration, need, held, held_n)


@njit(cache=True)
def _next_planned_start(k, jobs, queue, sc, profile, n, held, held_n):
    """Site k's next planned start after now: its queue head's earliest fit on the profile, or its
    next reservation's start (NEVER if neither)."""
    t = np.int64(NEVER)
    for h in range(held_n[k]):
        if not held[H_TAKEN, k, h]:
            t = min(t, held[H_START, k, h])
    if sc[k, Q_TAIL] > sc[k, Q_HEAD]:
        head = queue[k, sc[k, Q_HEAD]]
        t = min(t, profile[P_TIME, earliest_fit(profile, n, jobs[PROCS, head], max(jobs[ESTIMATE, head], 1))])
    return t


@njit(cache=True)
def admission_feature(code, k, t, s, duration, need, lead_room, sc, held, held_n):
    """Admission feature ``code`` of a part of ``need`` processors at site k over ``[s, s + duration)``,
    asked at time ``t`` (docs/reservations.md; NaN for an unknown code, which no rulebase accepts).

    ``lead_room = (backlog, next planned start)`` of the site (s).
    """
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
def _fill_allow(k, t, r, parts, nparts, starts, duration, lead_room, fit, allow, rulebases, state):
    """``allow[i, k, c]``: site k's rulebase (index k of the stack) accepts part i at candidate c,
    asked only where the part fits; ``state = (sc, held, held_n)``."""
    params, meta = rulebases
    sc, held, held_n = state
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
                x[h] = admission_feature(meta[k, META_CODES + h], k, t, s, duration, need, lead_room, sc,
                                         held, held_n)
            allow[i, k, c] = rulebase_output(params, meta, k, x, e) > 0.0


@njit(cache=True)
def co_admit(r, t, book, rules, jobs, state, profile, held, held_n, booked):
    """Place request ``r`` (parts on distinct sites, a common start) at time ``t`` by one of
    Meltzer's algorithms or the sites' admission rulebases (evogrid.sim.co_admission); a one-site
    request has its site fixed."""
    requests, parts, orders, _ = book
    config, acc, tariff, cum, rulebases = rules
    queue, sc, running = state
    algorithm = np.int64(config[C_ALGORITHM])
    duration = requests[R_DURATION, r]
    earliest = requests[R_EARLIEST, r]
    inc, count = candidate_starts(earliest, requests[R_DEADLINE, r] - duration, np.int64(config[C_MINSIZE]),
                                  np.int64(config[C_WINDOWS]))
    nparts = 0
    while nparts < parts.shape[0] and parts[nparts, r] > 0:
        nparts += 1
    nsites = 1 if requests[R_SITE, r] >= 0 else orders.shape[0]
    starts = (earliest, inc, count)
    fit = np.full((sc.shape[0], count), -1, dtype=np.int64)
    ruled = algorithm == RULEBASE
    shape = (nparts, sc.shape[0], count) if ruled else (0, 0, 0)
    allow = np.zeros(shape, dtype=np.bool_)
    for o in range(nsites):
        k = orders[o, r]
        n = _site_profile(k, t, jobs, sc, running, profile, held, held_n)
        admit_from, admit_until, backlog = t, np.int64(0), np.int64(0)
        if algorithm >= BACKLOG:
            backlog = backlog_seconds(k, acc[k], jobs, queue, sc, running, held, held_n)
            if not ruled:
                admit_from = t + backlog
        if algorithm >= BACKFILL:
            admit_until = _next_planned_start(k, jobs, queue, sc, profile, n, held, held_n)
        fill_fits(profile, n, k, earliest, inc, count, duration, admit_from, admit_until, fit)
        if ruled:
            _fill_allow(k, t, r, parts, nparts, starts, duration, (backlog, admit_until), fit, allow,
                        rulebases, (sc, held, held_n))
    accepted, sites, messages, prices, procs, length = booked
    chosen = np.empty(max(nparts, 1), dtype=np.int64)
    start, sent, cost, cheapest, dearest = choose(r, parts, nparts, (fit, allow), orders, nsites, starts,
                                                  duration, config, tariff, cum, chosen)
    messages[r] = sent
    if start < 0:
        return
    accepted[r] = start
    prices[0, r] = cost
    prices[1, r] = cheapest
    prices[2, r] = dearest
    length[r] = duration
    for i in range(nparts):
        sites[i, r] = chosen[i]
        procs[i, r] = parts[i, r]
        _hold(chosen[i], start, start + duration, parts[i, r], held, held_n)


@njit(cache=True)
def probe_reserve(r, t, book, rules, jobs, state, profile, held, held_n, booked):
    """Röblitz et al.'s probe/reserve of one-site request ``r`` at time ``t`` (evogrid.sim.probe): the
    site accepts the first candidate in preference order that starts once its backlog has cleared."""
    requests, _, _, durations = book
    config, acc, tariff, cum, _ = rules
    queue, sc, running = state
    k = requests[R_SITE, r]
    clear = t + backlog_seconds(k, acc[k], jobs, queue, sc, running, held, held_n)
    n = _site_profile(k, t, jobs, sc, running, profile, held, held_n)
    low, high = requests[R_PROCS_MIN, r], min(requests[R_PROCS_MAX, r], sc[k, M_PROCS])
    tsn_max = np.int64(config[C_TSN_MAX])
    cand = np.empty((N_CANDIDATE_ROWS, max(0, high - low + 1) * tsn_max))
    table = durations[requests[R_TABLE, r]:requests[R_TABLE, r] + max(0, high - low + 1)]
    found, sent = probe_candidates(profile, n, (t, requests[R_EARLIEST, r], requests[R_DEADLINE, r], clear),
                                   (low, high), table,
                                   (tsn_max, np.int64(config[C_TSS_GAP]), np.int64(config[C_ESTIMATE]),
                                    config[C_SUCCESS_SECONDS], config[C_THRESHOLD]),
                                   (tariff, cum, k), cand)
    accepted, sites, messages, prices, held_procs, length = booked
    for c in preference_order(cand, found, config[C_PREFERENCES:C_PREFERENCES + 3]):
        sent += 1
        start = np.int64(cand[K_START, c])
        if start < clear:
            continue  # the site refuses a start before its backlog clears
        procs, duration = np.int64(cand[K_PROCS, c]), np.int64(cand[K_DURATION, c])
        accepted[r] = start
        sites[0, r] = k
        prices[0, r] = cand[K_COST, c]
        held_procs[0, r] = procs
        length[r] = duration
        _hold(k, start, start + duration, procs, held, held_n)
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
def collective_admit(r, t, book, rules, jobs, state, profile, held, held_n, booked):
    """Place collective request ``r`` at time ``t`` (evogrid.sim.collective): at the earliest
    candidate start, the instants where some site's free processors rise (and the earliest start
    itself), that has a feasible set of sites."""
    requests = book[0]
    config, _, tariff, cum, _ = rules
    _, sc, running = state
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
        n = _site_profile(k, t, jobs, sc, running, profile, held, held_n)
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
        accepted, sites, messages, prices, procs, length = booked
        accepted[r] = s
        messages[r] = n
        length[r] = duration
        cost = 0.0
        for i in range(n):
            k = chosen[i]
            sites[i, r] = k
            procs[i, r] = alloc[i]
            cost += alloc[i] * interval_price(tariff, cum, k, s, s + duration)
            _hold(k, s, s + duration, alloc[i], held, held_n)
        prices[0, r] = cost
        prices[1, r] = cost
        prices[2, r] = cost
        return


@njit(cache=True, inline="always")
def _next_reservation_event(held, held_n):
    """The earliest start of an untaken, or end of a taken, reservation at any site (NEVER if none)."""
    t = np.int64(NEVER)
    for k in range(held_n.shape[0]):
        for h in range(held_n[k]):
            t = min(t, held[H_END, k, h] if held[H_TAKEN, k, h] else held[H_START, k, h])
    return t


@njit(cache=True, inline="always")
def _take_starting(t, sc, held, held_n):
    """Reservations starting at ``t`` take their processors."""
    for k in range(held_n.shape[0]):
        for h in range(held_n[k]):
            if not held[H_TAKEN, k, h] and held[H_START, k, h] == t:
                held[H_TAKEN, k, h] = 1
                sc[k, FREE] -= held[H_PROCS, k, h]


@njit(cache=True, inline="always")
def _end_reservations(k, t, sc, held, held_n):
    """Site k's reservations ending at ``t`` give their processors back; returns how many."""
    ended = 0
    h = 0
    while h < held_n[k]:
        if held[H_TAKEN, k, h] and held[H_END, k, h] == t:
            sc[k, FREE] += held[H_PROCS, k, h]
            held_n[k] -= 1
            for f in range(N_HELD_FIELDS):  # the last one fills the gap
                held[f, k, h] = held[f, k, held_n[k]]
            ended += 1
        else:
            h += 1
    return ended


@njit(cache=True)
def _reserved_loop(jobs, codes, book, rules, state, profile, held, held_n, booked, freed):
    """The event loop (event order: docs/reservations.md); ``state`` = (queue, sc, running, out) of
    evogrid.sim.core.new_state; ``freed`` is scratch, shape (K,)."""
    queue, sc, running, out = state
    requests = book[0]
    exact = np.int64(rules[0][C_ALGORITHM]) == EXACT
    probing = np.int64(rules[0][C_ALGORITHM]) == PROBE
    collective = np.int64(rules[0][C_ALGORITHM]) == COLLECTIVE
    n = jobs.shape[1]
    R = requests.shape[1]
    K = held_n.shape[0]
    i = np.int64(0)
    r = np.int64(0)
    while True:
        tc, _ = next_completion(sc, running)
        te = min(tc, _next_reservation_event(held, held_n))
        ta = jobs[SUBMIT, i] if i < n else NEVER
        tr = requests[R_SUBMIT, r] if r < R else NEVER
        if te == NEVER and ta == NEVER and tr == NEVER:
            return
        if te <= min(ta, tr):
            for k in range(K):
                freed[k] = (complete_jobs(k, te, codes[k], jobs, sc, running, KEEP_RUN_LIST)
                            + _end_reservations(k, te, sc, held, held_n)) > 0
            for k in range(K):
                if freed[k]:
                    profile_pass(k, te, codes[k], jobs, queue, sc, running, out, profile, held, held_n)
            _take_starting(te, sc, held, held_n)
        elif ta <= tr:
            k = jobs[HOME, i]
            enqueue(k, i, jobs, queue, sc)
            profile_pass(k, ta, codes[k], jobs, queue, sc, running, out, profile, held, held_n)
            i += 1
        else:
            site_state = (queue, sc, running)
            if exact:
                admit(r, tr, book, jobs, site_state, profile, held, held_n, booked)
            elif probing:
                probe_reserve(r, tr, book, rules, jobs, site_state, profile, held, held_n, booked)
            elif collective:
                collective_admit(r, tr, book, rules, jobs, site_state, profile, held, held_n, booked)
            else:
                co_admit(r, tr, book, rules, jobs, site_state, profile, held, held_n, booked)
            _take_starting(tr, sc, held, held_n)
            r += 1


@njit(cache=True)
def run_reserved(jobs, machine_procs, codes, book, rules):
    """``(start, booked)`` for K sites without exchange that take reservations (module docstring).

    ``book = (requests, parts, orders, durations)``: the requests
    (N_REQUEST_FIELDS, R), their parts' processors (P, R), largest first,
    0-padded, each one's site order (K, R), and the durations (s) of every
    request's processor counts (``R_TABLE`` is the offset of its first).
    ``rules = (config, acc, tariff, cum, rulebases)``: the
    algorithm's parameters (evogrid.sim.co_admission, ``C_*`` rows), the
    run-time/estimate ratio per site for the backlog (float64 (K,)),
    tariffs per processor-hour (K, 168) and their running sums (K, 169),
    and ``(params, meta)`` of a :class:`~evogrid.sim.tsk.TSKStack` with one
    admission rulebase per site (used by the ``rulebase`` algorithm only).
    ``start``: each job's start (s); ``booked = (accepted, sites, messages,
    prices, procs, length)``: each request's start
    (s, -1: refused), its parts' sites (P, R, -1), the messages sent for it,
    (3, R) its cost with the cheapest and dearest admissible variant's, the
    processors each part holds (P, R) and for how long (s), -1 where refused.
    """
    K = machine_procs.shape[0]
    n = jobs.shape[1]
    requests, parts = book[0], book[1]
    R = requests.shape[1]
    queue, sc, running, out, _ = new_state(jobs, machine_procs, codes, K)
    widest = 1
    for k in range(K):
        widest = max(widest, machine_procs[k])
    profile = np.empty((N_PROFILE_ROWS, widest + n + 2 * R + 4), dtype=np.int64)
    held = np.empty((N_HELD_FIELDS, K, max(1, R)), dtype=np.int64)
    held_n = np.zeros(K, dtype=np.int64)
    booked = (np.full(R, -1, dtype=np.int64), np.full(parts.shape, -1, dtype=np.int64),
              np.zeros(R, dtype=np.int64), np.full((3, R), np.nan), np.full(parts.shape, -1, dtype=np.int64),
              np.full(R, -1, dtype=np.int64))
    freed = np.zeros(K, dtype=np.bool_)
    _reserved_loop(jobs, codes, book, rules, (queue, sc, running, out), profile, held, held_n, booked, freed)
    return out[START_TIME].copy(), booked
