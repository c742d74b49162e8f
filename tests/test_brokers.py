"""Heterogeneous scenarios end to end: TOML speeds, attributes and requirements, brokers, learned rankings,
the ranking Pareto front."""

import json

import numpy as np
import pytest
from invariants import check_schedule
from test_cli import assert_one_line_error, run

from evogrid.errors import ScenarioError
from evogrid.optimize import Evaluator, ParetoConfig, TrainConfig, run_pareto, run_training
from evogrid.policy.rulebase import Rulebase
from evogrid.policy.strategies import Broker, simulate
from evogrid.sim.metrics import load_imbalance
from evogrid.sim.scenario import Scenario

SITES = """
lrms = "easy"
[[sites]]
window = "KTH@0-1"
speed = 4.0
attributes = { arch = "x86", mem = "high" }
[[sites]]
window = "SDSC03@0-1"
speed = 2.0
attributes = { arch = "x86" }
[[sites]]
window = "HPC2N@0-1"
attributes = { arch = "arm" }
"""
REQUIREMENTS = """
[[requirements]]
attribute = "arch"
value = "x86"
share = 0.5
[[requirements]]
attribute = "mem"
value = "high"
share = 0.3
kind = "preferred"
seed = 4
"""


@pytest.fixture
def grid421(tmp_path):
    path = tmp_path / "g.toml"
    path.write_text(SITES + REQUIREMENTS)
    return path


def test_toml_sites_reach_the_loop_and_requirements_hold(grid421):
    scenario = Scenario.from_spec(str(grid421))
    assert scenario.sites.speed == (4.0, 2.0, 1.0)
    jobs = scenario.grid_jobs()
    speed, tags, hard, preferred = jobs.site_arrays
    assert tags.tolist() == [0b011, 0b001, 0b100]  # bits arch=x86, mem=high, arch=arm: order of appearance
    assert set(np.unique(hard[jobs.origin == 2])) == {0}  # HPC2N lacks arch=x86: none of its jobs needs it
    assert 0.4 < (hard[jobs.origin < 2] > 0).mean() < 0.6
    assert 0.25 < (preferred > 0).mean() < 0.35
    res = simulate(scenario, Broker("mct"))
    schedule = res.schedule
    check_schedule(schedule)  # also: every moved job's site holds its requirements, run times scaled
    needs_x86 = hard > 0
    assert (schedule.site[needs_x86] != 2).all() and (schedule.moves > 0).any()
    fast = (schedule.site == 0) & (jobs.origin == 2)
    assert (schedule.run_time[fast] <= np.ceil(jobs.run_time[fast] / 4)).all()
    assert 0 <= load_imbalance(schedule) <= 1


@pytest.mark.parametrize(("text", "message"), [
    ('[[sites]]\nwindow = "KTH@0-1"\nspeed = 0', "sites.0.speed"),
    (SITES + '[[requirements]]\nattribute = "arch"\nvalue = "sparc"\nshare = 0.1',
     "requirement arch=sparc: no site has it"),
    (SITES + '[[requirements]]\nattribute = "arch"\nvalue = "x86"\nshare = 0.1\nkind = "must"',
     "kind 'must', expected hard or preferred"),
])
def test_bad_sites_are_one_line_errors_naming_the_file(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ScenarioError, match=message) as err:
        Scenario.from_spec(str(path))
    assert str(path) in str(err.value) and "\n" not in str(err.value)


def test_pool_refuses_speeds_with_a_clear_error(grid421, capsys):
    code, _, err = run(capsys, "simulate", str(grid421), "--strategy", "pool")
    assert_one_line_error(code, err, "exchange scheme only")


def test_cli_broker_and_rank_strategy(grid421, tmp_path, capsys):
    code, out, _ = run(capsys, "simulate", str(grid421), "--strategy", "broker", "--location", "mct",
                       "--json")
    assert code == 0
    mct = json.loads(out)
    assert mct["strategy"] == "broker-mct" and len(mct["sites"]) == 3
    Rulebase.random(3, ["WAIT_HOURS", "EST_HOURS", "SPEED"], seed=2).save(tmp_path / "rank.json")
    code, out, _ = run(capsys, "simulate", str(grid421), "--strategy", "broker", "--location", "rank",
                       "--rulebase", f"0={tmp_path / 'rank.json'}", "--json")
    assert code == 0 and json.loads(out)["strategy"] == "broker-rank"
    code, _, err = run(capsys, "simulate", str(grid421), "--strategy", "broker", "--location", "fixed")
    assert_one_line_error(code, err, "a broker needs a location policy that ranks every site")
    with pytest.raises(ScenarioError, match="^ranking rulebase of site 0: feature LEAD cannot inform"):
        simulate(Scenario.from_spec(str(grid421)), Broker("rank", {0: _rulebase(["QLEN", "LEAD"])}))


def _rulebase(features):
    return Rulebase.constant(True, features)


def test_rankings_train_by_coevolution_into_ranking_rulebases(grid421, tmp_path):
    config = TrainConfig(str(grid421), kind="coevolution", lrms="easy", decision="ranking", mu=3, lambda_=6,
                         generations=3, seed=1, features=["WAIT_HOURS", "EST_HOURS"], n_rules=3)
    with Evaluator("serial") as ev:
        result = run_training(config, tmp_path / "run", ev, progress=False)
    files = sorted((tmp_path / "run" / "rulebases").glob("*.json"))
    assert len(files) == 3
    rulebases = [Rulebase.load(f) for f in files]
    assert {rb.provenance["decision"] for rb in rulebases} == {"ranking"}
    assert all(rb.features == ("WAIT_HOURS", "EST_HOURS") for rb in rulebases)
    rows = [r for r in result["summary"] if r["window"] == "train"]
    assert len(rows) == 3 and all(r["policy_awrt"] > 0 for r in rows)
    with pytest.raises(Exception, match="expected ranking features"):
        TrainConfig(str(grid421), decision="ranking", features=["NWP", "QLEN", "BEFORE_NEXT"])


def test_ranking_front_has_the_imbalance_objective(grid421, tmp_path):
    config = ParetoConfig(str(grid421), mode="ranking", pop_size=4, generations=2, seed=3, n_rules=2,
                          limit=1e9)
    assert config.features == ["LOAD_AFTER", "NWP", "SPEED", "NJP"]
    with Evaluator("serial") as ev:
        result = run_pareto(config, tmp_path / "front", ev, plots=None)
    assert result["objectives"][-1] == "load imbalance"
    assert len(result["front"]) >= 1 and all(len(p) == 4 for p in result["front"])
    assert set(result["reference_points"]) >= {"local", "AWF", "broker-mct", "broker-max-min"}
    header = (tmp_path / "front" / "front.csv").read_text().splitlines()[0]
    assert header.endswith(",load_imbalance")


def test_cli_trains_one_sites_ranking_by_efs(grid421, tmp_path, capsys):
    code, out, _ = run(capsys, "train", str(grid421), "--policy", "ranking", "--site", "1", "--lrms", "easy",
                       "--mu", "2", "--lambda", "4", "--generations", "2", "--rules", "2",
                       "--backend", "serial", "--workers", "1", "--out", str(tmp_path / "efs"))
    assert code == 0, out
    (file,) = (tmp_path / "efs" / "rulebases").glob("*.json")
    rb = Rulebase.load(file)
    assert rb.provenance["site"] == "SDSC03@0-1" and rb.provenance["decision"] == "ranking"
    assert rb.features == ("LOAD_AFTER", "NWP", "SPEED", "NJP")


def test_site_awrt_plot_draws_grouped_bars(tmp_path):
    from evogrid.plots import site_awrt_plot

    path = site_awrt_plot(tmp_path / "bars.png", ["a", "b"], {"local": ([3.0, 2.0], [0.0, 0.0]),
                                                             "learned": ([1.0, 1.5], [0.2, 0.1])}, "t")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
