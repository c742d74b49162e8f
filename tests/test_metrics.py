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
