"""EFS over a TSK admission rulebase (evogrid.optimize.admission) and `evogrid train --policy admission`."""

import numpy as np
import pytest
from test_cli import assert_one_line_error, run
from test_pareto import RESERVATION_TOML

from evogrid.errors import EvogridError
from evogrid.optimize import Evaluator
from evogrid.optimize.admission import (
    RULEBASE_FILE,
    AdmissionConfig,
    AdmissionES,
    algorithm_objectives,
    resume_admission,
    rulebase_objectives,
    run_admission,
)
from evogrid.optimize.evaluator import ScenarioRef
from evogrid.optimize.rundir import csv_rows
from evogrid.policy.rulebase import Rulebase


def test_admission_run_resumes_exactly_and_its_rulebase_reproduces_the_summary(tmp_path):
    """Three one-week SDSC-BLUE sites with RW1 requests: a run killed after one generation and resumed
    ends with the uninterrupted run's rulebase and table; the saved rulebase, simulated again, gives
    the summary's learned row; the parents' best score never gets worse."""
    scenario = tmp_path / "res.toml"
    scenario.write_text(RESERVATION_TOML)
    config = AdmissionConfig(str(scenario), mu=3, lambda_=6, generations=3, seed=4, test=str(scenario))
    with Evaluator("serial") as ev:
        straight = run_admission(config, tmp_path / "straight", ev, progress=False, plots=None)
        first = run_admission(config, tmp_path / "killed", ev, progress=False, stop_after=1, plots=None)
        assert first == {"finished": False, "generation": 1}
        resumed = resume_admission(tmp_path / "killed", ev, progress=False, plots=None)
    assert resumed["summary"] == straight["summary"]
    saved = [Rulebase.load(tmp_path / run / RULEBASE_FILE).to_dict() for run in ("straight", "killed")]
    for rb in saved:  # when and where it was written may differ
        rb["provenance"].pop("created")
        rb["provenance"].pop("run", None)
    assert saved[0] == saved[1]
    rulebase = Rulebase.load(tmp_path / "straight" / RULEBASE_FILE)
    assert rulebase.provenance["decision"] == "admission"
    learned = [r for r in straight["summary"] if r["rule"] == "learned"]
    assert [r["window"] for r in learned] == ["train", "test"]
    optimizer = AdmissionES(config, Evaluator("serial"))
    failure, awrt = rulebase_objectives(config.ref, rulebase)
    assert (round(failure, 5), round(awrt, 2)) == (learned[0]["failure_rate"], learned[0]["batch_awrt"])
    assert optimizer.score(failure, awrt) == pytest.approx(rulebase.provenance["fitness_score"], abs=1e-6)
    best = [float(r["best_score_grid"]) for r in csv_rows(tmp_path / "straight" / "generations.csv")]
    assert best == sorted(best, reverse=True) and len(best) == 4


def test_score_is_relative_to_algorithm_3(tmp_path):
    """Algorithm 3 itself scores max(1, 1) + 2 augment; a rule that beats it on both scores less."""
    scenario = tmp_path / "res.toml"
    scenario.write_text(RESERVATION_TOML)
    config = AdmissionConfig(str(scenario))
    three = algorithm_objectives(ScenarioRef(str(scenario)), "backlog")
    optimizer = AdmissionES(config, Evaluator("serial"))
    assert optimizer.score(*three) == pytest.approx(1.0 + 2 * config.augment)
    assert optimizer.score(three[0] * 0.5, three[1] * 0.99) < 1.0 + 2 * config.augment
    assert optimizer.score(0.0, three[1] * 1.05) > 1.0 + 2 * config.augment  # never buys one with the other


def test_train_admission_cli(capsys, tmp_path):
    scenario = tmp_path / "res.toml"
    scenario.write_text(RESERVATION_TOML)
    out = tmp_path / "run"
    code, stdout, err = run(capsys, "train", str(scenario), "--policy", "admission", "--generations", "2",
                            "--mu", "2", "--lambda", "4", "--feature", "LEAD", "--feature", "BEFORE_NEXT",
                            "--backend", "serial", "--out", str(out))
    assert code == 0, err
    assert "learned" in stdout and "backlog" in stdout
    assert Rulebase.load(out / RULEBASE_FILE).features == ("LEAD", "BEFORE_NEXT")
    assert (out / "admission_train.png").stat().st_size > 10_000 and (out / "convergence.png").exists()
    code, _, err = run(capsys, "train", "--resume", str(out), "--backend", "serial")
    assert code == 0, err
    code, _, err = run(capsys, "train", str(scenario), "--policy", "admission", "--feature", "NJP",
                       "--backend", "serial", "--out", str(tmp_path / "bad"))
    assert_one_line_error(code, err, "feature NJP cannot inform admission decisions")
    with pytest.raises(EvogridError, match="--mu"):
        AdmissionConfig(str(scenario), mu=0)
    assert np.isfinite(algorithm_objectives(ScenarioRef(str(scenario)), "cpu-count")).all()


def test_several_request_draws_average_their_objectives(tmp_path):
    """With request seeds, a rulebase's objectives are the means over those draws of the requests."""
    scenario = tmp_path / "res.toml"
    scenario.write_text(RESERVATION_TOML)
    ref = ScenarioRef(str(scenario))
    rb = Rulebase.random(4, ["LEAD", "BEFORE_NEXT"], seed=3)
    one, two = (rulebase_objectives(ref, rb, "area", (s,)) for s in (5, 6))
    assert not np.allclose(one, two)  # the draws differ
    np.testing.assert_allclose(rulebase_objectives(ref, rb, "area", (5, 6)), (one + two) / 2)
    assert rulebase_objectives(ref, rb).tolist() == rulebase_objectives(ref, rb, "requests", (3,)).tolist()
