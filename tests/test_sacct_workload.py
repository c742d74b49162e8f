"""Slurm sacct --parsable2 dumps in: fields, job steps counted, simulate and train; one-line errors."""

import pytest

from evogrid.cli import main
from evogrid.errors import SWFFormatError
from evogrid.workload.preprocess import Preprocessing, load_swf
from evogrid.workload.sacct import duration_seconds, parse_sacct

HEADER = "JobID|Submit|Elapsed|Timelimit|NCPUS|User|State"
DUMP = [
    HEADER,
    "100|2024-03-01T10:00:00|01:00:00|02:00:00|4|alice|COMPLETED",
    "100.batch|2024-03-01T10:00:00|01:00:00||4||COMPLETED",
    "100.0|2024-03-01T10:00:00|00:59:00||4||COMPLETED",
    "101|2024-03-01T10:30:00|1-00:00:10|UNLIMITED|8|bob|TIMEOUT",
    "102_3|2024-03-01T11:00:00|05:00|10:00|2|alice|CANCELLED by 7",
    "103|2024-03-01T12:00:00|00:00:00|01:00:00|2|carol|PENDING",
]


def run(capsys, *argv):
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    out, err = capsys.readouterr()
    return exc.value.code, out, err


def test_durations():
    assert duration_seconds("1-02:03:04") == 93_784
    assert duration_seconds("02:03:04") == 7_384
    assert duration_seconds("03:04") == 184
    with pytest.raises(ValueError, match="not a duration"):
        duration_seconds("soon")


def test_a_sacct_dump_becomes_a_workload(tmp_path):
    path = tmp_path / "c.sacct"
    path.write_text("\n".join(DUMP) + "\n")
    w = load_swf(path, Preprocessing(machine_procs=16))
    assert w.job_id.tolist() == [100, 101, 102]
    assert w.submit.tolist() == [0, 1_800, 3_600]
    assert w.run_time.tolist() == [3_600, 86_410, 300]
    assert w.procs.tolist() == [4, 8, 2]
    assert w.estimate.tolist() == [7_200, 86_410, 600]  # UNLIMITED: unknown, the run time stands in
    assert w.user.tolist() == [1, 2, 1]
    assert w.dropped == {"job_steps": 2, "run_time_nonpositive": 1}
    raw = parse_sacct(path)
    assert raw.column("status").tolist() == [1, 0, 0, 0]
    with pytest.raises(Exception, match="records no machine size; give the machine size with --procs"):
        load_swf(path)


def test_sacct_dumps_run_through_simulate_and_train(tmp_path, capsys):
    rows = [HEADER] + [_line(JobID=str(i), Submit=f"2024-03-01T{10 + i // 60:02d}:{i % 60:02d}:00",
                             Elapsed=f"00:{10 + i % 40:02d}:00", NCPUS=str(1 + i % 4), User=f"u{i % 3}")
                       for i in range(300)]
    for name in ("a", "b"):
        (tmp_path / f"{name}.sacct").write_text("\n".join(rows) + "\n")
    spec = tmp_path / "grid.toml"
    spec.write_text(f'[[sites]]\nwindow = "{tmp_path / "a.sacct"}"\nprocs = 4\n'
                    f'[[sites]]\nwindow = "{tmp_path / "b.sacct"}"\nprocs = 8\n')
    code, out, err = run(capsys, "simulate", str(spec), "--strategy", "awf")
    assert code == 0 and "a.sacct" in out, err
    code, _, err = run(capsys, "train", str(spec), "--generations", "1", "--mu", "1", "--lambda", "2",
                       "--workers", "1", "--backend", "serial", "--out", str(tmp_path / "run"))
    assert code == 0, err


GOOD = {"JobID": "1", "Submit": "2024-03-01T10:00:00", "Elapsed": "01:00:00", "Timelimit": "02:00:00",
        "NCPUS": "4", "User": "a", "State": "COMPLETED"}


def _line(**changed: str) -> str:
    return "|".join({**GOOD, **changed}.values())


BAD = {
    "no JobID column": (["Submit|Elapsed|NCPUS", "2024-03-01T10:00:00|01:00:00|4"],
                        "bad.sacct:1: the header lacks JobID"),
    "bad submit": ([HEADER, _line(Submit="yesterday")], "bad.sacct:2: malformed sacct line: Submit"),
    "bad elapsed": ([HEADER, _line(Elapsed="an hour")], "bad.sacct:2: malformed sacct line: Elapsed"),
    "bad ncpus": ([HEADER, _line(NCPUS="four")], "bad.sacct:2: malformed sacct line: NCPUS"),
    "bad limit": ([HEADER, _line(Timelimit="forever")], "bad.sacct:2: malformed sacct line: Timelimit"),
    "missing fields": ([HEADER, "1|2024-03-01T10:00:00|01:00:00"],
                       "bad.sacct:2: malformed sacct line: expected 7 fields"),
    "empty": ([], "bad.sacct: empty"),
}


@pytest.mark.parametrize("case", list(BAD), ids=list(BAD))
def test_a_bad_sacct_dump_is_one_line_naming_file_line_and_field(tmp_path, capsys, case):
    lines, fragment = BAD[case]
    path = tmp_path / "bad.sacct"
    path.write_text("\n".join(lines))
    with pytest.raises(SWFFormatError, match="bad.sacct"):
        parse_sacct(path)
    code, _, err = run(capsys, "simulate", str(path), "--procs", "8")
    lines_out = err.strip().splitlines()
    assert code == 2 and len(lines_out) == 1 and lines_out[0].startswith("evogrid: error: "), err
    assert fragment in lines_out[0], lines_out[0]
    if lines and lines[0] == HEADER:  # a good header: --lenient skips and counts the bad line
        assert parse_sacct(path, lenient=True).malformed == 1
