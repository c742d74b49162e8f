"""The policy registries and strategy configuration: names -> compiled codes, one-line errors for
unknown names, registering a toy entry, and a scenario file's [strategy] table run from Python."""

import json

import numpy as np
import pytest
from test_cli import assert_one_line_error, run

from evogrid.errors import EvogridError, ScenarioError
from evogrid.policy import (
    FEATURES,
    LOCATIONS,
    POOL_ARRIVALS,
    STRATEGIES,
    AcceptWhenFit,
    CentralPool,
    Choice,
    Feature,
    FuzzyPolicy,
    Local,
    Rulebase,
    RulebaseError,
    StrategyConfig,
    scenario_strategy,
    simulate,
    strategy_config,
)
from evogrid.policy.registry import StrategyKind
from evogrid.sim import codes, core, features, grid, lrms, schedule
from evogrid.sim.registry import Location
from evogrid.sim.scenario import Scenario

SITES = '[[sites]]\nwindow = "KTH@0-2"\n[[sites]]\nwindow = "SDSC03@0-2"\n'


def test_registries_are_the_only_name_tables():
    """The simulation packs names through the registries: no other name -> code table is left."""
    for module in (grid, features, schedule):
        tables = [n for n, v in vars(module).items() if isinstance(v, dict) and v
                  and all(isinstance(k, str) for k in v) and all(isinstance(c, int) for c in v.values())]
        assert tables == [], module.__name__
    assert LOCATIONS.names(ranks_every_site=True) == (
        "least-load", "olb", "met", "mct", "min-min", "max-min", "rank", "beichter-old", "beichter-new")
    assert list(STRATEGIES) == ["local", "awf", "rulebase", "broker", "pool", "aa"]
    assert (LOCATIONS.default.name, POOL_ARRIVALS.default.name, STRATEGIES.default.name) == (
        "fixed", "first", "local")
    assert all(lo < hi for lo, hi in (f.range for f in FEATURES.values()))


def test_unknown_names_are_one_line_errors():
    with pytest.raises(ScenarioError, match=r"^--location near: unknown location policy 'near'; "
                                            r"expected one of fixed, random, awrt, least-load, olb, met, "
                                            r"mct, min-min, max-min, rank, debt, beichter-old, "
                                            r"beichter-new$"):
        LOCATIONS.lookup("near", "--location near")
    with pytest.raises(RulebaseError, match="unknown feature 'NOPE'; expected one of NWP, NJP"):
        Rulebase.constant(True, ["NWP", "NOPE"])
    with pytest.raises(ScenarioError, match="pool arrivals: unknown pool arrival rule 'late'"):
        CentralPool("late").exchange(None)
    with pytest.raises(EvogridError, match="registered already"):
        LOCATIONS.register(Choice("fixed", 7, "again"))
    with pytest.raises(EvogridError, match="code 0 is fixed's"):
        LOCATIONS.register(Choice("other", grid.L_FIXED, "same code"))


@pytest.mark.parametrize(("table", "fragments"), [
    ('name = "magic"', ["s.toml: strategy.name: unknown strategy 'magic'",
                        "local, awf, rulebase, broker, pool, aa"]),
    ('location = "near"', ["s.toml: strategy.location: unknown location policy 'near'"]),
    ('others = "rulebase"', ["s.toml: strategy.others", "local, awf"]),
    ('name = "pool"\npool_arrivals = "late"', ["s.toml: strategy.pool_arrivals", "first, queued"]),
    ('name = "rulebase"\nrulebases = { FOO = "k.json" }', ["s.toml: strategy.rulebases.FOO: no site 'FOO'"]),
    ('name = "rulebase"\nrulebases = { 0 = "." }', ["a directory, not a rulebase file"]),
])
def test_scenario_file_strategy_errors(capsys, tmp_path, table, fragments):
    """Bad [strategy] tables: the CLI and Python name the file and field."""
    path = tmp_path / "s.toml"
    path.write_text(SITES + "[strategy]\n" + table + "\n")
    code, _, err = run(capsys, "simulate", str(path))
    assert_one_line_error(code, err, *fragments)
    scenario = Scenario.from_spec(str(path))  # the simulator keeps the table as read
    with pytest.raises(EvogridError, match=fragments[0].replace("s.toml", ".*s.toml")):
        simulate(scenario)


def test_feature_option_errors():
    from evogrid.optimize.es import TrainConfig

    with pytest.raises(EvogridError, match="--feature NOPE"):
        TrainConfig("KTH@0-2+SDSC03@0-2", features=["NWP", "NOPE"])
    with pytest.raises(EvogridError, match="--location near"):
        TrainConfig("KTH@0-2+SDSC03@0-2", location="near")


@pytest.mark.parametrize("table", [
    'name = "awf"\nlocation = "random"\nseed = 3',
    'name = "rulebase"\nlocation = "awrt"\nrulebases = { "KTH@0-2" = "kth.json" }',
    'name = "pool"\npool_arrivals = "first"',
])
def test_scenario_file_strategy_runs_from_python_as_from_the_cli(capsys, tmp_path, table):
    """Scenario.from_spec of a TOML with [strategy] + simulate(scenario) = `evogrid simulate x.toml`."""
    Rulebase.random(5, seed=2).save(tmp_path / "kth.json")
    path = tmp_path / "s.toml"
    path.write_text('lrms = "easy"\n' + SITES + "[strategy]\n" + table + "\n")
    code, out, err = run(capsys, "simulate", str(path), "--json")
    assert code == 0, err
    cli = json.loads(out)
    scenario = Scenario.from_spec(str(path))
    res = simulate(scenario)
    assert res.schedule.strategy == cli["strategy"] == strategy_config(scenario).name
    assert json.loads(json.dumps(res.to_dict()))["sites"] == cli["sites"]
    again = simulate(scenario, scenario_strategy(scenario))
    assert again.schedule.start.tolist() == res.schedule.start.tolist()


def test_scenario_strategy_objects(tmp_path):
    Rulebase.random(5, seed=2).save(tmp_path / "kth.json")
    path = tmp_path / "s.toml"
    path.write_text(SITES + '[strategy]\nname = "rulebase"\nothers = "local"\n'
                            'rulebases = { 1 = "kth.json" }\n')
    scenario = Scenario.from_spec(str(path))
    strategy = scenario_strategy(scenario)
    assert isinstance(strategy, FuzzyPolicy) and list(strategy.rulebases) == [1]
    assert strategy.others == "local"
    assert isinstance(scenario_strategy(Scenario.from_spec("KTH@0-2+SDSC03@0-2")), Local)
    assert simulate(Scenario.from_spec("KTH@0-2+SDSC03@0-2")).schedule.strategy == "local"
    config = StrategyConfig(name="awf").with_options(location="awrt", seed=None)
    assert config.location == "awrt" and config.seed == 0
    with pytest.raises(ScenarioError, match="^--strategy magic: unknown strategy 'magic'"):
        config.with_options(name="magic")


@pytest.fixture
def toys():
    """A toy feature, location policy and strategy, registered for one test."""
    entries = [(FEATURES, FEATURES.register(Feature("TOY", 99, (0.0, 2.0), "a toy feature"))),
               (LOCATIONS, LOCATIONS.register(Location("toy", 99, "a toy location policy"))),
               (STRATEGIES, STRATEGIES.register(StrategyKind(
                   "toy", lambda c, scenario, specs: AcceptWhenFit(location="awrt", label="toy"), "a toy")))]
    yield
    for registry, entry in entries:
        registry.unregister(entry.name)


def test_registering_toy_entries(toys, tmp_path):
    """Entries registered from a test file reach rulebase files, scenario files and the optimisers."""
    from evogrid.optimize.es import TrainConfig
    from evogrid.policy.registry import feature_ranges

    rb = Rulebase.random(3, ["NWP", "TOY"], seed=1)
    assert rb.arrays()[3] == [codes.F_NWP, 99]
    assert Rulebase.from_dict(rb.to_dict()).features == ("NWP", "TOY")
    assert feature_ranges(["TOY"]).tolist() == [[0.0, 2.0]]
    TrainConfig("KTH@0-2+SDSC03@0-2", features=["TOY"], location="toy")
    assert StrategyConfig(location="toy").location == "toy"
    path = tmp_path / "s.toml"
    path.write_text(SITES + '[strategy]\nname = "toy"\n')
    res = simulate(Scenario.from_spec(str(path)))
    assert res.schedule.strategy == "toy"
    assert np.array_equal(res.schedule.start,
                          simulate(res.scenario, AcceptWhenFit(location="awrt")).schedule.start)
    # registered without a compiled key (evogrid.sim.locations.register), it cannot run
    with pytest.raises(ScenarioError, match="^location policy 'toy' has no compiled key"):
        simulate(res.scenario, AcceptWhenFit(location="toy"))


def test_the_compile_mode_follows_evogrid_mixed_loops(monkeypatch, capsys):
    """The compile mode (docs/architecture.md, "Compile modes"): one site runs its LRMS's loop; a grid
    of one LRMS its own loops unless ``$EVOGRID_MIXED_LOOPS`` names the LRMS (or says ``all``);
    different LRMS the mixed loops; a name the registry does not know is one clear error."""
    def mode(*names):
        return core.lrms_mode(np.array([lrms.lrms_code(n) for n in names], dtype=np.int64))

    for value, mixed in (("", set()), ("Conservative, sjf", {"conservative", "sjf"}),
                         ("all", set(lrms.REGISTRY))):
        monkeypatch.setenv("EVOGRID_MIXED_LOOPS", value)
        for name in lrms.REGISTRY:
            assert mode(name) == lrms.lrms_code(name)
            assert mode(name, name) == (lrms.MIXED if name in mixed else lrms.lrms_code(name))
        assert mode("fcfs", "easy") == lrms.MIXED
    monkeypatch.setenv("EVOGRID_MIXED_LOOPS", "fcfs,slurm")
    code, _, err = run(capsys, "simulate", "KTH@0-5+SDSC03@0-5", "--lrms", "fcfs")
    assert_one_line_error(code, err, "EVOGRID_MIXED_LOOPS: unknown LRMS 'slurm'")
