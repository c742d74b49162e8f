"""Run directories: resolved config, versions, atomic files, checkpoints.

What a run directory holds: docs/training.md and docs/pareto.md.
"""

from __future__ import annotations

import csv
import json
import pickle
import platform
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from evogrid._version import __version__
from evogrid.errors import EvogridError
from evogrid.files import atomic_write_bytes, write_json

CHECKPOINT = "checkpoint.pkl"
GENERATIONS_CSV = "generations.csv"
#: The file a finished run of each kind leaves (docs/training.md, docs/pareto.md).
FINISHED = {"training": "summary.json", "pareto": "front.json"}
LIBRARIES = ("numpy", "numba", "pymoo", "deap", "joblib", "dask", "distributed")


def write_toml(path: Path, config: dict[str, Any]) -> None:
    """A flat TOML file: strings, numbers, booleans and lists of those (None is left out)."""
    lines = [f"{key} = {json.dumps(value)}" for key, value in config.items() if value is not None]
    atomic_write_bytes(path, ("\n".join(lines) + "\n").encode())


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
    """Prepare ``out`` for a new run: refuse one holding a run, drop an old per-generation
    CSV, write the resolved ``config.toml``."""
    if (out / CHECKPOINT).exists():
        raise EvogridError(f"{out} already holds a run; use --resume {out} or another --out")
    out.mkdir(parents=True, exist_ok=True)
    (out / generations_csv).unlink(missing_ok=True)
    write_toml(out / "config.toml", config)


def finished_kind(run_dir: Path) -> str | None:
    """What finished run ``run_dir`` holds: ``training``, ``pareto``, or None (none, or not finished)."""
    return next((kind for kind, name in FINISHED.items() if (run_dir / name).exists()), None)


def resumable_config(out: Path) -> dict[str, Any]:
    """The ``config.toml`` of a run directory that holds a checkpoint."""
    import tomllib

    if not (out / CHECKPOINT).exists():
        raise EvogridError(f"{out}: no checkpoint to resume from")
    try:
        return tomllib.loads((out / "config.toml").read_text())
    except FileNotFoundError:
        raise EvogridError(f"{out}: not a run directory (no config.toml)") from None


def write_rows(stem: Path, rows: list[dict[str, Any]]) -> None:
    """``stem.json`` and ``stem.csv`` holding the same table (one dict per row)."""
    write_json(stem.with_suffix(".json"), rows)
    with stem.with_suffix(".csv").open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def save_checkpoint(run_dir: Path, state: Any) -> None:
    atomic_write_bytes(run_dir / CHECKPOINT, pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL))


def load_checkpoint(run_dir: Path) -> Any:
    try:
        with (run_dir / CHECKPOINT).open("rb") as fh:
            return pickle.load(fh)
    except FileNotFoundError:
        raise EvogridError(f"{run_dir}: no checkpoint to resume from") from None


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
    kept = [r for r in rows if int(r["generation"]) <= generation]
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(kept)


def append_csv_row(path: Path, row: dict[str, Any]) -> None:
    """Append one row, writing the header first if the file is new."""
    new = not path.exists()
    with path.open("a", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(row))
        if new:
            writer.writeheader()
        writer.writerow(row)
