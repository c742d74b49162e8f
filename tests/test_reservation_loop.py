"""Advance reservations in the compiled loop against the pure-Python reference, and invariants."""

from dataclasses import replace

import numpy as np
import pytest
from draws import int_list
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from invariants import check_schedule
from reference_sim import Job, Request, Rules, simulate_reserved_reference
from test_core_vs_reference import workloads

from evogrid.errors import ScenarioError
from evogrid.policy.admission import admission_rules
from evogrid.policy.rulebase import Rulebase
from evogrid.sim.booking import (
    BACKFILL_BOUNDS,
    BACKLOG_RULES,
    LOAD_RULES,
    PROBE_SLOTS,
    STATUS_QUEUES,
    STEPS,
    VARIANT_ORDERS,
    ReservationRules,
    meltzer_tariffs,
    peak_tariffs,
    simulate_reservations,
)
from evogrid.sim.metrics import backlog_until, reservation_metrics, unfairness, utilization_until
from evogrid.sim.python_policy import AdmissionPolicy
from evogrid.sim.schedule import simulate_local
from evogrid.sim.sites import Sites
from evogrid.workload.model import Workload
from evogrid.workload.reservations import DEFAULT_PREFERENCES, PREFERENCES, Collective, Elastic, Reservations

LRMS = ["fcfs", "easy", "list", "conservative", "sjf", "easy-sjf"]  # every built-in LRMS
MELTZER = ["trivial", "cpu-count", "backlog", "backfill", "weighted"]
ADMISSION_FEATURES = ["NWP", "LEAD", "PART", "RESERVED", "BEFORE_NEXT"]


@st.composite
def requests(draw, machine_procs, max_requests=6, max_parts=1, fixed=True):
    """Random requests; ``fixed``: each booked at a random site (one part), else the grid chooses."""
    K, m = len(machine_procs), max(machine_procs)
    R = draw(st.integers(0, max_requests))
    width = 6 + 2 * max_parts  # bytes per request: one draw for all of them (tests/draws.py)
    values = draw(int_list(R * width, 0, 255))
    rows = []
    for r in range(R):
        b = values[r * width:(r + 1) * width]
        submit = b[0] % 41
        earliest = submit + b[1] % 31
        duration = 1 + b[2] % 20
        deadline = earliest + duration + b[3] % 31
        n_parts = 1 if fixed else 1 + b[4] % max_parts
        # Mostly parts every site can hold; one in eight m + 1 processors, which never fits.
        parts = [m + 1 if b[6 + 2 * p] % 8 == 7 else 1 + b[7 + 2 * p] % min(machine_procs)
                 for p in range(n_parts)] + [0] * (max_parts - n_parts)
        site = b[5] % K if fixed else -1
        rows.append((submit, earliest, deadline, duration, site, parts))
    rows.sort(key=lambda row: row[0])
    col = lambda i: np.array([r[i] for r in rows], dtype=np.int64)  # noqa: E731
    parts = np.array([r[5] for r in rows], dtype=np.int64).reshape(R, max_parts)
    return Reservations("random", col(0), col(1), col(2), col(3), parts, site=col(4))


def _price(tariff, cum):
    """One processor's price at site k over [a, b), as evogrid.sim.co_admission sums it."""
    def before(k, x):
        weeks, rest = divmod(x, 3600 * 168)
        h = rest // 3600
        return weeks * cum[k, 168] + cum[k, h] + (rest - h * 3600) / 3600.0 * tariff[k, h]
    return lambda k, a, b: before(k, b) - before(k, a)


def _reference(workloads, lrms, req, rules, bookings_order, rulebases=(), speed=(), admits=None):
    jobs = [Job(*row) for k, w in enumerate(workloads)
            for row in zip(w.submit.tolist(), w.run_time.tolist(), w.procs.tolist(), w.estimate.tolist(),
                           [k] * w.n_jobs, strict=True)]
    order = sorted(range(len(jobs)), key=lambda j: (jobs[j].submit, jobs[j].origin))
    jobs = [jobs[j] for j in order]
    reqs, ref_rules = reference_requests(workloads, req, rules, bookings_order, rulebases)
    ref_rules = replace(ref_rules, admits=admits)
    return simulate_reserved_reference(jobs, [w.machine_procs for w in workloads], [lrms] * len(workloads),
                                       reqs, ref_rules, speed)


def reference_requests(workloads, req, rules, bookings_order, rulebases=()):
    """``(requests, rules)`` as the reference simulator takes them (reference_sim.Request, Rules)."""
    parts = -np.sort(-req.parts, axis=1)
    def counts(r):  # processor count -> duration, as evogrid.sim.booking tabulates them
        if req.elastic is None:
            return {int(parts[r, 0]): int(req.duration[r])}
        e = req.elastic
        ns = np.arange(e.procs_min[r], e.procs_max[r] + 1)
        return dict(zip(ns.tolist(), e.duration(r, ns).tolist(), strict=True))

    c = req.collective
    reqs = [Request(int(req.submit[r]), int(req.earliest_start[r]), int(req.deadline[r]),
                    int(req.duration[r]), tuple(parts[r].tolist()), int(req.site[r]),
                    tuple(bookings_order[:, r].tolist()), counts(r),
                    (int(c.max_sites[r]), int(c.site_min[r]), int(c.total_min[r])) if c is not None else ())
            for r in range(req.n_requests)]
    _, acc, tariff, cum, _, _ = rules.arrays(workloads)
    if len(rulebases) == 1:
        rulebases = rulebases * len(workloads)
    admission = tuple((list(rb.features), [(c.tolist(), w.tolist(), float(b)) for c, w, b
                                           in zip(rb.centers, rb.widths, rb.consequents, strict=True)])
                      for rb in rulebases)
    ref_rules = Rules(rules.algorithm, rules.minsize, rules.windows, rules.cost_weight, rules.start_weight,
                      tuple(acc.tolist()), _price(tariff, cum), admission, rules.tsn_max, rules.tss_gap,
                      rules.estimate, rules.success_hours * 3600.0, rules.threshold,
                      req.elastic.preferences if req.elastic is not None else DEFAULT_PREFERENCES,
                      rules.swaps, rules.seed, rules.variant_order, rules.backlog_rule, rules.backfill_until,
                      rules.load_rule, rules.acc_running, rules.acc_waiting, rules.probe_slots,
                      rules.history_seconds, rules.step, status_queue=rules.status_queue)
    return reqs, ref_rules


def site_orders(K, R, seed):
    """The site orders evogrid.sim.booking draws for R requests."""
    rng = np.random.default_rng(seed)
    return np.stack([rng.permutation(K) for _ in range(R)], axis=1) if R else np.zeros((K, 0), np.int64)


def _check_capacity_with_reservations(schedule, req, bookings):
    """Accepted requests keep their window; no site ever runs more than it has, reserved
    processors included; a request's parts go to distinct sites."""
    w = schedule.jobs
    ok = bookings.accepted
    start = bookings.start
    assert (start[ok] >= req.earliest_start[ok]).all()
    assert (start[ok] + bookings.length[ok] <= req.deadline[ok]).all()
    parts, seconds = bookings.held(req)  # an elastic request holds its chosen count
    assert ((bookings.procs[:, 0] == -1) == ~ok).all() and ((bookings.length == -1) == ~ok).all()
    for r in np.flatnonzero(ok):
        placed = bookings.sites[r][bookings.sites[r] >= 0]
        assert len(set(placed.tolist())) == len(placed) == int((parts[r] > 0).sum())
    for k in range(w.n_sites):
        mine = schedule.ran_at(k)
        r_idx, i_idx = np.nonzero((bookings.sites == k) & ok[:, None])
        procs_r = parts[r_idx, i_idx]
        times = np.concatenate([schedule.start[mine], schedule.end[mine], start[r_idx],
                                start[r_idx] + seconds[r_idx]])
        procs = np.concatenate([w.procs[mine], -w.procs[mine], procs_r, -procs_r])
        order = np.lexsort((procs, times))  # releases first at equal times
        assert np.cumsum(procs[order]).max(initial=0) <= w.machine_procs[k], "reserved processors used twice"


def _run_against_reference(workloads, lrms, req, rules, rulebases=(), sites=None, admits=None):
    """``rulebases``: the Rulebase objects behind ``rules.rulebases`` (the rulebase algorithm);
    ``sites``: their speeds (evogrid.sim.sites.Sites; default all 1); ``admits``: the twin of
    ``rules.policy`` (the python algorithm)."""
    schedule, bookings = simulate_reservations(workloads, lrms, req, rules, sites=sites)
    check_schedule(schedule)
    _check_capacity_with_reservations(schedule, req, bookings)
    orders = site_orders(len(workloads), req.n_requests, rules.seed)
    speed = () if sites is None else tuple(sites.speeds(len(workloads)).tolist())
    start, booked = _reference(workloads, lrms, req, rules, orders, list(rulebases), speed, admits)
    assert schedule.start.tolist() == start
    check_bookings(bookings, booked, req, rules, len(workloads))
    return schedule, bookings


def check_bookings(bookings, booked, req, rules, K):
    """The compiled loop's bookings are the reference's ``booked`` (reference_sim.Desk)."""
    assert bookings.start.tolist() == [b[0] for b in booked]
    placed = [tuple(x for x in row if x >= 0) for row in bookings.sites.tolist()]
    assert placed == [tuple(b[1]) for b in booked]
    assert bookings.messages.tolist() == [b[2] for b in booked]
    cost = [np.nan if b[3] is None else b[3] for b in booked]
    if rules.algorithm != "first-fit":
        np.testing.assert_array_equal(bookings.cost, np.array(cost, dtype=float))
    if rules.algorithm in (*MELTZER, "rulebase", "python"):  # Meltzer's Filterungsgrad per request and site
        expected = np.full((req.n_requests, K), np.nan)
        for r, b in enumerate(booked):
            for k, degree in b[4].items():
                expected[r, k] = degree
        np.testing.assert_allclose(bookings.filtered, expected, rtol=1e-12)
        spans = [b[5] if b[0] >= 0 else (-1, -1) for b in booked]
        assert bookings.span.tolist() == [list(x) for x in spans]
    if rules.algorithm == "probe":  # Röblitz et al.'s funnel: probed, over the threshold, refused
        assert bookings.funnel.tolist() == [list(b[4]) for b in booked]


@pytest.mark.parametrize("lrms", LRMS)
def test_first_fit_equals_reference(lrms):
    @settings(max_examples=1000, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.data())
    def run(data):
        w = data.draw(workloads(max_jobs=20))
        req = data.draw(requests([w.machine_procs]))
        _run_against_reference([w], lrms, req, ReservationRules("first-fit"))

    run()


@st.composite
def grids(draw):
    """1-3 sites of random workloads and requests of 1 to K + 1 parts, or booked at one site."""
    K = draw(st.integers(1, 3))
    sites = [draw(workloads(max_jobs=12)) for _ in range(K)]
    fixed = K == 1 or draw(st.integers(0, 3)) == 0
    return sites, draw(requests([w.machine_procs for w in sites], max_parts=K + 1, fixed=fixed))


@pytest.mark.parametrize("algorithm", MELTZER)
def test_meltzer_algorithms_equal_reference(algorithm):
    """1,000 random grids of 1-3 sites per algorithm, requests of 1 to K + 1 parts or booked at one site,
    a random LRMS, candidate steps and tariffs, Meltzer's readings of the variant order, backlog and
    backfill bound or ours."""
    @settings(max_examples=1000, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.data())
    def run(data):
        sites, req = data.draw(grids())
        K = len(sites)
        prices = np.random.default_rng(data.draw(st.integers(0, 2**16)))
        tariffs = prices.choice([0.5, 1.0, 2.0, 3.0], size=(K, 168))
        rules = ReservationRules(algorithm, minsize=data.draw(st.integers(1, 8)),
                                 windows=data.draw(st.integers(1, 6)),
                                 cost_weight=data.draw(st.sampled_from([0.0, 0.5, 1.0])),
                                 start_weight=data.draw(st.sampled_from([0.0, 0.5, 1.0])),
                                 acc=tuple(data.draw(st.sampled_from([0.0, 0.5, 1.0])) for _ in range(K)),
                                 tariffs=tariffs, seed=data.draw(st.integers(0, 3)),
                                 variant_order=data.draw(st.sampled_from(list(VARIANT_ORDERS))),
                                 backlog_rule=data.draw(st.sampled_from(list(BACKLOG_RULES))),
                                 backfill_until=data.draw(st.sampled_from(list(BACKFILL_BOUNDS))),
                                 step=data.draw(st.sampled_from(list(STEPS))),
                                 status_queue=data.draw(st.sampled_from(list(STATUS_QUEUES))))
        lrms = data.draw(st.sampled_from(LRMS))
        _, booked = _run_against_reference(sites, lrms, req, rules)
        if rules.status_queue == "head":  # does counting the queue head change the bookings?
            _, without = simulate_reservations(sites, lrms, req, replace(rules, status_queue="none"))
            seen["head"] += 1
            seen["changed"] += int(not np.array_equal(booked.start, without.start))

    seen = {"head": 0, "changed": 0}
    run()
    assert seen["changed"] > 0.02 * seen["head"], seen


def test_admission_rulebases_equal_reference():
    """1,000 random grids as above, each site's part admitted by a random TSK rulebase over 1-3 random
    admission features (one rulebase for all sites, or one per site)."""
    @settings(max_examples=1000, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.data())
    def run(data):
        sites, req = data.draw(grids())
        K = len(sites)
        rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
        rulebases = [Rulebase.random(int(rng.integers(1, 6)),
                                     list(rng.choice(ADMISSION_FEATURES, rng.integers(1, 4), replace=False)),
                                     seed=rng)
                     for _ in range(1 if data.draw(st.booleans()) else K)]
        base = ReservationRules(minsize=data.draw(st.integers(1, 8)), windows=data.draw(st.integers(1, 6)),
                                acc=tuple(data.draw(st.sampled_from([0.0, 0.5, 1.0])) for _ in range(K)),
                                seed=data.draw(st.integers(0, 3)))
        lrms = data.draw(st.sampled_from(LRMS))
        _, ruled = _run_against_reference(sites, lrms, req, admission_rules(base, rulebases), rulebases)
        _, free = simulate_reservations(sites, lrms, req, replace(base, algorithm="cpu-count"))
        seen["accepted"] += int(ruled.accepted.sum())
        seen["declined"] += int((free.accepted & ~ruled.accepted).sum())

    seen = {"accepted": 0, "declined": 0}
    run()
    # the rulebases both admit requests and turn down ones that had room
    assert seen["accepted"] > 100 and seen["declined"] > 100, seen


@st.composite
def elastic_requests(draw, machine_procs, fixed=True):
    """One-part requests, each elastic or not (ranges around the part, Amdahl or Downey), with a
    random order of preferences; ``fixed``: each booked at a random site, else the grid chooses."""
    req = draw(requests(machine_procs, fixed=fixed))
    if req.n_requests == 0 or draw(st.booleans()):
        return req
    m = max(machine_procs)
    ref = req.parts[:, 0]
    low = np.array([draw(st.integers(1, max(1, int(p)))) for p in ref])
    high = np.array([draw(st.integers(int(p), m + 2)) for p in ref])
    model = np.array([draw(st.integers(0, 1)) for _ in ref])
    params = np.array([[draw(st.sampled_from([0.0, 0.1, 0.5])), 0.0] if mo == 0 else
                       [draw(st.sampled_from([1.0, 2.0, 5.0])), draw(st.sampled_from([0.0, 0.5, 2.0]))]
                       for mo in model])
    prefs = draw(st.permutations(list(PREFERENCES)))[: draw(st.integers(1, len(PREFERENCES)))]
    elastic = Elastic(low, high, ref.copy(), req.duration.copy(), model, params, tuple(prefs))
    return replace(req, elastic=elastic)


def test_probe_reserve_equals_reference():
    """1,000 random grids of 1-3 sites with random speeds: Röblitz et al.'s probe/reserve of plain
    and elastic requests, booked at one site or probed at every site (durations scaled by each
    site's speed), with random probe settings (start times spread or packed), estimates, thresholds,
    tariffs and LRMS."""
    @settings(max_examples=1000, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.data())
    def run(data):
        K = data.draw(st.integers(1, 3))
        sites = [data.draw(workloads(max_jobs=12 if K > 1 else 15)) for _ in range(K)]
        fixed = K == 1 or data.draw(st.booleans())
        req = data.draw(elastic_requests([w.machine_procs for w in sites], fixed=fixed))
        speeds = Sites(speed=tuple(data.draw(st.sampled_from([0.5, 1.0, 1.5, 2.0, 4.0])) for _ in range(K)))
        prices = np.random.default_rng(data.draw(st.integers(0, 2**16)))
        acc = tuple(data.draw(st.sampled_from([0.0, 0.5, 1.0])) for _ in sites)
        rules = ReservationRules("probe", acc=acc,
                                 tariffs=prices.choice([0.5, 1.0, 2.0], size=(K, 168)),
                                 tsn_max=data.draw(st.integers(1, 4)), tss_gap=data.draw(st.integers(1, 10)),
                                 estimate=data.draw(st.sampled_from(["load", "static", "history"])),
                                 history_seconds=data.draw(st.sampled_from([1, 7, 30, 86_400])),
                                 success_hours=data.draw(st.sampled_from([0.001, 0.01])),
                                 threshold=data.draw(st.sampled_from([0.0, 0.5, 0.9, 1.0])),
                                 load_rule=data.draw(st.sampled_from(list(LOAD_RULES))),
                                 acc_running=data.draw(st.sampled_from([0.0, 0.5, 1.0])),
                                 acc_waiting=data.draw(st.sampled_from([0.0, 0.5, 1.0])),
                                 probe_slots=data.draw(st.sampled_from(list(PROBE_SLOTS))),
                                 seed=data.draw(st.integers(0, 3)))
        lrms = data.draw(st.sampled_from(LRMS))
        _, bookings = _run_against_reference(sites, lrms, req, rules, sites=speeds)
        seen["accepted"] += int(bookings.accepted.sum())
        seen["elastic"] += int((bookings.accepted & (bookings.procs[:, 0] != req.parts[:, 0])).sum())
        seen["refused"] += int((~bookings.accepted & (bookings.messages > 0)).sum())
        seen["filtered"] += int((bookings.funnel[:, 1] < bookings.funnel[:, 0]).sum())
        seen["site refused"] += int((bookings.funnel[:, 2] > 0).sum())
        held = bookings.length[bookings.accepted]
        seen["scaled"] += int((held != req.duration[bookings.accepted]).sum()) if req.elastic is None else 0
        seen["grid-placed"] += int((bookings.accepted & (req.site < 0)).sum())

    seen = {"accepted": 0, "elastic": 0, "refused": 0, "filtered": 0, "site refused": 0, "scaled": 0,
            "grid-placed": 0}
    run()
    # accepted, on another count than asked, refused after probing, a candidate under the threshold,
    # and one the site refused
    assert min(seen.values()) > 50, seen


def test_history_estimate_reads_the_idle_processors_recorded_at_that_time_of_day():
    """m = 4, a 2-processor job runs [0, 10). At t = 10 the history (delta 20 s) holds one sample,
    2 idle processors at time 0, whose interval [0, 20) meets [10, 15) in the time of day: aip = 2.
    One processor: esr_H = 1; two: 2 - 2 * 2 / 2 = 0, refused at threshold 0.5 although the machine
    is free (the load estimate takes it). With delta 5 s no sample meets [10, 15): aip = m = 4."""
    w = Workload("hand", 4, arr([0]), arr([10]), arr([2]), arr([10]), arr([0]), arr([0]))
    req = _one_site("two", [10, 10], [10, 10], [30, 30], [5, 5], [1, 2])
    history = ReservationRules("probe", estimate="history", history_seconds=20, threshold=0.5)
    _, bookings = simulate_reservations([w], "easy", req, history)
    assert bookings.start.tolist() == [10, -1] and bookings.messages.tolist() == [2, 1]
    _, bookings = simulate_reservations([w], "easy", req, replace(history, estimate="load"))
    assert bookings.start.tolist() == [10, 10]
    _, bookings = simulate_reservations([w], "easy", req, replace(history, history_seconds=5))
    assert bookings.start.tolist() == [10, 10]


def test_workload_end_reads_the_running_jobs_remaining_run_time():
    """Röblitz et al.'s T_wkl counts a running job's remaining execution time (their j_ret) times
    acc_r = 0.5. m = 2; a 1-processor job runs [0, 100) with an estimate of 1,000 s. At t = 10 a
    request for 1 processor, 100 s in [200, 10,000]: T_wkl = 10 + 0.5 x 90 = 55, so the first start
    probed, 200, is taken; counting the time to the job's estimated end instead (evogrid's earlier
    reading, ``workload-end-estimated``), T_wkl = 10 + 0.5 x 990 = 505: the load estimate refuses
    200 and a later slot (the probe's are at least 1,800 s apart) is taken."""
    w = Workload("hand", 2, arr([0]), arr([100]), arr([1]), arr([1000]), arr([0]), arr([0]))
    req = _one_site("one", [10], [200], [10_000], [100], [1])
    rules = ReservationRules("probe")
    _, bookings = simulate_reservations([w], "easy", req, rules)
    assert bookings.start.tolist() == [200]
    _, bookings = simulate_reservations([w], "easy", req, replace(rules, load_rule="workload-end-estimated"))
    assert bookings.start[0] >= 200 + 1800


def test_preference_order_is_roblitz_fig_5s_tree():
    """Röblitz et al.'s 3.3.1 example: eight candidates <site, start, end, np, costs> sorted by end,
    then np, then costs; the left-most leaf is reserved first. Ascending in each: A0 and B1 (end 4,
    8 processors, cost 10 and 12), A1 and B2 (end 4, 16), B3 and A2 (end 6, 8, cost 8 and 9), B4
    and A3 (end 6, 16, cost 8 and 13)."""
    from evogrid.sim import probe

    example = [("A", 0, 4, 8, 10), ("A", 1, 4, 16, 15), ("A", 2, 6, 8, 9), ("A", 3, 6, 16, 13),
               ("B", 1, 4, 8, 12), ("B", 2, 4, 16, 16), ("B", 3, 6, 8, 8), ("B", 4, 6, 16, 8)]
    cand = np.zeros((probe.N_CANDIDATE_ROWS, len(example)))
    for i, (_, start, end, procs, cost) in enumerate(example):
        cand[probe.K_PROCS, i], cand[probe.K_START, i] = procs, start
        cand[probe.K_DURATION, i], cand[probe.K_COST, i] = end - start, cost
    codes = np.array([PREFERENCES.index(p) for p in ("earliest_end", "fewest_processors", "lowest_cost")],
                     dtype=np.float64)
    order = probe.preference_order(cand, len(example), codes)
    names = [example[i][0] + str(example[i][1]) for i in order]
    assert names == ["A0", "B1", "A1", "B2", "B3", "A2", "B4", "A3"]


def test_collective_placement_equals_reference():
    """1,000 random grids of 1-3 sites with collective requests (up to K + 1 sites, random least
    processors per site and in all, often more than one site can hold), random swap counts and
    seeds, every LRMS; start times, sites, processors per site, messages and costs must agree."""
    @settings(max_examples=1000, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.data())
    def run(data):
        sites, req = data.draw(grids())
        K, R = len(sites), req.n_requests
        widest = max(w.machine_procs for w in sites)
        N = np.array([data.draw(st.integers(1, K + 1)) for _ in range(R)], dtype=np.int64)
        d = np.array([data.draw(st.integers(1, widest)) for _ in range(R)], dtype=np.int64)
        e = np.array([data.draw(st.integers(int(x), 2 * widest + 1)) for x in d], dtype=np.int64)
        parts = np.zeros((R, K + 1), dtype=np.int64)
        parts[:, 0] = 1
        req = replace(req, parts=parts, site=np.full(R, -1, dtype=np.int64), collective=Collective(N, d, e))
        prices = np.random.default_rng(data.draw(st.integers(0, 2**16)))
        rules = ReservationRules("collective", tariffs=prices.choice([0.5, 1.0, 2.0], size=(K, 168)),
                                 swaps=(data.draw(st.integers(0, 3)), data.draw(st.integers(0, 3))),
                                 seed=data.draw(st.integers(0, 5)))
        _, bookings = _run_against_reference(sites, data.draw(st.sampled_from(LRMS)), req, rules)
        held = bookings.procs[bookings.accepted]
        assert (np.where(held >= 0, held, d[bookings.accepted, None]) >= d[bookings.accepted, None]).all()
        assert (np.where(held > 0, held, 0).sum(axis=1) >= e[bookings.accepted]).all()
        assert ((held > 0).sum(axis=1) <= N[bookings.accepted]).all()
        seen["accepted"] += int(bookings.accepted.sum())
        seen["several sites"] += int(((held > 0).sum(axis=1) > 1).sum())
        seen["refused"] += int((~bookings.accepted).sum())

    seen = {"accepted": 0, "several sites": 0, "refused": 0}
    run()
    assert min(seen.values()) > 50, seen


class _QueueAware(AdmissionPolicy):
    """A toy admission policy in Python: a part may start no sooner than 5 s per job waiting at the
    site, and take at most three quarters of its processors."""

    def admits(self, view, site, procs, start, duration):
        return start - view.time >= 5 * view.n_waiting(site) and 4 * procs <= 3 * view.machine_procs[site]


def _queue_aware_twin(desk, k, t, s, duration, need):
    return s - t >= 5 * len(desk.sites[k].queue) and 4 * need <= 3 * desk.sites[k].m


class _Always(AdmissionPolicy):
    def admits(self, view, site, procs, start, duration):
        return True


def test_python_admission_policy_equals_reference():
    """500 random grids as above, each part admitted by a Python AdmissionPolicy (the loop pauses at
    each request and asks it); its twin in the reference simulator gives the same bookings."""
    asked = []

    @settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.data())
    def run(data):
        sites, req = data.draw(grids())
        rules = ReservationRules("python", minsize=data.draw(st.integers(1, 8)),
                                 windows=data.draw(st.integers(1, 6)), seed=data.draw(st.integers(0, 3)),
                                 policy=_QueueAware())
        lrms = data.draw(st.sampled_from(LRMS))
        _, bookings = _run_against_reference(sites, lrms, req, rules, admits=_queue_aware_twin)
        always = simulate_reservations(sites, lrms, req, replace(rules, policy=_Always()))[1]
        cpu_count = simulate_reservations(sites, lrms, req, replace(rules, algorithm="cpu-count",
                                                                     policy=None))[1]
        # Admitting everything is Meltzer's Algorithm 2, the compiled one.
        assert always.start.tolist() == cpu_count.start.tolist()
        assert always.sites.tolist() == cpu_count.sites.tolist()
        asked.append(bookings.start.tolist() != cpu_count.start.tolist())

    run()
    assert sum(asked) > 50  # the policy changed what Algorithm 2 would have booked, in many cases


def test_admission_rulebase_that_always_accepts_is_cpu_count():
    """A rulebase that accepts everything places exactly as Meltzer's Algorithm 2 (a SDSC-BLUE
    two-week grid); one that declines everything refuses every request and sends nothing."""
    from evogrid.workload.reservations import meltzer
    from evogrid.workload.traces import load_window

    sites = [load_window(f"SDSC03@d{d}-{d + 14}") for d in (14, 28)]
    sites[0], req = meltzer(sites[0], "rw1", seed=2)
    _, two = simulate_reservations(sites, "easy", req, ReservationRules("cpu-count"))
    _, ruled = simulate_reservations(sites, "easy", req,
                                     admission_rules(ReservationRules(), [Rulebase.constant(True, ["LEAD"])]))
    assert two.accepted.sum() > 0.5 * req.n_requests
    for field in ("start", "sites", "messages"):
        np.testing.assert_array_equal(getattr(ruled, field), getattr(two, field))
    never = admission_rules(ReservationRules(), [Rulebase.constant(False, ["LEAD", "NWP"])])
    _, none = simulate_reservations(sites, "easy", req, never)
    assert (none.start == -1).all() and (none.messages == 0).all()


def test_admission_rulebase_inputs_are_checked():
    with pytest.raises(ScenarioError, match="feature NJP cannot inform admission decisions"):
        admission_rules(ReservationRules(), [Rulebase.constant(True, ["NJP"])])
    with pytest.raises(ScenarioError, match="needs admission rulebases"):
        ReservationRules("rulebase")
    w = Workload("hand", 4, arr([0]), arr([5]), arr([1]), arr([5]), arr([0]), arr([0]))
    rules = admission_rules(ReservationRules(), [Rulebase.constant(True, ["LEAD"])] * 2)
    with pytest.raises(ScenarioError, match="2 admission rulebases for 3 sites"):
        simulate_reservations([w, w, w], "easy", _one_site("none", [], [], [], [], []), rules)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(workloads(max_jobs=25), st.sampled_from(LRMS))
def test_without_requests_every_lrms_keeps_its_schedule(w, lrms):
    """A site that holds no reservation schedules with its LRMS as without requests."""
    none = Reservations("none", *(np.zeros(0, dtype=np.int64) for _ in range(4)), np.zeros((0, 1), np.int64))
    schedule, _ = simulate_reservations([w], lrms, none)
    assert schedule.start.tolist() == simulate_local([w], lrms).start.tolist()


arr = lambda xs: np.array(xs, dtype=np.int64)  # noqa: E731


def _one_site(name, submit, earliest, deadline, duration, procs):
    return Reservations(name, arr(submit), arr(earliest), arr(deadline), arr(duration), arr(procs)[:, None],
                        site=np.zeros(len(submit), dtype=np.int64))


def test_a_reservation_delays_the_batch_job_that_would_overlap_it():
    """m = 4. A request at t = 0 books 4 processors for [10, 20); a 2-processor job of 15 s
    (estimate 15) submitted at 5 would overlap it, so it waits until 20. A 1-second job fits
    before 10 and runs at once."""
    w = Workload("hand", 4, arr([5, 6]), arr([15, 1]), arr([2, 2]), arr([15, 1]), arr([0, 1]), arr([0, 0]))
    req = _one_site("one", [0], [10], [30], [10], [4])
    first_fit = ReservationRules("first-fit")
    for lrms in ("easy", "conservative", "list"):
        schedule, bookings = simulate_reservations([w], lrms, req, first_fit)
        assert bookings.start.tolist() == [10]
        assert schedule.start.tolist() == [20, 6]
    schedule, bookings = simulate_reservations([w], "fcfs", req, first_fit)
    assert schedule.start.tolist() == [20, 20]  # FCFS: the second waits behind the first
    # A second request made at 8 for [10, 20) finds no room there (deadline 25): refused.
    # The first was made at 0 with nobody waiting: nothing to be unfair to.
    two = _one_site("two", [0, 8], [10, 10], [30, 25], [10, 10], [4, 1])
    schedule, bookings = simulate_reservations([w], "easy", two, first_fit)
    assert bookings.start.tolist() == [10, -1]
    m = reservation_metrics(schedule, two, bookings)
    assert (m["failure_rate"], m["mean_relative_start"], m["unfairness"]) == (0.5, 0.0, 0.0)


def test_meltzers_utilisation_counts_only_what_runs_before_the_submit_stop():
    """The first test's schedule: jobs 2 x [20, 35) and 2 x [6, 7), reservation 4 x [10, 20) on
    m = 4. Up to t_stop = 30: jobs 2 * 10 + 2 * 1 = 22, the reservation 40 processor-seconds, over
    4 * 30 = 120; up to 100 everything counts: (30 + 2) / 400 and 40 / 400."""
    w = Workload("hand", 4, arr([5, 6]), arr([15, 1]), arr([2, 2]), arr([15, 1]), arr([0, 1]), arr([0, 0]))
    req = _one_site("one", [0], [10], [30], [10], [4])
    schedule, bookings = simulate_reservations([w], "easy", req, ReservationRules("first-fit"))
    assert schedule.start.tolist() == [20, 6]
    (row,) = utilization_until(schedule, 30, req, bookings)
    assert (row["job_utilization"], row["reservation_utilization"]) == (22 / 120, 40 / 120)
    assert row["utilization"] == pytest.approx(62 / 120)
    (row,) = utilization_until(schedule, 100, req, bookings)
    assert (row["job_utilization"], row["reservation_utilization"]) == (32 / 400, 40 / 400)
    (row,) = utilization_until(schedule, 30)  # the job-only simulation's form
    assert row["reservation_utilization"] == 0.0 and row["job_utilization"] == 22 / 120
    with pytest.raises(ValueError, match="t_stop"):
        utilization_until(schedule, 0)
    with pytest.raises(ValueError, match="bookings need the requests"):
        utilization_until(schedule, 30, None, bookings)
    with pytest.raises(ValueError, match="stopped early"):
        utilization_until(replace(schedule, stopped_bounds=np.zeros(2)), 30)


def test_meltzers_backlog_time_averaged_and_at_the_status_requests():
    """The schedule above, acc 0.5, m = 4: job 0 weighs 0.5 * 15 * 2 = 15 over [5, 35), job 1
    0.5 * 1 * 2 = 1 over [6, 7), the part 10 * 4 = 40 over [0, 20) (from its request's submit).
    Time average up to 30: (15 * 25 + 1 * 1 + 40 * 20) / (4 * 30). At the requests (0 and 8; the
    second refused): at 0 nothing (the part is the request's own), at 8 (15 + 40) / 4. Bad input
    is a ValueError; requests in one second see those before them in submit order."""
    w = Workload("hand", 4, arr([5, 6]), arr([15, 1]), arr([2, 2]), arr([15, 1]), arr([0, 1]), arr([0, 0]))
    two = _one_site("two", [0, 8], [10, 10], [30, 25], [10, 10], [4, 1])
    schedule, bookings = simulate_reservations([w], "easy", two, ReservationRules("first-fit"))
    assert schedule.start.tolist() == [20, 6] and bookings.start.tolist() == [10, -1]
    (row,) = backlog_until(schedule, 30, np.array([0.5]), two, bookings)
    assert row["mean_backlog"] == pytest.approx((15 * 25 + 1 + 40 * 20) / 120)
    assert row["backlog_at_requests"] == pytest.approx((0 + 55 / 4) / 2)
    (row,) = backlog_until(schedule, 30, np.array([0.5]))  # jobs alone
    assert row["mean_backlog"] == pytest.approx((15 * 25 + 1) / 120) and np.isnan(row["backlog_at_requests"])
    with pytest.raises(ValueError, match="moved between sites"):
        backlog_until(replace(schedule, moves=np.array([0, 1])), 30, np.array([0.5]))
    with pytest.raises(ValueError, match="bookings need the requests"):
        backlog_until(schedule, 30, np.array([0.5]), None, bookings)
    with pytest.raises(ValueError, match="one ratio per site"):
        backlog_until(schedule, 30, np.array([0.5, 0.5]))
    # Two requests in the same second (0): the second sees the part the first booked before it.
    tie = _one_site("tie", [0, 0], [10, 10], [30, 25], [10, 10], [4, 1])
    schedule, bookings = simulate_reservations([w], "easy", tie, ReservationRules("first-fit"))
    assert bookings.start.tolist() == [10, -1]
    (row,) = backlog_until(schedule, 30, np.array([0.5]), tie, bookings)
    assert row["backlog_at_requests"] == pytest.approx((0 + 40 / 4) / 2)


def test_backlog_rule_keeps_a_reservation_behind_the_queue():
    """m = 2. A 2-processor job runs [0, 10); B (2 procs) waits from 1. A request made at 2
    for 5 s from 10 (deadline 40) overtakes B under cpu-count where the site counts no waiting
    job, and B then starts at 15: unfairness 1. Counting its queue head's reservation, as Maui did
    at Meltzer's sites (the default), the site keeps B's [10, 15) and the part starts at 15 or later.
    Candidate starts (minsize 1, 5 windows): 10, 15, ..., 35. With the backlog rule (acc = 1:
    backlog = (10 * 2 + 5 * 2) / 2 = 15 s at t = 2) the first allowed is 20, after B (10-15);
    backfill admits none of the earlier ones either (B is planned at 10)."""
    w = Workload("hand", 2, arr([0, 1]), arr([10, 5]), arr([2, 2]), arr([10, 5]), arr([0, 1]), arr([0, 0]))
    req = _one_site("one", [2], [10], [40], [5], [2])
    rules = {name: ReservationRules(name, minsize=1, windows=5, acc=(1.0,)) for name in MELTZER}
    ours = replace(rules["cpu-count"], status_queue="none")
    schedule, bookings = simulate_reservations([w], "easy", req, ours)
    assert bookings.start.tolist() == [10] and schedule.start.tolist() == [0, 15]
    assert unfairness(schedule, req, bookings) == 1.0
    schedule, bookings = simulate_reservations([w], "easy", req, rules["cpu-count"])
    assert bookings.start[0] >= 15 and schedule.start.tolist() == [0, 10]  # (the tree is shuffled)
    assert unfairness(schedule, req, bookings) == 0.0
    for name in ("backlog", "backfill"):
        schedule, bookings = simulate_reservations([w], "easy", req, rules[name])
        assert bookings.start.tolist() == [20] and schedule.start.tolist() == [0, 10]
        m = reservation_metrics(schedule, req, bookings)
        assert m["unfairness"] == 0.0 and m["mean_relative_start"] == pytest.approx(10 / 25)


def test_meltzers_backlog_counts_only_reservations_that_start_before_the_candidate():
    """m = 2, idle. A request made at 0 holds both processors over [100, 110). A second, made at 1
    for [10, 40) (5 s, candidates 10, 15, ..., 35): by Meltzer's listing 4 the first starts after
    every candidate and does not count, so Algorithm 3 (walking by start) takes 10; counting every
    held one (backlog (10 * 2) / 2 = 10 s) it takes the first start from 11 on, 15."""
    w = Workload("idle", 2, arr([500]), arr([1]), arr([1]), arr([1]), arr([0]), arr([0]))
    req = _one_site("two", [0, 1], [100, 10], [110, 40], [10, 5], [2, 2])
    starts = {}
    for rule in ("before-start", "every-held"):
        rules = ReservationRules("backlog", minsize=1, windows=5, acc=(1.0,), backlog_rule=rule,
                                 variant_order="by-start")
        starts[rule] = simulate_reservations([w], "easy", req, rules)[1].start.tolist()
    assert starts == {"before-start": [100, 10], "every-held": [100, 15]}


def test_backfill_reservations_end_before_the_next_scheduling_event():
    """m = 3: jobs of 1 processor run [0, 20) and [0, 50), a 3-processor job waits (its earliest
    fit is 50). A request made at 2 for 1 processor over 5 s from 20 (deadline 40, candidates 20,
    25, 30, 35) finds the backlog ((20 + 50 + 3 * 10) / 3 -> 34 s) past every candidate. Meltzer's
    t_sched is 20 (the first estimated end): no variant ends before it, refused; ending by the
    queue head's earliest fit (50), it is booked at 20."""
    w = Workload("busy", 3, arr([0, 0, 1]), arr([20, 50, 10]), arr([1, 1, 3]), arr([20, 50, 10]),
                 arr([0, 1, 2]), arr([0, 0, 0]))
    req = _one_site("one", [2], [20], [40], [5], [1])
    starts = {}
    for bound in ("next-event", "head-fit"):
        rules = ReservationRules("backfill", minsize=1, windows=3, acc=(1.0,), backfill_until=bound)
        starts[bound] = simulate_reservations([w], "easy", req, rules)[1].start.tolist()
    assert starts == {"next-event": [-1], "head-fit": [20]}


def test_meltzers_t_sched_counts_ends_only():
    """m = 4: jobs of 1 processor run [0, 20) and [0, 50), a 4-processor job waits. A request at 1
    books 1 processor over [10, 15) (it ends before t_sched = 20, the first estimated end). A second
    at 2 wants 1 processor for 2 s from 12 (deadline 20), past the backlog (about 28 s). His 6.7.5
    bounds backfill reservations by the next job or reservation end (15): [12, 14) is booked.
    Counting the held reservation's start (10) as an event, or bounding by the next planned start
    (10), refuses it."""
    w = Workload("busy", 4, arr([0, 0, 0]), arr([20, 50, 10]), arr([1, 1, 4]), arr([20, 50, 10]),
                 arr([0, 1, 2]), arr([0, 0, 0]))
    req = _one_site("two", [1, 2], [10, 12], [15, 20], [5, 2], [1, 1])
    starts = {}
    for bound in ("next-end", "next-event", "head-fit"):
        rules = ReservationRules("backfill", minsize=1, windows=3, acc=(1.0,), backfill_until=bound)
        starts[bound] = simulate_reservations([w], "easy", req, rules)[1].start.tolist()
    assert starts == {"next-end": [10, 12], "next-event": [10, -1], "head-fit": [10, -1]}


def test_meltzers_divided_step_gives_at_most_windows_plus_one_starts():
    """His listing 1 divides the start range by max_zeitfenster (no floor): (minsize 1, 200 windows) on
    a range of 399 s gives 201 starts 1.995 s apart, where the step in whole seconds (1 s) gives 400;
    a range of 6,007 s with (300, 20) starts 300.35 s apart, each rounded down, the last at 6,007."""
    ours, his = ReservationRules("trivial", 1, 200, step="floor"), ReservationRules("trivial", 1, 200)
    assert ours.starts(0, 399)[3] == 400 and his.starts(0, 399)[3] == 201
    starts = his.starts(100, 499)
    assert [starts[0] + c * starts[1] // starts[2] for c in (0, 1, 2, 200)] == [100, 101, 103, 499]
    meltzer = ReservationRules("trivial").starts(0, 6007)
    assert meltzer[3] == 21 and [c * meltzer[1] // meltzer[2] for c in (1, 20)] == [300, 6007]
    assert ReservationRules("trivial", step="floor").starts(0, 6007)[1:] == (300, 1, 21)  # ends at 6,000
    # Shorter than minsize x windows: both step by minsize.
    assert his.starts(0, 150)[1:] == ours.starts(0, 150)[1:] == (1, 1, 151)


def test_meltzers_tree_spreads_algorithm_2_over_starts_and_sorts_algorithm_4():
    """Three idle sites of 100 processors, 40 two-part requests with 11 candidate starts each: in
    Meltzer's shuffled tree Algorithm 2 takes a random start (not always the first), Algorithm 4
    (his startsort) and the by-start order always the first; the same seed gives the same picks."""
    sites = [Workload(f"s{k}", 100, arr([10**6]), arr([1]), arr([1]), arr([1]), arr([0]), arr([0]))
             for k in range(3)]
    n = 40
    req = Reservations("idle", arr([0] * n), arr([100] * n), arr([210] * n), arr([10] * n),
                       arr([[1, 1]] * n))
    picks = {}
    for name, order in (("cpu-count", "tree"), ("cpu-count", "by-start"), ("backfill", "tree"),
                        ("backfill", "tree-unsorted")):
        rules = ReservationRules(name, minsize=10, windows=10, seed=4, variant_order=order)
        picks[name, order] = simulate_reservations(sites, "easy", req, rules)[1].start
    assert (picks["cpu-count", "by-start"] == 100).all() and (picks["backfill", "tree"] == 100).all()
    assert len(set(picks["cpu-count", "tree"].tolist())) > 3
    # his 4.5 backfill algorithm (Algorithm 3 with backfill reservations) keeps the shuffled order
    assert len(set(picks["backfill", "tree-unsorted"].tolist())) > 3
    again = simulate_reservations(sites, "easy", req, ReservationRules("cpu-count", minsize=10, windows=10,
                                                                        seed=4))[1].start
    np.testing.assert_array_equal(again, picks["cpu-count", "tree"])


def test_meltzer_tariffs_are_his_table_18():
    prices = meltzer_tariffs(4)
    monday, saturday = np.arange(24), 5 * 24 + np.arange(24)
    day = (monday >= 8) & (monday < 18)
    for k in range(4):
        np.testing.assert_array_equal(prices[k, monday], np.where(day, 2.0, 1.0))
        weekend = np.where(day, 2.0, 1.0) / (2 if k in (1, 3) else 1)
        np.testing.assert_array_equal(prices[k, saturday], weekend)


def test_tariff_week_start_shifts_the_week_under_time_0():
    """tariff_week_start_h = 66: the scenario's hour h pays the week's hour h + 66 (time 0 is Wednesday
    18:00), so clusters 1 and 3 are half price from scenario hour 54 (Saturday 0:00) for 48 hours and
    again from 222 h = 799,200 s, Meltzer's 800,000 s; 168 is refused, naming the field."""
    from pathlib import Path

    from evogrid.sim.booking import reservation_setup
    from evogrid.sim.scenario import Scenario

    config = Path(__file__).resolve().parents[1] / "experiments" / "configs" / "meltzer4.toml"
    scenario = Scenario.from_spec(str(config))
    week = meltzer_tariffs(4)
    shifted = reservation_setup(scenario, tariff_week_start_h=66)[2].tariffs
    hours = np.arange(168)
    np.testing.assert_array_equal(shifted, week[:, (hours + 66) % 168])
    cheap = shifted[1] < shifted[0]
    assert hours[cheap].tolist() == list(range(54, 102)) and 222 % 168 == 54
    np.testing.assert_array_equal(reservation_setup(scenario)[2].tariffs, week)
    with pytest.raises(ScenarioError, match=r"^\[reservations\] tariff_week_start_h: Input should be less"):
        reservation_setup(scenario, tariff_week_start_h=168)


def test_co_reservation_parts_go_to_distinct_sites_at_one_start():
    """Three idle sites of 4, 8 and 2 processors; parts (6, 3) from 5 (duration 10, deadline 100):
    6 fits only site 1, 3 then site 0. Walking by start, or sorted by start (Algorithms 4-5), the
    first candidate (5) is taken; Meltzer's shuffled tree takes some candidate of the window.
    Trivial may ask site 2 first, so it may send more messages than cpu-count, which only sends
    the two that work."""
    sites = [Workload(f"s{k}", m, arr([50]), arr([1]), arr([1]), arr([1]), arr([0]), arr([0]))
             for k, m in enumerate((4, 8, 2))]
    req = Reservations("co", arr([0]), arr([5]), arr([100]), arr([10]), arr([[3, 6]]))
    for name in MELTZER:
        for order in VARIANT_ORDERS:
            rules = ReservationRules(name, minsize=1, variant_order=order)
            schedule, bookings = simulate_reservations(sites, "easy", req, rules)
            if order == "by-start" or name == "weighted" or (name == "backfill" and order != "tree-unsorted"):
                assert bookings.start.tolist() == [5]
            assert 5 <= bookings.start[0] <= 90
            assert bookings.sites.tolist() == [[1, 0]]
            assert bookings.messages[0] >= 2
    _, bookings = simulate_reservations(sites, "easy", req, ReservationRules("cpu-count", minsize=1))
    assert bookings.messages.tolist() == [2]
    # and one status query per part and candidate site before (Meltzer's Table 9 counts them)
    assert bookings.status_queries.tolist() == [6]
    # Meltzer's N (6.1): 21 candidate starts (5 + 4.25 c rounded down, 5, 9, 13, 17, 22, ..., 90) x 3
    # sites: C_1 = 63, C = C_2 = 126, N = C + 2 C_1 = 252; Eff = 1 - 2 / 252. (The step in whole
    # seconds, 4: 22 starts, N = 264.)
    assert bookings.most_messages.tolist() == [252]
    assert bookings.efficiency[0] == pytest.approx(1 - 2 / 252)
    floor = ReservationRules("cpu-count", minsize=1, step="floor")
    assert simulate_reservations(sites, "easy", req, floor)[1].most_messages.tolist() == [264]
    schedule, bookings = simulate_reservations(sites, "easy", req, ReservationRules("trivial", minsize=1))
    assert bookings.status_queries.tolist() == [0]  # Algorithm 1 asks nothing before it reserves
    assert reservation_metrics(schedule, req, bookings)["messages_with_status_per_request"] == \
        bookings.messages[0]
    too_wide = Reservations("wide", arr([0]), arr([5]), arr([100]), arr([10]), arr([[9, 1]]))
    _, bookings = simulate_reservations(sites, "easy", too_wide, ReservationRules("backfill"))
    assert bookings.start.tolist() == [-1] and bookings.infeasible.tolist() == [True]


def test_weighted_with_start_weight_only_is_backfill():
    """Algorithm 5 with k = 0, s = 1 makes Algorithm 4's choices (a SDSC-BLUE two-week grid)."""
    from evogrid.workload.reservations import meltzer
    from evogrid.workload.traces import load_window

    sites = [load_window(f"SDSC03@d{d}-{d + 14}") for d in (14, 28, 42)]
    batch, req = meltzer(sites[0], "rw2", seed=3)
    sites[0] = batch
    tariffs = peak_tariffs(3)
    _, four = simulate_reservations(sites, "easy", req, ReservationRules("backfill", tariffs=tariffs))
    _, five = simulate_reservations(sites, "easy", req, ReservationRules("weighted", cost_weight=0.0,
                                                                          start_weight=1.0, tariffs=tariffs))
    assert four.accepted.sum() > 0.3 * req.n_requests
    np.testing.assert_array_equal(four.start, five.start)
    np.testing.assert_array_equal(four.sites, five.sites)
    _, cheap = simulate_reservations(sites, "easy", req, ReservationRules("weighted", cost_weight=1.0,
                                                                           start_weight=0.0, tariffs=tariffs))
    both = four.accepted & cheap.accepted
    assert cheap.cost[both].mean() < four.cost[both].mean()


def test_bad_reservation_inputs():
    w = Workload("hand", 4, arr([0]), arr([5]), arr([1]), arr([5]), arr([0]), arr([0]))
    none = _one_site("none", [], [], [], [], [])
    with pytest.raises(ScenarioError, match="unknown LRMS 'mine'"):
        simulate_reservations([w], "mine", none)
    with pytest.raises(ScenarioError, match="^reservation rules: algorithm: unknown reservation algorithm"):
        ReservationRules("lottery")  # by position, named
    # Each setting's type says what it takes; the first mistake is one line naming the field.
    for bad, message in ((dict(windows=0), "windows: Input should be greater than or equal to 1"),
                         (dict(threshold=1.5), "threshold: Input should be less than or equal to 1"),
                         (dict(variant_order="random"), "variant_order: Input should be 'tree', "),
                         (dict(status_queue="all"), "status_queue: Input should be 'head' or 'none'"),
                         (dict(swaps=(1, -1)), "swaps.1: Input should be greater than or equal to 0"),
                         (dict(windos=5), "windos: Unexpected keyword argument")):
        with pytest.raises(ScenarioError, match=f"^reservation rules: {message}"):
            ReservationRules(**bad)
    anywhere = Reservations("anywhere", *(arr(v) for v in ([0], [0], [9], [5], [[1]])))
    with pytest.raises(ScenarioError, match="anywhere: first-fit books at one site"):
        simulate_reservations([w], "easy", anywhere, ReservationRules("first-fit"))
    pair = Reservations("pair", *(arr(v) for v in ([0], [0], [9], [5], [[1, 1]])))
    with pytest.raises(ScenarioError, match="pair: request 0: probe places one-part requests, not 2 parts"):
        simulate_reservations([w, w], "easy", pair, ReservationRules("probe"))
    elsewhere = Reservations("elsewhere", *(arr(v) for v in ([0], [0], [9], [5], [[1]])), site=arr([3]))
    with pytest.raises(ScenarioError, match="elsewhere: request 0: field site 3 is not a site"):
        simulate_reservations([w], "easy", elsewhere)
    with pytest.raises(ScenarioError, match="tariffs need shape"):
        simulate_reservations([w], "easy", none, ReservationRules(tariffs=np.ones((2, 168))))
    many = [w] * 12
    wide = Reservations("wide", *(arr(v) for v in ([0], [0], [9], [5], [[1, 1, 1, 1, 1, 1]])))
    with pytest.raises(ScenarioError, match="wide: 6-part requests on 12 sites with 20 windows have up to"):
        simulate_reservations(many, "easy", wide)
    late = Workload("late", 4, arr([0]), arr([9]), arr([1]), arr([5]), arr([0]), arr([0]))
    with pytest.raises(ScenarioError, match="cut at their estimate"):
        simulate_reservations([late], "easy", none)


def test_simulate_runs_a_scenarios_reservations(capsys):
    """The one front door: simulate() of a scenario with [reservations] gives simulate_reservations'
    schedule and bookings, deltas against the same batch jobs without requests, and the reservation
    metrics; `evogrid simulate` prints them."""
    import json
    from pathlib import Path

    from evogrid.cli import main
    from evogrid.policy.strategies import AcceptWhenFit, CentralPool, simulate
    from evogrid.sim.booking import reservation_setup, simulate_reservations
    from evogrid.sim.metrics import reservation_metrics
    from evogrid.sim.scenario import Scenario
    from evogrid.sim.schedule import simulate_local

    config = Path(__file__).resolve().parents[1] / "experiments" / "configs" / "meltzer7.toml"
    scenario = Scenario.from_spec(str(config))
    res = simulate(scenario)
    workloads, requests, rules = reservation_setup(scenario)
    schedule, bookings = simulate_reservations(workloads, scenario.lrms, requests, rules)
    assert np.array_equal(res.schedule.start, schedule.start)
    assert np.array_equal(res.bookings.start, bookings.start)
    assert np.array_equal(res.baseline.start, simulate_local(list(workloads), scenario.lrms).start)
    assert not np.array_equal(res.baseline.start, res.schedule.start)  # the reservations cost something
    assert res.to_dict()["reservations"] == {"requests_name": requests.name,
                                             **reservation_metrics(schedule, requests, bookings)}
    assert "reserved_area" in res.metrics()[0]
    awf = simulate(scenario, AcceptWhenFit())  # exchange and reservations in one run
    exchange = AcceptWhenFit().exchange(scenario.grid_jobs())
    both, booked = simulate_reservations(workloads, scenario.lrms, requests, rules, exchange)
    assert np.array_equal(awf.schedule.start, both.start) and np.array_equal(awf.schedule.site, both.site)
    assert np.array_equal(awf.bookings.start, booked.start)
    assert awf.schedule.moves.sum() > 0 and (booked.start >= 0).any()
    with pytest.raises(ScenarioError, match="not with the pool scheme"):
        simulate(scenario, CentralPool())
    # A Python admission policy through the same door: admitting every part is Meltzer's Algorithm 2.
    python = simulate(scenario, admission=_Always())
    algorithm_2 = simulate_reservations(workloads, scenario.lrms, requests,
                                        replace(rules, algorithm="cpu-count"))[1]
    assert np.array_equal(python.bookings.start, algorithm_2.start)
    assert np.array_equal(python.bookings.sites, algorithm_2.sites)
    with pytest.raises(ScenarioError, match=r"admission= needs a \[reservations\] table"):
        simulate(Scenario.from_spec("KTH@0-1"), admission=_Always())
    with pytest.raises(SystemExit) as done:
        main(["simulate", str(config), "--json"])
    assert done.value.code == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["reservations"]["requests"] == requests.n_requests
