"""The CLI: tables, JSON, and one-line errors with exit code 2."""

import csv
import json

import pytest
from conftest import job_row

from evogrid.cli import main


def run(capsys, *argv):
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    out, err = capsys.readouterr()
    return exc.value.code, out, err


def assert_one_line_error(code, err, *fragments):
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("evogrid: error: ")
    for fragment in fragments:
        assert fragment in lines[0]


def test_simulate_json(capsys):
    code, out, _ = run(capsys, "simulate", "KTH@0-5+SDSC03@0-5", "--lrms", "easy", "--json")
    assert code == 0
    result = json.loads(out)
    assert [s["site"] for s in result["sites"]] == ["KTH@0-5", "SDSC03@0-5"]
    assert all(s["lrms"] == "easy" and s["awrt"] > 0 for s in result["sites"])
    assert result["dropped"]["KTH@0-5"]["run_time_nonpositive"] == 8


def test_simulate_table_and_toml(capsys, tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text('lrms = "list"\n[[sites]]\nwindow = "KTH@0-5"\nprocs = 120\n')
    code, out, _ = run(capsys, "simulate", str(scenario))
    assert code == 0 and "KTH@0-5" in out and "list" in out and "120" in out


def test_traces_list_and_info(capsys):
    code, out, _ = run(capsys, "traces", "list")
    assert code == 0 and "SDSC03" in out
    code, out, _ = run(capsys, "traces", "info", "KTH", "--json")
    info = json.loads(out)
    assert code == 0 and info["machine_procs"] == 100 and info["jobs_kept"] == 28_481
    assert info["dropped"] == {"run_time_nonpositive": 8}


def test_malformed_swf_line(capsys, swf_file):
    path = swf_file([job_row(1, 0, 10, 4), "1 2 3"])
    code, _, err = run(capsys, "simulate", str(path))
    assert_one_line_error(code, err, "tiny.swf:3", "expected 18 fields")


def test_missing_maxprocs(capsys, swf_file):
    path = swf_file([job_row(1, 0, 10, 4)], header=("; Version: 2",))
    code, _, err = run(capsys, "simulate", str(path))
    assert_one_line_error(code, err, "MaxProcs", "--procs")
    code, _, _ = run(capsys, "simulate", str(path), "--procs", "8")
    assert code == 0


def test_empty_window(capsys, swf_file):
    path = swf_file([job_row(1, 0, 10, 4), job_row(2, 100 * 86_400, 10, 4)])
    code, _, err = run(capsys, "simulate", f"{path}@d10-20")
    assert_one_line_error(code, err, "holds no job")


def test_window_past_the_end_of_the_log(capsys):
    code, _, err = run(capsys, "simulate", "KTH@20-21")
    assert_one_line_error(code, err, "KTH@20-21", "past the end of the log", "at most 12")


def test_unknown_trace(capsys):
    code, _, err = run(capsys, "simulate", "NOSUCH-5")
    assert_one_line_error(code, err, "unknown trace 'NOSUCH'")


def test_unknown_lrms(capsys):
    code, _, err = run(capsys, "simulate", "KTH@0-5", "--lrms", "ljf")
    assert_one_line_error(code, err, "unknown LRMS 'ljf'")


def test_scenario_file_with_unknown_key(capsys, tmp_path):
    scenario = tmp_path / "bad.toml"
    scenario.write_text('[[sites]]\nwindow = "KTH@0-5"\nprocz = 3\n')
    code, _, err = run(capsys, "simulate", str(scenario))
    assert_one_line_error(code, err, "bad.toml", "sites.0.procz", "unknown key")


def test_help_explains_itself(capsys):
    code, out, _ = run(capsys, "simulate", "--help")
    assert code == 0 and "fcfs" in out and "Inline scenario" in out


def test_simulate_strategies_json(capsys):
    """Every strategy runs from the CLI; AWF moves jobs and reports deltas and migration matrices."""
    results = {}
    for strategy in ("local", "awf", "pool", "aa"):
        code, out, err = run(capsys, "simulate", "KTH@0-2+SDSC03@0-2", "--lrms", "easy", "--strategy",
                             strategy, "--json")
        assert code == 0, err
        results[strategy] = json.loads(out)
    local, awf = results["local"], results["awf"]
    assert all(s["delta_awrt_pct"] == 0 for s in local["sites"])
    assert awf["moves"]["jobs_moved"] > 0 and awf["moves"]["max"] == 1
    for m in (awf["migration_n"], awf["migration_sa"]):
        assert [round(sum(row), 9) for row in m] == [1.0, 1.0]
    kth = awf["sites"][0]
    expected = 100 * (kth["awrt"] - local["sites"][0]["awrt"]) / local["sites"][0]["awrt"]
    assert kth["delta_awrt_pct"] == pytest.approx(-expected)


def test_rulebase_strategy_and_show(capsys, tmp_path, monkeypatch):
    from evogrid.policy.rulebase import Rulebase

    path = Rulebase.random(10, seed=4).with_provenance(site="KTH").save(tmp_path / "kth.json")
    code, out, err = run(capsys, "simulate", "KTH@0-2+SDSC03@0-2", "--strategy", "rulebase",
                         "--rulebase", f"KTH@0-2={path}", "--json")
    assert code == 0, err
    with_strategy = json.loads(out)
    assert with_strategy["strategy"] == "rulebase"
    # --rulebase alone implies the rulebase strategy.
    code, out, err = run(capsys, "simulate", "KTH@0-2+SDSC03@0-2", "--rulebase", f"KTH@0-2={path}", "--json")
    assert code == 0, err
    assert json.loads(out)["sites"] == with_strategy["sites"]
    monkeypatch.chdir(tmp_path / "..")
    code, out, err = run(capsys, "show", str(path), "--scenario", "KTH@0-2+SDSC03@0-2")
    assert code == 0, err
    assert "10 rules" in out and "accept" in out
    png = tmp_path / ".." / "runs" / "show" / "kth.png"  # never next to the rulebase
    assert png.stat().st_size > 10_000 and png.read_bytes()[:4] == b"\x89PNG"
    assert not path.with_suffix(".png").exists()


def test_bad_rulebase_file(capsys, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "evogrid.rulebase", "version": 1, "features": [], "rules": []}')
    code, _, err = run(capsys, "show", str(bad))
    assert_one_line_error(code, err, "bad.json", "features")
    code, _, err = run(capsys, "simulate", "KTH@0-2+SDSC03@0-2", "--strategy", "rulebase", "--rulebase",
                       str(bad))
    assert_one_line_error(code, err, "bad.json")
    code, _, err = run(capsys, "show", str(tmp_path / "missing.json"))
    assert_one_line_error(code, err, "missing.json", "no such rulebase file")


def test_bad_strategy_options(capsys):
    code, _, err = run(capsys, "simulate", "KTH@0-2+SDSC03@0-2", "--strategy", "magic")
    assert_one_line_error(code, err, "--strategy magic")
    code, _, err = run(capsys, "simulate", "KTH@0-2+SDSC03@0-2", "--strategy", "aa", "--active-take", "start",
                       "--lrms", "fcfs")
    assert_one_line_error(code, err, "EASY")
    code, _, err = run(capsys, "simulate", "KTH@0-2+SDSC03@0-2", "--strategy", "aa", "--active-take", "late")
    assert_one_line_error(code, err, "--active-take late")
    code, _, err = run(capsys, "simulate", "KTH@0-2+SDSC03@0-2", "--strategy", "pool",
                       "--active-take", "start")
    assert_one_line_error(code, err, "--active-take")
    code, _, err = run(capsys, "simulate", "KTH@0-2+SDSC03@0-2", "--strategy", "rulebase")
    assert_one_line_error(code, err, "--rulebase")
    code, _, err = run(capsys, "simulate", "KTH@0-2+SDSC03@0-2", "--strategy", "awf", "--location", "near")
    assert_one_line_error(code, err, "--location near")


def test_scenario_file_strategy_table(capsys, tmp_path):
    """A TOML [strategy] table is used unless --strategy overrides it; rulebase paths are
    relative to the scenario file."""
    from evogrid.policy.rulebase import Rulebase

    Rulebase.random(5, seed=2).save(tmp_path / "kth.json")
    scenario = tmp_path / "s.toml"
    scenario.write_text('[[sites]]\nwindow = "KTH@0-2"\n[[sites]]\nwindow = "SDSC03@0-2"\n'
                        '[strategy]\nname = "rulebase"\nrulebases = { "KTH@0-2" = "kth.json" }\n')
    code, out, err = run(capsys, "simulate", str(scenario), "--json")
    assert code == 0, err
    assert json.loads(out)["strategy"] == "rulebase"
    code, out, err = run(capsys, "simulate", str(scenario), "--strategy", "awf", "--json")
    assert code == 0, err
    assert json.loads(out)["strategy"] == "awf"
    scenario.write_text('[[sites]]\nwindow = "KTH@0-2"\n[strategy]\nnmae = "awf"\n')
    code, _, err = run(capsys, "simulate", str(scenario))
    assert_one_line_error(code, err, "strategy.nmae", "unknown key")


def test_pool_arrivals_option_and_toml_key(capsys, tmp_path):
    """--pool-arrivals (or the [strategy] table's pool_arrivals) picks the pool's rule for new jobs;
    the JSON and the table title say which ran."""
    runs = {}
    for arrivals in ("queued", "first"):
        code, out, err = run(capsys, "simulate", "KTH@0-2+SDSC03@0-2", "--lrms", "easy", "--strategy", "pool",
                             "--pool-arrivals", arrivals, "--json")
        assert code == 0, err
        runs[arrivals] = json.loads(out)
        assert runs[arrivals]["pool_arrivals"] == arrivals
    code, out, err = run(capsys, "simulate", "KTH@0-2+SDSC03@0-2", "--lrms", "easy", "--strategy", "pool",
                         "--json")
    assert code == 0, err
    assert json.loads(out)["sites"] == runs["first"]["sites"]  # the default
    scenario = tmp_path / "s.toml"
    scenario.write_text('lrms = "easy"\n[[sites]]\nwindow = "KTH@0-2"\n[[sites]]\nwindow = "SDSC03@0-2"\n'
                        '[strategy]\nname = "pool"\npool_arrivals = "queued"\n')
    code, out, err = run(capsys, "simulate", str(scenario), "--json")
    assert code == 0, err
    assert json.loads(out)["sites"] == runs["queued"]["sites"]
    code, out, err = run(capsys, "simulate", str(scenario))
    assert code == 0 and "EASY-JS (arrivals queued)" in out
    code, _, err = run(capsys, "simulate", "KTH@0-2+SDSC03@0-2", "--strategy", "pool",
                       "--pool-arrivals", "late")
    assert_one_line_error(code, err, "--pool-arrivals late", "first, queued")
    code, _, err = run(capsys, "simulate", "KTH@0-2+SDSC03@0-2", "--strategy", "awf",
                       "--pool-arrivals", "first")
    assert_one_line_error(code, err, "--pool-arrivals", "pool only")
    scenario.write_text('[[sites]]\nwindow = "KTH@0-2"\n[strategy]\nname = "pool"\npool_arrivals = "late"\n')
    code, _, err = run(capsys, "simulate", str(scenario))
    assert_one_line_error(code, err, "strategy.pool_arrivals")


def test_reserve_compares_algorithms_and_writes_a_run_directory(capsys, tmp_path):
    """Three two-week SDSC-BLUE sites with RW1 co-reservations: every algorithm runs on the same
    requests; backlog fails more often than cpu-count and is fairer (Meltzer's shape)."""
    scenario = tmp_path / "three.toml"
    scenario.write_text('lrms = "easy"\n' + "".join(f'[[sites]]\nwindow = "SDSC03@d{d}-{d + 14}"\n'
                                                     for d in (14, 28, 42))
                        + '[reservations]\nworkload = "rw1"\nseed = 2\n')
    out_dir = tmp_path / "run"
    code, out, _ = run(capsys, "reserve", str(scenario), "--algorithm", "all", "--json",
                       "--out", str(out_dir), "--gantt", "1", "--hours", "24:72")
    assert code == 0
    result = json.loads(out)
    rows = {r["algorithm"]: r for r in result["algorithms"]}
    assert list(rows) == ["trivial", "cpu-count", "backlog", "backfill", "weighted"]
    assert len({r["requests"] for r in rows.values()}) == 1 and rows["backlog"]["requests"] > 100
    assert rows["cpu-count"]["failure_rate"] < rows["backlog"]["failure_rate"]
    assert rows["backlog"]["unfairness"] < rows["cpu-count"]["unfairness"]
    assert rows["trivial"]["messages_per_request"] > rows["cpu-count"]["messages_per_request"]
    assert "became_reservation" not in result["dropped"]["SDSC03@d14-28"]  # Meltzer's templates stay jobs
    for name in ("summary.csv", "sites.csv", "bookings_backfill.csv", "gantt_weighted_site1.png",
                 "summary.png"):
        assert (out_dir / name).stat().st_size > 0


def test_reserve_probes_elastic_book_ahead_requests(capsys, tmp_path):
    """A [reservations] table with elastic book-ahead requests and probe settings: probe/reserve
    places some requests on another processor count than the job's, and never breaks the backlog
    rule, so it fails more often than first fit, which ignores it."""
    scenario = tmp_path / "elastic.toml"
    scenario.write_text('lrms = "easy"\n[[sites]]\nwindow = "SDSC03@d14-28"\n[reservations]\n'
                        'workload = "book-ahead"\nelastic = [0.5, 2.0]\nalgorithm = "probe"\ntsn_max = 3\n')
    out_dir = tmp_path / "run"
    code, out, err = run(capsys, "reserve", str(scenario), "--algorithm", "probe", "--algorithm", "first-fit",
                         "--json", "--out", str(out_dir))
    assert code == 0, err
    rows = {r["algorithm"]: r for r in json.loads(out)["algorithms"]}
    assert rows["first-fit"]["failure_rate"] < rows["probe"]["failure_rate"] < 1.0
    assert rows["probe"]["messages_per_request"] > 1.0
    with (out_dir / "bookings_probe.csv").open() as fh:
        booked = [r for r in csv.DictReader(fh) if int(r["start"]) >= 0]
    assert booked and all(int(r["procs"]) > 0 and int(r["length"]) > 0 for r in booked)  # one part each


def test_reserve_places_collective_requests(capsys, tmp_path):
    """collective_sites makes the RW1 requests collective too: Cankar's placement holds each on at
    most N sites with at least d processors each and e in all, and fails no more often than the
    same requests as fixed parts; without collective_sites the algorithm is a one-line error."""
    sites = "".join(f'[[sites]]\nwindow = "SDSC03@d{d}-{d + 14}"\n' for d in (14, 28, 42))
    scenario = tmp_path / "collective.toml"
    scenario.write_text('lrms = "easy"\n' + sites + '[reservations]\nworkload = "rw1"\nseed = 2\n'
                        'collective_sites = 3\n')
    out_dir = tmp_path / "run"
    code, out, err = run(capsys, "reserve", str(scenario), "--algorithm", "cpu-count", "--algorithm",
                         "collective", "--json", "--out", str(out_dir))
    assert code == 0, err
    rows = {r["algorithm"]: r for r in json.loads(out)["algorithms"]}
    assert rows["collective"]["failure_rate"] <= rows["cpu-count"]["failure_rate"] < 0.5
    with (out_dir / "bookings_collective.csv").open() as fh:
        booked = [r for r in csv.DictReader(fh) if int(r["start"]) >= 0]
    for r in booked:
        held = [int(x) for x in r["procs"].split()]
        assert 1 <= len(held) <= 3 and sum(held) >= sum(int(x) for x in r["parts"].split())
    plain = tmp_path / "plain.toml"
    plain.write_text('lrms = "easy"\n' + sites + '[reservations]\nworkload = "rw1"\n')
    code, _, err = run(capsys, "reserve", str(plain), "--algorithm", "collective")
    assert_one_line_error(code, err, "the collective algorithm needs collective requests")


def test_reserve_coallocates_wide_jobs(capsys, tmp_path):
    """Sites cut to 896 processors drop their wider jobs by default (counted over the log); with
    workload = "wide" those of each window become collective requests over the three sites and all run."""
    from evogrid.workload import load_window

    days = (14, 28, 42)
    sites = "".join(f'[[sites]]\nwindow = "SDSC03@d{d}-{d + 14}"\nprocs = 896\n' for d in days)
    scenario = tmp_path / "wide.toml"
    scenario.write_text('lrms = "easy"\n' + sites + '[reservations]\nworkload = "wide"\n')
    dropped = sum(int((load_window(f"SDSC03@d{d}-{d + 14}").procs > 896).sum()) for d in days)
    code, out, err = run(capsys, "reserve", str(scenario), "--algorithm", "collective", "--json")
    assert code == 0, err
    result = json.loads(out)
    assert sum(d.get("became_collective", 0) for d in result["dropped"].values()) == dropped > 0
    (row,) = result["algorithms"]
    assert row["requests"] == dropped and row["failure_rate"] == 0.0


def test_reserve_bad_input(capsys, tmp_path):
    code, _, err = run(capsys, "reserve", "SDSC03@d14-28", "--algorithm", "lottery")
    assert_one_line_error(code, err, "unknown reservation algorithm 'lottery'")
    code, _, err = run(capsys, "reserve", "SDSC03@d14-28", "--workload", "rw9")
    assert_one_line_error(code, err, "[reservations] workload: unknown request kind 'rw9'")
    code, _, err = run(capsys, "reserve", "SDSC03@d14-28", "--algorithm", "first-fit")
    assert_one_line_error(code, err, "first-fit books at one site")
    scenario = tmp_path / "bad.toml"
    scenario.write_text('[[sites]]\nwindow = "SDSC03@d14-28"\n[reservations]\ntariffs = [[1.0, 2.0]]\n')
    code, _, err = run(capsys, "reserve", str(scenario))
    assert_one_line_error(code, err, "tariffs[0]: 168 prices")
