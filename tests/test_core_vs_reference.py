"""The compiled core against the pure-Python reference on random workloads."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from invariants import check_schedule
from reference_sim import reference_start_times

from evogrid.sim.schedule import simulate_local
from evogrid.workload.model import Workload

EXAMPLES = 2000


@st.composite
def workloads(draw, max_jobs=30):
    m = draw(st.integers(1, 16))
    n = draw(st.integers(1, max_jobs))
    # Small time ranges make simultaneous arrivals and ends (ties) common.
    submit = sorted(draw(st.lists(st.integers(0, 40), min_size=n, max_size=n)))
    run_time = draw(st.lists(st.integers(0, 25), min_size=n, max_size=n))  # 0: kept zero-length jobs
    slack = draw(st.lists(st.integers(0, 15), min_size=n, max_size=n))
    procs = draw(st.lists(st.integers(1, m), min_size=n, max_size=n))
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


@pytest.mark.parametrize("lrms", ["fcfs", "easy", "list"])
def test_core_equals_reference(lrms):
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
    @given(workloads())
    def run(w):
        _check(w, lrms)

    run()


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(workloads(max_jobs=15), min_size=2, max_size=4), st.data())
def test_sites_without_exchange_are_independent(sites, data):
    """K sites in one event loop, local strategy = each site simulated alone."""
    lrms = [data.draw(st.sampled_from(["fcfs", "easy", "list"])) for _ in sites]
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
