"""Metrics (docs/model.md, Metrics) on a schedule small enough to compute by hand."""

import numpy as np
import pytest

from evogrid.sim.metrics import busy_procs_over_time, grid_utilization, queue_length_over_time
from evogrid.sim.schedule import simulate_local
from evogrid.workload.model import Workload


def test_metrics_by_hand():
    arr = lambda xs: np.array(xs, dtype=np.int64)  # noqa: E731
    # m = 4, FCFS: A (4 procs, 10 s) at 0; B (2 procs, 5 s) submitted at 2
    # waits until 10; C (1 proc, 100 s) submitted at 3 waits behind B, starts 10.
    w = Workload("hand", 4, submit=arr([0, 2, 3]), run_time=arr([10, 5, 100]),
                 procs=arr([4, 2, 1]), estimate=arr([10, 5, 100]),
                 job_id=arr([1, 2, 3]), user=arr([0, 0, 0]))
    schedule = simulate_local([w], "fcfs")
    assert schedule.start.tolist() == [0, 10, 10]
    m = schedule.metrics()[0]
    sa = np.array([40.0, 10.0, 100.0])
    response = np.array([10.0, 13.0, 107.0])
    assert m["awrt"] == pytest.approx((sa * response).sum() / sa.sum())
    assert m["mean_wait"] == pytest.approx((0 + 8 + 7) / 3)
    assert m["mean_bsld"] == pytest.approx((1.0 + 13 / 10 + 107 / 100) / 3)
    assert m["max_wait"] == 8
    assert m["mean_xf"] == pytest.approx((10 / 10 + 13 / 5 + 107 / 100) / 3)
    assert m["makespan"] == 110
    assert m["utilization"] == pytest.approx(150 / (4 * 110))
    assert m["dsa"] == pytest.approx(1.0)
    assert grid_utilization(schedule) == pytest.approx(150 / (4 * 110))
    times, busy = busy_procs_over_time(schedule, 0)
    assert times.tolist() == [0, 10, 15, 110] and busy.tolist() == [4, 3, 1, 0]
    times, waiting = queue_length_over_time(schedule, 0)
    assert times.tolist() == [0, 2, 3, 10] and waiting.tolist() == [0, 1, 2, 0]


def test_grid_queue_length_and_moved_share_by_width_by_hand():
    """Two sites of 4 processors, AWF (a job a partner can start at once moves there): the waiting
    jobs of the whole grid over time, with and without the jobs that started on arrival, and the
    share of each site's own jobs per width class that ran elsewhere."""
    from evogrid.sim.metrics import moved_share_by_width
    from evogrid.sim.schedule import Exchange, simulate_grid

    arr = lambda xs: np.array(xs, dtype=np.int64)  # noqa: E731
    # Site 0: A (4 procs, 0-10) fills it; B (1 proc) at 1 moves to idle site 1; C (4 procs) at 2 fits
    # nowhere (site 1 has 3 free): it waits at home until 10. Site 1: D (2 procs) at 50 starts at once.
    w0 = Workload("a", 4, submit=arr([0, 1, 2]), run_time=arr([10, 5, 5]), procs=arr([4, 1, 4]),
                  estimate=arr([10, 5, 5]), job_id=arr([1, 2, 3]), user=arr([0, 0, 0]))
    w1 = Workload("b", 4, submit=arr([50]), run_time=arr([5]), procs=arr([2]), estimate=arr([5]),
                  job_id=arr([1]), user=arr([0]))
    schedule = simulate_grid([w0, w1], ("fcfs", "fcfs"), Exchange("awf", transfer=("awf", "awf")))
    assert schedule.site.tolist() == [0, 1, 0, 1] and schedule.start.tolist() == [0, 1, 10, 50]
    times, waiting = queue_length_over_time(schedule)
    assert times.tolist() == [0, 1, 2, 10, 50] and waiting.tolist() == [0, 0, 1, 0, 0]
    times, waiting = queue_length_over_time(schedule, waited_only=True)
    assert times.tolist() == [2, 10] and waiting.tolist() == [1, 0]
    shares = moved_share_by_width(schedule, (1, 2, 3, 5))  # classes 1, 2, 3-4
    np.testing.assert_array_equal(shares[0], [100.0, np.nan, 0.0])  # B moved; no 2-wide job; A, C stayed
    np.testing.assert_array_equal(shares[1], [np.nan, 0.0, np.nan])
