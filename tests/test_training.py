"""EFS and co-evolution: operators, determinism over backends, resume, the cutoff, end to end."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jobs_rows import awrt_from_jobs_file
from test_cli import assert_one_line_error, run

from evogrid.errors import EvogridError
from evogrid.optimize import Evaluator, TrainConfig, resume_training, run_training
from evogrid.optimize.es import worst_relative
from evogrid.optimize.genome import (
    INITIAL_STEP_FRACTION,
    init_individual,
    is_valid,
    mutate,
    recombine,
)
from evogrid.optimize.training import make_algorithm
from evogrid.policy.registry import feature_ranges
from evogrid.policy.rulebase import Rulebase, RulebaseError

TINY = "KTH@0-1+SDSC03@0-1"
TINY3 = "KTH@0-1+SDSC03@0-1+HPC2N@0-1"


def _tiny(kind="efs", **kw):
    settings_ = dict(mu=3, lambda_=6, generations=4, seed=1)
    settings_.update(kw)
    return TrainConfig(TINY3 if kind == "coevolution" else TINY, kind=kind, **settings_)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 12), st.sampled_from([("NWP", "NJP"), ("NWP",),
                                                                       ("NWP", "NJP", "UTIL")]),
       st.floats(0.0, 3.0), st.floats(0.0, 1.0))
def test_operators_keep_genomes_valid(seed, n_rules, features, beta, p_flip):
    rng = np.random.default_rng(seed)
    ranges = feature_ranges(features)
    parents = [init_individual(rng, n_rules, ranges) for _ in range(3)]
    for p in parents:
        assert is_valid(p.params, len(features))
        assert np.allclose(p.steps, (ranges[:, 1] - ranges[:, 0]) * INITIAL_STEP_FRACTION)
        lo, hi = ranges[:, 0], ranges[:, 1]
        assert ((p.params[:, : len(features)] >= lo) & (p.params[:, : len(features)] <= hi)).all()
    child = parents[0]
    for _ in range(30):
        child = recombine(rng, child, parents[int(rng.integers(3))])
        before = child.steps.copy()
        child = mutate(rng, child, ranges, beta, p_flip)
        assert is_valid(child.params, len(features))
        ratio = child.steps / before
        assert np.allclose(np.minimum(ratio, 1 / ratio), 1 / (1 + beta))  # Rechenberg's two-point rule
        Rulebase.from_arrays(child.params[:, : len(features)],
                             child.params[:, len(features) : 2 * len(features)],
                             child.params[:, 2 * len(features)], features)


def test_step_draw_one_scales_every_step_by_one_factor_and_per_feature_draws_each():
    rng = np.random.default_rng(0)
    ranges = feature_ranges(("NWP", "NJP", "UTIL"))
    distinct = {"one": set(), "per-feature": set()}
    for draw, seen in distinct.items():
        for _ in range(40):
            ind = init_individual(rng, 5, ranges)
            before = ind.steps.copy()
            ratio = mutate(rng, ind, ranges, 0.6, 0.0, step_draw=draw).steps / before
            assert np.allclose(np.minimum(ratio, 1 / ratio), 1 / 1.6)
            seen.add(len(np.unique(ratio.round(12))))
    assert distinct["one"] == {1}  # Eq. 3.3: o'_m = o_m * xi, one xi for the whole step vector
    assert distinct["per-feature"] == {1, 2}


def test_recombination_is_discrete_for_genes_and_intermediate_for_steps():
    rng = np.random.default_rng(0)
    ranges = feature_ranges(("NWP", "NJP"))
    a, b = init_individual(rng, 10, ranges), init_individual(rng, 10, ranges)
    b.steps = a.steps * 3
    child = recombine(rng, a, b)
    from_a, from_b = child.params == a.params, child.params == b.params
    assert (from_a | from_b).all() and from_a.any() and from_b.any()
    assert np.allclose(child.steps, 2 * a.steps)


def _result(out):
    rbs = {f.name: json.loads(f.read_text())["rules"] for f in sorted((out / "rulebases").glob("*.json"))}
    return rbs, json.loads((out / "summary.json").read_text())


def test_tiny_efs_improves_on_its_start_and_writes_a_run_directory(tmp_path):
    with Evaluator("serial") as ev:
        result = run_training(_tiny(), tmp_path / "run", ev, progress=False)
    rows = [r.split(",") for r in (tmp_path / "run" / "generations.csv").read_text().splitlines()]
    header, rows = rows[0], rows[1:]
    best = [float(r[header.index("best_awrt_KTH@0-1")]) for r in rows]
    assert [int(r[0]) for r in rows] == [0, 1, 2, 3, 4]
    assert best == sorted(best, reverse=True)  # plus-selection never loses the best
    assert best[-1] < best[0]
    rb = Rulebase.load(tmp_path / "run" / "rulebases" / "KTH@0-1_vs_SDSC03@0-1.json")
    assert rb.provenance["fitness_awrt"] == pytest.approx(best[-1], abs=0.01)
    assert rb.provenance["partner_m"] == 1152 and rb.provenance["optimizer"] == "es(3+6)"
    train = [r for r in result["summary"] if r["window"] == "train" and r["learned"]][0]
    assert train["policy_awrt"] == pytest.approx(best[-1], abs=0.01)
    for png in ("convergence.png", "improvement.png", "surface_KTH@0-1_vs_SDSC03@0-1.png"):
        assert (tmp_path / "run" / png).stat().st_size > 10_000


def test_cutoff_does_not_change_the_result(tmp_path):
    with Evaluator("serial") as ev:
        cut = run_training(_tiny(generations=6), tmp_path / "cut", ev, progress=False)
        full = run_training(_tiny(generations=6, cutoff=False), tmp_path / "full", ev, progress=False)
    assert cut["cut_off"] > 0 and full["cut_off"] == 0
    assert _result(tmp_path / "cut") == _result(tmp_path / "full")


@pytest.mark.parametrize("kind,optimizer", [("efs", "es"), ("efs", "cma"), ("coevolution", "es")])
def test_resume_after_a_kill_gives_the_same_result(tmp_path, kind, optimizer):
    config = _tiny(kind, optimizer=optimizer)
    with Evaluator("serial") as ev:
        run_training(config, tmp_path / "straight", ev, progress=False)
        first = run_training(config, tmp_path / "killed", ev, progress=False, stop_after=2)
        assert first == {"finished": False, "generation": 2}
        resume_training(tmp_path / "killed", ev, progress=False)
    assert _result(tmp_path / "killed") == _result(tmp_path / "straight")
    rows = (tmp_path / "killed" / "generations.csv").read_text().splitlines()
    assert [r.split(",")[0] for r in rows[1:]] == ["0", "1", "2", "3", "4"]


def test_coevolution_pairs_rank_by_rank_and_returns_the_smallest_sum(tmp_path):
    config = _tiny("coevolution", generations=2, pick="sum", archive=False)  # the published choice
    with Evaluator("serial") as ev:
        algorithm = make_algorithm(config, ev)
        state = algorithm.start()
        algorithm.step(state)
    assert len(state.pairings) == config.mu + config.lambda_  # one simulation per rank
    for species in state.species:
        values = [ind.value for ind in species]
        assert values == sorted(values) and len(species) == config.mu
    sums = [float(awrt.sum()) for _, awrt in state.pairings]
    best = algorithm.best(state)
    assert sorted(best) == [0, 1, 2]
    assert any(all(np.array_equal(best[k][0], params[k]) and best[k][1] == awrt[k] for k in range(3))
               and float(awrt.sum()) == min(sums) for params, awrt in state.pairings)


def test_coevolution_archive_and_shared_fitness(tmp_path):
    """The archive holds the best pairing by worst relative AWRT over every generation seen;
    with a shared fitness every member of a pairing has the same fitness."""
    seen = []
    with Evaluator("serial") as ev:
        algorithm = make_algorithm(_tiny("coevolution", pick="worst-relative", archive=True), ev)
        state = algorithm.start()
        seen += state.pairings
        for _ in range(2):
            algorithm.step(state)
            seen += state.pairings
        ratios = [float((awrt / algorithm.local_awrt).max()) for _, awrt in seen]
        best = algorithm.best(state)
        picked = np.array([best[k][1] for k in range(3)])
        assert float((picked / algorithm.local_awrt).max()) == min(ratios)
        assert min(ratios) <= min(float((a / algorithm.local_awrt).max()) for _, a in state.pairings)

        shared = make_algorithm(_tiny("coevolution", fitness="shared", generations=1), ev)
        state = shared.start()
        shared.step(state)
        scores = {worst_relative(awrt, shared.local_awrt) for _, awrt in state.pairings}
        for species in state.species:  # every member got its pairing's shared score
            assert all(ind.value in scores for ind in species)
    with pytest.raises(EvogridError, match="--pick"):
        _tiny("coevolution", pick="best")


def test_cli_train_coevolve_export_plot(tmp_path, capsys):
    out = tmp_path / "t"
    code, stdout, err = run(capsys, "train", TINY, "--generations", "2", "--mu", "2", "--lambda", "4",
                            "--backend", "serial", "--out", str(out), "--test", "KTH@1-2+SDSC03@1-2")
    assert code == 0, err
    assert "improvement" in stdout and "KTH@1-2" in stdout
    summary = json.loads((out / "summary.json").read_text())
    lrms = next(r["lrms"] for r in summary if r["window"] == "train")
    for window in ("train", "test"):  # the learned policy's schedules, at the training LRMS
        rows = [r for r in summary if r["window"] == window and r["lrms"] == lrms]
        assert awrt_from_jobs_file(out / f"jobs_{window}.csv", [r["site"] for r in rows]) == \
            pytest.approx([r["policy_awrt"] for r in rows], abs=0.01)
    code, stdout, err = run(capsys, "export", str(out), "--to", str(tmp_path / "shipped"), "--prefix", "x_")
    assert code == 0, err
    assert Rulebase.load(tmp_path / "shipped" / "x_KTH@0-1_vs_SDSC03@0-1.json").provenance["run"] == str(out)
    code, stdout, err = run(capsys, "plot", str(out))
    assert code == 0 and "convergence.png" in stdout, err
    code, stdout, err = run(capsys, "coevolve", TINY, "--generations", "1", "--mu", "2", "--lambda", "2",
                            "--feature", "NWP", "--feature", "NJP", "--feature", "UTIL",
                            "--backend", "serial", "--out", str(tmp_path / "c"))
    assert code == 0, err
    files = list((tmp_path / "c" / "rulebases").glob("*.json"))
    assert len(files) == 2 and Rulebase.load(files[0]).features == ("NWP", "NJP", "UTIL")
    code, _, err = run(capsys, "train", TINY, "--site", "7", "--backend", "serial",
                       "--out", str(tmp_path / "bad"))
    assert_one_line_error(code, err, "--site 7")
    code, _, err = run(capsys, "train", TINY, "--optimizer", "pso", "--backend", "serial")
    assert_one_line_error(code, err, "--optimizer pso")
    code, stdout, err = run(capsys, "coevolve", TINY, "--joint", "--pick", "worst-relative",
                            "--generations", "1", "--mu", "2", "--lambda", "2", "--backend", "serial",
                            "--out", str(tmp_path / "j"))
    assert code == 0, err
    assert "joint" in (tmp_path / "j" / "config.toml").read_text()
    assert len(list((tmp_path / "j" / "rulebases").glob("*.json"))) == 2
    code, _, err = run(capsys, "coevolve", TINY, "--pick", "best", "--backend", "serial")
    assert_one_line_error(code, err, "--pick best")
    code, _, err = run(capsys, "coevolve", TINY, "--feature", "NWP", "--feature", "MOON")
    assert_one_line_error(code, err, "--feature MOON")
    code, _, err = run(capsys, "export", str(tmp_path / "nothing"))
    assert_one_line_error(code, err, "no rulebases")


def test_joint_es_optimises_every_site_at_once(tmp_path):
    """The joint ES's individual holds every site's rulebase; its fitness is the grid's AWRT sum,
    and the result reproduces that sum site by site."""
    config = _tiny("coevolution", generations=2, pick="sum")
    config.kind = "joint"
    with Evaluator("serial") as ev:
        result = run_training(config, tmp_path / "joint", ev, progress=False)
        algorithm = make_algorithm(config, ev)
    train = [r for r in result["summary"] if r["window"] == "train"]
    assert len(result["rulebases"]) == 3 and len(train) == 3 and all(r["learned"] for r in train)
    rows = (tmp_path / "joint" / "generations.csv").read_text().splitlines()
    best_sum = float(rows[-1].split(",")[rows[0].split(",").index("best_score_grid")])
    assert sum(r["policy_awrt"] for r in train) == pytest.approx(best_sum, abs=0.05)
    genome = np.arange(3 * config.n_rules * 5.0).reshape(-1, 5)  # site 2's rules come last
    assert algorithm.split(genome)[2][0, 0] == 2 * config.n_rules * 5


def test_sum_improving_prefers_any_grid_that_hurts_nobody():
    from evogrid.optimize.es import pairing_score

    local = np.array([100.0, 100.0])
    improving, cheap_but_hurting = np.array([99.0, 99.0]), np.array([10.0, 101.0])
    worse = np.array([5.0, 150.0])
    score = {name: pairing_score("sum-improving", a, local)
             for name, a in (("improving", improving), ("hurting", cheap_but_hurting), ("worse", worse))}
    assert score["improving"] == 198.0 < score["hurting"] < score["worse"]
    assert pairing_score("sum", cheap_but_hurting, local) == 111.0 < pairing_score("sum", improving, local)


def test_training_records_the_range_its_decisions_covered(tmp_path):
    """A transfer rulebase records, per feature, the range of its site's decisions on the training
    windows; with its ranges set to that range, the guard (outside_range="awf") changes nothing on
    those windows, since every decision there lies inside it."""
    from evogrid.policy.strategies import FuzzyPolicy, simulate
    from evogrid.sim.scenario import Scenario

    with Evaluator("serial") as ev:
        run_training(_tiny(generations=2), tmp_path / "run", ev, progress=False)
    rb = Rulebase.load(tmp_path / "run" / "rulebases" / "KTH@0-1_vs_SDSC03@0-1.json")
    seen = rb.provenance["trained_range"]
    assert list(seen) == list(rb.features) and all(lo <= hi for lo, hi in seen.values())
    trained = rb.with_trained_ranges()
    scenario = Scenario.from_spec(TINY, lrms=rb.provenance["lrms"])
    rules = simulate(scenario, FuzzyPolicy({0: rb}), record_decisions=True).schedule
    guarded = simulate(scenario, FuzzyPolicy({0: trained}, outside_range="awf")).schedule
    assert guarded.start.tolist() == rules.start.tolist() and guarded.site.tolist() == rules.site.tolist()
    x = rules.decisions.x[rules.decisions.site == 0, : len(rb.features)]
    assert [[x[:, h].min(), x[:, h].max()] for h in range(len(rb.features))] == list(seen.values())
    with pytest.raises(RulebaseError, match="trained_range"):
        Rulebase.constant(True).with_trained_ranges()


LIMITED = """name = "tiny-limited"
lrms = "fcfs"

[[sites]]
window = "KTH@0-1"

[[sites]]
window = "SDSC03@0-1"

[strategy]
name = "broker"
location = "mct"
refresh_s = 600
grid_maxjobs = { "KTH@0-1" = 2 }
"""


def test_training_runs_its_candidates_in_the_scenarios_grid_conditions(tmp_path, capsys):
    """A ranking trained on a scenario whose [strategy] table gives grid conditions (here stale
    information and LoadLeveler's maxjobs at KTH) trains in them: its recorded fitness is its AWRT
    in them, not in the exact, unlimited grid; the rulebase records them. The table's policy (broker
    MCT) is what training replaces. Conditions the ranking cannot run in are refused before a run
    directory exists; the Pareto front refuses conditions. Run elsewhere, a note says so."""
    from evogrid.optimize import ParetoConfig
    from evogrid.policy.config import with_conditions
    from evogrid.policy.strategies import Broker, simulate
    from evogrid.sim.scenario import Scenario

    path = tmp_path / "limited.toml"
    path.write_text(LIMITED)
    config = TrainConfig(str(path), kind="efs", site=1, decision="ranking", lrms="fcfs", mu=3, lambda_=6,
                         generations=3, seed=2)
    with Evaluator("serial") as ev:
        run_training(config, tmp_path / "run", ev, progress=False)
    (file,) = (tmp_path / "run" / "rulebases").glob("*.json")
    rb = Rulebase.load(file)
    assert rb.provenance["trained_in"] == {"grid_maxjobs": {"KTH@0-1": 2}, "refresh_s": 600}
    scenario = Scenario.from_spec(str(path), lrms="fcfs")
    ranking = Broker("rank", {1: rb})
    limited = simulate(scenario, with_conditions(ranking, scenario)).schedule.awrt()[1]
    exact = simulate(scenario, ranking).schedule.awrt()[1]
    assert limited == pytest.approx(rb.provenance["fitness_awrt"], abs=0.01)
    assert abs(limited - exact) > 1.0  # the conditions bind: training in the exact grid would score otherwise
    # Applied where it trained, it runs silently; in the exact grid, a note says where it trained.
    plain = tmp_path / "plain.toml"
    plain.write_text(LIMITED.split("[strategy]")[0])
    for where, noted in ((path, False), (plain, True)):
        code, _, err = run(capsys, "simulate", str(where), "--strategy", "broker", "--location", "rank",
                           "--rulebase", f"1={file}")
        assert code == 0 and ("note: rulebase of SDSC03@0-1" in err) == noted, err
    assert "trained in grid_maxjobs = {'KTH@0-1': 2}, refresh_s = 600; it runs in the exact grid" in err

    path = tmp_path / "read.toml"  # (another name: workers cache scenarios by their path)
    path.write_text(LIMITED + 'slot_rule = "read"\n')
    code, _, err = run(capsys, "train", str(path), "--policy", "ranking", "--site", "1", "--generations", "1",
                       "--backend", "serial", "--out", str(tmp_path / "refused"))
    assert code == 2 and "slot_rule 'read'" in err and "not rank" in err
    assert not (tmp_path / "refused").exists()
    with pytest.raises(EvogridError, match="strategy.grid_maxjobs: the Pareto front runs in the exact grid"):
        ParetoConfig(str(path), mode="ranking").check_scenarios()
