"""Checkpoints that hold data only: ``checkpoint.npz`` in a run directory (docs/cli.md).

A run directory may come from somewhere else (a colleague, a cluster, a
download), so resuming must not run code from it: no pickle. A checkpoint is
one ``.npz`` file (numpy arrays, read with ``allow_pickle=False``) whose entry
``__meta__`` is a JSON record::

    {"format": "evogrid-checkpoint", "schema": 1, "kind": "EvolutionState", "generation": 12,
     "tree": ...}

``tree`` is the optimiser's state as plain data (:meth:`~evogrid.optimize.loop.Optimizer.to_data`):
JSON values, with arrays referenced by key (``{"__array__": "a3"}``), tuples
tagged (``{"__tuple__": [...]}``) and numpy random generators as their
bit-generator state (``{"__generator__": {...}}``). Nothing else can be
encoded, so nothing else can come back. ``kind`` names the state the
optimiser expects; a checkpoint of another kind, of another schema, a
damaged file or an older evogrid's ``checkpoint.pkl`` is a one-line
:class:`~evogrid.errors.EvogridError`.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from evogrid.errors import EvogridError
from evogrid.files import atomic_write_bytes

FILE = "checkpoint.npz"
#: What evogrid 0.1 wrote (pickles); refused on resume.
PICKLE_FILE = "checkpoint.pkl"
FORMAT = "evogrid-checkpoint"
#: Bump when the trees change meaning; older checkpoints are then refused with a clear error.
SCHEMA = 1
_META = "__meta__"
#: The bit generators a checkpointed numpy Generator may use.
_BIT_GENERATORS = {cls.__name__: cls for cls in (np.random.PCG64, np.random.PCG64DXSM, np.random.MT19937,
                                                 np.random.Philox, np.random.SFC64)}


def save(run_dir: Path, kind: str, tree: Any, generation: int) -> None:
    """Write ``tree`` (plain data, see the module docstring), the state after ``generation``
    generations, as the checkpoint of ``run_dir``, atomically."""
    arrays: dict[str, np.ndarray] = {}
    meta = {"format": FORMAT, "schema": SCHEMA, "kind": kind, "generation": generation,
            "tree": _encode(tree, arrays)}
    buffer = io.BytesIO()
    np.savez(buffer, **{_META: np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)}, **arrays)
    atomic_write_bytes(run_dir / FILE, buffer.getvalue())


def exists(run_dir: Path) -> bool:
    """Whether ``run_dir`` holds a checkpoint (of this or an older evogrid)."""
    return (run_dir / FILE).exists() or (run_dir / PICKLE_FILE).exists()


def load(run_dir: Path, kind: str) -> Any:
    """The tree of ``run_dir``'s checkpoint, which must be of ``kind``. Raises EvogridError."""
    path = run_dir / FILE
    meta, arrays = _read(run_dir, with_arrays=True)
    if meta.get("kind") != kind:
        raise EvogridError(f"{path}: a checkpoint of a {meta.get('kind')}, not of a {kind}")
    try:
        return _decode(meta["tree"], arrays)
    except (KeyError, TypeError, ValueError) as exc:
        raise EvogridError(f"{path}: a damaged checkpoint ({type(exc).__name__}: {exc})") from None


def saved_generation(run_dir: Path) -> int:
    """The generations the checkpoint of ``run_dir`` has done (where ``--resume`` continues).
    Raises EvogridError."""
    return int(_read(run_dir, with_arrays=False)[0].get("generation", 0))


def _read(run_dir: Path, *, with_arrays: bool) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The checkpoint's checked JSON record and (``with_arrays``) its arrays."""
    path = run_dir / FILE
    if not path.exists():
        if (run_dir / PICKLE_FILE).exists():
            raise EvogridError(f"{run_dir / PICKLE_FILE}: a checkpoint of an older evogrid (a pickle, which "
                               "could run code when loaded); it is not resumed: start a new run")
        raise EvogridError(f"{run_dir}: no checkpoint to resume from")
    try:
        with np.load(path, allow_pickle=False) as npz:
            meta = json.loads(npz[_META].tobytes().decode())
            arrays = {name: npz[name] for name in npz.files if name != _META} if with_arrays else {}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, UnicodeDecodeError) as exc:
        raise EvogridError(f"{path}: not a readable evogrid checkpoint (truncated or corrupted: "
                           f"{type(exc).__name__})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise EvogridError(f"{path}: not an evogrid checkpoint")
    if meta.get("schema") != SCHEMA:
        raise EvogridError(f"{path}: checkpoint schema {meta.get('schema')}, this evogrid reads schema "
                           f"{SCHEMA}; resume it with the evogrid that wrote it")
    return meta, arrays


def _encode(value: Any, arrays: dict[str, np.ndarray]) -> Any:
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        return float(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            raise TypeError("object arrays cannot be checkpointed")
        key = f"a{len(arrays)}"
        arrays[key] = value
        return {"__array__": key}
    if isinstance(value, np.random.Generator):
        return {"__generator__": _encode(value.bit_generator.state, arrays)}
    if isinstance(value, tuple):
        return {"__tuple__": [_encode(v, arrays) for v in value]}
    if isinstance(value, list):
        return [_encode(v, arrays) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) and not k.startswith("__") for k in value):
        return {k: _encode(v, arrays) for k, v in value.items()}
    raise TypeError(f"a checkpoint holds data only, not {type(value).__name__}")


def _decode(node: Any, arrays: dict[str, np.ndarray]) -> Any:
    if isinstance(node, list):
        return [_decode(v, arrays) for v in node]
    if not isinstance(node, dict):
        return node
    if "__array__" in node:
        return arrays[node["__array__"]]
    if "__tuple__" in node:
        return tuple(_decode(v, arrays) for v in node["__tuple__"])
    if "__generator__" in node:
        state = _decode(node["__generator__"], arrays)
        bit_generator = _BIT_GENERATORS[state["bit_generator"]]()
        bit_generator.state = state
        return np.random.Generator(bit_generator)
    return {k: _decode(v, arrays) for k, v in node.items()}
