"""Run directories: resolved config, versions, atomic files, checkpoints, the lock (docs/cli.md).

What a run directory holds: docs/training.md and docs/pareto.md.
"""

from __future__ import annotations

import contextlib
import csv
import fcntl
import io
import json
import os
import platform
from collections.abc import Iterator
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from evogrid._version import __version__
from evogrid.errors import EvogridError
from evogrid.files import atomic_write_bytes, write_json
from evogrid.optimize import checkpoint

GENERATIONS_CSV = "generations.csv"
LOCK = ".lock"
#: The file a finished run of each kind leaves (docs/training.md, docs/pareto.md).
FINISHED = {"training": "summary.json", "pareto": "front.json"}
LIBRARIES = ("numpy", "numba", "pymoo", "deap", "joblib", "dask", "distributed")


@contextlib.contextmanager
def locked(out: Path) -> Iterator[None]:
    """Hold an exclusive lock on the run directory ``out`` (created if missing) while the block runs.

    The lock is ``fcntl.flock`` on ``out/.lock``, which records the holder's PID;
    a second process gets EvogridError naming that PID at once (no waiting).
    The operating system releases the lock with its process, so a killed run
    leaves no stale lock. The file is never removed: a process could be about
    to lock it, and would then lock a file nobody else sees.
    """
    out.mkdir(parents=True, exist_ok=True)
    fd = os.open(out / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
            raise EvogridError(f"{out} is locked by PID {holder} (a run is under way there)") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock


def write_toml(path: Path, config: dict[str, Any]) -> None:
    """``config`` as TOML (tomli-w), written atomically; None values are left out (TOML has no null)."""
    import tomli_w

    atomic_write_bytes(path, tomli_w.dumps({k: v for k, v in config.items() if v is not None}).encode())


def versions() -> dict[str, str]:
    """Python, evogrid and the key libraries' versions (for the run record)."""
    found = {"python": platform.python_version(), "evogrid": __version__}
    for lib in LIBRARIES:
        try:
            found[lib] = metadata.version(lib)
        except metadata.PackageNotFoundError:
            continue
    return found


def run_record(seed: int, **extra: Any) -> dict[str, Any]:
    return {"seed": seed, "started": datetime.now(UTC).isoformat(timespec="seconds"),
            "host": platform.node(), "versions": versions(), **extra}


def start_run(out: Path, config: dict[str, Any], generations_csv: str = GENERATIONS_CSV) -> None:
    """Prepare ``out`` (locked by the caller) for a new run: refuse one that holds a run (a
    checkpoint: it can be resumed), drop the per-generation CSV of a run killed before its first
    checkpoint, write the resolved ``config.toml``."""
    if checkpoint.exists(out):
        raise EvogridError(f"{out} already holds a run; continue it with --resume {out}, or choose "
                           "another --out")
    out.mkdir(parents=True, exist_ok=True)
    (out / generations_csv).unlink(missing_ok=True)
    write_toml(out / "config.toml", config)


def finished_kind(run_dir: Path) -> str | None:
    """What finished run ``run_dir`` holds: ``training``, ``pareto``, or None (none, or not finished)."""
    return next((kind for kind, name in FINISHED.items() if (run_dir / name).exists()), None)


def resumable_config(out: Path) -> dict[str, Any]:
    """The ``config.toml`` of a run directory that holds a checkpoint. Raises EvogridError."""
    import tomllib

    if not checkpoint.exists(out):
        raise EvogridError(f"{out}: no checkpoint to resume from")
    path = out / "config.toml"
    try:
        return tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise EvogridError(f"{out}: not a run directory (no config.toml)") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise EvogridError(f"{path}: damaged ({exc})") from None


def run_record_kind(out: Path) -> str | None:
    """The ``kind`` entry of ``out/run.json`` (None if there is none or it cannot be read)."""
    try:
        return json.loads((out / "run.json").read_text()).get("kind")
    except (OSError, ValueError, AttributeError):
        return None


def write_rows(stem: Path, rows: list[dict[str, Any]]) -> None:
    """``stem.json`` and ``stem.csv`` holding the same table (one dict per row), each written atomically."""
    write_json(stem.with_suffix(".json"), rows)
    write_csv(stem.with_suffix(".csv"), list(rows[0]), [list(r.values()) for r in rows])


def write_csv(path: Path, header: list[str], rows: list[list[Any]]) -> None:
    """A CSV file with ``header``, written atomically."""
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer)
    writer.writerow(header)
    writer.writerows(rows)
    atomic_write_bytes(path, buffer.getvalue().encode())


def csv_rows(path: Path) -> list[dict[str, str]]:
    """The rows of a CSV file with a header ([] if it does not exist)."""
    if not path.exists():
        return []
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


def recorded_seconds(path: Path, generation: int) -> float:
    """Wall seconds recorded in a per-generation CSV up to ``generation`` (0 if none)."""
    kept = [r for r in csv_rows(path) if int(r["generation"]) <= generation]
    return float(kept[-1]["wall_seconds"]) if kept else 0.0


def truncate_csv(path: Path, generation: int) -> None:
    """Drop rows written after the checkpoint (a kill between the row and the checkpoint)."""
    rows = csv_rows(path)
    if not rows:
        return
    kept = [list(r.values()) for r in rows if int(r["generation"]) <= generation]
    write_csv(path, list(rows[0]), kept)


def append_csv_row(path: Path, row: dict[str, Any]) -> None:
    """Append one row, writing the header first if the file is new."""
    new = not path.exists()
    with path.open("a", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(row))
        if new:
            writer.writeheader()
        writer.writerow(row)
