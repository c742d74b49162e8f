"""The dissertation's LANL96 (Tables 7.1 and 7.2) once jobs without a requested time are dropped
(docs/reproduction.md, "How the dissertation cut its logs")."""

import numpy as np
import pytest

from evogrid.sim.schedule import simulate_local
from evogrid.workload import Preprocessing
from evogrid.workload.traces import load_window


@pytest.fixture(scope="module")
def lanl96():
    return load_window("LANL96", Preprocessing(drop_unknown_estimate=True))


def test_the_filter_drops_and_counts_the_jobs_without_an_estimate(lanl96):
    whole = load_window("LANL96")
    assert lanl96.n_jobs == 110_769  # Table 7.1's LANL96-24
    assert lanl96.dropped["estimate_unknown"] == whole.n_jobs - lanl96.n_jobs == 11_286
    assert load_window("CTC", Preprocessing(drop_unknown_estimate=True)).n_jobs == 77_199  # CTC-11


@pytest.mark.parametrize(("n_jobs", "lrms", "awrt", "c_max"), [
    (57_715, "fcfs", 13_886.61, 29_306_900),   # LANL96-11
    (67_043, "easy", 12_467.61, 33_802_986),   # LANL96-13
    (110_769, "list", 11_652.44, 62_292_428),  # LANL96-24
])
def test_lanl96_reproduces_table_7_2(lanl96, n_jobs, lrms, awrt, c_max):
    keep = np.zeros(lanl96.n_jobs, dtype=bool)
    keep[np.argsort(lanl96.submit, kind="stable")[:n_jobs]] = True
    schedule = simulate_local([lanl96.select(keep)], lrms)
    assert int(schedule.end.max()) == c_max
    assert schedule.metrics()[0]["awrt"] == pytest.approx(awrt, rel=5e-4)
