"""Per-job schedules out (docs/jobs_file.md): Batsim's columns, a feasible layout, evalys reads them."""

import csv
import sys

import numpy as np
import pytest
from evalys.jobset import JobSet
from hypothesis import given, settings
from hypothesis import strategies as st

import evogrid as eg
from evogrid.cli import main
from evogrid.jobs_file import BATSIM_COLUMNS, interval_string, jobs_table, processor_layout


def _check_layout(m, start, end, procs, held):
    """Every item holds exactly its count of distinct processors below m, and no processor is held by
    two items at once."""
    for p, mine in zip(procs, held, strict=True):
        assert len(set(mine.tolist())) == p and (mine >= 0).all() and (mine < m).all()
    by_processor: dict[int, list[tuple[int, int]]] = {}
    for s, e, mine in zip(start, end, held, strict=True):
        if e > s:
            for q in mine.tolist():
                by_processor.setdefault(q, []).append((s, e))
    for spans in by_processor.values():
        spans.sort()
        assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:], strict=False))


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 12).flatmap(lambda m: st.tuples(st.just(m), st.lists(
    st.tuples(st.integers(0, 50), st.integers(0, 20), st.integers(1, m)), min_size=1, max_size=30))))
def test_the_layout_is_feasible_whenever_the_counts_are(case):
    """Items admitted by processor count alone (as the simulator admits jobs) always get a layout."""
    m, raw = case
    items, running = [], []
    for s, length, p in sorted(raw):
        running = [(e, q) for e, q in running if e > s]
        if sum(q for _, q in running) + p <= m:
            items.append((s, s + length, p))
            if length:
                running.append((s + length, p))
    start, end, procs = (list(x) for x in zip(*items, strict=True))
    _check_layout(m, start, end, procs, processor_layout(m, start, end, procs))


def test_interval_strings_are_procsets():
    assert interval_string(np.array([3, 0, 1, 2, 7, 9, 10]), offset=100) == "100-103 107 109-110"
    assert interval_string(np.array([5])) == "5"
    with pytest.raises(ValueError, match="needs 3 processors"):
        processor_layout(2, [0], [10], [3])


def test_a_grid_schedule_as_batsim_jobs_that_evalys_reads(tmp_path, capsys):
    path = tmp_path / "jobs.csv"
    with pytest.raises(SystemExit) as exc:
        main(["simulate", "KTH@d0-10+SDSC03@d0-10", "--lrms", "easy", "--strategy", "awf",
              "--jobs", str(path)])
    assert exc.value.code == 0, capsys.readouterr().err
    with path.open() as fh:
        rows = list(csv.DictReader(fh))
    assert tuple(rows[0])[: len(BATSIM_COLUMNS)] == BATSIM_COLUMNS
    scenario = eg.Scenario.from_spec("KTH@d0-10+SDSC03@d0-10", lrms="easy")
    schedule = eg.simulate(scenario, eg.AcceptWhenFit()).schedule
    assert len(rows) == len(schedule.start)
    moved = [r for r in rows if r["site"] != r["origin_site"]]
    assert moved and all(int(r["moves"]) == 1 for r in moved)
    for r in rows:
        assert int(r["finish_time"]) - int(r["starting_time"]) == int(r["execution_time"])
        assert int(r["waiting_time"]) == int(r["starting_time"]) - int(r["submission_time"]) >= 0
    kth_m = scenario.workloads[0].machine_procs
    for r in rows:  # the executing site's processors: KTH's first, then SDSC-BLUE's
        first = int(r["allocated_resources"].split()[0].split("-")[0])
        assert (first < kth_m) == (r["site"] == "KTH@d0-10"), r
    table = jobs_table(schedule)
    for k, w in enumerate(scenario.workloads):
        mine = np.flatnonzero(schedule.site == k)
        offset = sum(v.machine_procs for v in scenario.workloads[:k])
        held = [np.array([q - offset for part in table["allocated_resources"][j].split()
                          for q in _expand(part)]) for j in mine]
        _check_layout(w.machine_procs, schedule.start[mine].tolist(), schedule.end[mine].tolist(),
                      schedule.jobs.procs[mine].tolist(), held)
    jobset = JobSet.from_csv(str(path))
    assert len(jobset.df) == len(rows)
    assert (jobset.res_bounds.inf, jobset.res_bounds.sup) == (0, sum(w.machine_procs
                                                                     for w in scenario.workloads) - 1)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from evalys.visu.gantt import NOLABEL

    jobset.gantt(labeler=NOLABEL)  # the drawing is what is checked; 6,800 job labels took 20 s
    plt.savefig(tmp_path / "gantt.png")
    assert (tmp_path / "gantt.png").stat().st_size > 10_000


def test_parquet_holds_what_the_csv_holds(tmp_path, capsys, monkeypatch):
    import pandas as pd

    for name in ("jobs.csv", "jobs.parquet"):
        with pytest.raises(SystemExit) as exc:
            main(["simulate", "KTH@d0-20+SDSC03@d0-20", "--strategy", "awf", "--jobs", str(tmp_path / name)])
        assert exc.value.code == 0, capsys.readouterr().err
    from_csv = pd.read_csv(tmp_path / "jobs.csv", keep_default_na=False)
    from_parquet = pd.read_parquet(tmp_path / "jobs.parquet")
    assert list(from_parquet.columns) == list(from_csv.columns) and len(from_csv) > 100
    pd.testing.assert_frame_equal(from_parquet.astype(str), from_csv.astype(str))
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # as on a machine without the extra
    with pytest.raises(SystemExit) as exc:
        main(["simulate", "KTH@d0-20+SDSC03@d0-20", "--jobs", str(tmp_path / "again.parquet")])
    assert exc.value.code == 2 and "evogrid[parquet]" in capsys.readouterr().err
    assert not (tmp_path / "again.parquet").exists()


def _expand(part: str) -> list[int]:
    lo, _, hi = part.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


@pytest.mark.parametrize("speeds", [None, (2.0, 1.0)])
def test_each_sites_executed_schedule_as_swf_reads_back_identically(tmp_path, capsys, speeds):
    """The SWF files evogrid writes are valid SWF (evogrid's reader takes them) and carry every job
    that ran at the site with its submit time, wait, executed run time, processors, estimate at that
    site, user and origin."""
    from evogrid.jobs_file import executed_estimates
    from evogrid.policy.strategies import Broker
    from evogrid.workload.preprocess import load_swf
    from evogrid.workload.swf import parse_swf

    spec = "KTH@d0-10+SDSC03@d0-10"
    argv = ["simulate", spec, "--lrms", "easy", "--strategy", "awf"]
    if speeds is not None:
        spec = tmp_path / "speeds.toml"
        spec.write_text('lrms = "easy"\n' + "".join(f'[[sites]]\nwindow = "{w}"\nspeed = {s}\n' for w, s in
                                                     zip(("KTH@d0-10", "SDSC03@d0-10"), speeds, strict=True)))
        argv = ["simulate", str(spec), "--strategy", "broker", "--location", "mct"]
    with pytest.raises(SystemExit) as exc:
        main([*argv, "--swf-out", str(tmp_path / "swf")])
    assert exc.value.code == 0, capsys.readouterr().err
    scenario = eg.Scenario.from_spec(str(spec), lrms="easy")
    strategy = eg.AcceptWhenFit() if speeds is None else Broker("mct")
    schedule = eg.simulate(scenario, strategy).schedule
    jobs = schedule.jobs
    estimate = executed_estimates(schedule)
    moved = 0
    for k, w in enumerate(scenario.workloads):
        path = tmp_path / "swf" / f"{w.name}.swf"
        back = load_swf(path, use_cache=False)
        assert back.dropped == {} and back.machine_procs == w.machine_procs
        mine = np.flatnonzero(schedule.site == k)
        mine = mine[np.argsort(jobs.submit[mine], kind="stable")]
        users = [jobs.workloads[o].user[i] for o, i in zip(jobs.origin[mine], jobs.index[mine], strict=True)]
        assert back.job_id.tolist() == list(range(1, mine.size + 1))
        assert back.submit.tolist() == jobs.submit[mine].tolist()
        assert back.run_time.tolist() == schedule.run_time[mine].tolist()
        assert back.procs.tolist() == jobs.procs[mine].tolist()
        assert back.estimate.tolist() == estimate[mine].tolist()
        assert back.user.tolist() == users
        raw = parse_swf(path)
        assert (raw.column("partition") - 1).tolist() == jobs.origin[mine].tolist()
        fields = np.loadtxt(path, comments=";", ndmin=2)
        assert fields[:, 2].tolist() == (schedule.start[mine] - jobs.submit[mine]).tolist()
        moved += int((jobs.origin[mine] != k).sum())
    assert moved > 0
    if speeds is not None:
        assert (estimate != jobs.estimate).any()


def test_reserve_writes_per_job_files_laid_out_around_the_held_reservations(tmp_path, capsys):
    from evogrid.jobs_file import reservation_occupied
    from evogrid.sim.booking import reservation_setup, simulate_reservations

    out = tmp_path / "res"
    code, _, err = run_cli(capsys, "reserve", "SDSC03@d0-7+SDSC03@d7-14", "--algorithm", "backfill",
                           "--out", str(out))
    assert code == 0, err
    with (out / "jobs_backfill.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    scenario = eg.Scenario.from_spec("SDSC03@d0-7+SDSC03@d7-14")
    workloads, requests, rules = reservation_setup(scenario)
    schedule, bookings = simulate_reservations(workloads, scenario.lrms, requests, rules)
    assert len(rows) == len(schedule.start) and bookings.accepted.any()
    occupied = reservation_occupied(bookings, requests, len(workloads))
    for k, w in enumerate(workloads):  # jobs and held parts together never share a processor
        mine = np.flatnonzero(schedule.site == k)
        start = [*schedule.start[mine].tolist(), *occupied[k].start.tolist()]
        end = [*schedule.end[mine].tolist(), *occupied[k].end.tolist()]
        procs = [*schedule.jobs.procs[mine].tolist(), *occupied[k].procs.tolist()]
        held = processor_layout(w.machine_procs, start, end, procs)
        _check_layout(w.machine_procs, start, end, procs, held)
        offset = k * workloads[0].machine_procs
        assert [rows[j]["allocated_resources"] for j in mine] == \
            [interval_string(h, offset) for h in held[: mine.size]]


def run_cli(capsys, *argv):
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    out, err = capsys.readouterr()
    return exc.value.code, out, err
