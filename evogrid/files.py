"""Atomic file writes, and JSON reads with one-line errors (run directories, rulebase and workload
files); imports nothing from evogrid."""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: The process's umask, read once (reading it means setting it): mkstemp creates files readable by
#: their owner only, and results should be as readable as any file the user writes.
_UMASK = os.umask(0o022)
os.umask(_UMASK)


def file_stem(name: str) -> str:
    """``name`` (a window, a site) as a portable file name stem: ``lepping:KTH-5`` -> ``lepping_KTH-5``."""
    return re.sub(r"[^A-Za-z0-9._@+-]", "_", name)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` so that ``path`` holds either the old or the new content, never a mix."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_UMASK)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_json(path: Path, error: Callable[[str], Exception], what: str) -> Any:
    """The JSON value in ``path``; a missing file, a directory, a binary file or invalid JSON raises
    ``error(message)``, one line naming the path (and the line of invalid JSON)."""
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise error(f"{path}: no such {what}") from None
    except IsADirectoryError:
        raise error(f"{path}: a directory, not a {what}") from None
    except UnicodeDecodeError:
        raise error(f"{path}: not a text file") from None
    except json.JSONDecodeError as exc:
        raise error(f"{path}:{exc.lineno}: not valid JSON: {exc.msg}") from None


def write_json(path: Path, data: Any) -> None:
    """``data`` as indented JSON, written atomically."""
    atomic_write_bytes(path, (json.dumps(data, indent=2) + "\n").encode())
