"""The one compiled event loop of every run (:func:`_grid_loop`): K sites, alone (:func:`run_local`) or
exchanging jobs (:func:`run_grid`; docs/grid.md), with or without reservations.

Three schemes of exchange share the LRMS code of :mod:`evogrid.sim.core`:

- ``EXCHANGE``: decentralised, information-restricted. At submission the
  origin's transfer policy keeps the job or tries to delegate it; its
  location policy orders the partners; the first partner whose transfer
  policy accepts gets it; else it stays home. One negotiation per job.
- ``POOL``: central job pool (FCFS-JS, EASY-JS, LIST-JS). A site schedules
  the pool with its LRMS, seeing only pool jobs that fit its machine. How a
  new job enters (``pool_arrivals``): ``A_FIRST`` (the literal rule) tries
  it on its site's own queue first, so it starts at once if it fits, and
  only a job that cannot start goes to the pool (then the site schedules
  the pool; ``A_FIRST_POOL``: after every arrival); ``A_QUEUED`` appends
  it to the pool behind the older jobs and its site schedules the pool, so
  under EASY it starts at once only if it does not delay the reservation
  of the oldest pool job the site can run.
- ``ACTIVE``: active request. After every scheduling pass a site with free
  processors takes waiting jobs from the other sites' queues that it can
  start now without delaying its own head's reservation: the published rule
  (``AA_QUEUE``, any LRMS) appends them to its queue, judged all against its
  state before the request; evogrid's (``AA_START``, EASY) starts them at
  once, counting its free processors down; ``AA_FITS`` is the published
  rule taking every job that fits the free processors, EASY's condition
  left out.

Transfer policies (does a site keep its own job, or take an offered one?)
are components, one file each in :mod:`evogrid.sim.transfers`, with their
entries in :data:`evogrid.sim.registry.TRANSFERS`: local, AWF, a TSK rulebase
per partner (``rulebase_of[site, partner]`` of a
:class:`~evogrid.sim.tsk.TSKStack`), or a broker (it takes offers as AWF does
and routes its own jobs); a Python object decides for ``T_PYTHON``.
Location policies (the order in which a site tries the others) are
components, one file each in :mod:`evogrid.sim.locations`, with their
entries in :data:`evogrid.sim.registry.LOCATIONS`: the loop orders the
candidates by the policy's compiled key (:func:`evogrid.sim.locations.site_key`,
generated from the registry), or itself for ``L_FIXED`` (index order) and
``L_RANDOM`` (a seeded shuffle per job), or asks a Python object
(``L_PYTHON``).

Heterogeneous sites and matchmaking (docs/grid.md): with a routing
transfer policy (``broker``) the origin sends each job to the first of all qualified
sites, itself included, in location order. A site qualifies if it is wide
enough and holds every attribute the job requires (bit masks); sites that
hold more of its preferred attributes come first. A job that moves from
site k to site l runs ``p_j * s_k / s_l`` seconds there (its estimate
scales alike, both rounded to whole seconds).

Reservations: compiled for a mode with reservations
(``core.reserving_mode``), the loop also takes requests (``requests =
(book, rules)``, evogrid.sim.booking packs them) as events, books them
(:func:`evogrid.sim.admission.book_request`) and starts and ends the held
reservations; a site holding some judges its queue on its profile with
them (``core.profile_scan``). Requests go with ``EXCHANGE`` (local,
transfer policies, brokers), not with the pool or active request.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numba.extending import overload

from evogrid.sim import locations, lrms, queue_index, transfers
from evogrid.sim.admission import book_in_mode
from evogrid.sim.co_admission import C_ASKS_PYTHON
from evogrid.sim.codes import (
    A_FIRST_POOL,
    A_QUEUED,
    AA_FITS,
    AA_START,
    ACTIVE,
    EXCHANGE,
    H_BATCH,
    H_INTERACTIVE,
    L_FIXED,
    L_PYTHON,
    L_RANDOM,
    POOL,
    R_REFUSE,
    REFUSED_KEY,
    S_ENFORCED,
    T_PYTHON,
)
from evogrid.sim.core import (
    ESTIMATE,
    FREE,
    GRID_MAXJOBS,
    GRID_SLOTS,
    HEAP_END,
    HEAP_JOB,
    HOME,
    LIM_CAP,
    LIM_MAXJOBS,
    LIM_SLOTS,
    LIM_WIDTH,
    MOVES,
    N_HEAP,
    N_RUN,
    NEVER,
    PROCS,
    Q_HEAD,
    Q_HOLES,
    Q_TAIL,
    RUN_EST_END,
    RUN_JOB,
    RUN_TIME,
    SITE,
    START_TIME,
    SUBMIT,
    UNLIMITED,
    W_PROCS,
    State,
    _index_block,
    cached_entry,
    compiles_reservations,
    complete_jobs,
    end_held,
    enqueue,
    enqueue_at_site,
    enqueue_by_key,
    enqueue_own,
    enqueue_pool,
    grid_room,
    holds_reservations,
    index_pass,
    indexed_pass,
    ix,
    long_queue,
    lrms_mode,
    lrms_scan,
    make_room,
    may_run,
    mode_name,
    new_state,
    next_completion,
    next_completion_at,
    next_held_event,
    schedule_site,
    shadow_time,
    shadow_time_at,
    skip_holes,
    start_held,
    stopped_at_cutoff,
)
from evogrid.sim.lrms import EASY, START
from evogrid.sim.lrms.easy import easy_rule
from evogrid.sim.numba_stamp import njit
from evogrid.sim.reserving import R_SUBMIT, Booked, new_bookings, no_requests
from evogrid.sim.sites import SiteArrays

#: Fields of the ``setup`` array of a grid run (``PY_ORDER``: 1 if a Python queue order keys every
#: job at its submission, evogrid.sim.python_policy.QueueOrder; ``REFRESH``: the information
#: service's refresh interval in seconds, 0: location policies see the sites as they are;
#: ``JOB_LOCATIONS``: 1 if each job names its location policy in ``policy.job_location``;
#: ``TRACK_AREA``, ``TRACK_DELEGATED``: 1 if some job's location policy reads the sites' work ahead
#: or the AWRT of delegated jobs, which the loop then keeps; ``NO_INDEX``: 1 if some compiled
#: component of the run is not ``index_aware``, evogrid.sim.registry, and the queues keep no index;
#: ``HANDOVER``: when brokers hand jobs over, ``H_*`` of evogrid.sim.codes; ``BATCH_S``: the batch
#: interval of ``H_BATCH``, seconds, or ``BATCH_JOBS``: its size in jobs (the other 0);
#: ``CAPPED``: 1 if some site caps the grid's share (``LIM_CAP``); ``REFUSALS``: what a broker
#: does with a job its location policy hands to no site, ``R_*`` of evogrid.sim.codes; ``SLOT_RULE``:
#: what LoadLeveler's slots and maxjobs do, ``S_*``: with ``S_ENFORCED`` the sites' ``GRID_SLOTS`` and
#: ``GRID_MAXJOBS``, evogrid.sim.core).
SCHEME, POOL_ARRIVALS, LOCATION, SEED, MATCHING, PY_ORDER, ACTIVE_TAKE, REFRESH = 0, 1, 2, 3, 4, 5, 6, 7
JOB_LOCATIONS, TRACK_AREA, TRACK_DELEGATED, NO_INDEX, HANDOVER, BATCH_S, CAPPED = 8, 9, 10, 11, 12, 13, 14
BATCH_JOBS, REFUSALS, SLOT_RULE = 15, 16, 17
N_SETUP_FIELDS = 18
#: Fields of the ``pause`` array (``work.pause``): where the loop stopped to ask a Python policy
#: (evogrid.sim.python_policy) and what it was told. ``P_NEXT``: the next arrival;
#: ``P_TIME``: the decision's time (s); ``P_JOB``: the job whose arrival is under way (-1: none);
#: ``P_ASK``: ``ASK_KEY``, ``ASK_LOCATION`` or ``ASK_TRANSFER``; ``P_SITE``: the deciding site (for a key:
#: the job's own); ``P_PARTNER``: the
#: partner of a transfer decision; ``P_COUNT``: the sites in ``work.order[:count]`` (candidates to rank,
#: or partners in order); ``P_RANKED``: 1 once Python ranked them; ``P_AT``: the position of the
#: transfer decision in the arrival (-1: the origin's own); ``P_ANSWER``: its answer (1 take, 0
#: decline, -1 none yet); ``P_KEYED``: the last job whose queue key Python gave (in ``work.queue_key``).
P_NEXT, P_TIME, P_JOB, P_ASK, P_SITE, P_PARTNER, P_COUNT, P_RANKED, P_AT, P_ANSWER, P_KEYED = range(11)
#: ... and ``P_REQUEST``: the next reservation request; ``P_ADMITTED``: the last request whose
#: admission a Python policy answered (in the rules' ``asked`` table, evogrid.sim.admission.python).
P_REQUEST, P_ADMITTED = 11, 12
N_PAUSE_FIELDS = 13
ASK_LOCATION, ASK_TRANSFER, ASK_KEY, ASK_ADMISSION = 1, 2, 3, 4
#: What the grid loop returns: it ran to the end, stopped at its AWRT cutoff, paused for Python, or
#: (sites alone, plain loop) left a queue long enough for the indexed loop (:func:`_grid_loop`).
DONE, STOPPED, PAUSED, LONG = 0, 1, 2, 3
#: What :func:`_arrive` returns instead of a site to pass: pause for Python; nothing to pass.
PAUSE, NO_PASS = -1, -2


class PolicyArrays(NamedTuple):
    """How sites that may interact decide (:meth:`evogrid.sim.schedule.Exchange.arrays` builds it;
    the grid loop's ``policy``; None for sites alone)."""

    setup: np.ndarray  #: int64 (N_SETUP_FIELDS,): scheme, pool arrival rule, location code, seed, ...
    transfer: np.ndarray  #: int64 (K,): each site's transfer policy code
    rulebase_of: np.ndarray  #: int64 (K, K): the rulebase site k uses with partner l (k, k: ranking)
    rb_params: np.ndarray  #: float64: the rulebases (evogrid.sim.tsk.TSKStack.params)
    rb_meta: np.ndarray  #: int64: their rule and feature counts and feature codes (TSKStack.meta)
    rb_bounds: np.ndarray  #: float64: per feature, the range beyond which AWF decides (TSKStack.bounds)
    job_location: np.ndarray  #: int64 (n,): each job's location policy code (``JOB_LOCATIONS``; else (1,))
    sites: SiteArrays  #: speeds, attributes and requirements (evogrid.sim.sites)
    #: int64 (N_LIMITS, K): each site's limits on the jobs of other sites, rows ``LIM_*`` of
    #: evogrid.sim.core: the cap on their processors (``CAPPED``), LoadLeveler's slots and maxjobs
    #: (as Beichter's policies read them, and enforced with ``SLOT_RULE``), the widest one it may take.
    #: One array for the four (fewer arguments for the loop).
    limits: np.ndarray


class Work(NamedTuple):
    """The grid loop's scratch space and bookkeeping (:func:`grid_setup`); a named tuple, which numba
    compiles and caches like a plain one."""

    order: np.ndarray  #: int64 (K,): the sites in location order for the job being routed
    freed: np.ndarray  #: bool (K,): the sites that released processors at this instant
    delegated: np.ndarray  #: float64 (2, K, K): per (origin, partner), area x response and area (s)
    x: np.ndarray  #: float64 (NF,): one decision's features
    exponents: np.ndarray  #: float64 (rules,): one rulebase's rule activations
    bounds: np.ndarray  #: float64 (2, K): the AWRT lower bounds of an early stop
    keys: np.ndarray  #: float64 (3, K): the sites' location order keys
    arrivals: np.ndarray  #: int64 (n,): arrival order (Min-Min and Max-Min reorder jobs submitted together)
    area: np.ndarray  #: int64 (K,): estimated area (processor-seconds) routed to each site and not ended
    pause: np.ndarray  #: int64 (N_PAUSE_FIELDS,): the pause record (``P_*``)
    queue_key: np.ndarray  #: float64 (n,): a Python queue order's key per job (else shape (1,))
    booked: Booked  #: what became of each reservation request (evogrid.sim.reserving.new_bookings)
    index: np.ndarray  #: int64: the queue index, a row per site and one for the pool (:func:`_queue_index`)
    group: np.ndarray  #: int64 (n,): the group whose AWRT each job counts in for the early stop
    cutoff: np.ndarray  #: float64 (K,): stop once a group's AWRT is certain to exceed it (s; 0: never)
    #: What the information service last published (``REFRESH`` > 0; else size-1 placeholders): the
    #: state with copies of ``sc`` and ``running`` as they were, and MCT's work ahead (``area``) then;
    #: its other arrays are the live ones (a key that reads a queue's contents reads them as they are).
    seen: State
    seen_area: np.ndarray
    published: np.ndarray  #: int64 (1,): the last publication, as ``t // REFRESH`` (int64 min: none yet)
    foreign: np.ndarray  #: int64 (K,): processors the jobs of other sites hold at each site (``CAPPED``)


@njit(cache=True, inline="always")
def _accepts(s, job, partner, jobs, sc, policy, work, log):
    """Does site ``s``'s transfer policy take ``job`` now? 1 or 0 by its compiled decision
    (:func:`evogrid.sim.transfers.accepts`; ``partner``: the offering site for a foreign job, the
    first partner in location order for an own job), or -1 after posing the question to a Python
    policy. Inlined, like the rest of the arrival path: a call per rulebase decision cost 8-10 % on
    grids with rulebases at every site (docs/benchmarks.md).
    """
    transfer = policy.transfer[s]
    if transfer == T_PYTHON:
        return _python_accepts(s, job, partner, work.pause)
    return transfers.accepts(transfer, s, job, partner, jobs, sc, policy, work, log)


@njit(cache=True, inline="always")
def _python_accepts(s, job, partner, pause):
    """The answer Python gave to "does s take ``job`` (from or to ``partner``)?", or -1 after posing
    the question in ``pause`` (the loop then returns to Python, which answers and resumes)."""
    if (pause[P_JOB] == job and pause[P_ASK] == ASK_TRANSFER and pause[P_SITE] == s
            and pause[P_PARTNER] == partner and pause[P_ANSWER] >= 0):
        answer = pause[P_ANSWER]
        pause[P_ANSWER] = -1
        return answer
    pause[P_JOB] = job
    pause[P_ASK] = ASK_TRANSFER
    pause[P_SITE] = s
    pause[P_PARTNER] = partner
    pause[P_ANSWER] = -1
    return np.int64(-1)


@njit(cache=True, inline="always")
def _needs_area(setup):
    """Does some job's location policy read the sites' work ahead (evogrid.sim.locations.work_ahead)?"""
    return setup[SCHEME] == EXCHANGE and setup[TRACK_AREA] != 0


@njit(cache=True, inline="always")
def _release_ended(t, jobs, sc, running, work, track_area, track_foreign):
    """Take the jobs ending at ``t`` (the next completion) out of their site's routed-and-unfinished
    estimated area (``track_area``: ``work.area``, MCT's work ahead) and, if they came from another
    site, out of the processors other sites' jobs hold there (``track_foreign``: ``work.foreign``,
    the grid's share).

    They are the heap entries equal to t, a subtree at the root (no entry is smaller), so the scan
    goes level by level and stops at the first level without one.
    """
    for s in range(running.shape[1]):
        n = sc[s, N_HEAP]
        first = 0
        while first < n:
            found = False
            for i in range(first, min(2 * first + 1, n)):
                if running[HEAP_END, s, i] == t:
                    found = True
                    job = running[HEAP_JOB, s, i]
                    if track_area:
                        work.area[s] -= jobs[ESTIMATE, job] * jobs[PROCS, job]
                    if track_foreign and jobs[HOME, job] != s:
                        work.foreign[s] -= jobs[PROCS, job]
            if not found:
                break
            first = 2 * first + 1


@njit(cache=True, _nrt=False)
def publish(t, refresh, state, work):
    """The information service at time ``t`` (s), refreshed every ``refresh`` s: at the first event at
    or after each multiple of ``refresh``, it copies what location policies read (``work.seen``:
    the sites' counters, their running jobs, MCT's work ahead) as the events before it left them.

    Called before the events of each instant, so a publication at a multiple tau of ``refresh`` holds
    every event before tau and none after (nothing changes between events). A call, not inlined: one
    compiled copy for every grid loop.
    """
    instant = t // refresh
    if instant <= work.published[0]:
        return
    work.published[0] = instant
    sc, running, seen = state.sc, state.running, work.seen
    for q in range(sc.shape[0]):
        for f in range(sc.shape[1]):
            seen.sc[q, f] = sc[q, f]
    for k in range(running.shape[1]):
        for i in range(sc[k, N_RUN]):
            seen.running[RUN_EST_END, k, i] = running[RUN_EST_END, k, i]
            seen.running[RUN_JOB, k, i] = running[RUN_JOB, k, i]
        for i in range(sc[k, N_HEAP]):
            seen.running[HEAP_END, k, i] = running[HEAP_END, k, i]
            seen.running[HEAP_JOB, k, i] = running[HEAP_JOB, k, i]
        work.seen_area[k] = work.area[k]


@njit(cache=True, inline="always")
def _as_published(work):
    """``work`` with MCT's work ahead as last published (the location keys' view, with ``work.seen``)."""
    return Work(work.order, work.freed, work.delegated, work.x, work.exponents, work.bounds, work.keys,
                work.arrivals, work.seen_area, work.pause, work.queue_key, work.booked, work.index,
                work.group, work.cutoff, work.seen, work.seen_area, work.published, work.foreign)


@njit(cache=True, inline="always")
def _location_order(k, job, with_home, t, jobs, state, policy, work):
    """Fill ``work.order`` with the sites k may send ``job`` to, best first; returns their count.

    Qualified (:func:`_qualifies_for`): wide enough, (matchmaking) holding every attribute the
    job requires, and within the site's cap on the grid's share (``CAPPED``); k itself only
    ``with_home`` (a broker), and always then: a job may run where it was submitted. Sites that
    meet more of the job's preferred attributes come first, then the location policy's order;
    ties keep k first (a broker moves a job only for a better site), then
    index order. A Python location policy ranks the qualified sites itself:
    the first call poses the question in ``work.pause`` and returns -1; the
    call after Python's answer returns the count of the order it wrote.
    """
    order, delegated, keys = work.order, work.delegated, work.keys
    location = policy.job_location[job] if policy.setup[JOB_LOCATIONS] != 0 else policy.setup[LOCATION]
    tags, preferred = policy.sites.tags, policy.sites.preferred
    K = delegated.shape[1]
    need = jobs[PROCS, job]
    pause = work.pause
    if location == L_PYTHON and pause[P_JOB] == job and pause[P_RANKED] == 1:
        return pause[P_COUNT]
    n = 0
    if with_home:
        order[0] = k
        n = 1
    matching = policy.setup[MATCHING] != 0
    capped = policy.setup[CAPPED] != 0
    for l in range(K):
        if l != k and _qualifies_for(l, job, need, policy, work, matching, capped):
            order[n] = l
            n += 1
    if location == L_PYTHON:
        pause[P_JOB] = job
        pause[P_ASK] = ASK_LOCATION
        pause[P_SITE] = k
        pause[P_COUNT] = n
        pause[P_RANKED] = 0
        return -1
    if location == L_RANDOM:
        for i in range(n - 1, 0, -1):
            j = np.random.randint(0, i + 1)
            order[i], order[j] = order[j], order[i]
        return n
    if location == L_FIXED and (not matching or preferred[job] == 0):
        return n
    stale = policy.setup[REFRESH] > 0  # the keys read what the information service last published
    seen_state = work.seen if stale else state
    seen_work = _as_published(work) if stale else work
    for i in range(n):
        l = order[i]
        keys[0, l] = -_popcount(tags[l] & preferred[job]) if matching else 0
        keys[1, l], keys[2, l] = (0.0, 0.0) if location == L_FIXED else locations.site_key(
            location, k, l, job, t, jobs, seen_state, policy, seen_work)
    for i in range(1, n):  # a stable insertion sort: ties keep index order
        cur = order[i]
        j = i - 1
        while j >= 0:
            o = order[j]
            if _not_after(keys, o, cur):
                break
            order[j + 1] = o
            j -= 1
        order[j + 1] = cur
    return n


@njit(cache=True, inline="always")
def _refused(job, n, setup, policy, work):
    """Does a broker refuse ``job`` (``REFUSALS`` ``R_REFUSE``): its location policy refuses
    (``locations.refuses``) and keyed each of the ``n`` sites of ``work.order`` ``REFUSED_KEY``?"""
    location = policy.job_location[job] if setup[JOB_LOCATIONS] != 0 else setup[LOCATION]
    if setup[REFUSALS] != R_REFUSE or not locations.refuses(location):
        return False
    for i in range(n):  # noqa: SIM110 (a plain loop compiles without allocation)
        if work.keys[1, work.order[i]] != REFUSED_KEY:
            return False
    return True


@njit(cache=True, inline="always")
def _not_after(keys, a, b):
    """Do site a's keys (columns of ``keys``, compared in row order) come before or tie with b's?"""
    for r in range(keys.shape[0]):
        if keys[r, a] != keys[r, b]:
            return keys[r, a] < keys[r, b]
    return True


@njit(cache=True, inline="always")
def scaled_seconds(seconds, factor):
    """``seconds * factor`` rounded to whole seconds; a job that takes time still takes at least 1 s."""
    return max(np.int64(seconds > 0), np.int64(np.floor(seconds * factor + 0.5)))


@njit(cache=True, inline="always")
def _popcount(x):
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(cache=True, inline="always")
def _record_delegated_ends(t, jobs, sc, running, delegated):
    """Add the delegated jobs ending at ``t`` to their origin's per-partner AWRT sums."""
    for s in range(running.shape[1]):  # sites only: sc may hold a pool row
        for i in range(sc[s, N_HEAP]):
            job = running[HEAP_JOB, s, i]
            origin = jobs[HOME, job]
            if running[HEAP_END, s, i] == t and origin != s:
                area = float(jobs[RUN_TIME, job]) * jobs[PROCS, job]
                delegated[0, origin, s] += area * (t - jobs[SUBMIT, job])
                delegated[1, origin, s] += area


def active_request(k, t, take, codes, jobs, state, mode):
    """Site k asks the other sites for waiting jobs (AA, docs/grid.md) while no site's queue keeps
    its index (else :func:`indexed_request`); ``take`` says what it does with them:
    :func:`fetch_into_queue` (``AA_QUEUE``, the published rule, and ``AA_FITS``) or
    :func:`fetch_and_start` (``AA_START``). Nothing in a loop whose sites hold reservations (the
    overload below): those never run with the active request (``simulate_reservations`` refuses
    it), and the reserving loop would compile its passes for nothing (about 15 s of its cold
    compile)."""


@overload(active_request, prefer_literal=True, jit_options={"_nrt": False})
def _active_request(k, t, take, codes, jobs, state, mode):
    if compiles_reservations(mode):
        def nothing(k, t, take, codes, jobs, state, mode):
            return None
        return nothing

    def request(k, t, take, codes, jobs, state, mode):
        if take != AA_START:
            fetch_into_queue(k, t, take, codes, jobs, state, mode)
        else:
            start_fetched(mode, k, t, codes, jobs, state)
    return request


def indexed_request(k, t, take, codes, jobs, state, mode, index):
    """:func:`active_request` (``AA_QUEUE`` or ``AA_FITS``) where some site's queue keeps its index:
    :func:`fetch_into_indexed`. A second entry rather than an argument of the first: each array
    argument of a call is some ten words pushed per request, which the plain request need not
    pay."""


@overload(indexed_request, prefer_literal=True, jit_options={"_nrt": False})
def _indexed_request(k, t, take, codes, jobs, state, mode, index):
    if compiles_reservations(mode):
        def nothing(k, t, take, codes, jobs, state, mode, index):
            return None
        return nothing

    def request(k, t, take, codes, jobs, state, mode, index):
        fetch_into_indexed(k, t, take, codes, jobs, state, mode, index)
    return request


@njit(cache=True, inline="always")
def _some_kept(index, K):
    """Does some site's queue keep its index?"""
    for k in range(K):  # noqa: SIM110 (a loop numba compiles to a few loads)
        if queue_index.kept(index, k):
            return True
    return False


@njit(cache=True, inline="always")
def _request_terms(k, take, codes, jobs, state, mode):
    """``(free, T, extra)``: the free processors of requesting site k and what it judges the jobs it
    takes by, its head's reservation (EASY's shadow time and extra processors), or ``(NEVER, 0)``
    with an empty queue or ``AA_FITS``; ``free`` 0: no request."""
    sc = state.sc
    free, head = sc[k, FREE], sc[k, Q_HEAD]
    if free > 0 and head < sc[k, Q_TAIL] and take != AA_FITS:
        T, extra = shadow_time_at(k, jobs[PROCS, state.queue[k, head]], mode, codes[k], jobs, state)
        return free, T, extra
    return free, NEVER, np.int64(0)


@njit(cache=True, _nrt=False)
def fetch_into_queue(k, t, take, codes, jobs, state, mode):
    """The published active request (Lepping, 9.1): site k, with free processors after its pass
    (its head blocked, or its queue empty), takes every waiting job of the other sites (each in
    index order, its queue in order) that it could start now without delaying its head (EASY's
    rule against the head's reservation; with an empty queue, any job that fits), appends them to
    its own queue and then runs its LRMS (any LRMS). With ``take == AA_FITS`` it takes every job
    that fits its free processors, EASY's condition left out.

    Each job is judged against k's state before the request, so k may take more than it can start:
    the rest waits in k's queue and the next request of another site may take it again (the
    dissertation's Table 9.3 counts up to 112 moves of a job). A site that lost its head gets a
    pass of its own (before k's: the two touch different sites). One call site of the site's pass
    for the partners and k: each inlined copy of the LRMS's scan adds seconds to the compile.
    While no site's queue keeps an index; else :func:`fetch_into_indexed`, the same request.
    """
    queue, sc, out = state.queue, state.sc, state.out
    free, T, extra = _request_terms(k, take, codes, jobs, state, mode)
    if free == 0:
        return
    K = state.running.shape[1]  # sites only: sc may hold a pool row
    for l in range(K + 1):  # the partners, then k (l == K)
        passing = l == K
        if l != k and not passing and sc[l, Q_HEAD] < sc[l, Q_TAIL]:
            first, tail = sc[l, Q_HEAD], sc[l, Q_TAIL]
            head_job = queue[l, first]
            write = first
            for read in range(first, tail):
                job = queue[l, read]
                if _qualifies(job, t, free, T, extra, jobs):
                    sc[l, W_PROCS] -= jobs[PROCS, job]
                    # Row k has room: its tail counts the jobs started from its front and those
                    # waiting in it (core.compact_row), and this job is neither.
                    enqueue_at_site(k, job, codes[k], jobs, queue, sc, mode)
                    out[SITE, job] = k
                    out[MOVES, job] += 1
                else:
                    queue[l, write] = job
                    write += 1
            sc[l, Q_TAIL] = write
            passing = write == first or queue[l, first] != head_job  # l lost its head: its next job may start
        if passing:
            site = k if l == K else l
            schedule_site(site, site, codes[site], t, jobs, state, mode)


@njit(cache=True, _nrt=False)
def fetch_into_indexed(k, t, take, codes, jobs, state, mode, index):
    """:func:`fetch_into_queue` where some site's queue keeps its index (``index``,
    evogrid.sim.queue_index): a partner's queue that keeps one is read only where a job may qualify
    (:func:`_fetch_indexed`), the jobs join k's queue and its index if kept, and the sites' passes
    read the holes of an indexed queue (``core.indexed_pass``; the others, :func:`row_pass`: no
    second inlined copy of the LRMS's scan)."""
    free, T, extra = _request_terms(k, take, codes, jobs, state, mode)
    sc, queue = state.sc, state.queue
    K = state.running.shape[1]  # sites only: sc may hold a pool row
    for l in range(K + 1 if free > 0 else 0):  # the partners, then k (l == K)
        passing = l == K
        if l != k and not passing and sc[l, Q_HEAD] < sc[l, Q_TAIL]:
            head_job = queue[l, sc[l, Q_HEAD]]
            _fetch_indexed(k, l, t, free, T, extra, codes, jobs, state, mode, index)
            passing = sc[l, Q_HEAD] == sc[l, Q_TAIL] or queue[l, sc[l, Q_HEAD]] != head_job
        if passing:
            site = k if l == K else l
            if queue_index.kept(index, site):
                indexed_pass(site, site, codes[site], t, jobs, state, index)
            else:  # the loop's next pass at the site builds its index once its queue is long
                row_pass(site, site, t, codes, jobs, state, mode)


@njit(cache=True, inline="always")
def _qualifies(job, t, free, T, extra, jobs):
    """May a requesting site with ``free`` processors and its head's reservation ``(T, extra)`` take
    ``job`` (EASY's own rule, on the site's state before the request: its extra is not taken)?"""
    need = jobs[PROCS, job]
    return need <= free and easy_rule(t, need, jobs[ESTIMATE, job], T, extra)[0] == START


@njit(cache=True, inline="always")
def _move(k, l, job, codes, jobs, state, mode, index):
    """Waiting ``job`` leaves site l's queue (the caller takes it out) for site k's, and its index if
    kept (``core.make_room``, ``core.enqueue_own``)."""
    state.sc[l, W_PROCS] -= jobs[PROCS, job]
    make_room(k, jobs, state, index)
    enqueue_own(k, job, codes[k], jobs, state, index, mode)
    state.out[SITE, job] = k
    state.out[MOVES, job] += 1


@njit(cache=True, _nrt=False)
def _fetch_indexed(k, l, t, free, T, extra, codes, jobs, state, mode, index):
    """:func:`fetch_into_queue`'s take from partner l's queue where l's or k's keeps an index. Where
    l's does, only the blocks the index finds worth reading (jobs that fit ``free`` and may pass
    EASY's rule against ``(T, extra)``, which stay fixed through the request), each taken job
    leaving a hole; else job by job, closing up. A call: it runs on long queues only."""
    queue, sc = state.queue, state.sc
    tail = sc[l, Q_TAIL]
    head = sc[l, Q_HEAD]
    if not queue_index.kept(index, l):
        write = head
        for read in range(head, tail):
            job = queue[l, read]
            if _qualifies(job, t, free, T, extra, jobs):
                _move(k, l, job, codes, jobs, state, mode, index)
            else:
                queue[l, write] = job
                write += 1
        sc[l, Q_TAIL] = write
        return
    block = queue_index.next_block(index, l, head // queue_index.BLOCK, free, True, EASY, t, T, extra)
    while block >= 0:
        end = min(tail, (block + 1) * queue_index.BLOCK)
        taken = False
        for p in range(max(head, block * queue_index.BLOCK), end):  # positions before the head: gone
            job = queue[l, p]
            if job != queue_index.HOLE and _qualifies(job, t, free, T, extra, jobs):
                queue[l, p] = queue_index.HOLE
                sc[l, Q_HOLES] += 1
                _move(k, l, job, codes, jobs, state, mode, index)
                taken = True
        if taken:
            _index_block(l, block, tail, jobs, queue, index)
        block = queue_index.next_block(index, l, block + 1, free, True, EASY, t, T, extra)
    skip_holes(l, tail, queue, sc)


@njit(cache=True, _nrt=False)
def fetch_and_start(k, t, codes, jobs, state, mode):
    """evogrid's active request (EASY only): site k, with free processors (its queue may be empty),
    starts at once the waiting jobs of the other sites that fit and do not delay its head, counting
    its free processors down as it takes them; a job moves at most once.

    With an empty queue there is no head to delay, and any job that fits qualifies. A site that
    lost its head gets a scheduling pass of its own. Not inlined: each inlined copy of the scan
    costs compile time.
    """
    queue, sc, running = state.queue, state.sc, state.running
    if sc[k, FREE] == 0:
        return
    T = NEVER
    extra = 0
    if sc[k, Q_HEAD] < sc[k, Q_TAIL]:
        T, extra = shadow_time(k, jobs[PROCS, queue[k, sc[k, Q_HEAD]]], sc, running, jobs)
    for l in range(running.shape[1]):  # sites only: sc may hold a pool row
        if l == k or sc[k, FREE] == 0:
            continue
        extra, lost_head = lrms_scan(k, l, EASY, t, T, extra, jobs, state, mode)
        if lost_head:
            schedule_site(l, l, codes[l], t, jobs, state, mode)


def start_fetched(mode, k, t, codes, jobs, state):
    """:func:`fetch_and_start` in a loop compiled for ``mode`` (a literal); compiled only where a
    site may run EASY (the overload below): the rule needs EASY at every site (``run_exchange``
    refuses it otherwise), and each other loop would compile its scan for nothing."""


@overload(start_fetched, prefer_literal=True)
def _start_fetched(mode, k, t, codes, jobs, state):
    if not may_run(mode, EASY):
        def never(mode, k, t, codes, jobs, state):
            return None
        return never

    def start(mode, k, t, codes, jobs, state):
        fetch_and_start(k, t, codes, jobs, state, mode)
    return start


def row_pass(k, q, t, codes, jobs, state, mode):
    """Site k's plain pass over queue row q (``core.schedule_site``) as a compiled call: the central
    pool's (row q after the sites', seeing jobs with m_j <= m_k; a long pool: :func:`pool_pass`)
    and the indexed active request's (:func:`fetch_into_indexed`) share its one copy of the
    LRMS's scan (each inlined copy adds seconds to a loop's cold compile). Nothing in a loop whose
    sites hold reservations (the overload below): those never run with the pool or the active
    request, and the reserving loop would compile the scan for nothing (about 10 s)."""


@overload(row_pass, prefer_literal=True, jit_options={"_nrt": False})
def _row_pass(k, q, t, codes, jobs, state, mode):
    if compiles_reservations(mode):
        def nothing(k, q, t, codes, jobs, state, mode):
            return None
        return nothing

    def scan(k, q, t, codes, jobs, state, mode):
        schedule_site(k, q, codes[k], t, jobs, state, mode)
    return scan


@njit(cache=True, inline="always")
def pool_pass(k, t, codes, jobs, state, mode, index):
    """Site k's pass over the central pool: :func:`row_pass`, or with the pool's queue index
    ``index`` once the pool is long (:func:`_queue_index`). The choice is made here, outside
    ``row_pass``: inside, it made every pass over a short pool slower (docs/benchmarks.md)."""
    P = state.running.shape[1]
    if not holds_reservations(mode) and long_queue(k, P, codes[k], state, index, mode):
        indexed_pass(k, P, codes[k], t, jobs, state, index)
    else:
        row_pass(k, P, t, codes, jobs, state, mode)


@njit(cache=True, inline="always")
def _qualifies_for(l, job, need, policy, work, matching, capped):
    """May site l take ``job`` (``need`` processors) from another site: wide enough (and within the
    grid's slots there where LoadLeveler enforces them: ``LIM_WIDTH``), holding every
    attribute the job requires (``matching``: ``MATCHING``), and with the job within its cap on the
    processors the jobs of other sites hold there (``capped``: ``CAPPED``; the site's own count,
    always current)?"""
    if policy.limits[LIM_WIDTH, l] < need:
        return False
    if matching and (policy.sites.tags[l] & policy.sites.hard[job]) != policy.sites.hard[job]:
        return False
    cap = policy.limits[LIM_CAP, l] if capped else -1
    return cap < 0 or work.foreign[l] + need <= cap


@njit(cache=True, inline="always")
def _has_room(k, job, jobs, state, policy, work):
    """Has some site broker ``k`` may send ``job`` to (itself, and the others that qualify,
    :func:`_qualifies_for`) room for it now, as the location policy sees the sites (as last
    published, with ``REFRESH``): free processors, and at another site where LoadLeveler limits
    the grid's jobs, room within its slots and maxjobs (:func:`evogrid.sim.core.grid_room`)?"""
    stale = policy.setup[REFRESH] > 0
    seen = work.seen.sc if stale else state.sc
    seen_running = work.seen.running if stale else state.running
    need = jobs[PROCS, job]
    matching, capped = policy.setup[MATCHING] != 0, policy.setup[CAPPED] != 0
    for l in range(state.running.shape[1]):
        qualified = l == k or _qualifies_for(l, job, need, policy, work, matching, capped)
        if qualified and seen[l, FREE] >= need:
            if l == k:
                return True
            room, more = grid_room(l, jobs, seen, seen_running)
            if need <= room and more >= 1:
                return True
    return False


@njit(cache=True)
def next_release(at, t, jobs, state, policy, work):
    """``(job, position)``: the next job of the grid's holding queue (the pool's queue row) to hand
    over at time ``t``, taken out of the queue (the jobs behind it move up, so ``position`` is where
    the search goes on), or ``(-1, tail)``. Hand-over ``when-room``: the first from position ``at`` on
    that now has room at some site (:func:`_has_room`); ``batch``: the first, or Min-Min's or
    Max-Min's choice among them all (:func:`_batch_first`). A call, not inlined: only the loops of
    runs that hold jobs reach it."""
    sc, queue = state.sc, state.queue
    P = state.running.shape[1]
    tail = sc[P, Q_TAIL]
    batch = policy.setup[HANDOVER] == H_BATCH
    if batch and tail > at and locations.routes_batches(policy.setup[LOCATION]):
        _batch_first(queue[P], at, tail, t, jobs, state, policy, work)
    for p in range(at, tail):
        job = queue[P, p]
        if batch or _has_room(jobs[HOME, job], job, jobs, state, policy, work):
            for q in range(p, tail - 1):
                queue[P, q] = queue[P, q + 1]
            sc[P, Q_TAIL] -= 1
            sc[P, W_PROCS] -= jobs[PROCS, job]
            return job, p
    return -1, tail


@njit(cache=True, inline="always")
def _arrive(job, t, jobs, codes, state, policy, work, log, mode, held):
    """Route the arrival of ``job`` at time ``t`` to its site's queue, the pool or a partner's queue;
    returns the site whose pass comes next (the loop runs it), ``NO_PASS`` (the job joined the pool
    and the pool's pass ran, or a broker holds it: hand-over ``when-room`` while no site has room for
    it, ``batch`` until the batch's instant), or ``PAUSE``. A held job arrives here again when it goes
    (``held``; :func:`next_release`).

    ``PAUSE``, having changed nothing but ``work.pause`` and the location order, where a Python
    policy must decide first: the loop pauses, and the call after the answer carries on from that
    decision (decisions made before it are not made again).
    """
    queue, sc, running, out = state.queue, state.sc, state.running, state.out
    setup = policy.setup
    scheme = setup[SCHEME]
    k = jobs[HOME, job]
    P = running.shape[1]  # the pool's queue row
    target = k
    pause = work.pause
    if setup[PY_ORDER] != 0 and pause[P_KEYED] != job:  # Python keys the job for the queue it joins
        pause[P_JOB] = job
        pause[P_ASK] = ASK_KEY
        pause[P_SITE] = k
        pause[P_RANKED] = 0  # any ranking in the record is an earlier job's
        return PAUSE
    if scheme == EXCHANGE:
        order = work.order
        broker = transfers.routes_jobs(policy.transfer[k])
        hold = setup[HANDOVER]
        if broker and not held and hold != H_INTERACTIVE and (
                hold == H_BATCH or not _has_room(k, job, jobs, state, policy, work)):
            enqueue(P, job, jobs, state.queue, sc)  # the grid's holding queue: the pool's row, unused here
            return NO_PASS
        # One call site of the location order and of the decision below: each
        # inlined copy adds seconds to every grid loop's compile.
        resumed = not broker and pause[P_JOB] == job and pause[P_ASK] == ASK_TRANSFER  # at a Python decision
        if resumed:
            n_part, first = pause[P_COUNT], pause[P_AT]
        else:
            n_part = _location_order(k, job, broker, t, jobs, state, policy, work)
            if n_part < 0:
                return PAUSE
            first = -1 if n_part > 0 else 0
        if broker:
            if _refused(job, n_part, setup, policy, work):
                return NO_PASS  # it never runs: its start stays -1
            target = order[0]
        else:
            # The origin's own policy decides keep or delegate (o = -1); then each
            # partner in order.
            for o in range(first, n_part):
                s, partner = (k, order[0]) if o < 0 else (order[o], k)
                verdict = _accepts(s, job, partner, jobs, sc, policy, work, log)
                if verdict < 0:
                    pause[P_COUNT] = n_part
                    pause[P_AT] = o
                    return PAUSE
                if verdict > 0:
                    if o >= 0:
                        target = order[o]
                    break
        speed = policy.sites.speed
        if setup[MATCHING] != 0 and speed[target] != speed[k]:  # run time, estimate as at the executing site
            for row in (RUN_TIME, ESTIMATE):
                jobs[row, job] = scaled_seconds(jobs[row, job], speed[k] / speed[target])
        if _needs_area(setup):
            work.area[target] += jobs[ESTIMATE, job] * jobs[PROCS, job]
        if target != k and setup[CAPPED] != 0:
            work.foreign[target] += jobs[PROCS, job]
    # A pool job enters the pool either at once (queued: behind the older
    # pool jobs, so the site's pass over the pool starts it only where its
    # LRMS would) or after failing to start at home (first: the loop moves it).
    if scheme == POOL and setup[POOL_ARRIVALS] == A_QUEUED:
        enqueue_pool(P, job, jobs, state, work.index)
        pool_pass(k, t, codes, jobs, state, mode, work.index)
        return NO_PASS
    if target != k:
        out[SITE, job] = target
        out[MOVES, job] = 1
    if setup[PY_ORDER] != 0:
        enqueue_by_key(target, job, work.queue_key, jobs, queue, sc)
    else:
        if scheme == ACTIVE:  # jobs move between queues: a kept row may be used up
            make_room(target, jobs, state, work.index)
        enqueue_own(target, job, codes[target], jobs, state, work.index, mode)
    return target


def grid_setup(jobs: np.ndarray, machine_procs: np.ndarray, codes: np.ndarray, policy: PolicyArrays | None,
               log_capacity: int, stop: tuple, requests: tuple, index_span: int) -> tuple[State, Work, tuple]:
    """``(state, work, log)`` of a run before its first event, for :func:`_grid_loop`.

    Args:
        jobs: int64, shape (N_JOB_FIELDS, n), arrival order
            (evogrid.sim.core); ``HOME`` is each job's origin site (sites alone: the site it runs at).
        machine_procs, codes: int64, shape (K,), processors and LRMS code per site.
        policy: a :class:`PolicyArrays`: ``setup`` int64, shape (N_SETUP_FIELDS,): the scheme (EXCHANGE,
            POOL or ACTIVE), the pool arrival rule (A_FIRST or A_QUEUED), the
            location policy code, its seed (L_RANDOM) and MATCHING (1 if the
            sites' speeds differ or jobs have requirements: 0 skips that work); ``transfer`` int64,
            shape (K,): transfer policy code per site (EXCHANGE);
            ``rulebase_of`` int64, shape (K, K): the rulebase index site k
            uses with partner l (T_RULEBASE sites only); ``rb_params``,
            ``rb_meta``: a :class:`~evogrid.sim.tsk.TSKStack`'s arrays;
            ``sites``: a :class:`~evogrid.sim.sites.SiteArrays`: float64 shape (K,),
            the speed factor per site; int64 shape (K,), the attribute bits
            each site holds; int64 shape (n,), the bits each job requires
            and prefers. ``jobs`` is modified: a moved job's run time and
            estimate become those at its executing site. None: the sites are alone
            (every job runs at its ``HOME`` site).
        log_capacity: how many rulebase decisions to record (0: none).
        stop: ``(group, cutoff)``: int64 (n,), the group each job's AWRT counts in, and float64
            (K,): stop early once a lower bound on group k's AWRT exceeds ``cutoff[k]`` (seconds;
            0: no limit for k). Checked at arrivals 1,024 x 2^i (evogrid.sim.core.over_cutoff).
        requests: ``(book, rules)``, reservation requests and their admission
            (evogrid.sim.booking packs them; ``reserving.no_requests``: none).
        index_span: queue positions from which a queue keeps an index (evogrid.sim.queue_index; the
            schedule does not depend on it): a site's own queue alone (made once a queue is long,
            :func:`run_local`), under job exchange, or the central pool (:func:`_queue_index`).

    Plain numpy, outside the loop's entry: compiled, and inside each entry (a compiled function
    re-optimises what it calls), the setup doubled a single site's cold first call.
    """
    K = machine_procs.shape[0]
    n = jobs.shape[1]
    book = requests[0]
    state = new_state(jobs, machine_procs, codes, K + 1, book[0].shape[1])
    setup = np.zeros(N_SETUP_FIELDS, dtype=np.int64) if policy is None else policy.setup
    if policy is not None and setup[SLOT_RULE] == S_ENFORCED:
        slots, maxjobs = policy.limits[LIM_SLOTS], policy.limits[LIM_MAXJOBS]
        limited = (slots >= 0) | (maxjobs >= 0)
        state.sc[:K][limited, GRID_SLOTS] = np.where(slots >= 0, slots, UNLIMITED)[limited]
        state.sc[:K][limited, GRID_MAXJOBS] = np.where(maxjobs >= 0, maxjobs, UNLIMITED)[limited]
    rb_shape = (1, 1, 1) if policy is None else policy.rb_params.shape  # (rulebases, rules, 2 NF + 1)
    NF, n_rules = (rb_shape[2] - 1) // 2, rb_shape[1]
    log = (np.empty((log_capacity, 2), dtype=np.int64),  # deciding site, partner
           np.zeros((log_capacity, NF + 1)),  # features, then y
           np.zeros(1, dtype=np.int64))
    pause = np.zeros(N_PAUSE_FIELDS, dtype=np.int64)
    pause[P_JOB] = -1
    pause[P_KEYED] = -1
    pause[P_ADMITTED] = -1
    batched = setup[SCHEME] == EXCHANGE and locations.routes_batches.py_func(setup[LOCATION])
    index = _queue_index(n, codes, setup, book[0].shape[1], index_span, policy is None)
    work = Work(np.empty(K, dtype=np.int64), np.zeros(K, dtype=np.bool_), np.zeros((2, K, K)),
                np.zeros(max(1, NF)), np.empty(n_rules), np.zeros((2, K)), np.zeros((3, K)),
                np.arange(n if batched else 1), np.zeros(K, dtype=np.int64), pause,
                np.zeros(n if setup[PY_ORDER] != 0 else 1), new_bookings(book),
                index, stop[0], stop[1], *_publication(state, setup), np.zeros(K, dtype=np.int64))
    return state, work, log


def _queue_index(n: int, codes: np.ndarray, setup: np.ndarray, n_requests: int, index_span: int,
                 alone: bool) -> np.ndarray:
    """The queue index of a run (evogrid.sim.queue_index): a row per site and one for the pool, kept
    from ``index_span`` positions on in the rows that may keep one; the others get a span no queue
    reaches.

    Sites alone start without one (:func:`run_local` makes it once a queue is long). Where sites
    interact, a row may keep an index only where a job leaves it by a pass alone and in arrival
    order, no site holds reservations (``n_requests`` 0) and every compiled component of the run
    reads indexed queues right (``setup[NO_INDEX]`` 0): the sites' own queues under job
    exchange (``EXCHANGE``) without a Python queue order (which inserts jobs by key; Min-Min and
    Max-Min batches only reorder the routing, each job still joins a queue at its tail); and the
    central pool (``POOL``) where every site's LRMS
    is indexed (every site's pass over it must read its holes). Under the active request the
    sites' own queues too, where the requesting site takes jobs into its queue (``AA_QUEUE``,
    ``AA_FITS``): it takes them out of a partner's queue through the index
    (:func:`fetch_into_indexed`); ``AA_START`` reads the partners' queues with the requesting site's
    scan, which does not read holes: not indexed.
    """
    K = codes.shape[0]
    if alone:
        return queue_index.new_index(0, K, index_span)
    may = n_requests == 0 and setup[NO_INDEX] == 0
    own = may and setup[PY_ORDER] == 0 and (
        setup[SCHEME] == EXCHANGE or (setup[SCHEME] == ACTIVE and setup[ACTIVE_TAKE] != AA_START))
    pool = may and setup[SCHEME] == POOL and all(lrms.INDEXED[int(c)] for c in codes)
    index = queue_index.new_index(n if own or pool else 0, K + 1, index_span)
    if not own:
        index[queue_index.SPAN_ON, :K, 0] = queue_index.EMPTY
    if not pool:
        index[queue_index.SPAN_ON, K, 0] = queue_index.EMPTY
    return index


def _publication(state: State, setup: np.ndarray) -> tuple[State, np.ndarray, np.ndarray]:
    """``(seen, seen_area, published)`` of :class:`Work`: room for what the information service
    publishes if it refreshes (``setup[REFRESH]`` > 0), else placeholders of the same types."""
    K = state.running.shape[1]
    if setup[REFRESH] > 0:
        sc, running, area = np.zeros_like(state.sc), np.zeros_like(state.running), np.zeros(K, dtype=np.int64)
    else:
        sc, running = np.zeros((1, state.sc.shape[1]), dtype=np.int64), np.zeros((4, 1, 1), dtype=np.int64)
        area = np.zeros(1, dtype=np.int64)
    seen = State(state.queue, sc, running, state.out, state.profile, state.held, state.held_n)
    return seen, area, np.full(1, np.iinfo(np.int64).min, dtype=np.int64)  # the first event publishes


def grid_outcome(state: State, work: Work, log: tuple, status: int) -> tuple:
    """What a finished run gives (:func:`run_grid`), from its state and the loop's status."""
    NF = log[1].shape[1] - 1
    m = log[2][0]
    log_ids, log_vals = log[0], log[1]
    return (state.out, log_ids[:m, 0], log_ids[:m, 1], log_vals[:m, :NF], log_vals[:m, NF],
            work.bounds[0].copy() if status == STOPPED else np.empty(0), work.booked)


@njit(cache=True, _nrt=False)
def _batch_first(row, lo, hi, t, jobs, state, policy, work):
    """Min-Min / Max-Min at time ``t``: bring forward, to ``row[lo]``, the job of ``row[lo:hi]`` to
    route next: the one whose best site (first in its location order) promises the earliest
    (Min-Min) or the latest (Max-Min) estimated completion; ties by position. Each routed job changes
    the sites' state, so the choice is made again for every job. Not inlined: only these two
    policies call it.
    """
    keys, order = work.keys, work.order
    latest = locations.batch_latest(policy.setup[LOCATION])
    best, best_end = lo, 0.0
    for h in range(lo, hi):
        job = row[h]
        _location_order(jobs[HOME, job], job, True, t, jobs, state, policy, work)
        end = keys[1, order[0]]
        if h == lo or (end > best_end if latest else end < best_end):
            best, best_end = h, end
    chosen = row[best]
    for g in range(best, lo, -1):
        row[g] = row[g - 1]
    row[lo] = chosen


@njit(cache=True, inline="always")
def _next_in_batch(i, t, jobs, state, policy, work):
    """Min-Min / Max-Min: bring forward, to ``arrivals[i]``, the job to route next of those submitted
    at t and not yet routed (:func:`_batch_first`)."""
    arrivals = work.arrivals
    h = i
    while h < jobs.shape[1] and jobs[SUBMIT, arrivals[h]] == t:
        h += 1
    _batch_first(arrivals, i, h, t, jobs, state, policy, work)


@njit(cache=True, _nrt=False)
def _grid_loop(jobs, codes, state, requests, policy, work, log, mode, indexed, one_site):
    """The event loop of every run over the state of :func:`grid_setup`: ``DONE``, ``STOPPED``
    early at the AWRT cutoff, ``PAUSED`` for a Python policy's decision (``work.pause`` says which;
    call again with the answer there to go on), or ``LONG`` (below).

    Compiled without numba's runtime (``_nrt=False``; the speed notes of evogrid.sim.core): no
    reference counting here. ``work`` is scratch space (see ``grid_setup``). Event order at one
    instant: job completions and reservation ends at every site (then the passes of the sites that
    freed processors, in index order), reservation starts, then the held jobs that go (hand-over
    ``when-room``: those that now have room; ``batch``: all, at the batch's instant, an event of its
    own; each followed by its site's pass), then arrivals, jobs before requests
    (docs/reservations.md). With a refresh interval, a job held ``when-room`` is judged again at the
    first publication after jobs ended (an event of its own if no other falls there).

    What a run does not use is compiled out. ``mode`` (a literal) chooses the LRMS rules and
    whether sites hold reservations. ``indexed`` None: sites that may interact (exchange, pool,
    active request, reservations, Python decisions; ``policy`` as :func:`grid_setup` takes it).
    ``indexed`` True or False (a literal): the sites are alone (every job runs at home; ``policy``
    None), and each event is one site's, followed by that site's pass. numba drops the branches on
    ``indexed is None`` before it types the loop (it resolves ``is None`` on an argument's type),
    so each compilation holds one of the two. Alone, a queue may be indexed: the plain loop
    (``indexed`` False) returns ``LONG`` after the pass that left an EASY or LIST queue long
    (``core.long_queue``), and the indexed loop goes on from the next event exactly, passing long
    queues to ``core.indexed_pass``; a run whose queues stay short never compiles the index (3-4 s
    cold). ``one_site`` (a literal) True: the plain loop of a single site alone, compiled knowing
    that every event is site 0's (a sixth of its time on FCFS, docs/benchmarks.md).
    """
    sc, running = state.sc, state.running
    freed, bounds = work.freed, work.bounds
    n = jobs.shape[1]
    K = running.shape[1]
    pause = work.pause
    i = pause[P_NEXT]
    r = pause[P_REQUEST]
    book, rules = requests
    R = book[0].shape[1]
    scheme = EXCHANGE
    track_delegated = needs_area = batched = holding = capped = False
    # A held job to hand over at this instant (hand-over when-room or batch), where the search for the
    # next goes on, and the last instant at which jobs ended.
    release, held_at, last_end = -1, 0, np.int64(-1)
    batch_due = np.int64(NEVER)  # hand-over batch: when the held jobs go
    now = np.int64(0)  # the time of the last event
    if indexed is None:
        setup = policy.setup
        scheme = setup[SCHEME]
        holding = scheme == EXCHANGE and setup[HANDOVER] != H_INTERACTIVE
        if i == 0 and pause[P_JOB] < 0:  # a new run, not one resumed after a pause
            np.random.seed(setup[SEED])
        # With one partner every order is the same: no bookkeeping of delegated jobs needed.
        track_delegated = scheme == EXCHANGE and setup[TRACK_DELEGATED] != 0 and K > 2
        needs_area = _needs_area(setup)
        capped = scheme == EXCHANGE and setup[CAPPED] != 0
        batched = scheme == EXCHANGE and locations.routes_batches(setup[LOCATION])
    arrivals = work.arrivals
    # Typed constants, not literals: a literal flowing into a call makes
    # numba compile the callee once more for the literal's type.
    never = np.int64(NEVER)
    while True:
        if one_site:
            tc, first = next_completion_at(0, sc, running), 0
        else:
            tc, first = next_completion(sc, running)
        ta = jobs[SUBMIT, ix(i)] if i < n else never
        te, tr = tc, never  # alone: no reservations (and the tests on tr fold away)
        releasing = False  # is the event a held job's hand-over?
        if indexed is None:
            te = min(tc, next_held_event(mode, state))
            tr = book[0][R_SUBMIT, r] if r < R else never
            if holding:
                refresh = setup[REFRESH]
                if release >= 0:  # a held job goes first, as an arrival now (publish(now): no-op)
                    te, tr, ta = never, never, now
                elif setup[HANDOVER] == H_BATCH:
                    te = min(te, batch_due)
                elif refresh > 0 and sc[K, Q_TAIL] > 0 and last_end >= work.published[0] * refresh:
                    # Jobs ended since the last publication: the next one may show a held job room.
                    te = min(te, (work.published[0] + 1) * refresh)
        if te == never and ta == never and tr == never:
            return DONE
        if indexed is None and setup[REFRESH] > 0:
            publish(min(te, ta, tr), setup[REFRESH], state, work)
        arrived = -1  # the job that arrived now, if the event is an arrival
        site = NO_PASS  # where it joined a queue
        if te <= ta and te <= tr:
            now = te
            if indexed is None:
                last_end = te if tc == te else last_end
                if track_delegated and tc == te:
                    _record_delegated_ends(tc, jobs, sc, running, work.delegated)
                if (needs_area or capped) and tc == te:
                    _release_ended(tc, jobs, sc, running, work, needs_area, capped)
                # All completions at every site first, then the sites' passes in
                # index order: with a pool or active requests, a pass at one site
                # may take jobs another site could now start.
                for k in range(K):
                    freed[k] = (complete_jobs(k, te, codes[k], jobs, sc, running, mode)
                                + end_held(mode, k, te, state)) > 0
            else:  # alone, sites do not interact: one site's completions, then its pass
                site = first
                complete_jobs(site, te, codes[site], jobs, sc, running, mode)
        else:
            if tr < ta:
                if rules[0][C_ASKS_PYTHON] != 0 and pause[P_ADMITTED] != r:
                    pause[P_ASK] = ASK_ADMISSION  # a Python policy answers before the request is placed
                    pause[P_NEXT] = i
                    pause[P_REQUEST] = r
                    pause[P_TIME] = tr
                    return PAUSED
                book_in_mode(mode, r, tr, book, rules, jobs, state, work.booked)
                r += 1
                continue
            if release < 0 and stopped_at_cutoff(i, ta, jobs, state.out, work.group, work.cutoff, bounds):
                return STOPPED
            if indexed is None:
                releasing = release >= 0
                if releasing:  # a held job handed over as at an arrival, now
                    arrived = release
                    release = -1
                else:
                    if batched and i + 1 < n and jobs[SUBMIT, i + 1] == ta and pause[P_JOB] != arrivals[i]:
                        _next_in_batch(i, ta, jobs, state, policy, work)
                    arrived = arrivals[i] if batched else i
                site = _arrive(arrived, ta, jobs, codes, state, policy, work, log, mode, releasing)
                if site == PAUSE:
                    pause[P_NEXT] = i
                    pause[P_REQUEST] = r
                    pause[P_TIME] = ta
                    return PAUSED
                if holding and setup[HANDOVER] == H_BATCH and not releasing and sc[K, Q_TAIL] > 0:
                    if setup[BATCH_JOBS] > 0:  # its last job, or the last of all: the batch goes now
                        if sc[K, Q_TAIL] >= setup[BATCH_JOBS] or i + 1 == n:
                            batch_due = ta
                    elif batch_due == never:  # its first job: it goes at the next multiple
                        batch_due = (ta // setup[BATCH_S] + 1) * setup[BATCH_S]
            else:
                arrived = i
                site = 0 if one_site else jobs[HOME, i]
                enqueue_own(site, i, codes[site], jobs, state, work.index, mode)
            if not releasing:
                i += 1
            now = ta
        # The passes after the event: one call site of the LRMS's pass in each compiled loop, as
        # each inlined copy adds seconds to its compile.
        if indexed is None:  # a completion: every site that freed processors; an arrival: its site
            for k in range(K):
                if (k == site) if arrived >= 0 else freed[k]:
                    # holds_reservations: a literal, so the reserving loop never compiles the indexed
                    # pass (its runs keep no index, _queue_index).
                    if not holds_reservations(mode) and long_queue(k, k, codes[k], state, work.index, mode):
                        indexed_pass(k, k, codes[k], now, jobs, state, work.index)
                    else:
                        schedule_site(k, k, codes[k], now, jobs, state, mode)
                    if scheme == POOL:
                        if arrived < 0:
                            pool_pass(k, now, codes, jobs, state, mode, work.index)
                        elif state.out[START_TIME, arrived] < 0:  # it failed to start at home
                            sc[k, Q_TAIL] -= 1  # leave the (otherwise empty) local queue
                            sc[k, W_PROCS] -= jobs[PROCS, arrived]
                            enqueue_pool(K, arrived, jobs, state, work.index)
                            pool_pass(k, now, codes, jobs, state, mode, work.index)
                        elif setup[POOL_ARRIVALS] == A_FIRST_POOL:  # it started; the site looks anyway
                            pool_pass(k, now, codes, jobs, state, mode, work.index)
                    elif scheme == ACTIVE:
                        if _some_kept(work.index, K):  # never under AA_START (_queue_index)
                            indexed_request(k, now, setup[ACTIVE_TAKE], codes, jobs, state, mode, work.index)
                        else:
                            active_request(k, now, setup[ACTIVE_TAKE], codes, jobs, state, mode)
            if arrived < 0:
                start_held(mode, te, state)
            # Held jobs go, in order, once a site has room (when-room) or all at the batch's instant.
            if holding and (arrived < 0 or releasing) and (setup[HANDOVER] != H_BATCH or now >= batch_due):
                release, held_at = next_release(held_at if releasing else 0, now, jobs, state, policy, work)
                if release < 0:
                    batch_due = never
        elif indexed and long_queue(site, site, codes[site], state, work.index, mode):
            index_pass(indexed, site, codes[site], now, jobs, state, work.index)
        else:
            schedule_site(site, site, codes[site], now, jobs, state, mode)
            if not indexed and long_queue(site, site, codes[site], state, work.index, mode):
                pause[P_NEXT] = i
                return LONG


def _entry(mode: int, alone: bool, indexed: bool, one_site: bool):
    """The loop compiled for these literals (or loaded from numba's cache), under its own cache name;
    alone: without a ``policy`` argument (the loop's ``None``)."""
    if alone:
        def entry(jobs, codes, state, requests, work, log):
            return _grid_loop(jobs, codes, state, requests, None, work, log, mode, indexed, one_site)
    else:
        def entry(jobs, codes, state, requests, policy, work, log):
            return _grid_loop(jobs, codes, state, requests, policy, work, log, mode, None, False)

    kind = "indexed" if indexed else "one_site" if one_site else "alone" if alone else "grid"
    return cached_entry(entry, f"loop_{kind}_{mode_name(mode)}")


_LOOPS: dict[tuple[int, bool, bool, bool], object] = {}


def loop(mode: int, alone: bool, indexed: bool = False, one_site: bool = False):
    """:func:`_grid_loop` compiled for ``(mode, alone, indexed, one_site)``, made on first use."""
    key = (mode, alone, indexed, one_site)
    if key not in _LOOPS:
        _LOOPS[key] = _entry(*key)
    return _LOOPS[key]


def run_local(jobs: np.ndarray, machine_procs: np.ndarray, codes: np.ndarray,
              group: np.ndarray | None = None, cutoff: float = 0.0,
              index_span: int = queue_index.SPAN) -> tuple[np.ndarray, np.ndarray]:
    """``(start, bounds)`` of K sites without exchange, on packed arrays: every job runs at its ``HOME``
    row (:func:`_grid_loop` without a ``policy``).

    Simulate level 1 of 3 (packed arrays, compiled); above it :func:`evogrid.sim.schedule.simulate_local`
    (workloads -> Schedule), then :func:`evogrid.policy.strategies.simulate` (Scenario -> Result).

    ``group`` defaults to the jobs' ``HOME`` row; ``cutoff`` (seconds, one for
    every group) 0 runs to the end; ``bounds``: the groups' AWRT lower bounds if the run stopped
    early, else empty. ``index_span``: queue positions from which EASY's and LIST's passes use the
    queue index (evogrid.sim.queue_index; the tests lower it to check the index on short queues):
    the run goes on in the indexed loop from the first such queue.
    """
    mode = lrms_mode(codes)
    K = machine_procs.shape[0]
    stop = (jobs[HOME] if group is None else group, np.full(K, float(cutoff)))
    requests = no_requests(K)
    state, work, log = grid_setup(jobs, machine_procs, codes, None, 0, stop, requests, index_span)
    status = loop(mode, True, one_site=K == 1)(jobs, codes, state, requests, work, log)
    if status == LONG:
        work = work._replace(index=queue_index.new_index(jobs.shape[1], K, index_span))
        status = loop(mode, True, True)(jobs, codes, state, requests, work, log)
    return state.out[START_TIME].copy(), work.bounds[0].copy() if status == STOPPED else np.empty(0)


def run_grid(mode: int, jobs: np.ndarray, machine_procs: np.ndarray, codes: np.ndarray, policy: PolicyArrays,
             log_capacity: int, cutoff: np.ndarray, requests: tuple,
             decide: Callable[[tuple, tuple], None] | None = None,
             index_span: int = queue_index.SPAN) -> tuple:
    """Sites that exchange jobs (:func:`_grid_loop`, compiled for ``mode`` on first use; the
    arguments as :func:`grid_setup` takes them); returns :func:`grid_outcome`'s tuple. Each job's
    AWRT counts at its ``HOME`` site.

    Simulate level 1 of 3 (packed arrays, compiled); above it :func:`evogrid.sim.schedule.simulate_grid`
    (workloads -> Schedule), then :func:`evogrid.policy.strategies.simulate` (Scenario -> Result).

    ``decide`` (grids with Python policies): each time the loop pauses, ``decide(state, work)``
    answers the question in ``work.pause`` (the ``P_*`` fields) in place, and the loop goes on. It is
    called with the loop's live arrays; evogrid.sim.python_policy gives the policies read-only views
    of them. ``index_span``: as :func:`grid_setup` takes it.
    """
    stop = (jobs[HOME], cutoff)
    state, work, log = grid_setup(jobs, machine_procs, codes, policy, log_capacity, stop, requests,
                                  index_span)
    run = loop(mode, False)
    while (status := run(jobs, codes, state, requests, policy, work, log)) == PAUSED:
        decide(state, work)
    return grid_outcome(state, work, log, status)
