"""The compiled simulator core (numba, ``cache=True``): state layout and the local scheduler.

Everything here works on packed int64 numpy arrays (docs/architecture.md):

- ``jobs``: shape (N_JOB_FIELDS, n), one row per field (``jobs[PROCS, j]``):
  ``SUBMIT``, ``RUN_TIME``, ``ESTIMATE`` (seconds), ``PROCS`` (processors) and
  ``HOME`` (the queue row a job enters: its origin site, or in
  a partition the site it is assigned to), in arrival order;
- ``out``: shape (N_OUT_FIELDS, n), the results: ``START`` (seconds, -1 while
  unstarted), ``SITE`` (where it runs) and ``MOVES`` (site changes);
- ``queue``: shape (Q, n): row q holds queue q's waiting jobs at
  ``[Q_HEAD, Q_TAIL)`` in arrival order (one row per site; a central pool adds
  a row);
- ``sc``: shape (Q, N_SCALARS), per-queue scalars: ``Q_HEAD, Q_TAIL``,
  ``Q_HOLES`` (positions in between whose job has left while the queue is
  indexed: :func:`waiting_jobs` counts the jobs) and ``W_PROCS`` (processors
  requested by the waiting jobs, for NWP); for site rows also ``FREE`` and
  ``M_PROCS`` (processors), ``N_RUN`` and ``N_HEAP``, and where LoadLeveler
  limits the jobs from other sites there (``NEVER`` in both where nothing
  does) ``GRID_SLOTS``, the processors they may hold running (the grid's
  slots, its ``maxslots``), and ``GRID_MAXJOBS``, how many of them may run
  (the grid user's ``maxjobs``; ``UNLIMITED`` for the limit a site lacks);
- ``running``: shape (4, K, cap), per site: ``RUN_EST_END`` / ``RUN_JOB``, its
  running jobs sorted by *estimated* end (start + estimate) for EASY's shadow
  time (kept only for an LRMS that uses it: it costs a shift per start and
  per end), and ``HEAP_END`` / ``HEAP_JOB``, a binary min-heap of running
  jobs by *actual* end, for the next completion.

One scan (:func:`lrms_scan`) serves every LRMS (evogrid.sim.lrms) on a site's
own queue, the central pool and active requests.

Speed notes: the state is allocated in Python (:func:`new_state`,
evogrid.sim.grid.grid_setup) and handed to the one event loop
(evogrid.sim.grid), compiled without numba's runtime (``_nrt=False``), so no
array in the loop is reference-counted: every count is an atomic
instruction, and the counts left by inlined helpers took about two thirds of
the loop's time (measured with ``perf``, docs/benchmarks.md). Helpers take
the site index ``k`` and whole arrays instead of row views, and are inlined.
The loop takes a ``mode`` (the sites' common LRMS code, or ``MIXED``: :func:`lrms_mode`) as a
literal, so EASY-only work is compiled out for the others; it is compiled
the first time its mode runs.

Event order at one instant (docs/model.md, Local scheduling): all completions at every site
first (one scheduling pass per site that freed processors), then arrivals
one by one in array order, each enqueued and its site scheduled before the
next. Callers sort arrivals by (submit, origin site, position in its log).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba.extending import overload

from evogrid.sim import lrms, queue_index
from evogrid.sim.lrms import MIXED, SKIP, START, STOP
from evogrid.sim.numba_stamp import njit
from evogrid.sim.profile import (
    P_FREE,
    P_TIME,
    earliest_fit,
    first_short_step,
    reserve,
)

# Rows of ``jobs``, of ``out`` and of ``running``; columns of ``sc``.
SUBMIT, RUN_TIME, ESTIMATE, PROCS, HOME = 0, 1, 2, 3, 4
N_JOB_FIELDS = 5
START_TIME, SITE, MOVES = 0, 1, 2
N_OUT_FIELDS = 3
RUN_EST_END, RUN_JOB, HEAP_END, HEAP_JOB = 0, 1, 2, 3
Q_HEAD, Q_TAIL, W_PROCS, FREE, M_PROCS, N_RUN, N_HEAP, Q_HOLES, GRID_SLOTS, GRID_MAXJOBS = range(10)
N_SCALARS = 10

NEVER = np.iinfo(np.int64).max
#: Rows of a grid's per-site limits on the jobs from other sites (``PolicyArrays.limits``,
#: evogrid.sim.grid), -1 where a site has none: the most processors they may hold there, waiting or
#: running (``grid_cap``); LoadLeveler's slots for them (``grid_slots``, Beichter's ``maxslots``) and
#: how many may run (``grid_maxjobs``, his ``maxjobs``); and the widest such job the site may take
#: (its processors, or fewer enforced slots: a wider one would never start; never -1).
LIM_CAP, LIM_SLOTS, LIM_MAXJOBS, LIM_WIDTH = 0, 1, 2, 3
N_LIMITS = 4
#: ``GRID_SLOTS`` or ``GRID_MAXJOBS`` of a site that LoadLeveler limits in the other only: more than
#: any grid holds, and far enough from int64's end that what is left of it cannot overflow.
UNLIMITED = 1 << 48
#: ``T`` of a scan that has not met a blocked head yet (see :func:`lrms_scan`).
UNBLOCKED = -1
#: Rows of ``held``: an accepted reservation's interval (s), processors and whether it has
#: started (taken its processors out of ``FREE``).
H_START, H_END, H_PROCS, H_TAKEN = 0, 1, 2, 3
N_HELD_FIELDS = 4
#: Extra rows of ``profile`` where sites hold reservations: the reservations as changes of the free
#: count (time, processors), sorted by time, and the merged profile being written.
D_TIME, D_DELTA, M_TIME, M_FREE = 3, 4, 5, 6
N_PROFILE_ROWS = 7
#: Compilation modes of runs whose sites may hold reservations: ``RESERVING + `` the LRMS mode.
RESERVING = 1000
#: ... and of runs where LoadLeveler limits the jobs from other sites at some site (its slots or
#: maxjobs): ``LIMITED + `` the LRMS mode. Compiled apart, so that other runs' passes test no limit
#: (testing them everywhere cost every case of bench_grid.py 2-11 %, docs/benchmarks.md).
LIMITED = 2000


class State(NamedTuple):
    """A run's simulation state (module docstring); ``held[f, k, h]`` (f: ``H_*``) are site k's
    accepted reservations not yet ended, ``held_n[k]`` of them (size 1 in runs without requests)."""

    queue: np.ndarray
    sc: np.ndarray
    running: np.ndarray
    out: np.ndarray
    profile: np.ndarray
    held: np.ndarray
    held_n: np.ndarray


#: ``ix(i)``: ``i`` (>= 0) as an array index without numba's negative-index correction.
#:
#: numba corrects every signed index for Python's negative indexing (a shift,
#: an and and an add on the address); on the heap, the run list, the queue and
#: the job rows that put the single-site loop at 0.76-0.83 of a C loop,
#: 0.87-0.96 without it (docs/benchmarks.md). An unsigned index has no
#: correction, so only indices that cannot be negative go through here. The
#: numpy type itself, not a helper: a cast costs no inlining at each of the
#: many call sites (inlined helpers cost compile time per call site).
ix = np.uint64


@njit(cache=True, inline="always")
def _heap_push(running, k, n, end, job):
    """Push (end, job) onto site k's heap of size n."""
    i = n
    while i > 0:
        parent = (i - 1) >> 1
        if running[HEAP_END, k, ix(parent)] <= end:
            break
        running[HEAP_END, k, ix(i)] = running[HEAP_END, k, ix(parent)]
        running[HEAP_JOB, k, ix(i)] = running[HEAP_JOB, k, ix(parent)]
        i = parent
    running[HEAP_END, k, ix(i)] = end
    running[HEAP_JOB, k, ix(i)] = job


@njit(cache=True, inline="always")
def _heap_pop(running, k, n):
    """Remove the root of site k's heap of size n > 0; returns its job."""
    job = running[HEAP_JOB, k, 0]
    n -= 1
    end = running[HEAP_END, k, ix(n)]
    last = running[HEAP_JOB, k, ix(n)]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= n:
            break
        if child + 1 < n and running[HEAP_END, k, ix(child + 1)] < running[HEAP_END, k, ix(child)]:
            child += 1
        if running[HEAP_END, k, ix(child)] >= end:
            break
        running[HEAP_END, k, ix(i)] = running[HEAP_END, k, ix(child)]
        running[HEAP_JOB, k, ix(i)] = running[HEAP_JOB, k, ix(child)]
        i = child
    if n > 0:
        running[HEAP_END, k, ix(i)] = end
        running[HEAP_JOB, k, ix(i)] = last
    return job


@njit(cache=True, inline="always")
def _run_insert(running, k, n_run, est_end, job):
    i = n_run
    while i > 0 and running[RUN_EST_END, k, ix(i - 1)] > est_end:
        running[RUN_EST_END, k, ix(i)] = running[RUN_EST_END, k, ix(i - 1)]
        running[RUN_JOB, k, ix(i)] = running[RUN_JOB, k, ix(i - 1)]
        i -= 1
    running[RUN_EST_END, k, ix(i)] = est_end
    running[RUN_JOB, k, ix(i)] = job


@njit(cache=True, inline="always")
def _run_remove(running, k, n_run, est_end, job):
    """Remove ``job``, whose estimated end is ``est_end``, from site k's run list of length n_run: found
    by bisection, then among the jobs with that end (a linear search cost EASY a tenth of its time on
    a large site, docs/benchmarks.md)."""
    lo, hi = 0, n_run
    while lo < hi:
        mid = (lo + hi) >> 1
        if running[RUN_EST_END, k, ix(mid)] < est_end:
            lo = mid + 1
        else:
            hi = mid
    i = lo
    while running[RUN_JOB, k, ix(i)] != job:
        i += 1
    while i < n_run - 1:
        running[RUN_EST_END, k, ix(i)] = running[RUN_EST_END, k, ix(i + 1)]
        running[RUN_JOB, k, ix(i)] = running[RUN_JOB, k, ix(i + 1)]
        i += 1


def reserving_mode(mode: int) -> int:
    """The compilation mode of LRMS mode ``mode`` (an LRMS code or ``MIXED``) with reservations."""
    return RESERVING + mode


def limited_mode(mode: int) -> int:
    """The compilation mode of LRMS mode ``mode`` where LoadLeveler limits the grid's jobs."""
    return LIMITED + mode


def _literal_mode(mode) -> tuple[int, bool, bool] | None:
    """While numba types a loop: ``(LRMS mode, sites may hold reservations, LoadLeveler limits the
    grid's jobs)`` of its mode's literal value, or None for a mode typed without one. The one decoder
    of modes for the overloads (:func:`_runtime_mode` decodes a mode without a literal)."""
    value = getattr(mode, "literal_value", None)
    if value is None:
        return None
    return _runtime_mode.py_func(value)


@njit(cache=True, inline="always")
def _runtime_mode(mode):
    """``(LRMS mode, reserving, limited)`` of a compilation mode (:func:`_literal_mode`)."""
    limited = mode >= LIMITED + MIXED
    if limited:
        mode -= LIMITED
    reserving = mode >= RESERVING + MIXED
    if reserving:
        mode -= RESERVING
    return mode, reserving, limited


def holds_reservations(mode):
    """May sites hold reservations in compilation mode ``mode``?"""


def limits_grid(mode):
    """May LoadLeveler limit the jobs from other sites at some site in compilation mode ``mode``?"""


def _mode_flag(index: int):
    """The overload of a yes-or-no question about a mode: flag ``index`` of :func:`_runtime_mode`.
    Decided while numba types the loop, so the loop's code holds one branch only (each inlined
    condition on the mode costs compile time even where LLVM folds it later)."""
    def typed(mode):
        decoded = _literal_mode(mode)
        if decoded is None:
            return lambda mode: _runtime_mode(mode)[index]
        answer = decoded[index]
        return lambda mode: answer
    return typed


overload(holds_reservations, prefer_literal=True)(_mode_flag(1))
overload(limits_grid, prefer_literal=True)(_mode_flag(2))


def site_lrms(mode, code):
    """The LRMS of a site whose code is ``code`` in compilation mode ``mode``.

    Outside the mixed mode every site runs the mode's LRMS, and the mode is a
    compile-time literal: returning it lets LLVM fold away every other LRMS's
    branches (a runtime code cost FCFS and LIST 9-13 %, docs/benchmarks.md).
    """


@overload(site_lrms, prefer_literal=True)
def _site_lrms(mode, code):
    decoded = _literal_mode(mode)
    if decoded is None:
        def runtime(mode, code):
            of_mode = _runtime_mode(mode)[0]
            return code if of_mode == MIXED else of_mode
        return runtime
    base = decoded[0]
    if base == MIXED:
        return lambda mode, code: code
    return lambda mode, code: base


@njit(cache=True, inline="always")
def keeps_run_list(mode, code):
    """Does a site with LRMS ``code`` keep its running jobs sorted by estimated end? (Always where
    sites may hold reservations: their profile starts from that list.)"""
    return holds_reservations(mode) or lrms.KEEPS_RUN_LIST[site_lrms(mode, code)]


@njit(cache=True, inline="always")
def start_job(k, t, job, mode, code, jobs, sc, running, out):
    """Start ``job`` at time ``t`` on site ``k`` (whose LRMS is ``code``)."""
    out[START_TIME, ix(job)] = t
    sc[k, FREE] -= jobs[PROCS, ix(job)]
    if keeps_run_list(mode, code):
        _run_insert(running, k, sc[k, N_RUN], t + jobs[ESTIMATE, ix(job)], job)
        sc[k, N_RUN] += 1
    _heap_push(running, k, sc[k, N_HEAP], t + jobs[RUN_TIME, ix(job)], job)
    sc[k, N_HEAP] += 1


@njit(cache=True, inline="always")
def grid_running(k, jobs, sc, running):
    """``(processors, jobs)`` of the jobs from other sites (the grid's) running at site k."""
    used = count = 0
    for i in range(sc[k, N_HEAP]):
        job = running[HEAP_JOB, k, i]
        if jobs[HOME, job] != k:
            used += jobs[PROCS, job]
            count += 1
    return used, count


@njit(cache=True, inline="always")
def grid_room(k, jobs, sc, running):
    """``(room, more)``: the processors jobs from other sites may still take at site k, and how many
    more of them may run, under LoadLeveler's limits there (``GRID_SLOTS``, ``GRID_MAXJOBS``); both
    ``NEVER`` where it limits nothing. Counted from the running jobs when a pass begins, only at
    limited sites (the pass then takes its own starts off: :func:`took_grid_job`), so the other
    sites' starts and ends pay nothing."""
    if sc[k, GRID_SLOTS] == NEVER:
        return NEVER, NEVER
    used, count = grid_running(k, jobs, sc, running)
    return sc[k, GRID_SLOTS] - used, sc[k, GRID_MAXJOBS] - count


@njit(cache=True, inline="always")
def took_grid_job(k, job, need, room, more, jobs):
    """``(room, more)`` of :func:`grid_room` after site k started ``job`` (``need`` processors): less
    it if it came from another site (where nothing limits them, ``NEVER`` less a little stays above
    any job)."""
    if jobs[HOME, ix(job)] != k:
        return room - need, more - 1
    return room, more


@njit(cache=True, inline="always")
def passed_over(k, job, need, room, more, jobs):
    """Does site k's LRMS pass over ``job`` (``need`` processors; it fits the site) because it came
    from another site and the grid's slots there have ``room`` processors left, too few for it, or
    the grid user may run no ``more`` jobs there (LoadLeveler starts no job over its class's slots
    or its user's maxjobs)? Both are ``NEVER`` where nothing limits them, so the common case reads
    no more than the job's width."""
    return (need > room or more < 1) and jobs[HOME, ix(job)] != k


@njit(cache=True, inline="always")
def waiting_jobs(sc, q):
    """How many jobs wait in queue row q: its positions less the holes an indexed queue leaves
    (:func:`indexed_pass`)."""
    return sc[q, Q_TAIL] - sc[q, Q_HEAD] - sc[q, Q_HOLES]


@njit(cache=True, inline="always")
def shadow_time(k, need, sc, running, jobs):
    """EASY reservation for a head job needing ``need`` processors at site ``k``.

    Returns ``(T, extra)``: the earliest estimated end time at which ``need``
    processors are free once every job estimated to end at or before it has
    ended, and the processors left over then after the head's allocation.
    """
    avail = sc[k, FREE]
    n_run = sc[k, N_RUN]
    i = 0
    while i < n_run:
        T = running[RUN_EST_END, k, ix(i)]
        while i < n_run and running[RUN_EST_END, k, ix(i)] == T:
            avail += jobs[PROCS, ix(running[RUN_JOB, k, ix(i)])]
            i += 1
        if avail >= need:
            return T, avail - need
    return NEVER, 0  # only when need > machine size, which callers exclude


@njit(cache=True, inline="always")
def shadow_time_at(k, need, mode, code, jobs, state):
    """:func:`shadow_time` at a site whatever its LRMS (``code``): one that keeps no list of its
    running jobs by estimated end (FCFS) finds T by bisection over the estimated ends of its
    running jobs (start + estimate), in O(R log T) for R running jobs. ``need`` is at most the
    site's size (queues hold no wider jobs), so some estimated end frees enough."""
    sc, running = state.sc, state.running
    if keeps_run_list(mode, code):
        return shadow_time(k, need, sc, running, jobs)
    lo, hi = NEVER, np.int64(0)  # avail(lo - 1) < need <= avail(hi)
    for i in range(sc[k, N_HEAP]):
        job = running[HEAP_JOB, k, i]
        end = state.out[START_TIME, job] + jobs[ESTIMATE, job]
        lo, hi = min(lo, end), max(hi, end)
    if lo == NEVER:
        return NEVER, 0
    avail = 0
    while True:
        mid = lo + (hi - lo) // 2
        avail = sc[k, FREE]
        for i in range(sc[k, N_HEAP]):
            job = running[HEAP_JOB, k, i]
            if state.out[START_TIME, job] + jobs[ESTIMATE, job] <= mid:
                avail += jobs[PROCS, job]
        if lo == hi:
            return lo, avail - need
        if avail >= need:
            hi = mid
        else:
            lo = mid + 1


@njit(cache=True, inline="always")
def build_profile(k, t, sc, running, jobs, profile):
    """Site k's availability profile at time ``t`` from its running jobs (evogrid.sim.profile); returns
    its breakpoint count.

    A running job holds its processors until start + estimate; one already past
    its estimate (only without ``kill_at_estimate``) may end any moment, and
    is taken to end at ``t + 1``: the profile at ``t`` must be the free count.
    """
    profile[P_TIME, 0] = t
    profile[P_FREE, 0] = sc[k, FREE]
    n = 1
    for i in range(sc[k, N_RUN]):
        end = max(running[RUN_EST_END, k, i], t + 1)
        if end != profile[P_TIME, n - 1]:
            profile[P_TIME, n] = end
            profile[P_FREE, n] = profile[P_FREE, n - 1]
            n += 1
        profile[P_FREE, n - 1] += jobs[PROCS, running[RUN_JOB, k, i]]
    return n


@njit(cache=True, inline="always")
def _reserve_in_order(k, q, first, last, m, room, more, jobs, queue, profile, n):
    """Reserve queue row q's jobs ``[first, last)`` that site k (of ``m`` processors) sees, in order,
    each at its earliest fit on the profile (``n`` breakpoints); returns the new ``n``. It sees a job
    that fits it and that the grid's limits there (``room``, ``more``: :func:`grid_room`) do not
    pass over."""
    for r in range(first, last):
        job = queue[q, r]
        need = jobs[PROCS, job]
        duration = max(jobs[ESTIMATE, job], 1)  # a zero-length job still needs its processors once
        if need <= m and not passed_over(k, job, need, room, more, jobs):
            n = reserve(profile, n, earliest_fit(profile, n, need, duration), need, duration)
    return n


@njit(cache=True, inline="always")
def take_job(k, q, t, job, mode, code, jobs, sc, running, out):
    """Start waiting ``job`` of queue row q on site k (whose LRMS is ``code``) at time ``t``."""
    sc[q, W_PROCS] -= jobs[PROCS, ix(job)]
    if q != k:
        out[SITE, job] = k
        out[MOVES, job] = 1 if k != jobs[HOME, job] else 0
    start_job(k, t, job, mode, code, jobs, sc, running, out)


@njit(cache=True, _nrt=False)
def backfill_on_profile(k, q, code, t, cursor, jobs, state):
    """Conservative backfilling behind site k's blocked head, from ``queue[q, read]`` (a job that fits
    the ``free`` processors at time ``t``) to the end of the pass; returns the scan's ``(read, write)``.

    ``cursor = (reserved, read, write, tail, free, pending, room, more)``: where the scan
    (:func:`lrms_scan`) stands; ``(room, more)``: :func:`grid_room`'s, ``NEVER`` where the grid's
    limits do not hold at site k.

    Each job that fits the free processors starts if it fits the profile
    (built here from the running jobs) now, without delaying any job ahead.
    The kept jobs ``queue[q, reserved:write]`` are ahead of it and not on
    the profile yet. They reserve first, in queue order, but lazily: none
    starts before a lower bound (``running_bound`` for the unjudged ones,
    from the running jobs alone, for the fewest processors one of them needs,
    ``pending``; ``off_bound`` for judged ones, after the step that was too
    full for them), so a job that fits the profile and ends by the lowest
    bound starts without placing them (the common case). A job that cannot
    start stays off the profile, with its bound.

    Where LoadLeveler limits the grid's jobs at site k, the jobs the limits
    pass over (:func:`passed_over`) reserve nothing, and the others reserve
    as the pass reaches them, not lazily: a start takes room from the grid's
    jobs, so the jobs a later placement would see are not those the pass
    saw (lazy placement gives the same schedule only where nothing hides).

    A call, not inlined: one compiled copy serves every loop, and the other
    LRMS's loops do not pay its compile time again. Once per pass, not per
    judged job: a call pushes some 50 words (the arrays' fields) on the
    stack, and one per judged job (4 million on SDSC-BLUE) made the loop
    run at 0.7 or 1.1 M jobs/s depending on the process (docs/benchmarks.md).
    """
    reserved, read, write, tail, free, pending, room, more = cursor
    queue, sc, running, out, profile = state.queue, state.sc, state.running, state.out, state.profile
    m = sc[k, M_PROCS]
    n = build_profile(k, t, sc, running, jobs, profile)
    running_bound = NEVER
    running_bound_need = NEVER
    off_bound = NEVER
    limited = room != NEVER  # grid_room: both NEVER where LoadLeveler limits nothing at k
    if limited:  # no start since the blocked head: the pass saw the kept jobs as the limits are now
        n = _reserve_in_order(k, q, reserved, write, m, room, more, jobs, queue, profile, n)
        reserved = write
        pending = NEVER
    while read < tail and free > 0:
        job = queue[q, read]
        read += 1
        need = jobs[PROCS, job]
        hidden = limited and passed_over(k, job, need, room, more, jobs)
        if need <= free and not hidden:
            d = jobs[ESTIMATE, job]
            short = first_short_step(profile, n, need, d)
            if short < 0 and reserved < write:
                if pending != NEVER and running_bound_need != pending:
                    bound, _ = shadow_time(k, pending, sc, running, jobs)
                    running_bound = max(bound, t + 1)
                    running_bound_need = pending
                lowest = off_bound
                if pending != NEVER:
                    lowest = min(lowest, running_bound)
                if t + d > lowest:  # it may overlap them: place them all
                    n = _reserve_in_order(k, q, reserved, write, m, room, more, jobs, queue, profile, n)
                    reserved = write
                    pending = NEVER
                    off_bound = NEVER
                    short = first_short_step(profile, n, need, d)
            if short < 0:
                # It holds its processors at least until its end is processed (as
                # build_profile takes it), even with estimate 0.
                n = reserve(profile, n, 0, need, max(d, 1))
                take_job(k, q, t, job, MIXED, code, jobs, sc, running, out)  # one copy for every mode
                free -= need
                if limited:
                    room, more = took_grid_job(k, job, need, room, more, jobs)
                continue
            off_bound = min(off_bound, profile[P_TIME, short + 1])
        elif need <= m:
            pending = min(pending, need)
        queue[q, write] = job
        write += 1
        if limited:  # judged as the pass reaches it: it reserves now, unless the limits hide it
            n = _reserve_in_order(k, q, write - 1, write, m, room, more, jobs, queue, profile, n)
            reserved = write
            pending = NEVER
            off_bound = NEVER
    return read, write


def backfill_behind_head(mode, k, q, code, t, cursor, jobs, state):
    """:func:`backfill_on_profile` in a loop compiled for ``mode`` (a literal); compiled for
    modes that can have an LRMS with a profile only (the overload below)."""


@overload(backfill_behind_head, prefer_literal=True)
def _backfill_behind_head(mode, k, q, code, t, cursor, jobs, state):
    # Decided while numba types the loop: a loop of a mode without a profile
    # never types backfill_on_profile, and so never compiles it (3 s cold).
    decoded = _literal_mode(mode)
    if decoded is not None and decoded[0] != MIXED and not lrms.USES_PROFILE[decoded[0]]:
        def never(mode, k, q, code, t, cursor, jobs, state):
            return cursor[1], cursor[2]
        return never

    def backfill(mode, k, q, code, t, cursor, jobs, state):
        return backfill_on_profile(k, q, code, t, cursor, jobs, state)
    return backfill


@njit(cache=True, inline="always")
def close_queue(q, head, read, write, tail, queue, sc):
    """End a pass over queue row q that kept ``queue[q, head:write]`` and stopped before ``read``:
    the unread rest ``[read, tail)`` moves up behind the kept jobs (in place if none was taken
    out between them)."""
    if write == read:
        write = tail
    else:
        while read < tail:
            queue[q, ix(write)] = queue[q, ix(read)]
            write += 1
            read += 1
    sc[q, Q_HEAD] = head
    sc[q, Q_TAIL] = write


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
def site_profile(k, t, jobs, state):
    """Site k's profile at time ``t`` in ``state.profile``: running jobs and held reservations;
    returns its breakpoint count.

    A reservation that has started is already out of the free count: it comes
    back at its end. One to come is taken over its interval. The running
    jobs' profile and the reservations' sorted changes are merged in one
    pass (breakpoints: the union of both).
    """
    profile, held, held_n = state.profile, state.held, state.held_n
    n = build_profile(k, t, state.sc, state.running, jobs, profile)
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
def profile_scan(k, q, code, t, jobs, state):
    """Site k, which holds reservations, applies LRMS ``code`` to queue row ``q`` at time ``t`` on its
    profile with them (:func:`site_profile`); returns ``head_started`` as :func:`lrms_scan` does.

    A job starts only if it fits from now for its estimate, so held
    reservations always find their processors free (jobs are cut at their
    estimate). What passes a job that does not fit follows the LRMS's
    flags (evogrid.sim.lrms): without backfilling the pass stops there; with
    ``uses_shadow`` the first such job holds its earliest fit (EASY's
    reservation, on the profile), with ``profile`` every one does; any other
    rule lets every later job that fits start (LIST). Only sites that hold
    reservations get here (:func:`lrms_scan`); the schedule is then checked
    against the reference twin (tests/test_reservation_loop.py). A call, not
    inlined: one compiled copy serves every mode.
    """
    queue, sc, profile = state.queue, state.sc, state.profile
    head = sc[q, Q_HEAD]
    tail = sc[q, Q_TAIL]
    if head == tail or sc[k, FREE] == 0:  # (every job needs a processor)
        return False
    first = head
    m = sc[k, M_PROCS]
    n = site_profile(k, t, jobs, state)
    write = read = head
    reserving = lrms.USES_SHADOW[code] or lrms.USES_PROFILE[code]
    # Nothing starts once no processor is free now (reservations due now taken out); the jobs
    # behind are kept, and a reservation for one of them would change nothing in this pass.
    while read < tail and profile[P_FREE, 0] > 0:
        job = queue[q, read]
        need = jobs[PROCS, job]
        d = jobs[ESTIMATE, job]
        read += 1
        if need <= m and first_short_step(profile, n, need, d) < 0:
            take_job(k, q, t, job, RESERVING + MIXED, code, jobs, sc, state.running, state.out)
            n = reserve(profile, n, 0, need, max(d, 1))  # held at least until its end is processed
            if write == head:
                head += 1  # nothing kept yet: the queue just gets shorter at the front
                write += 1
            continue
        queue[q, write] = job
        write += 1
        if need > m:
            continue  # invisible to this site
        if not lrms.BACKFILLS[code]:
            break
        if reserving:  # held at least 1 s, as EASY's rule holds a zero-length head's processors
            n = reserve(profile, n, earliest_fit(profile, n, need, d), need, max(d, 1))
            reserving = lrms.USES_PROFILE[code]  # EASY reserves for the first one only
    close_queue(q, head, read, write, tail, queue, sc)
    return head > first


def scan_with_reservations(mode, k, q, code, t, jobs, state):
    """:func:`profile_scan` in a loop compiled for ``mode`` (a literal); compiled for modes whose
    sites may hold reservations only (the overload below)."""


@overload(scan_with_reservations, prefer_literal=True)
def _scan_with_reservations(mode, k, q, code, t, jobs, state):
    if not compiles_reservations(mode):
        def never(mode, k, q, code, t, jobs, state):
            return False
        return never

    def scan(mode, k, q, code, t, jobs, state):
        return profile_scan(k, q, code, t, jobs, state)
    return scan


@njit(cache=True, inline="always")
def hold(k, start, end, procs, state):
    """Site k accepts a reservation of ``procs`` processors over ``[start, end)``."""
    held, held_n = state.held, state.held_n
    h = held_n[k]
    held[H_START, k, h] = start
    held[H_END, k, h] = end
    held[H_PROCS, k, h] = procs
    held[H_TAKEN, k, h] = 0
    held_n[k] += 1


@njit(cache=True, inline="always")
def next_reservation_event(state):
    """The earliest start of an untaken, or end of a taken, reservation at any site (NEVER if none)."""
    held, held_n = state.held, state.held_n
    t = np.int64(NEVER)
    for k in range(held_n.shape[0]):
        for h in range(held_n[k]):
            t = min(t, held[H_END, k, h] if held[H_TAKEN, k, h] else held[H_START, k, h])
    return t


@njit(cache=True, inline="always")
def take_starting(t, state):
    """Reservations starting at ``t`` take their processors."""
    held, held_n, sc = state.held, state.held_n, state.sc
    for k in range(held_n.shape[0]):
        for h in range(held_n[k]):
            if not held[H_TAKEN, k, h] and held[H_START, k, h] == t:
                held[H_TAKEN, k, h] = 1
                sc[k, FREE] -= held[H_PROCS, k, h]


@njit(cache=True, inline="always")
def end_reservations(k, t, state):
    """Site k's reservations ending at ``t`` give their processors back; returns how many."""
    held, held_n, sc = state.held, state.held_n, state.sc
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


def compiles_reservations(mode) -> bool:
    """While numba types a loop: is its mode (a literal, or a type without one) one whose sites may
    hold reservations? Unknown modes count as not: the literal pass compiles what runs."""
    decoded = _literal_mode(mode)
    return decoded is not None and decoded[1]


def may_run(mode, code: int) -> bool:
    """While numba types a loop: may a site run the LRMS ``code`` in a loop of this mode (a literal,
    or a type without one)? Yes in a mixed loop and for unknown modes."""
    decoded = _literal_mode(mode)
    return decoded is None or decoded[0] in (MIXED, code)


def next_held_event(mode, state):
    """:func:`next_reservation_event` in a loop compiled for ``mode``; NEVER where sites hold no
    reservations (the overloads below leave the work out of those loops' code)."""


def end_held(mode, k, t, state):
    """:func:`end_reservations` in a loop compiled for ``mode`` (0 where sites hold none)."""


def start_held(mode, t, state):
    """:func:`take_starting` in a loop compiled for ``mode`` (nothing where sites hold none)."""


@overload(next_held_event, prefer_literal=True)
def _next_held_event(mode, state):
    if not compiles_reservations(mode):
        return lambda mode, state: np.int64(NEVER)
    return lambda mode, state: next_reservation_event(state)


@overload(end_held, prefer_literal=True)
def _end_held(mode, k, t, state):
    if not compiles_reservations(mode):
        return lambda mode, k, t, state: np.int64(0)
    return lambda mode, k, t, state: end_reservations(k, t, state)


@overload(start_held, prefer_literal=True)
def _start_held(mode, t, state):
    if not compiles_reservations(mode):
        return lambda mode, t, state: None
    return lambda mode, t, state: take_starting(t, state)


@njit(cache=True, inline="always")
def lrms_scan(k, q, code, t, T, extra, jobs, state, mode):
    """Site k applies LRMS ``code`` to queue row ``q`` at time ``t``; returns ``(extra, head_started)``.

    The one scheduling pass of the core, for a site's own queue (q = k), the
    central pool and an active request's start rule (another site's queue). Jobs wider
    than site k are invisible to it, and so are jobs from other sites that the grid's
    slots or maxjobs there pass over (:func:`passed_over`). Visible jobs start in order while they
    fit the free processors; the first that does not is the blocked head,
    and the LRMS's rule (evogrid.sim.lrms) judges each later one that fits,
    against the head's reservation ``(T, extra)`` (computed once, when first
    needed). Pass ``T = UNBLOCKED``; an active request passes its own head's
    reservation instead (``NEVER`` without one), so the scan of another
    queue only backfills. An LRMS with a profile (conservative) instead
    reserves each waiting job on site k's availability profile (scratch
    space ``profile``), in queue order, and starts a later job whose
    reservation is now: from the first job behind the head that fits the
    free processors on, :func:`backfill_on_profile` does the rest of the
    pass. The queue is compacted in place; jobs from a queue other
    than k's own get ``SITE`` k. ``head_started``: the job at the queue's
    head when the scan began has started. A site that holds reservations
    judges every job on its profile with them instead (:func:`profile_scan`).
    """
    if holds_reservations(mode) and state.held_n[k] > 0:
        return extra, scan_with_reservations(mode, k, q, code, t, jobs, state)
    queue, sc, running, out = state.queue, state.sc, state.running, state.out
    code = site_lrms(mode, code)
    m = sc[k, M_PROCS]
    head = sc[q, Q_HEAD]
    tail = sc[q, Q_TAIL]
    first = head
    blocked = T != UNBLOCKED
    shadow_known = blocked or not lrms.USES_SHADOW[code]
    head_need = 0
    write = head  # queue[q, head:write]: jobs kept so far
    read = head
    # For a profile: the kept jobs queue[q, reserved:write] (from the blocked
    # head on), and the fewest processors one of them needs.
    reserved = head
    pending = np.int64(NEVER)  # typed, not a literal: that would compile backfill_on_profile twice
    free = sc[k, FREE]  # a register copy: stores to the int64 arrays may alias it
    room = more = NEVER
    if limits_grid(mode):
        room, more = grid_room(k, jobs, sc, running)
    while read < tail and free > 0:
        job = queue[q, ix(read)]
        need = jobs[PROCS, ix(job)]
        verdict = SKIP
        if need <= m and not passed_over(k, job, need, room, more, jobs):
            if not blocked:
                if need <= free:
                    verdict = START
                else:
                    if not lrms.BACKFILLS[code]:
                        break
                    blocked = True
                    head_need = need
                    reserved = write
            elif need <= free:
                if lrms.USES_PROFILE[code]:
                    cursor = (reserved, read, write, tail, free, pending, room, more)
                    read, write = backfill_behind_head(mode, k, q, code, t, cursor, jobs, state)
                    break
                else:
                    if not shadow_known:
                        # Once per pass, and only when some job could use the free
                        # processors (most blocked passes have none).
                        T, extra = shadow_time(k, head_need, sc, running, jobs)
                        shadow_known = True
                    verdict, extra = lrms.behind_head(code, t, need, jobs[ESTIMATE, ix(job)], T, extra)
                    if verdict == STOP:
                        break
        read += 1
        if verdict == START:
            take_job(k, q, t, job, mode, code, jobs, sc, running, out)
            free -= need
            if limits_grid(mode):
                room, more = took_grid_job(k, job, need, room, more, jobs)
            if write == head:
                head += 1  # nothing kept yet: the queue just gets shorter at the front
                write += 1
        else:
            queue[q, ix(write)] = job
            write += 1
            if lrms.USES_PROFILE[code] and need <= m:
                pending = min(pending, need)
    close_queue(q, head, read, write, tail, queue, sc)
    return extra, head > first


@njit(cache=True, inline="always")
def schedule_site(k, q, code, t, jobs, state, mode):
    """One scheduling pass of site k's LRMS (``code``) over queue row ``q`` (its own, or the pool)."""
    lrms_scan(k, q, code, t, UNBLOCKED, 0, jobs, state, mode)


@njit(cache=True, _nrt=False)
def _index_block(q, block, tail, jobs, queue, index):
    """Block ``block`` of queue row q into its index again, from the jobs waiting there now.
    A call: inlined, it cost the indexed pass 1 s of its cold compile."""
    first = block * queue_index.BLOCK
    least_procs = least_estimate = queue_index.EMPTY
    for p in range(first, min(first + queue_index.BLOCK, tail)):
        job = queue[q, p]
        if job != queue_index.HOLE:
            least_procs = min(least_procs, jobs[PROCS, job])
            least_estimate = min(least_estimate, jobs[ESTIMATE, job])
    queue_index.set_block(index, q, block, least_procs, least_estimate)


@njit(cache=True, _nrt=False)
def _build_index(q, head, tail, jobs, queue, index):
    """Start keeping queue row q's index over its positions ``[head, tail)`` (a call: once per long
    stretch of a long queue)."""
    if index[queue_index.LIVE, q, 0] == queue_index.UNFILLED:
        queue_index.fill(index, q)
    for block in range(head // queue_index.BLOCK, (tail - 1) // queue_index.BLOCK + 1):
        _index_block(q, block, tail, jobs, queue, index)
    index[queue_index.LIVE, q, 0] = 1


@njit(cache=True, _nrt=False)
def _drop_index(q, head, tail, queue, sc, index):
    """Stop keeping queue row q's index and move the jobs of its positions ``[head, tail)`` to its
    front, holes closed (so the row's head counts only jobs started from it: :func:`compact_row`)."""
    for block in range(head // queue_index.BLOCK, (tail - 1) // queue_index.BLOCK + 1):
        queue_index.set_block(index, q, block, queue_index.EMPTY, queue_index.EMPTY)
    index[queue_index.LIVE, q, 0] = 0
    _to_front(q, head, tail, queue, sc)


@njit(cache=True, inline="always")
def _to_front(q, head, tail, queue, sc):
    """Queue row q's jobs of positions ``[head, tail)`` move to positions ``[0, waiting)`` in order,
    holes closed; returns ``waiting``."""
    write = 0
    for p in range(head, tail):
        if queue[q, p] != queue_index.HOLE:
            queue[q, write] = queue[q, p]
            write += 1
    sc[q, Q_HEAD] = 0
    sc[q, Q_TAIL] = write
    sc[q, Q_HOLES] = 0
    return write


@njit(cache=True, _nrt=False)
def indexed_pass(k, q, code, t, jobs, state, index):
    """One pass of site k's LRMS ``code`` (one with ``lrms.INDEXED``) over queue row q (its own queue,
    or the central pool), long enough to keep its index ``index`` (evogrid.sim.queue_index); the
    schedule of :func:`lrms_scan`.

    Jobs start in queue order while they fit (jobs wider than site k, and those
    :func:`passed_over`, are invisible to it); behind the blocked head the
    pass reads only blocks the index finds worth reading: a job that does
    not fit the free processors, or that the rule's ``may_start`` rules out,
    would be skipped by :func:`lrms_scan` too (the free count and ``extra``
    only shrink within a pass, and a skipped job leaves them as they are).
    Started jobs leave holes (``sc[q, Q_HOLES]`` counts them), so the
    positions and the index stay valid; once the queue is short again, it is
    compacted and the index dropped.
    A call, not inlined: it runs only on long queues, where a pass costs
    far more than a call, and one compiled copy serves every loop.
    """
    queue, sc, running, out = state.queue, state.sc, state.running, state.out
    m = sc[k, M_PROCS]
    tail = sc[q, Q_TAIL]
    free = sc[k, FREE]
    room, more = grid_room(k, jobs, sc, running)
    limited = room != NEVER
    p = sc[q, Q_HEAD]
    if not queue_index.kept(index, q):
        _build_index(q, p, tail, jobs, queue, index)
    head_need = 0  # the blocked head's processors, once it is found
    judged = False  # the head's reservation (T, extra) is known
    T = extra = np.int64(0)
    # One loop with one start (each inlined copy costs compile time).
    while p < tail and free > 0:
        job = queue[q, p]
        if job != queue_index.HOLE and not passed_over(k, job, jobs[PROCS, job], room, more, jobs):
            need = jobs[PROCS, job]
            start = False
            if head_need == 0:
                if need <= free:
                    start = True
                elif need <= m:
                    head_need = need
            elif need <= free:
                estimate = jobs[ESTIMATE, job]
                if not judged:
                    T, extra = shadow_time(k, head_need, sc, running, jobs)
                    judged = True
                if lrms.group_may_start(code, t, need, estimate, T, extra):
                    verdict, extra = lrms.behind_head(code, t, need, estimate, T, extra)
                    start = verdict == START
            if start:
                take_job(k, q, t, job, MIXED, code, jobs, sc, running, out)
                free -= need
                if limited:
                    room, more = took_grid_job(k, job, need, room, more, jobs)
                queue[q, p] = queue_index.HOLE
                sc[q, Q_HOLES] += 1
                _index_block(q, p // queue_index.BLOCK, tail, jobs, queue, index)
        p += 1
        if head_need > 0 and p % queue_index.BLOCK == 0:  # on to the next block worth reading
            block = queue_index.next_block(index, q, p // queue_index.BLOCK, free, judged, code, t, T,
                                           extra)
            p = tail if block < 0 else block * queue_index.BLOCK
    head = skip_holes(q, tail, queue, sc)
    if 4 * (tail - head) <= index[queue_index.SPAN_ON, q, 0]:
        _drop_index(q, head, tail, queue, sc, index)


@njit(cache=True, inline="always")
def skip_holes(q, tail, queue, sc):
    """Queue row q's head moves past the holes in front of it (:func:`indexed_pass`); returns it."""
    head = sc[q, Q_HEAD]
    while head < tail and queue[q, head] == queue_index.HOLE:
        head += 1
        sc[q, Q_HOLES] -= 1
    sc[q, Q_HEAD] = head
    return head


@njit(cache=True, _nrt=False)
def compact_row(q, jobs, state, index):
    """Queue row q's waiting jobs move to its front, positions ``[0, waiting)``, holes closed, its
    index (if kept) rebuilt over them; afterwards the row has a position for every job not waiting
    in it. For a kept row whose tail reached the last position (:func:`make_room`): under the
    active request a job may join rows many times, and the holes its moves leave, and those in
    front of the head, would otherwise use the row up. (A row without an index holds no holes,
    and its head counts only jobs started from its front since :func:`_drop_index` moved it to
    position 0: it cannot run out.)
    A call: it runs once per many enqueues."""
    queue, sc = state.queue, state.sc
    live = queue_index.kept(index, q)
    waiting = _to_front(q, sc[q, Q_HEAD], sc[q, Q_TAIL], queue, sc)
    if live:  # the whole tree anew: blocks before the old head may hold the bounds of jobs gone
        queue_index.fill(index, q)
        _build_index(q, 0, waiting, jobs, queue, index)


@njit(cache=True, inline="always")
def long_queue(k, q, code, state, index, mode):
    """Is queue row q one for site k's :func:`indexed_pass`: k's LRMS indexed (``lrms.INDEXED``) and
    the row's index kept or the row long enough to keep one (``SPAN_ON`` positions; a row that may
    not keep one has a span no queue reaches)?"""
    sc = state.sc
    return lrms.INDEXED[site_lrms(mode, code)] and (
        queue_index.kept(index, q) or sc[q, Q_TAIL] - sc[q, Q_HEAD] >= index[queue_index.SPAN_ON, q, 0])


def index_pass(indexed, k, code, t, jobs, state, index):
    """:func:`indexed_pass` in a loop compiled as the indexed one (``indexed``, a literal); the
    plain loop never types it (the overload below)."""


@overload(index_pass, prefer_literal=True)
def _index_pass(indexed, k, code, t, jobs, state, index):
    # Decided while numba types the loop, as backfill_behind_head: the plain
    # loop never compiles indexed_pass (3-4 s cold), so a run whose queues
    # stay short never pays for the index.
    if getattr(indexed, "literal_value", None) is False:
        def never(indexed, k, code, t, jobs, state, index):
            return None
        return never

    def call(indexed, k, code, t, jobs, state, index):
        indexed_pass(k, k, code, t, jobs, state, index)
    return call


@njit(cache=True, inline="always")
def complete_jobs(k, t, code, jobs, sc, running, mode):
    """Release every job of site k that ends at ``t``; returns how many."""
    released = 0
    while sc[k, N_HEAP] > 0 and running[HEAP_END, k, 0] == t:
        job = _heap_pop(running, k, sc[k, N_HEAP])
        sc[k, N_HEAP] -= 1
        sc[k, FREE] += jobs[PROCS, ix(job)]
        if keeps_run_list(mode, code):
            # its estimated end as start_job listed it: t is its start plus its run time
            _run_remove(running, k, sc[k, N_RUN], t - jobs[RUN_TIME, ix(job)] + jobs[ESTIMATE, ix(job)], job)
            sc[k, N_RUN] -= 1
        released += 1
    return released


@njit(cache=True, inline="always")
def enqueue(q, job, jobs, queue, sc):
    """Append ``job`` to queue row ``q``."""
    queue[q, ix(sc[q, Q_TAIL])] = job
    sc[q, Q_TAIL] += 1
    sc[q, W_PROCS] += jobs[PROCS, ix(job)]


@njit(cache=True, inline="always")
def enqueue_by_key(q, job, key, jobs, queue, sc):
    """Insert ``job`` into queue row ``q`` behind every waiting job whose ``key`` (per job) is not
    larger: ascending keys, ties in arrival order."""
    head = sc[q, Q_HEAD]
    pos = sc[q, Q_TAIL]
    while pos > head and key[queue[q, pos - 1]] > key[job]:
        queue[q, pos] = queue[q, pos - 1]
        pos -= 1
    queue[q, pos] = job
    sc[q, Q_TAIL] += 1
    sc[q, W_PROCS] += jobs[PROCS, job]


@njit(cache=True, inline="always")
def enqueue_at_site(k, job, code, jobs, queue, sc, mode):
    """Site k's own queue takes ``job`` in its LRMS's order (``code``; evogrid.sim.lrms)."""
    if lrms.SJF_ORDER[site_lrms(mode, code)]:
        enqueue_by_key(k, job, jobs[ESTIMATE], jobs, queue, sc)
    else:
        enqueue(k, job, jobs, queue, sc)


@njit(cache=True, inline="always")
def enqueue_own(k, job, code, jobs, state, index, mode):
    """Site k's own queue takes ``job`` (:func:`enqueue_at_site`), and its queue index if its LRMS
    keeps one (:func:`indexed_pass`). Where jobs move between queues (the active request), the
    caller makes room first (:func:`make_room`)."""
    enqueue_at_site(k, job, code, jobs, state.queue, state.sc, mode)
    if lrms.INDEXED[site_lrms(mode, code)] and queue_index.kept(index, k):
        queue_index.add_job(index, k, state.sc[k, Q_TAIL] - 1, jobs[PROCS, job], jobs[ESTIMATE, job])


@njit(cache=True, inline="always")
def make_room(k, jobs, state, index):
    """Site k's queue row has a position for one more job: a kept row used up to its last position
    is compacted (:func:`compact_row`). Only where jobs move between queues (the active request):
    elsewhere a row cannot run out, and the check stays out of the arrival path of every other
    loop (in the single-site loop it cost EASY a few per cent)."""
    if queue_index.kept(index, k) and state.sc[k, Q_TAIL] == state.queue.shape[1]:
        compact_row(k, jobs, state, index)


@njit(cache=True, inline="always")
def enqueue_pool(q, job, jobs, state, index):
    """The central pool (queue row q) takes ``job`` at its tail, and its queue index if kept
    (:func:`indexed_pass`)."""
    enqueue(q, job, jobs, state.queue, state.sc)
    if queue_index.kept(index, q):
        queue_index.add_job(index, q, state.sc[q, Q_TAIL] - 1, jobs[PROCS, job], jobs[ESTIMATE, job])


def new_state(jobs: np.ndarray, machine_procs: np.ndarray, codes: np.ndarray, n_queues: int,
              n_requests: int) -> State:
    """The :class:`State` of K sites of the given sizes (processors) and LRMS codes, all empty, that
    may hold up to ``n_requests`` reservations' parts each.

    ``n_queues >= K`` queue rows: row k is site k's; a central pool uses row K.
    ``out`` starts with every job unstarted at its home site. ``profile`` is
    the scratch space of an availability profile (evogrid.sim.profile), with
    room for every running and waiting job if some site's LRMS uses one, and
    for the held reservations (``N_PROFILE_ROWS``) if there are requests.
    Plain numpy: the loops take their state from Python (evogrid.sim.grid.grid_setup).
    """
    n = jobs.shape[1]
    K = machine_procs.shape[0]
    sc = np.zeros((n_queues, N_SCALARS), dtype=np.int64)
    sc[:, GRID_SLOTS] = NEVER
    sc[:, GRID_MAXJOBS] = NEVER
    sc[:K, FREE] = machine_procs
    sc[:K, M_PROCS] = machine_procs
    widest = max(1, int(machine_procs.max()))
    queue = np.empty((n_queues, max(1, n)), dtype=np.int64)
    running = np.empty((4, K, max(1, min(n, widest))), dtype=np.int64)
    out = np.empty((N_OUT_FIELDS, n), dtype=np.int64)
    out[START_TIME] = -1
    out[SITE] = jobs[HOME]
    out[MOVES] = 0
    # A breakpoint per running job, per waiting job with a reservation, and the first:
    cap = widest + n + 2 if any(lrms.USES_PROFILE[c] for c in codes) else 1
    rows = 2
    if n_requests > 0:  # and two breakpoints per held reservation
        rows = N_PROFILE_ROWS
        cap = widest + n + 2 * n_requests + 4
    profile = np.empty((rows, cap), dtype=np.int64)
    held = np.empty((N_HELD_FIELDS, K, max(1, n_requests)), dtype=np.int64)
    return State(queue, sc, running, out, profile, held, np.zeros(K, dtype=np.int64))


@njit(cache=True, inline="always")
def next_completion(sc, running):
    """``(t, site)``: the earliest actual end time of a running job at any site and the
    lowest-numbered site where a job ends then (``(NEVER, -1)`` if nothing runs)."""
    tc = np.int64(NEVER)  # typed, not a literal (see evogrid.sim.grid)
    site = -1
    for k in range(running.shape[1]):
        if sc[k, N_HEAP] > 0 and running[HEAP_END, k, 0] < tc:
            tc = running[HEAP_END, k, 0]
            site = k
    return tc, site


@njit(cache=True, inline="always")
def next_completion_at(k, sc, running):
    """The earliest actual end time of a running job at site ``k`` (``NEVER`` if nothing runs there)."""
    return running[HEAP_END, k, 0] if sc[k, N_HEAP] > 0 else np.int64(NEVER)


def lrms_mode(codes: np.ndarray) -> int:
    """The compilation mode for per-site LRMS codes: the common code (one site, or an LRMS not in
    :func:`evogrid.sim.lrms.mixed_loop_codes`), or MIXED. Every run reads the variable, so a bad
    name is an error whatever the grid."""
    mixed = lrms.mixed_loop_codes()
    first = int(codes[0])
    same = bool((codes == first).all())
    return first if same and (codes.shape[0] == 1 or first not in mixed) else MIXED


def pack_jobs(submit, run_time, estimate, procs, home) -> np.ndarray:
    """The ``jobs`` array (module docstring) from its rows, each of shape (n,)."""
    return np.ascontiguousarray(np.stack([submit, run_time, estimate, procs, home]).astype(np.int64))


#: The AWRT cutoff is checked at arrival numbers FIRST_CUTOFF_CHECK * 2^k:
#: each check costs O(n), so all checks together cost O(n log n).
FIRST_CUTOFF_CHECK = 1024


@njit(cache=True, inline="always")
def cutoff_check_due(i):
    """Is arrival number ``i`` one where the AWRT cutoff is checked?"""
    return i >= FIRST_CUTOFF_CHECK and (i & (i - 1)) == 0


@njit(cache=True, _nrt=False)
def awrt_lower_bounds(t, n_arrived, jobs, out, group, bounds):
    """Lower bounds (s) on each group's AWRT, from a simulation stopped at time ``t``.

    A started job's response time is known (start + p - r); a waiting one's
    is at least ``t + p - r``; one not yet submitted needs at least p. Groups
    are the sites jobs were submitted at. ``bounds``: float64, shape
    (2, n_groups); the bounds go to ``bounds[0]`` (``bounds[1]`` is scratch).
    """
    for g in range(bounds.shape[1]):
        bounds[0, g] = 0.0
        bounds[1, g] = 0.0
    for j in range(jobs.shape[1]):
        p = jobs[RUN_TIME, j]
        area = float(p) * jobs[PROCS, j]
        g = group[j]
        bounds[1, g] += area
        if out[START_TIME, j] >= 0:
            bounds[0, g] += area * (out[START_TIME, j] + p - jobs[SUBMIT, j])
        elif j < n_arrived:
            bounds[0, g] += area * (t + p - jobs[SUBMIT, j])
        else:
            bounds[0, g] += area * p
    for g in range(bounds.shape[1]):
        bounds[0, g] = bounds[0, g] / bounds[1, g] if bounds[1, g] > 0 else 0.0


@njit(cache=True, inline="always")
def _any_positive(values):
    for v in values:  # noqa: SIM110 (a plain loop compiles without allocation)
        if v > 0.0:
            return True
    return False


@njit(cache=True, _nrt=False)
def over_cutoff(t, n_arrived, jobs, out, group, cutoff, bounds):
    """Does some group's AWRT lower bound (:func:`awrt_lower_bounds`) exceed its cutoff (0: none)?

    A call, not inlined: it runs at a few arrivals only, and one compiled copy
    serves every event loop.
    """
    if not _any_positive(cutoff):
        return False
    awrt_lower_bounds(t, n_arrived, jobs, out, group, bounds)
    for g in range(cutoff.shape[0]):  # noqa: SIM110 (a plain loop compiles without allocation)
        if cutoff[g] > 0.0 and bounds[0, g] > cutoff[g]:
            return True
    return False


@njit(cache=True, inline="always")
def stopped_at_cutoff(i, t, jobs, out, group, cutoff, bounds):
    """At arrival ``i`` (time ``t``): is a check due and some group's AWRT bound over its cutoff?"""
    return cutoff_check_due(i) and over_cutoff(t, i, jobs, out, group, cutoff, bounds)


def cached_entry(entry, name: str):
    """``njit(cache=True)`` for a closure, under its own cache file name.

    Calling a ``numba.literally`` function from Python re-types it on every
    call; a small jitted closure per mode, passing the mode as a constant,
    does not. But numba names cache files after the qualified name, so
    closures of one factory would share files, and two processes compiling
    different closures at once could overwrite each other's code (seen as
    "'descr' is NULL" errors under pytest-xdist). A distinct name per
    closure keeps their files apart.
    """
    entry.__qualname__ = name
    return njit(cache=True)(entry)


def mode_name(mode: int) -> str:
    """A compilation mode as cache files name it."""
    if mode >= LIMITED + MIXED:
        return f"{mode_name(mode - LIMITED)}_limited"
    if mode >= RESERVING + MIXED:
        return f"{mode_name(mode - RESERVING)}_reserving"
    return "mixed" if mode == MIXED else f"mode{mode}"


def run_local(jobs: np.ndarray, machine_procs: np.ndarray, codes: np.ndarray,
              group: np.ndarray | None = None, cutoff: float = 0.0,
              index_span: int = queue_index.SPAN) -> tuple[np.ndarray, np.ndarray]:
    """``(start, bounds)`` of K sites without exchange, on packed arrays: :func:`evogrid.sim.grid.run_local`
    (the one event loop builds on this module, so it is imported when first called)."""
    from evogrid.sim import grid

    return grid.run_local(jobs, machine_procs, codes, group, cutoff, index_span)
