"""The shipped policies in trained_rulebases/: valid, documented, reproducing their training
AWRT, and usable as a pool."""

import json
from collections import defaultdict
from pathlib import Path

import pytest
from test_cli import run

from evogrid.optimize.fitness import trained_strategy
from evogrid.policy.rulebase import Rulebase
from evogrid.policy.strategies import pool_for_sites, simulate
from evogrid.sim.scenario import Scenario

SHIPPED = Path(__file__).resolve().parents[1] / "trained_rulebases"
FILES = sorted(SHIPPED.rglob("*.json"))
PROVENANCE = {"site", "m", "partner", "trained_on", "lrms", "optimizer", "generations", "seed",
              "fitness_awrt", "evogrid", "created", "run"}


def test_policies_are_shipped():
    # Every ordered pair of KTH, SDSC03, HPC2N and of KTH, CTC, SDSC05.
    assert len(list((SHIPPED / "pairwise").glob("*.json"))) == 12
    for grid in ("kth_sdsc03_hpc2n", "ctc_sdsc03_sdsc05"):  # one file per site
        files = (SHIPPED / "coevolved" / grid).glob("*.json")
        assert sorted(f.stem for f in files) == sorted(grid.split("_"))


def _groups() -> dict[tuple[str, str], list[Rulebase]]:
    """Transfer and ranking rulebases that were trained together: by (training scenario, kind)."""
    groups = defaultdict(list)
    for f in FILES:
        rb = Rulebase.load(f)
        if rb.provenance.get("decision") != "admission":
            groups[rb.provenance["trained_on"], rb.provenance["kind"]].append(rb)
    return groups


ADMISSION = sorted((SHIPPED / "admission").glob("*.json"))


@pytest.mark.parametrize("path", ADMISSION, ids=lambda p: p.stem)
def test_shipped_admission_rulebases_reproduce_their_training_score(path):
    """Each admission rulebase (experiments/admission_rulebase.py) scores on its training scenario
    exactly what its provenance records."""
    from evogrid.optimize import Evaluator
    from evogrid.optimize.admission import AdmissionConfig, AdmissionES, rulebase_objectives

    rb = Rulebase.load(path)
    p = rb.provenance
    seeds = p.get("request_seeds", [])
    config = AdmissionConfig(str(Path(__file__).resolve().parents[1] / p["trained_on"]),
                             features=list(rb.features), failure=p["failure"], augment=p["augment"],
                             request_seeds=seeds)
    objectives = rulebase_objectives(config.ref, rb, p["failure"], tuple(seeds))
    score = AdmissionES(config, Evaluator("serial")).score(*objectives)
    assert score == pytest.approx(p["fitness_score"], abs=1e-6)
    assert score < 1.0 + 2 * p["augment"]  # it beats Algorithm 3 on both objectives there


def test_admission_rulebases_are_shipped():
    assert len(ADMISSION) >= 10


@pytest.mark.parametrize("key", sorted(_groups()), ids=lambda k: f"{k[1]}-{k[0]}")
def test_shipped_rulebases_reproduce_their_training_awrt(key):
    """Applied where they were trained (partner AWF for EFS; together for co-evolution; ranking
    rulebases in a grid of brokers), each rulebase gives exactly the AWRT recorded as its fitness."""
    rulebases = _groups()[key]
    for rb in rulebases:
        assert set(rb.provenance) >= PROVENANCE, PROVENANCE - set(rb.provenance)
    trained_on, kind = key
    scenario = Scenario.from_spec(trained_on, lrms=rulebases[0].provenance["lrms"])
    names = [w.name for w in scenario.workloads]
    for group in ([rulebases] if kind == "coevolution" else [[rb] for rb in rulebases]):
        policy = trained_strategy({names.index(rb.provenance["site"]): rb for rb in group},
                                  group[0].provenance.get("decision", "transfer"), "awf",
                                  "awrt" if len(names) > 2 else "fixed", scenario)
        rows = simulate(scenario, policy).metrics()
        for rb in group:
            awrt = rows[names.index(rb.provenance["site"])]["awrt"]
            assert awrt == pytest.approx(rb.provenance["fitness_awrt"], abs=0.01)


def test_pairwise_pool_on_an_unseen_grid_with_an_unknown_site(capsys):
    """Each known site gets its two pairwise rulebases; the unknown (LLNL) site none."""
    pool = [Rulebase.load(f) for f in sorted((SHIPPED / "pairwise").glob("*.json"))]
    scenario = Scenario.from_spec("KTH@5-6+SDSC03@5-6+HPC2N@5-6+THUNDER@0-1", lrms="fcfs")
    chosen = pool_for_sites(pool, [w.machine_procs for w in scenario.workloads])
    assert sorted(chosen) == [0, 1, 2] and [len(v) for v in chosen.values()] == [4, 2, 2]  # KTH: 4 partners
    code, stdout, err = run(capsys, "simulate", "KTH@5-6+SDSC03@5-6+HPC2N@5-6+THUNDER@0-1", "--strategy",
                            "rulebase", "--rulebase", str(SHIPPED / "pairwise"), "--location", "awrt")
    assert code == 0, err
    assert "rulebase" in stdout and "THUNDER@0-1" in stdout


def test_shipped_coevolved_grid_from_the_command_line(capsys):
    """The co-evolved CTC + SDSC03 + SDSC05 grid applied by directory on its unseen months (the
    dissertation's test cuts, "-6")."""
    grid = SHIPPED / "coevolved" / "ctc_sdsc03_sdsc05"
    code, stdout, err = run(capsys, "simulate", "lepping:CTC-6+lepping:SDSC03-6+lepping:SDSC05-6",
                            "--lrms", "fcfs", "--rulebase", str(grid), "--location", "awrt", "--json")
    assert code == 0, err
    sites = json.loads(stdout)["sites"]
    assert [s["site"] for s in sites] == ["lepping:CTC-6", "lepping:SDSC03-6", "lepping:SDSC05-6"]
    assert all(s["delta_awrt_pct"] > 0 for s in sites)  # every site gains on the unseen months


def test_shipped_rankings_beat_max_min_on_the_unseen_months():
    """The co-evolved ranking rulebases of experiments/matchmaking_study.py (docs/results.md): on the
    test months of the 4:2:1 grid they beat the best broker heuristic in mean AWRT, no site worse
    than local."""
    from evogrid.policy.strategies import Broker

    scenario = Scenario.from_spec(str(SHIPPED.parent / "experiments" / "configs" / "speeds421_test.toml"))
    names = [w.name.replace("@5-11", "@0-5") for w in scenario.workloads]
    rankings = {names.index(rb.provenance["site"]): rb
                for rb in map(Rulebase.load, sorted((SHIPPED / "ranking" / "speeds421").glob("*.json")))}
    assert sorted(rankings) == [0, 1, 2]
    learned = simulate(scenario, Broker("rank", rankings))
    max_min = simulate(scenario, Broker("max-min"))
    assert learned.schedule.awrt().mean() < 0.95 * max_min.schedule.awrt().mean()
    assert (learned.schedule.awrt() < learned.baseline.awrt()).all()
