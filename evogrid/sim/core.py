"""The compiled simulator core (numba, ``cache=True``).

Everything here works on plain int64 numpy arrays (structure of arrays). A
grid of K sites keeps its state in 2-D arrays with one row per site, and the
local scheduler (:func:`schedule_site`) is a function over one site's rows,
so the event loop can route each arrival to any site.

Speed notes: each entry point allocates the state and hands it to an event
loop compiled without numba's runtime (``_nrt=False``), so no array in the
loop is reference-counted: every count is an atomic instruction, and the
counts left by inlined helpers took about two thirds of the loop's time
(measured with ``perf``, docs/benchmarks.md). Helpers take the site index
``k`` and the whole 2-D arrays instead of row views, and are inlined. Entry
points take a ``mode`` (the LRMS of every site, or ``MIXED``) that numba
compiles as a literal (``numba.literally``), so EASY-only work is compiled
out for FCFS and LIST.

Per-site state (row k):

- ``queue[k, head:tail]``: waiting jobs in arrival order;
- ``sc[k]``: the scalars ``Q_HEAD, Q_TAIL, FREE, N_RUN, N_HEAP, W_PROCS``
  (``W_PROCS``: processors requested by the waiting jobs, for NWP);
- ``run_est_end[k, :n_run]`` / ``run_job``: running jobs sorted by their
  *estimated* end (start + estimate), for EASY's shadow time (kept for
  EASY sites only: it costs a shift per start and per end);
- ``heap_end[k, :n_heap]`` / ``heap_job``: a binary min-heap of running jobs
  by their *actual* end, for the next completion.

Event order at one instant (docs/model.md, Local scheduling): all completions at every site
first (one scheduling pass per site that freed processors), then arrivals
one by one in array order, each enqueued and its site scheduled before the
next. Callers sort arrivals by (submit, origin site, position in its log).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit

#: LRMS codes.
FCFS, EASY, LIST = 0, 1, 2
LRMS_CODES: dict[str, int] = {"fcfs": FCFS, "easy": EASY, "list": LIST}
#: Compilation mode for grids whose sites run different LRMS.
MIXED = 3

# Columns of the per-site scalar state.
Q_HEAD, Q_TAIL, FREE, N_RUN, N_HEAP, W_PROCS = 0, 1, 2, 3, 4, 5
N_SCALARS = 6

NEVER = np.iinfo(np.int64).max


@njit(cache=True, inline="always")
def _heap_push(heap_end, heap_job, k, n, end, job):
    """Push (end, job) onto site k's heap of size n."""
    i = n
    while i > 0:
        parent = (i - 1) >> 1
        if heap_end[k, parent] <= end:
            break
        heap_end[k, i] = heap_end[k, parent]
        heap_job[k, i] = heap_job[k, parent]
        i = parent
    heap_end[k, i] = end
    heap_job[k, i] = job


@njit(cache=True, inline="always")
def _heap_pop(heap_end, heap_job, k, n):
    """Remove the root of site k's heap of size n > 0; returns its job."""
    job = heap_job[k, 0]
    n -= 1
    end = heap_end[k, n]
    last = heap_job[k, n]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= n:
            break
        if child + 1 < n and heap_end[k, child + 1] < heap_end[k, child]:
            child += 1
        if heap_end[k, child] >= end:
            break
        heap_end[k, i] = heap_end[k, child]
        heap_job[k, i] = heap_job[k, child]
        i = child
    if n > 0:
        heap_end[k, i] = end
        heap_job[k, i] = last
    return job


@njit(cache=True, inline="always")
def _run_insert(run_est_end, run_job, k, n_run, est_end, job):
    i = n_run
    while i > 0 and run_est_end[k, i - 1] > est_end:
        run_est_end[k, i] = run_est_end[k, i - 1]
        run_job[k, i] = run_job[k, i - 1]
        i -= 1
    run_est_end[k, i] = est_end
    run_job[k, i] = job


@njit(cache=True, inline="always")
def _run_remove(run_est_end, run_job, k, n_run, job):
    i = 0
    while run_job[k, i] != job:
        i += 1
    while i < n_run - 1:
        run_est_end[k, i] = run_est_end[k, i + 1]
        run_job[k, i] = run_job[k, i + 1]
        i += 1


@njit(cache=True, inline="always")
def start_job(
    k, t, job, mode, lrms, sc, run_est_end, run_job, heap_end, heap_job, procs, run_time,
    estimate, start,
):
    """Start ``job`` at time ``t`` on site ``k`` (whose LRMS is ``lrms``)."""
    start[job] = t
    sc[k, FREE] -= procs[job]
    if mode == EASY or mode == MIXED:
        if lrms == EASY:
            _run_insert(run_est_end, run_job, k, sc[k, N_RUN], t + estimate[job], job)
            sc[k, N_RUN] += 1
    _heap_push(heap_end, heap_job, k, sc[k, N_HEAP], t + run_time[job], job)
    sc[k, N_HEAP] += 1


@njit(cache=True, inline="always")
def shadow_time(k, need, free, run_est_end, run_job, n_run, procs):
    """EASY reservation for a head job needing ``need`` processors at site ``k``.

    Returns ``(T, extra)``: the earliest estimated end time at which ``need``
    processors are free once every job estimated to end at or before it has
    ended, and the processors left over then after the head's allocation.
    """
    avail = free
    i = 0
    while i < n_run:
        T = run_est_end[k, i]
        while i < n_run and run_est_end[k, i] == T:
            avail += procs[run_job[k, i]]
            i += 1
        if avail >= need:
            return T, avail - need
    return NEVER, 0  # only when need > machine size, which callers exclude


@njit(cache=True, inline="always")
def schedule_site(
    k, mode, lrms, t, queue, sc, run_est_end, run_job, heap_end, heap_job, procs, run_time, estimate,
    start,
):
    """One scheduling pass of site k's LRMS at time ``t`` (FCFS, EASY or LIST; docs/model.md)."""
    head = sc[k, Q_HEAD]
    tail = sc[k, Q_TAIL]
    while head < tail and procs[queue[k, head]] <= sc[k, FREE]:
        sc[k, W_PROCS] -= procs[queue[k, head]]
        start_job(
            k, t, queue[k, head], mode, lrms, sc, run_est_end, run_job, heap_end, heap_job,
            procs, run_time, estimate, start,
        )
        head += 1
    sc[k, Q_HEAD] = head
    if head == tail or lrms == FCFS or sc[k, FREE] == 0:
        return
    T = NEVER
    extra = 0
    shadow_known = lrms != EASY
    # Scan behind the blocked head, compacting the queue in place. For LIST
    # one scan equals "restart from the head after every start": a job that
    # did not fit before a start cannot fit after it.
    write = head + 1
    read = head + 1
    while read < tail and sc[k, FREE] > 0:
        job = queue[k, read]
        read += 1
        need = procs[job]
        go = False
        if need <= sc[k, FREE]:
            if not shadow_known:
                # Computed once per pass, and only when some job could use
                # the free processors (most blocked passes have none).
                T, extra = shadow_time(
                    k, procs[queue[k, head]], sc[k, FREE], run_est_end, run_job, sc[k, N_RUN],
                    procs,
                )
                shadow_known = True
            if lrms == LIST or t + estimate[job] <= T:
                go = True
            elif need <= extra:
                extra -= need
                go = True
        if go:
            sc[k, W_PROCS] -= need
            start_job(
                k, t, job, mode, lrms, sc, run_est_end, run_job, heap_end, heap_job,
                procs, run_time, estimate, start,
            )
        else:
            queue[k, write] = job
            write += 1
    if write == read:
        write = tail
    else:
        while read < tail:
            queue[k, write] = queue[k, read]
            write += 1
            read += 1
    sc[k, Q_TAIL] = write


@njit(cache=True, inline="always")
def complete_jobs(k, mode, lrms, t, sc, run_est_end, run_job, heap_end, heap_job, procs):
    """Release every job of site k that ends at ``t``; returns how many."""
    released = 0
    while sc[k, N_HEAP] > 0 and heap_end[k, 0] == t:
        job = _heap_pop(heap_end, heap_job, k, sc[k, N_HEAP])
        sc[k, N_HEAP] -= 1
        sc[k, FREE] += procs[job]
        if mode == EASY or mode == MIXED:
            if lrms == EASY:
                _run_remove(run_est_end, run_job, k, sc[k, N_RUN], job)
                sc[k, N_RUN] -= 1
        released += 1
    return released


@njit(cache=True, inline="always")
def enqueue(q, job, queue, sc, procs):
    """Append ``job`` to queue row ``q``."""
    queue[q, sc[q, Q_TAIL]] = job
    sc[q, Q_TAIL] += 1
    sc[q, W_PROCS] += procs[job]


@njit(cache=True)
def new_state(n_jobs, machine_procs, n_queues):
    """Empty state arrays for K sites with the given sizes (processors).

    ``n_queues >= K`` rows of queue and scalars: row k is site k's; a central
    pool uses row K.
    """
    K = machine_procs.shape[0]
    cap = max(1, min(n_jobs, machine_procs.max()))
    queue = np.empty((n_queues, max(1, n_jobs)), dtype=np.int64)
    sc = np.zeros((n_queues, N_SCALARS), dtype=np.int64)
    for k in range(K):
        sc[k, FREE] = machine_procs[k]
    run_est_end = np.empty((K, cap), dtype=np.int64)
    run_job = np.empty((K, cap), dtype=np.int64)
    heap_end = np.empty((K, cap), dtype=np.int64)
    heap_job = np.empty((K, cap), dtype=np.int64)
    return queue, sc, run_est_end, run_job, heap_end, heap_job


@njit(cache=True, inline="always")
def next_completion(sc, heap_end):
    """Earliest actual end time of a running job at any site (NEVER if none)."""
    tc = np.int64(NEVER)  # typed, not a literal (see evogrid.sim.grid)
    for k in range(heap_end.shape[0]):
        if sc[k, N_HEAP] > 0 and heap_end[k, 0] < tc:
            tc = heap_end[k, 0]
    return tc


def lrms_mode(lrms: np.ndarray) -> int:
    """The compilation mode for per-site LRMS codes: the common code, or MIXED."""
    first = int(lrms[0])
    return first if bool((lrms == first).all()) else MIXED


#: The AWRT cutoff is checked at arrival numbers FIRST_CUTOFF_CHECK * 2^k:
#: each check costs O(n), so all checks together cost O(n log n).
FIRST_CUTOFF_CHECK = 1024


@njit(cache=True, inline="always")
def cutoff_check_due(i):
    """Is arrival number ``i`` one where the AWRT cutoff is checked?"""
    return i >= FIRST_CUTOFF_CHECK and (i & (i - 1)) == 0


@njit(cache=True, _nrt=False)
def awrt_lower_bounds(t, n_arrived, start, submit, run_time, procs, group, out):
    """Lower bounds (s) on each group's AWRT, from a simulation stopped at time ``t``.

    A started job's response time is known (start + p - r); a waiting one's
    is at least ``t + p - r``; one not yet submitted needs at least p. Groups
    are the sites jobs were submitted at. ``out``: float64, shape
    (2, n_groups); the bounds go to ``out[0]`` (``out[1]`` is scratch).
    """
    out[:] = 0.0
    for j in range(submit.shape[0]):
        area = float(run_time[j]) * procs[j]
        g = group[j]
        out[1, g] += area
        if start[j] >= 0:
            out[0, g] += area * (start[j] + run_time[j] - submit[j])
        elif j < n_arrived:
            out[0, g] += area * (t + run_time[j] - submit[j])
        else:
            out[0, g] += area * run_time[j]
    for g in range(out.shape[1]):
        out[0, g] = out[0, g] / out[1, g] if out[1, g] > 0 else 0.0


@njit(cache=True, inline="always")
def exceeds_cutoff(bounds, cutoff):
    """Does some group's AWRT lower bound exceed its cutoff (cutoff 0: no limit)?"""
    for g in range(cutoff.shape[0]):  # noqa: SIM110 (a plain loop compiles without allocation)
        if cutoff[g] > 0.0 and bounds[g] > cutoff[g]:
            return True
    return False


@njit(cache=True)
def _simulate_local(submit, run_time, procs, estimate, origin, machine_procs, lrms, group, cutoff, mode):
    """Simulate K sites without exchange: every job runs at its ``origin`` row.

    Args:
        submit, run_time, procs, estimate, origin: int64, shape (n,), arrival
            order (sorted by submit, origin, position); seconds, processors,
            index of the site that runs the job.
        machine_procs, lrms: int64, shape (K,), processors and LRMS code per site.
        group, cutoff: the site each job was submitted at (shape (n,)) and
            AWRT limits in seconds, shape (K,): the run stops early once a
            lower bound on some group's AWRT exceeds its limit (0: none).
        mode: :func:`lrms_mode` of ``lrms`` (compiled as a literal).

    Returns:
        ``(start, bounds)``: start time (s) of each job; ``bounds`` is empty,
        or the groups' AWRT lower bounds if the run stopped early (then
        unstarted jobs have start -1).
    """
    numba.literally(mode)
    K = machine_procs.shape[0]
    queue, sc, run_est_end, run_job, heap_end, heap_job = new_state(submit.shape[0], machine_procs, K)
    start = np.full(submit.shape[0], -1, dtype=np.int64)
    bounds = np.zeros((2, K))
    stopped = _local_loop(
        submit, run_time, procs, estimate, origin, lrms, group, cutoff, cutoff.max() > 0.0, queue, sc,
        run_est_end, run_job, heap_end, heap_job, start, bounds, mode,
    )
    return start, bounds[0].copy() if stopped else np.empty(0)


@njit(cache=True, _nrt=False)
def _local_loop(
    submit, run_time, procs, estimate, origin, lrms, group, cutoff, cutting, queue, sc, run_est_end,
    run_job, heap_end, heap_job, start, bounds, mode,
):
    """The event loop of :func:`_simulate_local` over preallocated state; True if it stopped early.

    Compiled without numba's runtime (``_nrt=False``; see the speed notes above).
    """
    n = submit.shape[0]
    i = 0
    while True:
        tc = next_completion(sc, heap_end)
        ta = submit[i] if i < n else NEVER
        if tc == NEVER and ta == NEVER:
            return False
        if tc <= ta:
            for k in range(sc.shape[0]):
                if complete_jobs(
                    k, mode, lrms[k], tc, sc, run_est_end, run_job, heap_end, heap_job, procs
                ):
                    schedule_site(
                        k, mode, lrms[k], tc, queue, sc, run_est_end, run_job, heap_end, heap_job,
                        procs, run_time, estimate, start,
                    )
        else:
            if cutting and cutoff_check_due(i):
                awrt_lower_bounds(ta, i, start, submit, run_time, procs, group, bounds)
                if exceeds_cutoff(bounds[0], cutoff):
                    return True
            job = i
            i += 1
            k = origin[job]
            enqueue(k, job, queue, sc, procs)
            schedule_site(
                k, mode, lrms[k], ta, queue, sc, run_est_end, run_job, heap_end, heap_job,
                procs, run_time, estimate, start,
            )


#: Every compilation mode.
MODES = (FCFS, EASY, LIST, MIXED)


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


def _local_entry(mode):
    def entry(submit, run_time, procs, estimate, origin, machine_procs, lrms, group, cutoff):
        return _simulate_local(
            submit, run_time, procs, estimate, origin, machine_procs, lrms, group, cutoff, mode
        )

    return cached_entry(entry, f"simulate_local_mode{mode}")


_LOCAL = {mode: _local_entry(mode) for mode in MODES}


def simulate_local(submit, run_time, procs, estimate, origin, machine_procs, lrms, group=None, cutoff=0.0):
    """``(start, bounds)`` of K sites without exchange (see ``_simulate_local``).

    ``group`` defaults to ``origin``; ``cutoff`` 0 runs to the end.
    """
    entry = _LOCAL[lrms_mode(lrms)]
    limits = np.full(machine_procs.shape[0], float(cutoff))
    return entry(submit, run_time, procs, estimate, origin, machine_procs, lrms,
                 origin if group is None else group, limits)
