"""The compiled grid loop: K sites that exchange jobs (docs/grid.md).

Three schemes share the LRMS code of :mod:`evogrid.sim.core`:

- ``EXCHANGE``: decentralised, information-restricted. At submission the
  origin's transfer policy keeps the job or tries to delegate it; its
  location policy orders the partners; the first partner whose transfer
  policy accepts gets it; else it stays home. One negotiation per job.
- ``POOL``: central job pool (FCFS-JS, EASY-JS, LIST-JS). A site schedules
  the pool with its LRMS, seeing only pool jobs that fit its machine. How a
  new job enters (``pool_arrivals``): ``A_FIRST`` (the literal rule) tries
  it on its site's own queue first, so it starts at once if it fits, and
  only a job that cannot start goes to the pool (then the site schedules
  the pool); ``A_QUEUED`` appends it to the pool behind the older jobs and
  its site schedules the pool, so under EASY it starts at once only if it
  does not delay the reservation of the oldest pool job the site can run.
- ``ACTIVE``: active request with EASY. After every scheduling pass a site
  with free processors takes waiting jobs from the other sites' queues that
  it can start now without delaying its own head's reservation.

Transfer policies per site: ``T_LOCAL`` (keep own jobs, decline offers),
``T_AWF`` (accept iff the job fits the free processors now), and
``T_RULEBASE`` (a TSK rulebase from a :class:`~evogrid.sim.tsk.TSKStack`,
chosen per partner by ``rulebase_of[site, partner]``).
Location policies: ``L_FIXED`` (partner index order), ``L_RANDOM`` (a seeded
shuffle per job), ``L_AWRT`` (partners never tried first in index order,
then by the lowest AWRT of the jobs delegated to them that have completed).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit

from evogrid.sim.core import (
    EASY,
    FCFS,
    FREE,
    LIST,
    MODES,
    N_HEAP,
    N_RUN,
    NEVER,
    Q_HEAD,
    Q_TAIL,
    W_PROCS,
    awrt_lower_bounds,
    cached_entry,
    complete_jobs,
    cutoff_check_due,
    enqueue,
    exceeds_cutoff,
    new_state,
    next_completion,
    schedule_site,
    shadow_time,
    start_job,
)
from evogrid.sim.features import feature_value
from evogrid.sim.tsk import META_CODES, META_FEATURES, rulebase_output

EXCHANGE, POOL, ACTIVE = 0, 1, 2
SCHEMES: dict[str, int] = {"exchange": EXCHANGE, "pool": POOL, "active": ACTIVE}
T_LOCAL, T_AWF, T_RULEBASE = 0, 1, 2
TRANSFER_CODES: dict[str, int] = {"local": T_LOCAL, "awf": T_AWF, "rulebase": T_RULEBASE}
L_FIXED, L_RANDOM, L_AWRT = 0, 1, 2
LOCATION_CODES: dict[str, int] = {"fixed": L_FIXED, "random": L_RANDOM, "awrt": L_AWRT}
A_FIRST, A_QUEUED = 0, 1
POOL_ARRIVAL_CODES: dict[str, int] = {"first": A_FIRST, "queued": A_QUEUED}


@njit(cache=True, inline="always")
def _accepts(
    s, job, origin, partner, transfer, rulebase_of, rb_params, rb_meta, x, scratch, sc, procs, estimate,
    machine_procs, log_ids, log_vals, n_log,
):
    """Does site ``s``'s transfer policy take ``job`` (submitted at ``origin``) now?

    ``local`` keeps own jobs and declines offers; ``awf`` accepts iff the job
    fits the free processors; a rulebase accepts iff y > 0, with ``partner``
    selecting the rulebase (the offering site for a foreign job, the first
    partner in location order for an own job). Rulebase decisions are
    appended to the log arrays while they have room (recording on).
    """
    if transfer[s] == T_LOCAL:
        return s == origin
    if transfer[s] == T_AWF:
        return procs[job] <= sc[s, FREE]
    r = rulebase_of[s, partner]
    nf = rb_meta[r, META_FEATURES]
    for h in range(nf):
        x[h] = feature_value(rb_meta[r, META_CODES + h], s, job, sc, procs, estimate, machine_procs)
    y = rulebase_output(rb_params, rb_meta, r, x, scratch)
    if n_log[0] < log_ids.shape[0]:
        i = n_log[0]
        log_ids[i, 0] = s
        log_ids[i, 1] = partner
        for h in range(nf):
            log_vals[i, h] = x[h]
        log_vals[i, log_vals.shape[1] - 1] = y
        n_log[0] += 1
    return y > 0.0


@njit(cache=True, inline="always")
def _location_order(k, need, location, machine_procs, order, deleg_num, deleg_den):
    """Fill ``order`` with k's partners to ask for a job of ``need`` processors; returns the count."""
    K = machine_procs.shape[0]
    n = 0
    for l in range(K):
        if l != k and machine_procs[l] >= need:
            order[n] = l
            n += 1
    if location == L_RANDOM:
        for i in range(n - 1, 0, -1):
            j = np.random.randint(0, i + 1)
            order[i], order[j] = order[j], order[i]
    elif location == L_AWRT:
        # Stable insertion sort by key: untried partners (key -1) first.
        for i in range(1, n):
            cur = order[i]
            key = deleg_num[k, cur] / deleg_den[k, cur] if deleg_den[k, cur] > 0 else -1.0
            j = i - 1
            while j >= 0:
                o = order[j]
                ko = deleg_num[k, o] / deleg_den[k, o] if deleg_den[k, o] > 0 else -1.0
                if ko <= key:
                    break
                order[j + 1] = o
                j -= 1
            order[j + 1] = cur
    return n


@njit(cache=True, inline="always")
def _record_delegated_ends(t, sc, heap_end, heap_job, site, origin, submit, run_time, procs, deleg_num,
                           deleg_den):
    """Add the delegated jobs ending at ``t`` to their origin's per-partner AWRT sums."""
    for s in range(heap_end.shape[0]):  # sites only: sc may hold a pool row
        for i in range(sc[s, N_HEAP]):
            job = heap_job[s, i]
            if heap_end[s, i] == t and origin[job] != s:
                area = float(run_time[job]) * procs[job]
                deleg_num[origin[job], s] += area * (t - submit[job])
                deleg_den[origin[job], s] += area


@njit(cache=True, _nrt=False)
def schedule_pool(
    k, mode, lrms, t, P, queue, sc, run_est_end, run_job, heap_end, heap_job, procs, run_time,
    estimate, start, machine_procs, origin, site, moves,
):
    """Site k applies its LRMS to the pool (queue row P), seeing jobs with m_j <= m_k only.

    Same rules as
    :func:`evogrid.sim.core.schedule_site`, in one compacting scan: the
    first visible job that does not fit is the head; FCFS stops there, EASY
    backfills behind its reservation, LIST starts whatever fits.
    """
    m = machine_procs[k]
    tail = sc[P, Q_TAIL]
    read = sc[P, Q_HEAD]
    write = read
    blocked = -1
    T = NEVER
    extra = 0
    while read < tail and sc[k, FREE] > 0:
        job = queue[P, read]
        need = procs[job]
        go = False
        if need <= m:
            if blocked < 0:
                if need <= sc[k, FREE]:
                    go = True
                else:
                    blocked = job
                    if lrms == FCFS:
                        break
                    if lrms == EASY:
                        T, extra = shadow_time(
                            k, need, sc[k, FREE], run_est_end, run_job, sc[k, N_RUN], procs
                        )
            elif need <= sc[k, FREE]:
                if lrms == LIST or t + estimate[job] <= T:
                    go = True
                elif need <= extra:
                    extra -= need
                    go = True
        read += 1
        if go:
            sc[P, W_PROCS] -= need
            site[job] = k
            moves[job] = 1 if k != origin[job] else 0
            start_job(
                k, t, job, mode, lrms, sc, run_est_end, run_job, heap_end, heap_job, procs,
                run_time, estimate, start,
            )
        else:
            queue[P, write] = job
            write += 1
    while read < tail:
        queue[P, write] = queue[P, read]
        write += 1
        read += 1
    sc[P, Q_TAIL] = write


@njit(cache=True, _nrt=False)
def active_request(
    k, mode, t, queue, sc, run_est_end, run_job, heap_end, heap_job, procs, run_time, estimate,
    start, site, moves, lrms,
):
    """Site k takes waiting jobs from the other sites' queues (AA, docs/grid.md).

    A job qualifies if it fits k's free processors now and does not delay
    k's head: it ends (by its estimate) before the head's shadow time, or
    uses only the processors spare at that time. With an empty queue there
    is no head to delay: any job that fits qualifies. Taken jobs start at
    once (they pass exactly the test EASY's own pass would apply to them).
    A site that lost its head gets a scheduling pass of its own.
    """
    if sc[k, FREE] == 0:
        return
    T = NEVER
    extra = 0
    if sc[k, Q_HEAD] < sc[k, Q_TAIL]:
        T, extra = shadow_time(
            k, procs[queue[k, sc[k, Q_HEAD]]], sc[k, FREE], run_est_end, run_job, sc[k, N_RUN], procs
        )
    for l in range(heap_end.shape[0]):  # sites only: sc may hold a pool row
        if l == k or sc[k, FREE] == 0:
            continue
        head = sc[l, Q_HEAD]
        tail = sc[l, Q_TAIL]
        write = head
        lost_head = False
        for read in range(head, tail):
            job = queue[l, read]
            need = procs[job]
            take = False
            if need <= sc[k, FREE]:
                if t + estimate[job] <= T:
                    take = True
                elif need <= extra:
                    extra -= need
                    take = True
            if take:
                lost_head = lost_head or read == head
                sc[l, W_PROCS] -= need
                site[job] = k
                moves[job] += 1
                start_job(
                    k, t, job, mode, EASY, sc, run_est_end, run_job, heap_end, heap_job, procs,
                    run_time, estimate, start,
                )
            else:
                queue[l, write] = job
                write += 1
        sc[l, Q_TAIL] = write
        if lost_head:
            schedule_site(
                l, mode, lrms[l], t, queue, sc, run_est_end, run_job, heap_end, heap_job, procs,
                run_time, estimate, start,
            )


@njit(cache=True)
def _simulate_grid(
    submit, run_time, procs, estimate, origin, machine_procs, lrms, scheme, pool_arrivals, transfer, location,
    seed, rulebase_of, rb_params, rb_meta, log_capacity, cutoff, mode,
):
    """Simulate K sites with job exchange.

    Args:
        submit, run_time, procs, estimate, origin: int64, shape (n,), in
            arrival order; seconds, processors, site index.
        machine_procs, lrms: int64, shape (K,).
        scheme: EXCHANGE, POOL or ACTIVE.
        pool_arrivals: A_FIRST or A_QUEUED, how a new job enters (POOL).
        transfer: int64, shape (K,), transfer policy code per site (EXCHANGE).
        location: location policy code (EXCHANGE); seed: for L_RANDOM.
        rulebase_of: int64, shape (K, K), rulebase index site k uses with
            partner l (T_RULEBASE sites only).
        rb_params, rb_meta: a :class:`~evogrid.sim.tsk.TSKStack`'s arrays.
        log_capacity: how many rulebase decisions to record (0: none).
        cutoff: float64, shape (K,): stop early once a lower bound on site
            k's AWRT exceeds ``cutoff[k]`` (seconds; 0: no limit for k), as in
            evogrid.sim.core._simulate_local.
        mode: LRMS compilation mode (a literal).

    Returns:
        ``(start, site, moves, log_site, log_partner, log_x, log_y, bounds)``:
        start time (s), executing site and number of moves per job; the
        first rulebase decisions (deciding site, partner, features, output
        y); the AWRT lower bounds if the run stopped early, else empty.
    """
    numba.literally(mode)
    n = submit.shape[0]
    K = machine_procs.shape[0]
    state = new_state(n, machine_procs, K + 1)
    start = np.full(n, -1, dtype=np.int64)
    site = origin.copy()
    moves = np.zeros(n, dtype=np.int64)
    NF = (rb_params.shape[2] - 1) // 2
    log_ids = np.empty((log_capacity, 2), dtype=np.int64)  # deciding site, partner
    log_vals = np.zeros((log_capacity, NF + 1))  # features, then y
    n_log = np.zeros(1, dtype=np.int64)
    bounds = np.zeros((2, K))
    stopped = _grid_loop(
        submit, run_time, procs, estimate, origin, machine_procs, lrms, scheme, pool_arrivals, transfer,
        location, seed,
        rulebase_of, rb_params, rb_meta, cutoff, cutoff.max() > 0.0, *state, start, site, moves,
        np.empty(K, dtype=np.int64), np.zeros(K, dtype=np.bool_), np.zeros((2, K, K)),
        np.zeros(max(1, NF)), np.empty(rb_params.shape[1]), log_ids, log_vals, n_log, bounds, mode,
    )
    m = n_log[0]
    return (start, site, moves, log_ids[:m, 0], log_ids[:m, 1], log_vals[:m, :NF], log_vals[:m, NF],
            bounds[0].copy() if stopped else np.empty(0))


@njit(cache=True, _nrt=False)
def _grid_loop(
    submit, run_time, procs, estimate, origin, machine_procs, lrms, scheme, pool_arrivals, transfer, location,
    seed,
    rulebase_of, rb_params, rb_meta, cutoff, cutting, queue, sc, run_est_end, run_job, heap_end, heap_job,
    start, site, moves, order, freed, delegated, x, scratch, log_ids, log_vals, n_log, bounds, mode,
):
    """The event loop of :func:`_simulate_grid` over preallocated state; True if it stopped early.

    Compiled without numba's runtime, as :func:`evogrid.sim.core._local_loop`:
    no reference counting here. ``delegated[0]`` / ``delegated[1]`` are the
    AWRT location policy's per-(origin, partner) sums of area x response
    time and of area; ``x`` and ``scratch`` hold one decision's features and
    rule exponents.
    """
    n = submit.shape[0]
    K = machine_procs.shape[0]
    P = K  # the pool's queue row
    deleg_num = delegated[0]
    deleg_den = delegated[1]
    np.random.seed(seed)
    # Typed constants, not literals: a literal flowing into a call makes
    # numba compile the callee once more for the literal's type.
    never = np.int64(NEVER)
    i = np.int64(0)
    while True:
        tc = next_completion(sc, heap_end)
        ta = submit[i] if i < n else never
        if tc == never and ta == never:
            return False
        if tc <= ta:
            # With one partner every order is the same: no AWRT bookkeeping needed.
            if scheme == EXCHANGE and location == L_AWRT and K > 2:
                _record_delegated_ends(
                    tc, sc, heap_end, heap_job, site, origin, submit, run_time, procs, deleg_num,
                    deleg_den,
                )
            # All completions at every site first, then the sites' passes in
            # index order: with a pool or active requests, a pass at one site
            # may take jobs another site could now start.
            for k in range(K):
                freed[k] = complete_jobs(
                    k, mode, lrms[k], tc, sc, run_est_end, run_job, heap_end, heap_job, procs
                ) > 0
            for k in range(K):
                if freed[k]:
                    schedule_site(
                        k, mode, lrms[k], tc, queue, sc, run_est_end, run_job, heap_end, heap_job,
                        procs, run_time, estimate, start,
                    )
                    if scheme == POOL:
                        schedule_pool(
                            k, mode, lrms[k], tc, P, queue, sc, run_est_end, run_job, heap_end,
                            heap_job, procs, run_time, estimate, start, machine_procs, origin, site,
                            moves,
                        )
                    elif scheme == ACTIVE:
                        active_request(
                            k, mode, tc, queue, sc, run_est_end, run_job, heap_end, heap_job,
                            procs, run_time, estimate, start, site, moves, lrms,
                        )
            continue
        if cutting and cutoff_check_due(i):
            awrt_lower_bounds(ta, i, start, submit, run_time, procs, origin, bounds)
            if exceeds_cutoff(bounds[0], cutoff):
                return True
        job = i
        i += 1
        k = origin[job]
        target = k
        if scheme == EXCHANGE:
            n_part = _location_order(
                k, procs[job], location, machine_procs, order, deleg_num, deleg_den
            )
            # The origin's own policy decides keep or delegate; then each partner in order.
            keep = n_part == 0 or _accepts(
                k, job, k, order[0], transfer, rulebase_of, rb_params, rb_meta, x, scratch, sc, procs,
                estimate, machine_procs, log_ids, log_vals, n_log,
            )
            if not keep:
                for o in range(n_part):
                    l = order[o]
                    if _accepts(
                        l, job, k, k, transfer, rulebase_of, rb_params, rb_meta, x, scratch, sc, procs,
                        estimate, machine_procs, log_ids, log_vals, n_log,
                    ):
                        target = l
                        break
        # A pool job enters the pool either at once (queued: behind the older
        # pool jobs, so the site's pass over the pool starts it only where its
        # LRMS would) or after failing to start at home (first).
        to_pool = scheme == POOL and pool_arrivals == A_QUEUED
        if not to_pool:
            if target != k:
                site[job] = target
                moves[job] = 1
            enqueue(target, job, queue, sc, procs)
            schedule_site(
                target, mode, lrms[target], ta, queue, sc, run_est_end, run_job, heap_end, heap_job,
                procs, run_time, estimate, start,
            )
            if scheme == POOL and start[job] < 0:
                sc[k, Q_TAIL] -= 1  # leave the (otherwise empty) local queue
                sc[k, W_PROCS] -= procs[job]
                to_pool = True
        if to_pool:
            enqueue(P, job, queue, sc, procs)
            schedule_pool(
                k, mode, lrms[k], ta, P, queue, sc, run_est_end, run_job, heap_end, heap_job,
                procs, run_time, estimate, start, machine_procs, origin, site, moves,
            )
        elif scheme == ACTIVE:
            active_request(
                k, mode, ta, queue, sc, run_est_end, run_job, heap_end, heap_job, procs,
                run_time, estimate, start, site, moves, lrms,
            )


def _grid_entry(mode):
    def entry(submit, run_time, procs, estimate, origin, machine_procs, lrms, scheme, pool_arrivals, transfer,
              location, seed, rulebase_of, rb_params, rb_meta, log_capacity, cutoff):
        return _simulate_grid(
            submit, run_time, procs, estimate, origin, machine_procs, lrms, scheme, pool_arrivals, transfer,
            location, seed, rulebase_of, rb_params, rb_meta, log_capacity, cutoff, mode,
        )

    return cached_entry(entry, f"simulate_grid_mode{mode}")


_GRID = {mode: _grid_entry(mode) for mode in MODES}


def simulate_grid(mode: int, *arrays):
    """Run :func:`_simulate_grid` compiled for ``mode`` (arguments as there, without ``mode``)."""
    return _GRID[mode](*arrays)
