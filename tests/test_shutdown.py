"""SIGTERM and SIGINT stop a run and its workers: no process of the run survives by more than 5 s,
and the run says how to continue it (docs/cli.md)."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evogrid.optimize import checkpoint
from evogrid.optimize.rundir import GENERATIONS_CSV, csv_rows


def descendants(pid: int) -> set[int]:
    """Every living process below ``pid`` (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rpartition(")")[2].split()[1])
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process tree from /proc")
@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_stops_the_run_and_its_workers(tmp_path, signum, code):
    out = tmp_path / "run"
    argv = [sys.executable, "-m", "evogrid.cli", "train", "KTH@0-1+SDSC03@0-1", "--generations", "500",
            "--mu", "2", "--lambda", "16", "--workers", "2", "--backend", "loky", "--out", str(out)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "EVOGRID_DEBUG": "0"})
    deadline = time.monotonic() + 120
    # the CSV row of a generation is written just before its checkpoint: wait for the checkpoint
    while not checkpoint.exists(out) and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
    assert proc.poll() is None, proc.communicate()
    workers = descendants(proc.pid)
    assert workers, "the run should have started loky workers"
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == code, err
    generation = checkpoint.saved_generation(out)
    assert generation >= 0 and csv_rows(out / GENERATIONS_CSV)
    assert f"stopped after generation {generation}; continue with --resume {out}" in err
    assert "Traceback" not in err
    deadline = time.monotonic() + 5
    while any(alive(p) for p in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in workers if alive(p)], "processes of the run outlived it by 5 s"


def test_after_sigkill_resume_gives_the_uninterrupted_result(tmp_path):
    """SIGKILL leaves no chance to clean up: the lock goes with the process, the atomic checkpoint
    stays, and --resume ends exactly as a run that was never killed."""
    # about 1 s of generations remain after the third (polled every 50 ms), so the kill lands mid-run
    settings = ["--generations", "60", "--mu", "2", "--lambda", "6", "--workers", "1", "--backend", "serial"]
    out, straight = tmp_path / "killed", tmp_path / "straight"
    argv = [sys.executable, "-m", "evogrid.cli", "train", "KTH@0-2+SDSC03@0-2", *settings]
    proc = subprocess.Popen([*argv, "--out", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while len(csv_rows(out / GENERATIONS_CSV)) < 3 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    proc.kill()
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL, "the run ended before it could be killed"
    resumed = subprocess.run([sys.executable, "-m", "evogrid.cli", "train", "--resume", str(out), "--workers",
                              "1", "--backend", "serial"], capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    subprocess.run([*argv, "--out", str(straight)], check=True, capture_output=True, timeout=300)
    assert (out / "summary.json").read_text() == (straight / "summary.json").read_text()
    assert [r.pop("wall_seconds") and r for r in csv_rows(out / GENERATIONS_CSV)] == \
        [r.pop("wall_seconds") and r for r in csv_rows(straight / GENERATIONS_CSV)]
