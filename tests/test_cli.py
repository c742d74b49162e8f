"""The CLI: tables, JSON, and one-line errors with exit code 2."""

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
    code, out, _ = run(capsys, "simulate", "KTH-5+SDSC03-5", "--lrms", "easy", "--json")
    assert code == 0
    result = json.loads(out)
    assert [s["site"] for s in result["sites"]] == ["KTH-5", "SDSC03-5"]
    assert all(s["lrms"] == "easy" and s["awrt"] > 0 for s in result["sites"])
    assert result["dropped"]["KTH-5"]["run_time_nonpositive"] == 8


def test_simulate_table_and_toml(capsys, tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text('lrms = "list"\n[[sites]]\nwindow = "KTH-5"\nprocs = 120\n')
    code, out, _ = run(capsys, "simulate", str(scenario))
    assert code == 0 and "KTH-5" in out and "list" in out and "120" in out


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


def test_empty_window(capsys):
    code, _, err = run(capsys, "simulate", "KTH@20-21")
    assert_one_line_error(code, err, "holds no job")


def test_unknown_trace(capsys):
    code, _, err = run(capsys, "simulate", "NOSUCH-5")
    assert_one_line_error(code, err, "unknown trace 'NOSUCH'")


def test_unknown_lrms(capsys):
    code, _, err = run(capsys, "simulate", "KTH-5", "--lrms", "sjf")
    assert_one_line_error(code, err, "unknown LRMS 'sjf'")


def test_scenario_file_with_unknown_key(capsys, tmp_path):
    scenario = tmp_path / "bad.toml"
    scenario.write_text('[[sites]]\nwindow = "KTH-5"\nprocz = 3\n')
    code, _, err = run(capsys, "simulate", str(scenario))
    assert_one_line_error(code, err, "bad.toml", "sites.0.procz", "unknown key")


def test_help_explains_itself(capsys):
    code, out, _ = run(capsys, "simulate", "--help")
    assert code == 0 and "fcfs" in out and "Inline scenario" in out
