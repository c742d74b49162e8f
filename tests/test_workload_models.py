"""The Lublin-Feitelson job model and Tsafrir's estimate model (docs/workload_models.md) against the
moments their published parameters imply, and their SWF logs through simulate and train."""

import math

import numpy as np
import pytest
from scipy import stats

from evogrid.cli import main
from evogrid.workload import load_swf
from evogrid.workload.generate import write_model_log
from evogrid.workload.lublin import (
    BATCH,
    BATCH_CODE,
    BUCKETS,
    INTERACTIVE,
    INTERACTIVE_CODE,
    MAX_LOG_RUN_TIME,
    SECONDS_PER_BUCKET,
    bucket_weights,
    lublin99,
)
from evogrid.workload.tsafrir import HEAD, HEAD_SHARE, JOINT, distinct_values, head_times, tsafrir05

PARAMS = {INTERACTIVE_CODE: INTERACTIVE, BATCH_CODE: BATCH}


def truncated_mean(shape: float, scale: float) -> float:
    return float(stats.gamma(shape, scale=scale).expect(lambda x: x, ub=MAX_LOG_RUN_TIME, conditional=True))


@pytest.fixture(scope="module")
def jobs():
    return lublin99(40_000, 128, seed=7)


def test_jobs_are_valid_and_seeded(jobs):
    assert np.all(np.diff(jobs.submit) >= 0) and jobs.submit[0] >= 0
    assert jobs.procs.min() >= 1 and jobs.procs.max() <= 128
    assert jobs.run_time.min() >= 1 and jobs.run_time.max() <= math.exp(MAX_LOG_RUN_TIME)
    again = lublin99(40_000, 128, seed=7)
    assert all(np.array_equal(getattr(jobs, f), getattr(again, f)) for f in ("submit", "procs", "run_time"))
    assert not np.array_equal(lublin99(1000, 128, seed=8).run_time, jobs.run_time[:1000])
    wide = lublin99(5000, 1024, seed=7)
    assert wide.procs.max() <= 1024 and wide.procs.mean() > 4 * lublin99(5000, 128, seed=7).procs.mean()


@pytest.mark.parametrize("code", [INTERACTIVE_CODE, BATCH_CODE])
def test_serial_share_is_the_published_probability(jobs, code):
    p = PARAMS[code].serial
    mine = jobs.job_class == code
    n = int(mine.sum())
    assert n > 3000
    assert abs(float((jobs.procs[mine] == 1).mean()) - p) < 4 * math.sqrt(p * (1 - p) / n)


@pytest.mark.parametrize("code", [INTERACTIVE_CODE, BATCH_CODE])
def test_log_run_time_of_serial_jobs_is_the_hyper_gamma_mean(jobs, code):
    """For one processor the first gamma has weight p = pa + pb: E[ln r] = p E[g1] + (1-p) E[g2], each
    gamma's mean below 12 (the model draws again above; for batch jobs this moves E[ln r] by -0.036)."""
    c = PARAMS[code]
    p = min(max(c.pa + c.pb, 0.0), 1.0)
    expected = p * truncated_mean(c.a1, c.b1) + (1 - p) * truncated_mean(c.a2, c.b2)
    log_r = np.log(jobs.run_time[(jobs.job_class == code) & (jobs.procs == 1)] + 0.5)  # + 0.5: undo the floor
    assert abs(log_r.mean() - expected) < 4 * log_r.std() / math.sqrt(log_r.size) + 0.01


@pytest.mark.parametrize("code", [INTERACTIVE_CODE, BATCH_CODE])
def test_arrivals_follow_the_daily_cycle(code):
    """Time passes through a bucket at the cost of its weight, so each half-hour's share of
    arrivals is its weight's share of the day (arrivals come in bursts: a large sample)."""
    weights = bucket_weights(PARAMS[code])
    assert weights.shape == (BUCKETS,) and math.isclose(weights.mean(), 1.0)
    jobs = lublin99(200_000, 128, seed=11)
    submit = jobs.submit[jobs.job_class == code]
    share = np.bincount((submit % 86_400) // SECONDS_PER_BUCKET, minlength=BUCKETS) / submit.size
    expected = weights / weights.sum()
    assert 0.5 * np.abs(share - expected).sum() < 0.06
    assert np.corrcoef(share, expected)[0, 1] > 0.95


def test_estimates_cover_run_times_and_have_the_published_shape(jobs):
    """Every estimate covers its run time; the number of distinct values follows the fitted line;
    the 20 most popular values take 89 % of the jobs; the maximum is the most popular."""
    max_estimate = 48 * 3600
    est = tsafrir05(jobs.run_time, max_estimate, seed=3)
    assert np.all(est.estimate >= est.run_time) and est.cut == int((jobs.run_time > max_estimate).sum())
    assert sum(est.histogram.values()) == jobs.run_time.size
    assert len(est.histogram) == distinct_values(jobs.run_time.size) == 215
    ranked = sorted(est.histogram.items(), key=lambda kv: -kv[1])
    assert ranked[0][0] == max_estimate
    assert abs(100 * sum(n for _, n in ranked[:HEAD]) / jobs.run_time.size - HEAD_SHARE) < 0.5
    assert set(JOINT) <= set(head_times(max_estimate)) == {t for t, _ in ranked[:HEAD]}
    counts = np.bincount(np.searchsorted(sorted(est.histogram), est.estimate), minlength=len(est.histogram))
    assert counts.tolist() == [est.histogram[t] for t in sorted(est.histogram)]
    assert np.array_equal(tsafrir05(jobs.run_time, max_estimate, seed=3).estimate, est.estimate)


def test_the_model_log_reads_back_and_runs_through_simulate_and_train(tmp_path, capsys):
    logs = [write_model_log(tmp_path / f"{name}.swf", 3000, procs, seed=seed)
            for name, procs, seed in (("a", 64, 1), ("b", 128, 2))]
    back = load_swf(logs[0].path)
    jobs = lublin99(3000, 64, seed=1)
    assert back.n_jobs == 3000 and not back.dropped and back.machine_procs == 64
    assert np.array_equal(back.procs, jobs.procs) and np.array_equal(back.submit, jobs.submit)
    assert np.all(back.estimate >= back.run_time)
    scenario = f"{logs[0].path}+{logs[1].path}"
    for argv in (["simulate", scenario, "--json"],
                 ["train", scenario, "--generations", "1", "--mu", "1", "--lambda", "2", "--workers", "1",
                  "--backend", "serial", "--out", str(tmp_path / "run")]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 0, capsys.readouterr().err
    assert (tmp_path / "run" / "summary.json").is_file()
