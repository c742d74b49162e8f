"""experiments/dissertation.py, the one command for the dissertation's experiments: its quick subset
runs, its numbers are the dissertation's within the tolerances, a second run resumes (keeps what is
done), and a locked run directory is refused with one line."""

import os
import re
import subprocess
import sys
from pathlib import Path

from evogrid.optimize.rundir import locked

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "experiments" / "dissertation.py"
#: docs/reproduction.md's tolerances for Table 7.2 (AWRT, %).
TOLERANCE = {"FCFS": 5.0, "EASY": 3.0, "LIST": 3.0}


def _run(out: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, str(SCRIPT), "--quick", "--out", str(out)], capture_output=True,
                          text=True, env=env, timeout=600)


def test_the_quick_run_reproduces_its_rows_resumes_and_refuses_a_locked_directory(tmp_path):
    out = tmp_path / "run"
    first = _run(out)
    assert first.returncode == 0, first.stderr[-2000:]
    report = (out / "report.md").read_text()
    row = r"^\| KTH-11 \| (FCFS|EASY|LIST) \| [\d,.]+ / [\d,.]+ \| ([+-][\d.]+) % \|"
    rows = re.findall(row, report, re.M)
    assert sorted(lrms for lrms, _ in rows) == ["EASY", "FCFS", "LIST"]
    assert all(abs(float(diff)) <= TOLERANCE[lrms] for lrms, diff in rows), rows
    # Table 10.1 per submitting site (evogrid's AWRT) and per executing site (a reading).
    assert "Table 10.1" in report and report.count("| IV | SDSC03-11 + SDSC05-11 |") == 2
    stamp = (out / "part3.md").stat().st_mtime_ns
    again = _run(out)
    assert again.returncode == 0, again.stderr[-2000:]
    assert again.stderr.count("done before, kept") == 2
    assert (out / "part3.md").stat().st_mtime_ns == stamp and (out / "report.md").read_text() == report
    with locked(out):
        refused = _run(out)
    lines = refused.stderr.strip().splitlines()
    assert refused.returncode == 2 and len(lines) == 1 and f"PID {os.getpid()}" in lines[0], refused.stderr
