"""Advance reservations in the compiled loop against the pure-Python reference, and invariants."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from invariants import check_schedule
from reference_sim import Job, Request, simulate_reserved_reference
from test_core_vs_reference import workloads

from evogrid.errors import ScenarioError
from evogrid.sim.metrics import reservation_metrics
from evogrid.sim.schedule import simulate_local, simulate_with_reservations
from evogrid.workload.model import Workload
from evogrid.workload.reservations import Reservations

LRMS = ["fcfs", "easy", "list", "conservative"]


@st.composite
def requests(draw, m, max_requests=6):
    R = draw(st.integers(0, max_requests))
    rows = []
    for _ in range(R):
        submit = draw(st.integers(0, 40))
        earliest = submit + draw(st.integers(0, 30))
        duration = draw(st.integers(1, 20))
        deadline = earliest + duration + draw(st.integers(0, 30))
        rows.append((submit, earliest, deadline, duration, draw(st.integers(1, m + 1))))  # m + 1: never fits
    rows.sort()
    col = lambda i: np.array([r[i] for r in rows], dtype=np.int64)  # noqa: E731
    return Reservations("random", col(0), col(1), col(2), col(3), col(4)[:, None])


def _arrays(w, req):
    jobs = [Job(*row, 0) for row in zip(w.submit.tolist(), w.run_time.tolist(), w.procs.tolist(),
                                        w.estimate.tolist(), strict=True)]
    reqs = [Request(*row, 0) for row in zip(req.submit.tolist(), req.earliest_start.tolist(),
                                            req.deadline.tolist(), req.duration.tolist(),
                                            req.parts[:, 0].tolist(), strict=True)]
    return jobs, reqs


def _check_capacity_with_reservations(schedule, req, accepted):
    w = schedule.jobs
    m = int(w.machine_procs[0])
    ok = accepted >= 0
    assert (accepted[ok] >= req.earliest_start[ok]).all()
    assert (accepted[ok] >= req.submit[ok]).all()
    assert (accepted[ok] + req.duration[ok] <= req.deadline[ok]).all()
    times = np.concatenate([schedule.start, schedule.end, accepted[ok], accepted[ok] + req.duration[ok]])
    procs = np.concatenate([w.procs, -w.procs, req.parts[ok, 0], -req.parts[ok, 0]])
    order = np.lexsort((procs, times))  # releases first at equal times
    assert np.cumsum(procs[order]).max(initial=0) <= m, "batch jobs used reserved processors"


@pytest.mark.parametrize("admission", ["first-fit", "backlog"])
@pytest.mark.parametrize("lrms", LRMS)
def test_reservation_loop_equals_reference(lrms, admission):
    @settings(max_examples=1000, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.data())
    def run(data):
        w = data.draw(workloads(max_jobs=20))
        req = data.draw(requests(w.machine_procs))
        schedule, (accepted,) = simulate_with_reservations([w], lrms, [req], admission)
        check_schedule(schedule)
        _check_capacity_with_reservations(schedule, req, accepted)
        jobs, reqs = _arrays(w, req)
        acc = None
        if admission == "backlog":
            acc = [float((w.run_time * w.procs).sum() / max(1, (w.estimate * w.procs).sum()))]
        start, want = simulate_reserved_reference(jobs, [w.machine_procs], [lrms], reqs, acc)
        assert schedule.start.tolist() == start
        assert accepted.tolist() == want

    run()


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(workloads(max_jobs=25), st.sampled_from(LRMS))
def test_without_requests_every_lrms_keeps_its_schedule(w, lrms):
    """The profile passes of the reservation loop are the general form of each LRMS's rule.

    Except for one corner, excluded here: while a job with estimate 0 that
    started at t awaits its end at t, EASY's rule counts its processors free
    at T = t, the profile from t + 1 (docs/reservations.md).
    """
    w.estimate[:] = np.maximum(w.estimate, 1)
    schedule, _ = simulate_with_reservations([w], lrms, [None])
    assert schedule.start.tolist() == simulate_local([w], lrms).start.tolist()


def test_a_reservation_delays_the_batch_job_that_would_overlap_it():
    """m = 4. A request at t = 0 books 4 processors for [10, 20); a 2-processor job of 15 s
    (estimate 15) submitted at 5 would overlap it, so it waits until 20. A 1-second job fits
    before 10 and runs at once."""
    arr = lambda xs: np.array(xs, dtype=np.int64)  # noqa: E731
    w = Workload("hand", 4, arr([5, 6]), arr([15, 1]), arr([2, 2]), arr([15, 1]), arr([0, 1]), arr([0, 0]))
    req = Reservations("one", arr([0]), arr([10]), arr([30]), arr([10]), arr([[4]]))
    for lrms in ("easy", "conservative", "list"):
        schedule, (accepted,) = simulate_with_reservations([w], lrms, [req])
        assert accepted.tolist() == [10]
        assert schedule.start.tolist() == [20, 6]
    schedule, (accepted,) = simulate_with_reservations([w], "fcfs", [req])
    assert schedule.start.tolist() == [20, 20]  # FCFS: the second waits behind the first
    # A second request made at 8 for [10, 20) finds no room there (deadline 25): refused.
    # The first was made at 0 with nobody waiting: nothing to be unfair to.
    two = Reservations("two", arr([0, 8]), arr([10, 10]), arr([30, 25]), arr([10, 10]), arr([[4], [1]]))
    schedule, (accepted,) = simulate_with_reservations([w], "easy", [two])
    assert accepted.tolist() == [10, -1]
    m = reservation_metrics(schedule, 0, two, accepted)
    assert m == {"requests": 2, "failure_rate": 0.5, "mean_relative_start": 0.0, "unfairness": 0.0}


def test_unfairness_counts_jobs_a_reservation_overtakes():
    """m = 2. A 2-processor job runs [0, 10); B (2 procs) waits from 1. A request made at 2
    for [10, 15) overtakes B, which then starts at 15: unfairness 1. With the backlog rule
    (acc = 1: backlog = (10 * 2 + 5 * 2) / 2 = 15 s at t = 2) it is placed at 17, after B."""
    arr = lambda xs: np.array(xs, dtype=np.int64)  # noqa: E731
    w = Workload("hand", 2, arr([0, 1]), arr([10, 5]), arr([2, 2]), arr([10, 5]), arr([0, 1]), arr([0, 0]))
    req = Reservations("one", arr([2]), arr([10]), arr([40]), arr([5]), arr([[2]]))
    schedule, (accepted,) = simulate_with_reservations([w], "easy", [req])
    assert accepted.tolist() == [10] and schedule.start.tolist() == [0, 15]
    assert reservation_metrics(schedule, 0, req, accepted)["unfairness"] == 1.0
    schedule, (accepted,) = simulate_with_reservations([w], "easy", [req], "backlog")
    assert accepted.tolist() == [17] and schedule.start.tolist() == [0, 10]
    m = reservation_metrics(schedule, 0, req, accepted)
    assert m["unfairness"] == 0.0 and m["mean_relative_start"] == pytest.approx(7 / 25)


def test_bad_reservation_inputs():
    arr = lambda xs: np.array(xs, dtype=np.int64)  # noqa: E731
    w = Workload("hand", 4, arr([0]), arr([5]), arr([1]), arr([5]), arr([0]), arr([0]))
    with pytest.raises(ScenarioError, match="unknown LRMS 'mine'"):
        simulate_with_reservations([w], "mine", [None])
    two = Reservations("two", *(arr(v) for v in ([0], [0], [9], [5], [[1, 1]])))
    with pytest.raises(ScenarioError, match="two: only one-part requests"):
        simulate_with_reservations([w], "easy", [two])
    with pytest.raises(ScenarioError, match="unknown admission 'lottery'"):
        simulate_with_reservations([w], "easy", [None], "lottery")
    with pytest.raises(ScenarioError, match="one entry per site"):
        simulate_with_reservations([w], "easy", [])
    late = Workload("late", 4, arr([0]), arr([9]), arr([1]), arr([5]), arr([0]), arr([0]))
    with pytest.raises(ScenarioError, match="cut at their estimate"):
        simulate_with_reservations([late], "easy", [None])
