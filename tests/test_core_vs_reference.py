"""The compiled core against the pure-Python reference on random workloads."""

import numpy as np
import pytest
from draws import int_list
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from invariants import check_schedule, conservative_violations
from reference_sim import reference_start_times

from evogrid.sim import core, queue_index
from evogrid.sim.lrms import lrms_code
from evogrid.sim.schedule import GridJobs, simulate_local
from evogrid.workload import synthetic_workload
from evogrid.workload.model import Workload

EXAMPLES = 2000


@st.composite
def workloads(draw, max_jobs=30):
    m = draw(st.integers(1, 16))
    n = draw(st.integers(1, max_jobs))
    # Small time ranges make simultaneous arrivals and ends (ties) common.
    submit = sorted(draw(int_list(n, 0, 40)))
    run_time = draw(int_list(n, 0, 25))  # 0: kept zero-length jobs
    slack = draw(int_list(n, 0, 15))
    procs = draw(int_list(n, 1, m))
    arr = lambda xs: np.array(xs, dtype=np.int64)  # noqa: E731
    return Workload(
        name="random",
        machine_procs=m,
        submit=arr(submit),
        run_time=arr(run_time),
        procs=arr(procs),
        estimate=arr(run_time) + arr(slack),
        job_id=np.arange(n, dtype=np.int64),
        user=np.zeros(n, dtype=np.int64),
    )


def _check(w: Workload, lrms: str) -> None:
    schedule = simulate_local([w], lrms)
    check_schedule(schedule)
    expected = reference_start_times(
        w.submit.tolist(), w.run_time.tolist(), w.procs.tolist(), w.estimate.tolist(),
        w.machine_procs, lrms,
    )
    assert schedule.start.tolist() == expected


@pytest.mark.parametrize("lrms", ["fcfs", "easy", "list", "conservative", "sjf", "easy-sjf"])
def test_core_equals_reference(lrms):
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
    @given(workloads())
    def run(w):
        _check(w, lrms)

    run()


def _violations(w: Workload, lrms: str) -> list:
    start = simulate_local([w], lrms).start.tolist()
    return conservative_violations(w.machine_procs, w.submit.tolist(), w.run_time.tolist(), w.procs.tolist(),
                                   w.estimate.tolist(), start)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(workloads(max_jobs=20))
def test_conservative_backfilling_delays_no_earlier_job(w):
    """No job started at t delays the reservation of a job queued ahead of it (checked by
    brute force on the compiled schedule; zero-length jobs excluded, see the checker)."""
    w.run_time[w.run_time == 0] = 1
    w.estimate[:] = np.maximum(w.estimate, w.run_time)
    assert _violations(w, "conservative") == []


def test_the_conservative_promise_check_can_fail():
    """EASY protects only the head's reservation: on random workloads it breaks the promise."""
    broken = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        n, m = 25, 8
        run = rng.integers(1, 30, n)
        w = Workload("random", m, np.sort(rng.integers(0, 40, n)), run, rng.integers(1, m + 1, n),
                     run + rng.integers(0, 20, n), np.arange(n), np.zeros(n, dtype=np.int64))
        broken += bool(_violations(w, "easy"))
        assert _violations(w, "conservative") == []
    assert broken > 0


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(workloads(max_jobs=15), min_size=2, max_size=4), st.data())
def test_sites_without_exchange_are_independent(sites, data):
    """K sites in one event loop, local strategy = each site simulated alone."""
    lrms = [data.draw(st.sampled_from(["fcfs", "easy", "list", "conservative"])) for _ in sites]
    grid = simulate_local(sites, lrms)
    check_schedule(grid)
    for k, w in enumerate(sites):
        alone = simulate_local([w], lrms[k])
        mine = grid.jobs.origin == k
        order = np.argsort(grid.jobs.index[mine])
        assert grid.start[mine][order].tolist() == alone.start.tolist()


def test_easy_extra_only_shrinks_for_jobs_that_outlast_the_shadow():
    """Hand-made case, m = 10, all waiting jobs seen in one pass at t = 5.

    J0 (6 procs, est 100) and J1 (4 procs, 5 s) start at 0. H (8 procs), A
    (2 procs, 3 s) and B (2 procs, 200 s) queue at t = 1. At t = 5 J1 ends:
    H's shadow is T = 100 with extra = 2. A ends before T, so it starts
    without using extra; B runs past T and takes the 2 extra processors. Had
    A used up extra, B would wait.
    """
    arr = lambda xs: np.array(xs, dtype=np.int64)  # noqa: E731
    w = Workload(
        "hand", 10, submit=arr([0, 0, 1, 1, 1]), run_time=arr([100, 5, 10, 3, 200]),
        procs=arr([6, 4, 8, 2, 2]), estimate=arr([100, 5, 10, 3, 200]),
        job_id=arr([1, 2, 3, 4, 5]), user=arr([0] * 5),
    )
    assert simulate_local([w], "easy").start.tolist() == [0, 0, 100, 5, 5]


def _indexed_starts(w: Workload, lrms: str, index_span: int) -> list:
    jobs = GridJobs.merge([w])
    codes = np.full(1, lrms_code(lrms), dtype=np.int64)
    return core.run_local(jobs.packed, jobs.machine_procs, codes, index_span=index_span)[0].tolist()


@pytest.mark.parametrize("lrms", ["easy", "list"])
def test_indexed_queue_equals_reference(lrms):
    """The queue index (evogrid.sim.queue_index) on long queues: kept from a span of 1-32 positions
    on, so that it is built, read, dropped and built again within one run."""
    @settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
    @given(workloads(max_jobs=150), st.sampled_from([1, 2, 3, 8, 32]))
    def run(w, index_span):
        expected = reference_start_times(
            w.submit.tolist(), w.run_time.tolist(), w.procs.tolist(), w.estimate.tolist(),
            w.machine_procs, lrms,
        )
        assert _indexed_starts(w, lrms, index_span) == expected

    run()


@pytest.mark.parametrize("lrms", ["easy", "list"])
def test_indexed_queue_under_overload_equals_reference(lrms):
    """A site at 2.5 times its capacity: the waiting queue grows past the default span, from which the
    index is kept."""
    w = synthetic_workload(3000, 64, load=2.5, seed=7)
    expected = reference_start_times(w.submit.tolist(), w.run_time.tolist(), w.procs.tolist(),
                                     w.estimate.tolist(), w.machine_procs, lrms)
    start = np.array(expected)
    waiting = (w.submit[None, :] <= w.submit[:, None]) & (start[None, :] > w.submit[:, None])
    assert waiting.sum(axis=1).max() > queue_index.SPAN
    assert _indexed_starts(w, lrms, queue_index.SPAN) == expected


def test_a_run_stopped_at_the_cutoff_is_the_same_with_the_index():
    """The AWRT cutoff stops the indexed loop as the plain one: same starts and the same bounds."""
    w = synthetic_workload(20_000, 64, load=1.5, seed=3)
    jobs = GridJobs.merge([w])
    codes = np.full(1, lrms_code("easy"), dtype=np.int64)
    plain = core.run_local(jobs.packed, jobs.machine_procs, codes, cutoff=50_000.0, index_span=10**9)
    indexed = core.run_local(jobs.packed, jobs.machine_procs, codes, cutoff=50_000.0, index_span=1)
    assert (plain[0] < 0).sum() > 1000 and plain[1].size == 1  # it did stop early
    assert plain[0].tolist() == indexed[0].tolist()
    assert plain[1].tolist() == indexed[1].tolist()
