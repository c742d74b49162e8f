"""Run directories under concurrency and damage: one run at a time (the lock), checkpoints that hold
data only, clear errors for damaged or foreign files (docs/cli.md)."""

import csv
import io
import json
import os
import subprocess
import sys
import tomllib
import zipfile

import numpy as np
import pytest

from evogrid.errors import EvogridError
from evogrid.optimize import Evaluator, TrainConfig, checkpoint, run_training, rundir

TINY = ["KTH@0-1+SDSC03@0-1", "--mu", "1", "--lambda", "4", "--workers", "1", "--backend", "serial"]


def evogrid(*argv: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "evogrid.cli", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_a_locked_directory_is_refused_with_the_holders_pid(tmp_path):
    with rundir.locked(tmp_path / "run"), \
            pytest.raises(EvogridError, match=f"run is locked by PID {os.getpid()}"), \
            rundir.locked(tmp_path / "run"):
        pass
    with rundir.locked(tmp_path / "run"):  # released at the end of the block
        assert (tmp_path / "run" / rundir.LOCK).read_text().strip() == str(os.getpid())
        proc = evogrid("train", *TINY, "--generations", "1", "--out", str(tmp_path / "run"))
        _, err = proc.communicate(timeout=120)
    assert proc.returncode == 2 and err.strip() == (
        f"evogrid: error: {tmp_path / 'run'} is locked by PID {os.getpid()} (a run is under way there)")
    assert not (tmp_path / "run" / "config.toml").exists()  # nothing written before the lock


def _consistent(run_dir, seed: int) -> None:
    """config.toml, run.json, the rulebase and generations.csv all come from one run of ``seed``."""
    assert tomllib.loads((run_dir / "config.toml").read_text())["seed"] == seed
    assert json.loads((run_dir / "run.json").read_text())["seed"] == seed
    (rulebase,) = (run_dir / "rulebases").glob("*.json")
    assert json.loads(rulebase.read_text())["provenance"]["seed"] == seed
    with (run_dir / "generations.csv").open() as fh:
        generations = [int(r["generation"]) for r in csv.DictReader(fh)]
    assert generations == list(range(len(generations)))


def test_two_runs_started_into_one_directory_at_once_one_runs_the_other_is_refused(tmp_path):
    out = tmp_path / "run"
    procs = {seed: evogrid("train", *TINY, "--generations", "3", "--seed", str(seed), "--out", str(out))
             for seed in (1, 2)}
    results = {seed: (p.wait(timeout=300), p.stderr.read()) for seed, p in procs.items()}
    codes = sorted(code for code, _ in results.values())
    refused = [err for code, err in results.values() if code == 2]
    assert codes == [0, 2] and len(refused) == 1, results
    assert "is locked by PID" in refused[0] or "already holds a run" in refused[0]
    winner = next(seed for seed, (code, _) in results.items() if code == 0)
    _consistent(out, winner)


def test_two_resumes_of_one_run_at_once_one_continues_the_other_is_refused(tmp_path):
    out = tmp_path / "run"
    # long enough (about 2 s after the first generation) that neither resume can finish before
    # the other one starts
    config = TrainConfig("KTH@0-4+SDSC03@0-4", mu=2, lambda_=8, generations=60, seed=3)
    with Evaluator("serial") as ev:
        assert not run_training(config, out, ev, progress=False, stop_after=1, plots=None)["finished"]
    procs = [evogrid("train", "--resume", str(out), "--workers", "1", "--backend", "serial")
             for _ in range(2)]
    results = [(p.wait(timeout=300), p.stderr.read()) for p in procs]
    assert sorted(code for code, _ in results) == [0, 2], results
    assert any("is locked by PID" in err for code, err in results if code == 2)
    _consistent(out, 3)
    with Evaluator("serial") as ev:
        straight = run_training(config, tmp_path / "straight", ev, progress=False, plots=None)
    resumed = json.loads((out / "summary.json").read_text())
    assert resumed == json.loads((tmp_path / "straight" / "summary.json").read_text())
    assert straight["finished"]


def test_checkpoints_round_trip_data_and_refuse_anything_else(tmp_path):
    mt = np.random.Generator(np.random.MT19937(5))
    tree = {"generation": 3, "x": np.arange(6, dtype=np.int8).reshape(2, 3), "pair": (1.5, [np.ones(2)]),
            "rng": np.random.default_rng(9), "mt": mt, "inf": float("inf"), "none": None}
    mt.random(3)
    checkpoint.save(tmp_path, "Toy", tree, 3)
    assert checkpoint.saved_generation(tmp_path) == 3
    back = checkpoint.load(tmp_path, "Toy")
    assert back["generation"] == 3 and back["inf"] == float("inf") and back["none"] is None
    assert back["x"].dtype == np.int8 and back["x"].tolist() == tree["x"].tolist()
    assert back["pair"][0] == 1.5 and isinstance(back["pair"], tuple)
    assert back["rng"].random() == np.random.default_rng(9).random()
    assert back["mt"].random() == mt.random()
    with pytest.raises(EvogridError, match="a checkpoint of a Toy, not of a Other"):
        checkpoint.load(tmp_path, "Other")
    with pytest.raises(TypeError, match="data only"):
        checkpoint.save(tmp_path, "Toy", {"f": print}, 0)
    with pytest.raises(TypeError, match="object arrays"):
        checkpoint.save(tmp_path, "Toy", {"a": np.array([print], dtype=object)}, 0)


def test_damaged_and_foreign_checkpoints_are_one_line_errors(tmp_path):
    checkpoint.save(tmp_path, "Toy", {"a": np.zeros(3)}, 0)
    whole = (tmp_path / checkpoint.FILE).read_bytes()
    for damaged in (b"", whole[:40], whole[: len(whole) // 2], os.urandom(300)):
        (tmp_path / checkpoint.FILE).write_bytes(damaged)
        with pytest.raises(EvogridError, match="checkpoint.npz: not a readable evogrid checkpoint"):
            checkpoint.load(tmp_path, "Toy")

    def npz(meta: dict, **arrays) -> bytes:
        buffer = io.BytesIO()
        np.savez(buffer, __meta__=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8), **arrays)
        return buffer.getvalue()

    cases = {"not an evogrid checkpoint": {"format": "other"},
             "schema 99": {"format": checkpoint.FORMAT, "schema": 99, "kind": "Toy", "tree": {}},
             "damaged checkpoint": {"format": checkpoint.FORMAT, "schema": checkpoint.SCHEMA, "kind": "Toy",
                                    "tree": {"a": {"__array__": "missing"}}}}
    for message, meta in cases.items():
        (tmp_path / checkpoint.FILE).write_bytes(npz(meta))
        with pytest.raises(EvogridError, match=message):
            checkpoint.load(tmp_path, "Toy")
    # an array of pickled objects inside the archive is never unpickled
    buffer = io.BytesIO()
    np.save(buffer, np.array([print], dtype=object), allow_pickle=True)
    with zipfile.ZipFile(tmp_path / checkpoint.FILE, "w") as archive:
        archive.writestr("__meta__.npy", buffer.getvalue())
    with pytest.raises(EvogridError, match="not a readable evogrid checkpoint"):
        checkpoint.load(tmp_path, "Toy")
    (tmp_path / checkpoint.FILE).unlink()
    (tmp_path / checkpoint.PICKLE_FILE).write_bytes(b"\x80\x04N.")
    with pytest.raises(EvogridError, match="older evogrid .*start a new run"):
        checkpoint.load(tmp_path, "Toy")


def test_a_config_of_another_kind_or_damaged_is_a_one_line_error(tmp_path):
    from evogrid.optimize.loop import resumed_config
    from evogrid.optimize.training import TRAINING

    checkpoint.save(tmp_path, "EvolutionState", {}, 0)
    (tmp_path / "config.toml").write_text('scenario = "KTH@0-1+SDSC03@0-1"\nmu = 0\n')
    with pytest.raises(EvogridError, match="config.toml: --mu 0: Input should be greater than or equal to 1"):
        resumed_config(TRAINING, tmp_path)
    (tmp_path / "config.toml").write_text('scenario = "KTH@0-1+SDSC03@0-1"\npop_size = 4\n')
    with pytest.raises(EvogridError, match="config.toml: pop_size: not a setting of TrainConfig"):
        resumed_config(TRAINING, tmp_path)
    (tmp_path / "config.toml").write_bytes(b"\xff\xfe garbage")
    with pytest.raises(EvogridError, match="config.toml: damaged"):
        resumed_config(TRAINING, tmp_path)


def test_atomic_files_are_as_readable_as_the_umask_allows(tmp_path, monkeypatch):
    import evogrid.files

    umask = os.umask(0)
    os.umask(umask)
    evogrid.files.atomic_write_bytes(tmp_path / "a.txt", b"x")
    assert (tmp_path / "a.txt").stat().st_mode & 0o777 == 0o666 & ~umask
    monkeypatch.setattr(evogrid.files, "_UMASK", 0o027)
    evogrid.files.atomic_write_bytes(tmp_path / "b.txt", b"y")
    assert (tmp_path / "b.txt").stat().st_mode & 0o777 == 0o640
