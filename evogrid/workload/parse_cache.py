"""A parsed-SWF cache keyed by the file's SHA-256.

The second load of a log reads two ``.npy`` files instead of parsing text.
The key is the content hash (not the path or mtime), so a renamed copy hits
and an edited file misses. Location: ``$EVOGRID_CACHE_DIR``, else
``$XDG_CACHE_HOME/evogrid``, else ``~/.cache/evogrid``. Writes are atomic
(temporary directory, then rename), so parallel workers never read half a
cache entry.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np

from evogrid.workload.swf import COLUMNS, RawTrace, parse_swf

#: Bump when the parser's output changes, so old entries are ignored.
CACHE_FORMAT = 2  # 2: a used field beyond 2**53 is a malformed line


def cache_dir() -> Path:
    """The directory holding cached parses."""
    if env := os.environ.get("EVOGRID_CACHE_DIR"):
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "evogrid"


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


def cached_parse(path: Path, *, lenient: bool = False) -> RawTrace:
    """:func:`parse_swf` with a content-addressed cache in :func:`cache_dir`."""
    if not path.is_file():
        return parse_swf(path, lenient=lenient)  # raises the one-line error
    key = f"v{CACHE_FORMAT}-{file_sha256(path)}{'-lenient' if lenient else ''}"
    entry = cache_dir() / key
    try:
        meta = json.loads((entry / "meta.json").read_text())
        table = np.load(entry / "table.npy")
        lines = np.load(entry / "lines.npy")
        if tuple(meta["columns"]) == COLUMNS:
            return RawTrace(path, meta["header"], table, lines, meta["malformed"], meta["notes"])
    except (OSError, ValueError, KeyError):
        pass
    raw = parse_swf(path, lenient=lenient)
    _store(entry, raw)
    return raw


def _store(entry: Path, raw: RawTrace) -> None:
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=entry.parent))
        np.save(tmp / "table.npy", raw.table)
        np.save(tmp / "lines.npy", raw.line_numbers)
        meta = {
            "columns": list(COLUMNS),
            "header": raw.header,
            "malformed": raw.malformed,
            "notes": raw.notes,
            "source": str(raw.path),
        }
        (tmp / "meta.json").write_text(json.dumps(meta))
        try:
            os.replace(tmp, entry)
        except OSError:  # another process stored it first
            shutil.rmtree(tmp, ignore_errors=True)
    except OSError:
        pass  # a read-only cache location only costs speed
