"""Single sites without exchange, against Lepping (2011), Tables 7.2 and 7.3.

Each row is checked twice: against the reference within the tolerances of
docs/reproduction.md, and against the values this implementation recorded there
(tight), so any change that moves a number is seen.
"""

import pytest
from invariants import check_schedule

from evogrid.sim.scenario import Scenario

# window, lrms, reference AWRT, U %, C_max, ours: jobs, AWRT, U %, C_max
ROWS = [
    ("KTH", "fcfs", 418_171.98, 68.67, 29_381_344, 28_481, 406_528.27, 68.70, 29_381_344),
    ("KTH", "easy", 75_157.63, 68.72, 29_363_626, 28_481, 75_631.24, 68.74, 29_363_626),
    ("KTH", "list", 80_459.27, 68.72, 29_363_626, 28_481, 80_463.17, 68.74, 29_363_626),
    ("SDSC03@0-11", "fcfs", 72_417.87, 68.58, 29_537_543, 63_278, 73_734.47, 68.65, 28_648_263),
    ("SDSC03@0-11", "easy", 50_772.48, 68.74, 29_471_588, 63_278, 50_934.68, 68.68, 28_635_767),
    ("KTH@0-5", "fcfs", 488_387.49, 64.84, 13_765_377, 11_775, 475_699.87, 64.89, 13_753_968),
    ("KTH@5-", "fcfs", 99_236.27, 68.52, 16_420_782, 16_706, 100_002.16, 68.57, 16_421_344),
    ("SDSC03@0-5", "fcfs", 83_718.68, 71.38, 13_021_659, 32_632, 84_780.99, 71.37, 13_021_659),
    ("SDSC03@5-11", "fcfs", 62_825.76, 66.14, 16_577_054, 30_646, 63_825.01, 66.12, 15_688_263),
    # The dissertation's other sites (Table 7.3); its "-6" is everything after day 150.
    ("CTC@0-5", "fcfs", 57_897.77, 63.74, 13_009_718, 35_361, 57_897.77, 63.75, 13_009_718),
    ("CTC@5-", "fcfs", 59_118.15, None, None, 41_844, 59_118.15, 67.05, 16_346_682),
    ("SDSC05@0-5", "fcfs", 56_925.10, 45.94, None, 28_185, 56_858.35, 45.98, 13_078_215),
    ("SDSC05@5-", "fcfs", 77_463.52, None, None, 56_708, 79_045.87, 70.27, 20_833_591),
    ("SDSC00@0-5", "fcfs", 67_717.23, None, None, 13_236, 67_924.05, 68.85, 13_001_177),
]
# the dissertation's SDSC00-6 as 30-day months 5 to 11 (SDSC00@5-11) misses the reference by -9.4 %:
# the window ends 9.5 days
# before the dissertation's cut, in an overloaded stretch; on the dissertation's cut the same
# row is within 0.07 % (tests/test_dissertation_windows.py). Recorded so a change is seen.
MISSES = [("SDSC00@5-11", "fcfs", 413_957.04, 15_481, 374_926.47, 72.90, 16_692_675)]
AWRT_TOLERANCE = {"fcfs": 0.05, "easy": 0.03, "list": 0.03}
# Windows that end after their log's last job: C_max must match. KTH@5-
# ("KTH-6") misses by 562 s (0.003 %), also on the dissertation's cut with its 16,699 jobs (its
# test months start 562 s after day 150); KTH@5- has 7 more
# jobs there, see docs/reproduction.md; its tolerance is 0.01 %.
CMAX_TOLERANCE = {"KTH": 0.0, "KTH@5-": 1e-4, "CTC@0-5": 0.0}


@pytest.fixture(scope="module")
def results():
    out = {}
    for window, lrms, *_ in ROWS + MISSES:
        schedule = Scenario.from_spec(window, lrms=lrms).simulate_local()
        check_schedule(schedule)
        out[window, lrms] = schedule.metrics()[0]
    return out


@pytest.mark.parametrize("row", ROWS, ids=[f"{r[0]}-{r[1]}" for r in ROWS])
def test_reference_row(results, row):
    window, lrms, ref_awrt, ref_u, ref_cmax, jobs, awrt, u, cmax = row
    got = results[window, lrms]
    assert abs(got["awrt"] - ref_awrt) / ref_awrt <= AWRT_TOLERANCE[lrms]
    if ref_u is not None:  # the dissertation gives U for some rows only
        assert abs(100 * got["utilization"] - ref_u) <= 1.5
    if window in CMAX_TOLERANCE:
        assert abs(got["makespan"] - ref_cmax) <= CMAX_TOLERANCE[window] * ref_cmax
    # Our recorded values (docs/reproduction.md): a change that moves them fails.
    assert got["jobs_submitted"] == jobs
    assert got["awrt"] == pytest.approx(awrt, abs=0.01)
    assert 100 * got["utilization"] == pytest.approx(u, abs=0.005)
    assert got["makespan"] == cmax


def test_kth_list_is_the_sharp_check(results):
    """The sharp check (docs/reproduction.md): KTH (the whole log; the dissertation's KTH-11) with LIST
    within 0.1 % of the reference AWRT."""
    assert abs(results["KTH", "list"]["awrt"] - 80_459.27) / 80_459.27 <= 0.001


@pytest.mark.parametrize("row", MISSES, ids=[f"{r[0]}-{r[1]}" for r in MISSES])
def test_recorded_miss(results, row):
    """A row the 30-day window cannot reproduce: our value is pinned, and the miss stays under 10 %."""
    window, lrms, ref_awrt, jobs, awrt, u, cmax = row
    got = results[window, lrms]
    assert abs(got["awrt"] - ref_awrt) / ref_awrt <= 0.10
    assert got["jobs_submitted"] == jobs
    assert got["awrt"] == pytest.approx(awrt, abs=0.01)
    assert 100 * got["utilization"] == pytest.approx(u, abs=0.005)
    assert got["makespan"] == cmax
