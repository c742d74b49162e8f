"""SWF parsing, preprocessing, drops, cache, windows, synthetic workloads."""

import gzip

import numpy as np
import pytest
from conftest import job_row
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evogrid.errors import EvogridError, ScenarioError, SWFFormatError
from evogrid.workload import Preprocessing, load_swf, load_window, parse_swf, parse_window, synthetic_workload
from evogrid.workload.model import SECONDS_PER_MONTH
from evogrid.workload.parse_cache import cached_parse
from evogrid.workload.swf import COLUMNS


def test_header_and_fields(swf_file):
    path = swf_file(
        [job_row(1, 0, 100, 4, req_time=50), job_row(2, 10, 30, -1, req_procs=2)],
        header=("; Version: 2.2", "; MaxNodes: 2", "; MaxProcs: 8", ";   Note: x: y"),
    )
    raw = parse_swf(path)
    assert raw.header["MaxProcs"] == "8" and raw.header["MaxNodes"] == "2"
    assert raw.max_procs == 8
    assert raw.line_numbers.tolist() == [5, 6]
    w = load_swf(path, use_cache=False)
    assert w.machine_procs == 8  # MaxProcs, never MaxNodes
    assert w.run_time.tolist() == [50, 30]  # killed at the 50 s estimate
    assert w.estimate.tolist() == [50, 30]  # unknown estimate = run time
    assert w.procs.tolist() == [4, 2]  # requested procs where allocated unknown


def test_drops_are_counted_per_reason(swf_file):
    rows = [
        job_row(1, 0, 0, 4),  # run time 0
        job_row(2, 1, -1, 4),  # unknown run time
        job_row(3, 2, 10, -1),  # no processors known
        job_row(4, 3, 10, 9),  # larger than the machine
        job_row(5, 4, 10, 8),  # kept
    ]
    w = load_swf(swf_file(rows), use_cache=False)
    assert w.n_jobs == 1 and w.job_id.tolist() == [5]
    assert w.dropped == {"run_time_nonpositive": 2, "procs_unknown": 1, "procs_exceed_machine": 1}


def test_options_change_preprocessing(swf_file):
    path = swf_file([job_row(1, 0, 100, -1, req_time=50, req_procs=2)])
    assert load_swf(path, Preprocessing(requested_procs_fallback=False), use_cache=False).n_jobs == 0
    w = load_swf(path, Preprocessing(kill_at_estimate=False, machine_procs=4), use_cache=False)
    assert w.run_time.tolist() == [100] and w.machine_procs == 4


def test_sort_is_stable_on_file_order(swf_file):
    path = swf_file([job_row(1, 5, 1, 1), job_row(2, 3, 1, 1), job_row(3, 3, 1, 1)])
    assert load_swf(path, use_cache=False).job_id.tolist() == [2, 3, 1]


@pytest.mark.parametrize(
    "bad_line, expected",
    [
        ("1 0 -1 10 4", "expected 18 fields, found 5"),
        ("1 0 -1 10 4 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 x7", "field 18 is not a number"),
    ],
)
def test_malformed_line_names_file_and_line(swf_file, bad_line, expected):
    path = swf_file([job_row(1, 0, 10, 4), bad_line, job_row(3, 5, 10, 4)])
    with pytest.raises(SWFFormatError, match=rf"tiny.swf:3: malformed SWF line: {expected}"):
        parse_swf(path)
    raw = parse_swf(path, lenient=True)
    assert raw.malformed == 1 and raw.column("job_id").tolist() == [1, 3]
    assert load_swf(path, lenient=True, use_cache=False).dropped == {"malformed_line": 1}


def test_missing_maxprocs_asks_for_procs(swf_file):
    path = swf_file([job_row(1, 0, 10, 4)], header=("; Version: 2.2",))
    with pytest.raises(EvogridError, match="MaxProcs.*--procs"):
        load_swf(path, use_cache=False)
    assert load_swf(path, Preprocessing(machine_procs=16), use_cache=False).machine_procs == 16


def test_gzip_and_cache_give_the_same_table(swf_file, tmp_path, monkeypatch):
    monkeypatch.setenv("EVOGRID_CACHE_DIR", str(tmp_path / "cache"))
    path = swf_file([job_row(i, i * 3, 10 + i, 1 + i % 8) for i in range(1, 50)])
    gz = tmp_path / "tiny.swf.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    fresh = parse_swf(path)
    first = cached_parse(gz)
    second = cached_parse(gz)  # from the cache
    assert any((tmp_path / "cache").iterdir())
    for raw in (first, second):
        np.testing.assert_array_equal(raw.table, fresh.table)
        np.testing.assert_array_equal(raw.line_numbers, fresh.line_numbers)
        assert raw.header == fresh.header


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.binary(max_size=400))
def test_parser_fuzz_never_crashes_uncontrolled(tmp_path_factory, blob):
    path = tmp_path_factory.mktemp("fuzz") / "f.swf"
    path.write_bytes(b"; MaxProcs: 8\n" + blob)
    try:
        raw = parse_swf(path)
    except SWFFormatError as exc:
        assert "f.swf" in str(exc)
        return
    assert raw.table.shape[1] == len(COLUMNS)


def test_windows_are_30_day_months_rebased(swf_file):
    day = 86_400
    rows = [job_row(i + 1, s, 10, 1) for i, s in enumerate([0, 29 * day, 30 * day, 75 * day])]
    w = load_swf(swf_file(rows), use_cache=False)
    first = w.window(0, 1)
    assert first.job_id.tolist() == [1, 2] and first.dropped["outside_window"] == 2
    later = w.window(1, None)
    assert later.submit.tolist() == [0, 75 * day - SECONDS_PER_MONTH]
    with pytest.raises(ScenarioError, match="holds no job"):
        w.window(31, 75, unit_days=1)
    assert w.window(2, 3).n_jobs == 1  # the last month holding a submission is the longest window
    with pytest.raises(ScenarioError, match="past the end of the log .* at most 3 30-day months"):
        w.window(2, 4)
    with pytest.raises(ScenarioError, match="past the end of the log"):
        w.window(5, 6)


def test_a_field_beyond_2_to_the_53_is_a_malformed_line(swf_file):
    path = swf_file([job_row(1, 0, 10, 1), "2 5 0 1e23 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1"])
    with pytest.raises(SWFFormatError, match=r"tiny.swf:3: .*field 4 is out of range: 1e23"):
        parse_swf(path)
    raw = parse_swf(path, lenient=True)
    assert raw.malformed == 1 and raw.table.shape[0] == 1


@pytest.mark.parametrize("value,procs", [("1664 (72, 1368, 224)", 1664), ("  400 ", 400), ("12x", None),
                                         ("0", None), ("(3)", None)])
def test_partitioned_maxprocs_header_is_the_first_number(swf_file, value, procs):
    raw = parse_swf(swf_file([job_row(1, 0, 10, 1)], header=(f"; MaxProcs: {value}",)))
    assert raw.max_procs == procs


def test_window_names():
    assert parse_window("KTH@0-5").last == 5
    spec = parse_window("BLUE@5-11")
    assert (spec.trace, spec.first, spec.last) == ("SDSC03", 5, 11)
    for name, short in (("SDSC-SP2@0-5", "SDSC00"), ("sdsc-ds@5-", "SDSC05"), ("LANL-CM5@0-2", "LANL96"),
                        ("CTC", "CTC"), ("SDSC-PAR@0-3", "SDSC-PAR")):
        assert parse_window(name).trace == short
    ctc = load_window("CTC@0-1")  # the dissertation's CTC: m = 430, not the header's 338
    assert ctc.machine_procs == 430
    assert load_window("CTC@0-1", Preprocessing(machine_procs=338)).machine_procs == 338
    assert parse_window("kth@5-").last is None and parse_window("kth@5-").label == "KTH@5-"
    with pytest.raises(ScenarioError, match="unknown trace 'NOPE'"):
        parse_window("NOPE-5")


def test_a_scenario_file_reads_relative_swf_paths_from_its_folder(swf_file, tmp_path, monkeypatch):
    """A window's relative SWF path is read from the scenario file's folder where the file is there
    (with or without a window of months), else from the working directory; bundled names stay."""
    from evogrid.sim.scenario import Scenario

    swf_file([job_row(1, 0, 10, 1), job_row(2, 40 * 86_400, 10, 1)], name="mine.swf")
    (tmp_path / "runs").mkdir()
    toml = tmp_path / "runs" / "grid.toml"
    toml.write_text('[[sites]]\nwindow = "../mine.swf"\n[[sites]]\nwindow = "../mine.swf@1-2"\n'
                    '[[sites]]\nwindow = "KTH@0-1"\n')
    monkeypatch.chdir(tmp_path / "runs")  # the file's folder: the paths are right from here too
    here = [(w.name, w.n_jobs) for w in Scenario.from_spec("grid.toml").workloads]
    monkeypatch.chdir("/")  # elsewhere: only the file's folder finds them
    there = [(w.name, w.n_jobs) for w in Scenario.from_spec(str(toml)).workloads]
    assert here == there and here[:2] == [("mine.swf", 2), ("mine.swf@1-2", 1)] and here[2][0] == "KTH@0-1"
    toml.write_text('[[sites]]\nwindow = "nowhere.swf@0-1"\n')
    with pytest.raises(ScenarioError, match="unknown trace 'nowhere.swf'"):
        Scenario.from_spec(str(toml))


def test_synthetic_workload_is_seeded_and_valid():
    a = synthetic_workload(5000, 64, seed=3)
    b = synthetic_workload(5000, 64, seed=3)
    np.testing.assert_array_equal(a.submit, b.submit)
    assert (np.diff(a.submit) >= 0).all() and a.procs.max() <= 64 and a.procs.min() >= 1
    assert (a.estimate >= a.run_time).all() and (a.run_time >= 1).all()
    offered = (a.procs * a.run_time).sum() / (64 * a.submit[-1])
    assert 0.6 < offered < 1.0  # the requested load 0.8, up to sampling noise
    assert not np.array_equal(synthetic_workload(5000, 64, seed=4).submit, a.submit)
