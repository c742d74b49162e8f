"""Parsing Standard Workload Format (SWF) files into raw numeric tables.

An SWF file has header lines starting with ``;`` (``; MaxProcs: 100``) and
data lines of 18 whitespace-separated numbers. Parsing is done in C: one
regular expression blanks the comment lines and :func:`numpy.fromstring`
reads every number at once. Only when the number count does not match
``18 * data lines`` (a malformed file) do we walk the lines in Python, to name
the first bad line (strict) or to skip and count the bad lines (lenient).

The result is a :class:`RawTrace`: the used columns as int64, untouched by
any preprocessing (that is :mod:`evogrid.workload.preprocess`).
"""

from __future__ import annotations

import gzip
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from evogrid.errors import SWFFormatError

N_FIELDS = 18

#: The SWF fields we keep (1-based field number -> column name).
USED_FIELDS: dict[int, str] = {
    1: "job_id",
    2: "submit",
    4: "run_time",
    5: "alloc_procs",
    8: "req_procs",
    9: "req_time",
    11: "status",
    12: "user",
    13: "group",
    15: "queue",
    16: "partition",
}
COLUMNS = tuple(USED_FIELDS.values())
_FIELD_INDEX = np.array([f - 1 for f in USED_FIELDS], dtype=np.int64)

_COMMENT_LINE = re.compile(rb"(?m)^[ \t]*;.*$")
_HEADER_ITEM = re.compile(rb"(?m)^[ \t]*;[ \t]*([A-Za-z][A-Za-z0-9_ ]*?)[ \t]*:[ \t]*(.*?)[ \t\r]*$")


@dataclass(frozen=True)
class RawTrace:
    """An SWF file's used columns, before any preprocessing.

    Attributes:
        path: the file it came from.
        header: header items (``MaxProcs`` -> ``"100"``); repeated keys keep
            their first value.
        table: int64 array of shape (n_lines, len(COLUMNS)), file order.
        line_numbers: int64 array (n_lines,), 1-based line of each row.
        malformed: data lines skipped in lenient mode.
    """

    path: Path
    header: dict[str, str]
    table: np.ndarray
    line_numbers: np.ndarray
    malformed: int = 0
    notes: list[str] = field(default_factory=list)

    def column(self, name: str) -> np.ndarray:
        """One column by name (see ``COLUMNS``), shape (n_lines,)."""
        return self.table[:, COLUMNS.index(name)]

    @property
    def max_procs(self) -> int | None:
        """The header's ``MaxProcs`` (never ``MaxNodes``), or None if absent/invalid."""
        value = self.header.get("MaxProcs")
        try:
            procs = int(value) if value is not None else None
        except ValueError:
            return None
        return procs if procs is not None and procs > 0 else None


def read_bytes(path: Path) -> bytes:
    """The file's content, gunzipped when it ends in ``.gz``."""
    data = path.read_bytes()
    if path.suffix == ".gz" or data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise SWFFormatError(f"{path}: not a valid gzip file ({exc})") from None
    return data


def parse_header(data: bytes) -> dict[str, str]:
    """Header items ``; Key: value`` anywhere in the file (first value wins)."""
    header: dict[str, str] = {}
    for key, value in _HEADER_ITEM.findall(data):
        header.setdefault(key.decode("ascii", "replace").strip(), value.decode("utf-8", "replace"))
    return header


def parse_swf(path: str | Path, *, lenient: bool = False) -> RawTrace:
    """Parse an SWF file (plain or gzipped) into a :class:`RawTrace`.

    Args:
        path: the SWF file.
        lenient: skip malformed data lines and count them instead of raising.

    Raises:
        SWFFormatError: naming the file and line of the first malformed data
            line (a line without exactly 18 numbers), unless ``lenient``.
    """
    path = Path(path)
    if not path.is_file():
        raise SWFFormatError(f"{path}: no such file")
    data = read_bytes(path)
    header = parse_header(data)
    line_numbers = _data_line_numbers(data)
    n_lines = line_numbers.size
    body = _COMMENT_LINE.sub(b"", data)
    with warnings.catch_warnings():
        # numpy warns (and stops) at the first token that is not a number;
        # the count check below turns that into a proper error.
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            values = np.fromstring(body, dtype=np.float64, sep=" ")
        except ValueError:
            values = np.empty(0)
    if values.size == n_lines * N_FIELDS and np.isfinite(values).all():
        full = values.reshape(n_lines, N_FIELDS)
        return RawTrace(path, header, _to_int_table(full), line_numbers)
    return _parse_slow(path, data, header, lenient)


def _data_line_numbers(data: bytes) -> np.ndarray:
    """1-based line numbers of the data lines (not blank, not ``;``), vectorised."""
    buf = np.frombuffer(data, dtype=np.uint8)
    newlines = np.flatnonzero(buf == ord("\n"))
    line_starts = np.concatenate(([0], newlines + 1))
    # First byte of each line that is not a space, tab or CR; the newline
    # itself (or the end of the file) marks a blank line.
    inked = np.flatnonzero((buf != ord(" ")) & (buf != ord("\t")) & (buf != ord("\r")))
    inked = np.append(inked, buf.size)
    first = inked[np.searchsorted(inked, line_starts)]
    padded = np.append(buf, np.uint8(ord("\n")))
    lead = padded[first]
    is_data = (lead != ord("\n")) & (lead != ord(";"))
    return np.flatnonzero(is_data).astype(np.int64) + 1


def _to_int_table(full: np.ndarray) -> np.ndarray:
    # SWF's used fields are integers; a few logs write them as "12.0".
    return np.rint(full[:, _FIELD_INDEX]).astype(np.int64)


def _parse_slow(path: Path, data: bytes, header: dict[str, str], lenient: bool) -> RawTrace:
    """Line-by-line parse that names the bad line; only used for malformed files."""
    rows: list[list[float]] = []
    numbers: list[int] = []
    malformed = 0
    notes: list[str] = []
    for lineno, raw in enumerate(data.split(b"\n"), start=1):
        line = raw.strip()
        if not line or line.startswith(b";"):
            continue
        tokens = line.split()
        problem = None
        if len(tokens) != N_FIELDS:
            problem = f"expected {N_FIELDS} fields, found {len(tokens)}"
        else:
            try:
                row = [float(tok) for tok in tokens]
            except ValueError:
                bad = next(t for t in tokens if not _is_number(t))
                problem = f"field {tokens.index(bad) + 1} is not a number: {bad.decode(errors='replace')!r}"
            else:
                if not all(np.isfinite(row)):
                    problem = "non-finite number"
        if problem is not None:
            if not lenient:
                raise SWFFormatError(f"{path}:{lineno}: malformed SWF line: {problem}")
            malformed += 1
            if len(notes) < 5:
                notes.append(f"line {lineno}: {problem}")
            continue
        rows.append(row)
        numbers.append(lineno)
    full = np.array(rows, dtype=np.float64).reshape(-1, N_FIELDS)
    return RawTrace(
        path, header, _to_int_table(full), np.array(numbers, dtype=np.int64), malformed, notes
    )


def _is_number(token: bytes) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True
