"""The compiled grid loop against the pure-Python reference, on random grids."""

from dataclasses import replace

import numpy as np
import pytest
from draws import int_list
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from invariants import check_schedule
from reference_sim import Job, Policy, simulate_reference

from evogrid.errors import ScenarioError
from evogrid.policy.registry import features_for
from evogrid.policy.rulebase import Rulebase
from evogrid.policy.strategies import AcceptWhenFit, FuzzyPolicy
from evogrid.sim import core, queue_index
from evogrid.sim.schedule import Exchange, GridJobs, simulate_grid, simulate_local
from evogrid.sim.tsk import TSKStack
from evogrid.workload import synthetic_workload
from evogrid.workload.model import Workload

EXAMPLES = 400
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
arr = lambda xs: np.array(xs, dtype=np.int64)  # noqa: E731


@st.composite
def site_workload(draw, m, max_jobs=14):
    n = draw(st.integers(1, max_jobs))
    submit = sorted(draw(int_list(n, 0, 30)))
    run_time = draw(int_list(n, 1, 20))
    slack = draw(int_list(n, 0, 10))
    procs = draw(int_list(n, 1, m))
    return Workload(
        name=f"s{m}", machine_procs=m, submit=arr(submit), run_time=arr(run_time), procs=arr(procs),
        estimate=arr(run_time) + arr(slack), job_id=np.arange(n, dtype=np.int64),
        user=np.zeros(n, dtype=np.int64),
    )


@st.composite
def grids(draw):
    K = draw(st.integers(2, 3))
    sizes = [draw(st.integers(1, 12)) for _ in range(K)]
    return [draw(site_workload(m)) for m in sizes]


@st.composite
def rulebases(draw, features=None):
    names = draw(st.lists(st.sampled_from(sorted(features or features_for("transfer"))), min_size=1,
                          max_size=3, unique=True))
    n_rules = draw(st.integers(1, 4))
    floats = st.floats(-2.0, 12.0, allow_nan=False)
    centers = [[draw(floats) for _ in names] for _ in range(n_rules)]
    widths = [[draw(st.floats(0.01, 5.0)) for _ in names] for _ in range(n_rules)]
    consequents = [draw(st.sampled_from([-1.0, 1.0])) for _ in range(n_rules)]
    return Rulebase.from_arrays(centers, widths, consequents, names)


def random_exchange(data, transfer, location):
    """An Exchange with a random rulebase for every partner of a ``rulebase`` site and (location
    ``rank``) a random ranking rulebase per site on the diagonal, in half the cases with random
    bounds beyond which AWF decides (the guard); and the reference's rulebases and bounds."""
    K = len(transfer)
    stack, rulebase_of, ref_rbs = [], np.full((K, K), -1, dtype=np.int64), {}
    guarded = data.draw(st.booleans())  # the guard: beyond random bounds per feature, AWF decides
    bounds, ref_bounds = [], {}
    for k in range(K):
        for partner in range(K):
            if (partner != k and transfer[k] == "rulebase") or (partner == k and location == "rank"):
                rb = data.draw(rulebases(features_for("ranking") if partner == k else None))
                rulebase_of[k, partner] = len(stack)
                stack.append(rb)
                rules = list(zip(rb.centers.tolist(), rb.widths.tolist(), rb.consequents.tolist(),
                                 strict=True))
                ref_rbs[(k, partner)] = (rb.features, rules)
                lows = [data.draw(st.floats(-1.0, 2.0)) for _ in rb.features]
                bounds.append(np.array([(lo, lo + data.draw(st.floats(0.0, 10.0))) for lo in lows]))
                if guarded and partner != k:
                    ref_bounds[(k, partner)] = bounds[-1].tolist()
    # Only transfer decisions read the bounds (a ranking rulebase's are never looked at).
    exchange = Exchange("random", transfer=transfer, location=location, rulebase_of=rulebase_of,
                        rulebases=TSKStack.stack([rb.arrays() for rb in stack], bounds if guarded else None))
    return exchange, ref_rbs, ref_bounds


def _reference_jobs(jobs: GridJobs) -> list[Job]:
    return [
        Job(int(s), int(r), int(p), int(e), int(o))
        for s, r, p, e, o in zip(jobs.submit, jobs.run_time, jobs.procs, jobs.estimate, jobs.origin,
                                 strict=True)
    ]


def _reference(sites, jobs: GridJobs, lrms, policy):
    return simulate_reference(_reference_jobs(jobs), [w.machine_procs for w in sites], lrms, policy)


def _compare(sites, lrms, exchange, policy, index_span=queue_index.SPAN):
    jobs = GridJobs.merge(sites)
    schedule = simulate_grid(jobs, lrms, exchange, index_span=index_span)
    check_schedule(schedule)
    start, where = _reference(sites, jobs, lrms, policy)
    assert schedule.start.tolist() == start
    assert schedule.site.tolist() == where
    return schedule


@SETTINGS
@given(grids(), st.data())
def test_exchange_equals_reference(sites, data):
    """Random transfer policies per site (local, AWF, random rulebases, guarded or not), fixed, AWRT,
    least-load, OLB or debt-account location; the EASY and LIST queues indexed from a span of 1 or
    4 positions on in two thirds of the cases (evogrid.sim.queue_index), so that the location
    policies and QLEN count the jobs of queues with holes."""
    lrms = [data.draw(st.sampled_from(["fcfs", "easy", "list", "conservative", "sjf", "easy-sjf"]))
            for _ in sites]
    transfer = tuple(data.draw(st.sampled_from(["local", "awf", "rulebase"])) for _ in sites)
    location = data.draw(st.sampled_from(["fixed", "awrt", "least-load", "olb", "debt"]))
    exchange, ref_rbs, ref_bounds = random_exchange(data, transfer, location)
    index_span = data.draw(st.sampled_from([1, 4, queue_index.SPAN]))
    schedule = _compare(sites, lrms, exchange, Policy("exchange", transfer, location, ref_rbs,
                                                      bounds=ref_bounds), index_span)
    assert (schedule.moves == (schedule.site != schedule.jobs.origin)).all()


@SETTINGS
@given(grids(), st.data())
def test_pool_equals_reference(sites, data):
    """The published arrival rule, and evogrid's reading that passes over the pool after every
    arrival (``first-pool``); the pool indexed from a span of 1 or 4 positions on in two thirds of
    the cases (:func:`_pool_sites`)."""
    lrms, index_span = _pool_sites(sites, data)
    arrivals = data.draw(st.sampled_from(["first", "first-pool"]))
    _compare(sites, lrms, Exchange("pool", scheme="pool", pool_arrivals=arrivals),
             Policy("pool", pool_arrivals=arrivals), index_span)


def _pool_sites(sites, data) -> tuple[list[str], int]:
    """Each site's LRMS and the pool's index span: a span of 1 or 4 positions in two thirds of the
    cases, where every site runs EASY or LIST (the pool is indexed only then), else the default
    span and any LRMS."""
    index_span = data.draw(st.sampled_from([1, 4, queue_index.SPAN]))
    names = ["easy", "list"] if index_span < queue_index.SPAN else ["fcfs", "easy", "list", "conservative"]
    return [data.draw(st.sampled_from(names)) for _ in sites], index_span


@SETTINGS
@given(grids(), st.data())
def test_pool_with_queued_arrivals_equals_reference(sites, data):
    """New jobs join the pool behind older ones and their site schedules the pool (EASY: backfilled
    against the reservation of the oldest pool job the site can run); check_schedule adds FCFS order.
    The pool indexed as in test_pool_equals_reference."""
    lrms, index_span = _pool_sites(sites, data)
    schedule = _compare(sites, lrms, Exchange("pool", scheme="pool", pool_arrivals="queued"),
                        Policy("pool", pool_arrivals="queued"), index_span)
    assert schedule.pool_arrivals == "queued"
    assert (schedule.moves == (schedule.site != schedule.jobs.origin)).all()


def _wide_job_behind_a_narrow_one():
    """Site 0 (4 processors): job 0 (2 procs, 0-10), wide job 1 (4 procs) at 1, narrow job 2 (2 procs,
    20 s) at 2; site 1 (1 processor) has one late job. Job 1's EASY reservation at site 0 is t = 10."""
    return [
        Workload("a", 4, arr([0, 1, 2]), arr([10, 10, 20]), arr([2, 4, 2]), arr([10, 10, 20]),
                 arr([1, 2, 3]), arr([0, 0, 0])),
        Workload("b", 1, arr([100]), arr([1]), arr([1]), arr([1]), arr([1]), arr([0])),
    ]


@pytest.mark.parametrize(("arrivals", "start"), [("first", 5), ("first-pool", 2)])
def test_first_pool_passes_over_the_pool_after_a_start(arrivals, start):
    """Site a (4 processors) runs a 2-processor job from 0 to 10; site b (1 processor) is full when
    its 1-processor job b2 arrives at 1, so b2 joins the pool, which only b looks at then. At 2 a
    1-processor job of 3 s arrives at a and starts. The published rule passes over the pool at a only
    when a's job ends (5); ``first-pool`` passes at once and starts b2 at a at 2."""
    a = Workload("a", 4, arr([0, 2]), arr([10, 3]), arr([2, 1]), arr([10, 3]), arr([0, 1]), arr([0, 0]))
    b = Workload("b", 1, arr([0, 1]), arr([100, 5]), arr([1, 1]), arr([100, 5]), arr([0, 1]), arr([0, 0]))
    jobs = GridJobs.merge([a, b])
    schedule = simulate_grid(jobs, ["easy", "easy"], Exchange("pool", scheme="pool", pool_arrivals=arrivals))
    check_schedule(schedule)
    ref_start, ref_where = simulate_reference(_reference_jobs(jobs), [4, 1], ["easy"] * 2,
                                              Policy("pool", pool_arrivals=arrivals))
    assert (schedule.start.tolist(), schedule.site.tolist()) == (ref_start, ref_where)
    b2 = int(np.flatnonzero((jobs.origin == 1) & (jobs.submit == 1))[0])
    assert (ref_where[b2], ref_start[b2]) == (0, start)


@pytest.mark.parametrize(("arrivals", "starts"), [("first", [0, 22, 2]), ("queued", [0, 10, 20])])
def test_pool_arrivals_and_the_wide_jobs_reservation(arrivals, starts):
    """Literally, the narrow job starts at once and delays the wide pool job to 22; queued, it would
    end after the wide job's reservation (10) with no spare processors, so it waits."""
    from evogrid.policy.strategies import CentralPool, strategy_label

    sites = _wide_job_behind_a_narrow_one()
    jobs = GridJobs.merge(sites)
    schedule = simulate_grid(jobs, "easy", CentralPool(arrivals).exchange(jobs))
    check_schedule(schedule)
    assert schedule.start[jobs.origin == 0].tolist() == starts
    assert strategy_label(schedule) == {"first": "EASY-JS", "queued": "EASY-JS (arrivals queued)"}[arrivals]


def test_pool_arrivals_default_and_errors():
    from evogrid.errors import ScenarioError
    from evogrid.policy.strategies import CentralPool

    jobs = GridJobs.merge(_wide_job_behind_a_narrow_one())
    assert CentralPool().exchange(jobs).pool_arrivals == "first"
    with pytest.raises(ScenarioError, match="first, queued"):
        CentralPool("late").exchange(jobs)
    with pytest.raises(ScenarioError, match="pool arrival rule"):
        simulate_grid(jobs, "easy", Exchange("pool", scheme="pool", pool_arrivals="late"))


@SETTINGS
@given(grids(), st.data())
def test_published_active_request_equals_reference(sites, data):
    """Lepping's active request under any LRMS of a FIFO or SJF queue, and its variant without
    EASY's condition (``fits``): same starts, executing sites and moves per job as the reference;
    the EASY and LIST queues indexed from a span of 1 or 4 positions on in two thirds of the cases
    (requests take jobs out of indexed queues, and moved jobs join them)."""
    lrms = [data.draw(st.sampled_from(["fcfs", "easy", "list", "conservative", "sjf", "easy-sjf"]))
            for _ in sites]
    take = data.draw(st.sampled_from(["queue", "fits"]))
    jobs = GridJobs.merge(sites)
    index_span = data.draw(st.sampled_from([1, 4, queue_index.SPAN]))
    schedule = simulate_grid(jobs, lrms, Exchange("aa", scheme="active", active_take=take),
                             index_span=index_span)
    check_schedule(schedule)
    moves = [0] * len(jobs.submit)
    start, where = simulate_reference(_reference_jobs(jobs), [w.machine_procs for w in sites], lrms,
                                      Policy("active", active_take=take), moves)
    assert schedule.start.tolist() == start
    assert schedule.site.tolist() == where
    assert schedule.moves.tolist() == moves


def test_published_active_request_moves_a_job_again():
    """Two sites under FCFS, each with a blocked head and one free processor: a short 1-processor
    job moves to the other site's queue (it could start there without delaying the head), cannot
    start behind that site's head, and the first site's next request takes it back; at t=20 the
    other site, idle, takes it once more and runs it."""
    a = Workload("a", 4, arr([0, 0, 2]), arr([10, 10, 2]), arr([3, 4, 1]), arr([10, 10, 2]),
                 arr([0, 1, 2]), arr([0, 0, 0]))
    b = Workload("b", 4, arr([0, 0, 1, 3]), arr([10, 10, 2, 2]), arr([3, 4, 1, 1]), arr([10, 10, 2, 2]),
                 arr([0, 1, 2, 3]), arr([0, 0, 0, 0]))
    jobs = GridJobs.merge([a, b])
    schedule = simulate_grid(jobs, ["fcfs", "fcfs"], Exchange("aa", scheme="active"))
    check_schedule(schedule)
    moves = [0] * len(jobs.submit)
    start, where = simulate_reference(_reference_jobs(jobs), [4, 4], ["fcfs"] * 2, Policy("active"), moves)
    assert (schedule.start.tolist(), schedule.site.tolist(), schedule.moves.tolist()) == (start, where, moves)
    b2 = int(np.flatnonzero((jobs.origin == 1) & (jobs.submit == 1))[0])
    assert moves[b2] == 3  # b -> a at t=2, a -> b at t=3, b -> a at t=20
    assert (where[b2], start[b2]) == (0, 20)


def test_a_queue_row_used_up_is_compacted_with_its_index():
    """Under the active request a job may join queue rows many times, so a row's tail can reach its
    last position with fewer jobs waiting: before the next job joins, the waiting jobs move to the
    row's front in order, holes closed, and the kept index is the one built over them afresh."""
    n = 20
    w = Workload("a", 64, np.arange(n), np.full(n, 10), np.arange(1, n + 1), np.full(n, 10), np.arange(n),
                 np.zeros(n, dtype=np.int64))
    packed = GridJobs.merge([w]).packed
    codes = np.array([1], dtype=np.int64)  # EASY
    state = core.new_state(packed, np.array([64]), codes, 2, 0)
    index = queue_index.new_index(n, 2, 1)
    row = [queue_index.HOLE] * 3 + [3, 4, queue_index.HOLE, 6, 7, queue_index.HOLE, 9] + [
        queue_index.HOLE if p % 3 == 0 else p for p in range(10, n)]
    state.queue[0, :] = row
    state.sc[0, core.Q_HEAD], state.sc[0, core.Q_TAIL] = 3, n  # positions 0-2: jobs gone before the head
    state.sc[0, core.Q_HOLES] = sum(1 for j in row[3:] if j == queue_index.HOLE)
    core._build_index(0, 3, n, packed, state.queue, index)
    core.make_room(0, packed, state, index)
    core.enqueue_own(0, 0, 1, packed, state, index, 1)  # job 0 joins (EASY: code and mode 1)
    waiting = [j for j in row[3:] if j != queue_index.HOLE]
    assert state.queue[0, :len(waiting) + 1].tolist() == waiting + [0]
    assert (state.sc[0, core.Q_HEAD], state.sc[0, core.Q_TAIL], state.sc[0, core.Q_HOLES]) == (
        0, len(waiting) + 1, 0)
    fresh = queue_index.new_index(n, 2, 1)
    core._build_index(0, 0, len(waiting) + 1, packed, state.queue, fresh)
    assert (index[:, 0] == fresh[:, 0]).all()


@pytest.mark.parametrize("take", ["queue", "fits"])
def test_fits_rule_takes_a_job_that_would_delay_the_head(take):
    """Site a (FCFS) has a blocked head (4 processors, reserved at t=10) and one free processor when
    its third job arrives at t=2; site b is full until t=25 and holds a 1-processor job of 50 s.
    The published rule leaves that job at b (it would delay a's head), where it starts at t=25.
    Without EASY's condition a takes it into its queue, behind its head, and at t=25 the emptied
    b takes it back (with a's third job) and starts it: two moves, the same start."""
    a = Workload("a", 4, arr([0, 0, 2]), arr([10, 20, 10]), arr([3, 4, 2]), arr([10, 20, 10]),
                 arr([0, 1, 2]), arr([0, 0, 0]))
    b = Workload("b", 4, arr([0, 1]), arr([25, 50]), arr([4, 1]), arr([25, 50]), arr([0, 1]),
                 arr([0, 0]))
    jobs = GridJobs.merge([a, b])
    schedule = simulate_grid(jobs, ["fcfs", "fcfs"], Exchange("aa", scheme="active", active_take=take))
    check_schedule(schedule)
    moves = [0] * len(jobs.submit)
    start, where = simulate_reference(_reference_jobs(jobs), [4, 4], ["fcfs"] * 2,
                                      Policy("active", active_take=take), moves)
    assert (schedule.start.tolist(), schedule.site.tolist(), schedule.moves.tolist()) == (start, where, moves)
    b2 = int(np.flatnonzero((jobs.origin == 1) & (jobs.submit == 1))[0])
    assert (where[b2], start[b2], moves[b2]) == (1, 25, 0 if take == "queue" else 2)


@SETTINGS
@given(grids())
def test_active_request_start_rule_equals_reference(sites):
    schedule = _compare(sites, ["easy"] * len(sites), Exchange("aa", scheme="active", active_take="start"),
                        Policy("active", active_take="start"))
    assert (schedule.moves <= 1).all()


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(grids(), st.sampled_from(["fcfs", "easy", "list", "conservative", "sjf", "easy-sjf"]))
def test_local_strategy_in_the_grid_loop_equals_local(sites, lrms):
    local = simulate_local(sites, lrms)
    grid = simulate_grid(sites, lrms, Exchange("local"))
    assert grid.start.tolist() == local.start.tolist()
    assert (grid.site == grid.jobs.origin).all()


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(grids(), st.sampled_from(["fcfs", "easy"]))
def test_constant_rulebases_are_the_obvious_special_cases(sites, lrms):
    """Always-decline and always-accept everywhere both equal local scheduling: the origin
    keeps its jobs when it accepts, and nobody takes them when everybody declines."""
    never = Rulebase.constant(accept=False)
    always = Rulebase.constant(accept=True)
    jobs = GridJobs.merge(sites)
    local = simulate_local(jobs, lrms)
    declining = simulate_grid(jobs, lrms, FuzzyPolicy(dict.fromkeys(range(len(sites)), never)).exchange(jobs))
    assert declining.start.tolist() == local.start.tolist()
    keeping = simulate_grid(jobs, lrms, FuzzyPolicy(dict.fromkeys(range(len(sites)), always)).exchange(jobs))
    assert keeping.start.tolist() == local.start.tolist()


def test_always_delegate_sends_every_fitting_job_away():
    """Site 0 always declines own jobs; site 1 always accepts offers: every job of site 0 that fits
    site 1 runs there."""
    sites = [
        Workload("a", 4, arr([0, 1, 2]), arr([5, 5, 5]), arr([1, 4, 2]), arr([5, 5, 5]),
                 arr([1, 2, 3]), arr([0, 0, 0])),
        Workload("b", 2, arr([0]), arr([3]), arr([1]), arr([3]), arr([1]), arr([0])),
    ]
    jobs = GridJobs.merge(sites)
    policy = FuzzyPolicy({0: Rulebase.constant(False), 1: Rulebase.constant(True)})
    schedule = simulate_grid(jobs, "fcfs", policy.exchange(jobs))
    from_a = jobs.origin == 0
    assert schedule.site[from_a].tolist() == [1, 0, 1]  # the 4-processor job does not fit site 1
    assert schedule.moves.sum() == 2


def test_random_location_is_seeded():
    rng = np.random.default_rng(5)
    sites = []
    for m in (8, 16, 32):
        n = 300
        sites.append(Workload(f"m{m}", m, np.sort(rng.integers(0, 5000, n)), rng.integers(1, 400, n),
                              rng.integers(1, m + 1, n), rng.integers(400, 800, n),
                              np.arange(n), np.zeros(n, dtype=np.int64)))
    runs = [simulate_grid(sites, "easy", AcceptWhenFit("random", seed).exchange(GridJobs.merge(sites)))
            for seed in (1, 1, 2)]
    for s in runs:
        check_schedule(s)
    assert runs[0].start.tolist() == runs[1].start.tolist()
    assert runs[0].site.tolist() != runs[2].site.tolist()


@pytest.mark.parametrize("lrms", ["fcfs", "list"])
def test_active_request_start_rule_needs_easy(lrms):
    from evogrid.errors import ScenarioError

    sites = [Workload("a", 2, arr([0]), arr([1]), arr([1]), arr([1]), arr([1]), arr([0]))] * 2
    simulate_grid(sites, lrms, Exchange("aa", scheme="active"))  # the published rule takes any LRMS
    with pytest.raises(ScenarioError, match="EASY"):
        simulate_grid(sites, lrms, Exchange("aa", scheme="active", active_take="start"))
    with pytest.raises(ScenarioError, match="queue, start"):
        simulate_grid(sites, lrms, Exchange("aa", scheme="active", active_take="late"))


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 2**32 - 1), st.sampled_from(["fcfs", "easy"]), st.floats(0.05, 3.0))
def test_awrt_cutoff_stops_only_hopeless_runs_and_bounds_are_lower_bounds(seed, lrms, factor):
    """A run stopped at the cutoff reports per-site lower bounds on the true AWRT, one of them
    above the cutoff; a run that is never above it is identical to the uncut run."""
    from evogrid.workload import synthetic_workload

    sites = [synthetic_workload(5000, 16, load=1.3, seed=seed), synthetic_workload(5000, 64, load=0.7,
                                                                                   seed=seed + 1)]
    jobs = GridJobs.merge(sites)
    exchange = AcceptWhenFit().exchange(jobs)
    full = simulate_grid(jobs, lrms, exchange)
    true_awrt = full.awrt()
    cutoff = factor * true_awrt.max()
    cut = simulate_grid(jobs, lrms, exchange, awrt_cutoff=cutoff)
    if cut.stopped_bounds is None:
        assert cut.start.tolist() == full.start.tolist()
    else:
        assert (cut.stopped_bounds <= true_awrt * (1 + 1e-12)).all()
        assert cut.stopped_bounds.max() > cutoff
        assert factor < 1.0
    # A limit for one site only (0: none for the other) watches that site alone.
    for k in range(2):
        limits = np.zeros(2)
        limits[k] = factor * true_awrt[k]
        one = simulate_grid(jobs, lrms, exchange, awrt_cutoff=limits)
        if one.stopped_bounds is None:
            assert one.start.tolist() == full.start.tolist()
        else:
            assert one.stopped_bounds[k] > limits[k] and factor < 1.0
            assert (one.stopped_bounds <= true_awrt * (1 + 1e-12)).all()


def test_least_load_asks_the_emptier_partner_first():
    """Site 0 is full when its second job comes; under AWF both partners could take it. Fixed order
    sends it to site 1 (busy with a 3-processor job), least load after assignment and OLB to the idle
    site 2."""
    def one(m, submit, procs):
        n = len(submit)
        return Workload(f"s{m}", m, arr(submit), arr([100] * n), arr(procs), arr([100] * n),
                        np.arange(n, dtype=np.int64), np.zeros(n, dtype=np.int64))

    sites = [one(8, [0, 5], [8, 4]), one(8, [1], [3]), one(8, [50], [1])]
    where = {}
    for location in ("fixed", "least-load", "olb"):
        schedule = simulate_grid(sites, "fcfs", Exchange("awf", transfer=("awf",) * 3, location=location))
        check_schedule(schedule)
        where[location] = int(schedule.site[np.flatnonzero(schedule.jobs.submit == 5)[0]])
        reference = simulate_reference([Job(int(s), int(r), int(p), int(e), int(o)) for s, r, p, e, o in zip(
            schedule.jobs.submit, schedule.jobs.run_time, schedule.jobs.procs, schedule.jobs.estimate,
            schedule.jobs.origin, strict=True)], [8, 8, 8], ["fcfs"] * 3,
            Policy("exchange", ("awf",) * 3, location))
        assert schedule.start.tolist() == reference[0] and schedule.site.tolist() == reference[1]
    assert where == {"fixed": 1, "least-load": 2, "olb": 2}


def test_the_debt_account_orders_partners_and_equals_reference():
    """The debt account (evogrid.sim.locations.debt) on three AWF sites: the compiled order equals
    the reference's and, once jobs have moved, differs from the index order."""
    differs = 0
    for seed in range(12):
        rng = np.random.default_rng(seed)
        sites = []
        for m in (8, 6, 10):
            n = 60
            run = rng.integers(1, 400, n)
            submit = np.sort(rng.integers(0, 3_000, n))
            procs, estimate = rng.integers(1, m + 1, n), run + rng.integers(0, 100, n)
            sites.append(Workload(f"s{m}", m, submit, run, procs, estimate, np.arange(n),
                                  np.zeros(n, dtype=np.int64)))
        transfer = ("awf", "awf", "awf")
        schedules = {location: _compare(sites, ["fcfs"] * 3,
                                        Exchange("debt", transfer=transfer, location=location),
                                        Policy("exchange", transfer, location))
                     for location in ("debt", "fixed")}
        differs += schedules["debt"].site.tolist() != schedules["fixed"].site.tolist()
    assert differs > 0


def test_the_guard_decides_as_awf_beyond_a_rulebases_ranges():
    """Site 0 keeps every job by its rulebase (one rule, NWP, its range narrowed to [0, 0.5]); four
    jobs of all its 4 processors arrive at 0-3 s. By the rules (the dissertation) all four stay.
    With the guard (``outside_range="awf"``) the third arrives at NWP 1, beyond 0.5: AWF, and it
    does not fit, so site 1 (AWF) takes it; the fourth, also beyond, finds site 1 full and stays.
    The twin agrees in both cases."""
    four = np.full(4, 4, dtype=np.int64)
    sites = [Workload("s0", 4, np.arange(4, dtype=np.int64), 1000 + 0 * four, four, 1000 + 0 * four,
                      np.arange(4), 0 * four),
             Workload("s1", 4, np.array([100_000]), np.ones(1, dtype=np.int64), np.ones(1, dtype=np.int64),
                      np.ones(1, dtype=np.int64), np.arange(1), np.zeros(1, dtype=np.int64))]
    keep = Rulebase.constant(True, ["NWP"])
    narrow = Rulebase(keep.features, np.array([[0.0, 0.5]]), keep.centers, keep.widths, keep.consequents)
    jobs = GridJobs.merge(sites)
    rules = [(c, w, b) for c, w, b in zip(keep.centers.tolist(), keep.widths.tolist(),
                                           keep.consequents.tolist(), strict=True)]
    where = {}
    for outside in ("rules", "awf"):
        schedule = simulate_grid(jobs, "fcfs", FuzzyPolicy({0: narrow}, outside_range=outside).exchange(jobs))
        where[outside] = schedule.site.tolist()
        bounds = {(0, 1): [(0.0, 0.5)]} if outside == "awf" else {}
        ref = _reference(sites, jobs, ["fcfs"] * 2, Policy("exchange", ("rulebase", "awf"), "fixed",
                                                           {(0, 1): (["NWP"], rules)}, bounds=bounds))
        assert (schedule.start.tolist(), where[outside]) == (ref[0], ref[1])
    assert where == {"rules": [0, 0, 0, 0, 1], "awf": [0, 0, 1, 0, 1]}
    with pytest.raises(ScenarioError, match="outside_range"):
        FuzzyPolicy({0: narrow}, outside_range="decline").exchange(jobs)


OVERLOADED = {
    "awf-fixed": Exchange("awf", transfer=("awf", "awf"), location="fixed"),
    "awf-least-load": Exchange("awf", transfer=("awf", "awf"), location="least-load"),
    "awf-olb": Exchange("awf", transfer=("awf", "awf"), location="olb"),
    "pool-first": Exchange("pool", scheme="pool", pool_arrivals="first"),
    "pool-queued": Exchange("pool", scheme="pool", pool_arrivals="queued"),
    "aa-queue": Exchange("aa", scheme="active", active_take="queue"),
    "aa-fits": Exchange("aa", scheme="active", active_take="fits"),
}


@pytest.mark.parametrize("lrms", ["easy", "list"])
@pytest.mark.parametrize("strategy", list(OVERLOADED))
def test_indexed_queues_under_overload_give_the_plain_schedule(lrms, strategy):
    """Two sites at 2.5 times their capacity exchanging jobs (AWF), sharing a pool or taking each
    other's jobs (the active request): the queues grow past the default span, from which they are
    indexed, and the schedule is the one without the index; so are a run stopped at an AWRT limit
    and its bounds."""
    logs = [synthetic_workload(2500, 64, load=2.5, seed=seed) for seed in (7, 8)]
    jobs = GridJobs.merge([replace(w, name=f"s{i}") for i, w in enumerate(logs)])
    exchange = OVERLOADED[strategy]
    plain = simulate_grid(jobs, lrms, exchange, index_span=10**9)
    indexed = simulate_grid(jobs, lrms, exchange)
    # From a span of 1 on: the active request's moves use rows up, which are compacted.
    always = simulate_grid(jobs, lrms, exchange, index_span=1)
    waiting = ((jobs.submit[None, :] <= jobs.submit[:, None]) & (plain.start[None, :] > jobs.submit[:, None]))
    if exchange.scheme != "pool":  # each site's own queue (under the active request, its last one)
        waiting = [(waiting & (plain.site[None, :] == k)).sum(axis=1) for k in range(2)]
    else:  # the pool
        waiting = waiting.sum(axis=1)
    assert np.max(waiting) > queue_index.SPAN
    assert (plain.moves > 0).sum() > 100
    assert plain.start.tolist() == indexed.start.tolist() == always.start.tolist()
    assert plain.site.tolist() == indexed.site.tolist() == always.site.tolist()
    # Stopped early at an AWRT limit a fifth of the worst site's: the same stop, the same bounds.
    cutoff = 0.2 * float(plain.awrt().max())
    stopped = [simulate_grid(jobs, lrms, exchange, awrt_cutoff=cutoff, index_span=span)
               for span in (10**9, 1)]
    assert stopped[0].stopped_bounds is not None
    assert stopped[0].stopped_bounds.tolist() == stopped[1].stopped_bounds.tolist()
    assert stopped[0].start.tolist() == stopped[1].start.tolist()
