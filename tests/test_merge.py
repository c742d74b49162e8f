"""Meltzer's merging of small jobs (evogrid.workload.merge) against a job-by-job twin, and in scenarios."""

from pathlib import Path

import numpy as np
from draws import int_list
from hypothesis import given, settings
from hypothesis import strategies as st

from evogrid.sim.booking import reservation_setup
from evogrid.sim.scenario import Scenario
from evogrid.workload.merge import merge_small_jobs
from evogrid.workload.model import Workload


def merged_twin(jobs, below=128, within=3600):
    """Job by job: a job joins the open run if both are small, the estimates match, it came within
    ``within`` s of the run's first job and the run stays small; else it opens a run of its own."""
    runs = []
    for submit, run, procs, estimate in jobs:
        last = runs[-1] if runs else None
        if (last is not None and procs < below and last["procs"] + procs < below
                and last["estimate"] == estimate and submit - last["first"] <= within):
            last.update(procs=last["procs"] + procs, run=max(last["run"], run), submit=submit)
        else:
            runs.append({"first": submit, "submit": submit, "run": run, "procs": procs, "estimate": estimate})
    return [(r["submit"], r["run"], r["procs"], r["estimate"]) for r in runs]


@st.composite
def small_jobs(draw):
    n = draw(st.integers(1, 40))
    gaps = draw(int_list(n, 0, 255))
    submit = np.cumsum([g * 60 for g in gaps])  # 0-4 h apart: some runs cross the hour
    procs = [p * 16 for p in draw(int_list(n, 1, 12))]  # 16-192: small, large, and sums that cross 128
    estimate = [e * 1800 for e in draw(int_list(n, 1, 3))]  # few estimates: runs happen
    run = [min(r * 600, e) for r, e in zip(draw(int_list(n, 1, 6)), estimate, strict=True)]
    arr = lambda xs: np.asarray(xs, dtype=np.int64)  # noqa: E731
    return Workload("random", 256, arr(submit), arr(run), arr(procs), arr(estimate), np.arange(n),
                    np.zeros(n, dtype=np.int64))


@settings(max_examples=1000, deadline=None)
@given(small_jobs())
def test_merge_equals_its_twin_and_keeps_every_processor(w):
    m = merge_small_jobs(w)
    want = merged_twin(zip(w.submit.tolist(), w.run_time.tolist(), w.procs.tolist(), w.estimate.tolist(),
                           strict=True))
    assert list(zip(m.submit.tolist(), m.run_time.tolist(), m.procs.tolist(), m.estimate.tolist(),
                    strict=True)) == want
    assert m.procs.sum() == w.procs.sum()  # nothing lost
    assert m.n_jobs + m.dropped.get("merged_small_jobs", 0) == w.n_jobs  # every merged job counted
    assert (np.diff(m.submit) >= 0).all()
    assert set(m.job_id.tolist()) <= set(w.job_id.tolist())


def test_a_scenario_merges_its_sites_small_jobs(tmp_path):
    toml = tmp_path / "merged.toml"
    toml.write_text('name = "m"\nlrms = "easy"\n[[sites]]\nwindow = "SDSC03@d14-28"\nprocs = 1160\n'
                    "[preprocessing]\nmerge_small_jobs = true\n")
    merged = Scenario.from_spec(str(toml)).workloads[0]
    plain = Scenario.from_spec("SDSC03@d14-28", procs=1160).workloads[0]
    assert merged.n_jobs + merged.dropped["merged_small_jobs"] == plain.n_jobs
    # 38 % on this window; Meltzer, on his: "etwa 30 Prozent"
    assert 0.3 < merged.dropped["merged_small_jobs"] / plain.n_jobs < 0.45
    assert merged.procs.sum() == plain.procs.sum()


def test_meltzers_configs_run_his_setting():
    """His merged jobs (6.2) at every site of meltzer4/7 and the test windows, and his shared draw
    (6.3) and the requests' jobs kept as batch jobs by default: the requests come from the merged
    jobs of the first site."""
    configs = Path(__file__).resolve().parents[1] / "experiments" / "configs"
    for name in ("meltzer4", "meltzer7", "meltzer7_test"):
        scenario = Scenario.from_spec(str(configs / f"{name}.toml"))
        assert all(w.dropped.get("merged_small_jobs", 0) > 0 for w in scenario.workloads), name
        assert scenario.reservations.meltzer_draw == "shared"
        assert scenario.reservations.meltzer_templates == "kept"
    first = scenario.workloads[0]
    workloads, requests, _ = reservation_setup(scenario)
    assert workloads[0] is first  # the requests' jobs stay batch jobs
    taken, same, _ = reservation_setup(scenario, meltzer_templates="taken")
    assert np.array_equal(same.source_job, requests.source_job)
    assert taken[0].n_jobs + requests.n_requests == first.n_jobs  # drawn from the merged jobs
