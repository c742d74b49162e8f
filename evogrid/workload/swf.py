"""Parsing Standard Workload Format (SWF) files into raw numeric tables.

An SWF file has header lines starting with ``;`` (``; MaxProcs: 100``) and
data lines of 18 whitespace-separated numbers. Parsing is done in C:
:func:`numpy.loadtxt` reads every number at once, and lines are classified
(data, comment, blank) with vectorised byte operations. Only when that
fails or disagrees (a malformed file) do we walk the lines in Python, to name
the first bad line (strict) or to skip and count the bad lines (lenient).

The result is a :class:`RawTrace`: the used columns as int64, untouched by
any preprocessing (that is :mod:`evogrid.workload.preprocess`).
"""

from __future__ import annotations

import gzip
import io
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
    10: "req_memory",
    11: "status",
    12: "user",
    13: "group",
    15: "queue",
    16: "partition",
}
COLUMNS = tuple(USED_FIELDS.values())
_FIELD_INDEX = np.array([f - 1 for f in USED_FIELDS], dtype=np.int64)
#: The largest magnitude a used field may have: 2**53, beyond which float64 (how numpy reads the
#: file) no longer holds every integer and int64 arithmetic on times could overflow.
MAX_FIELD = float(2**53)

_HEADER_ITEM = re.compile(rb"^[ \t]*;[ \t]*([A-Za-z][A-Za-z0-9_ ]*?)[ \t]*:[ \t]*(.*?)[ \t\r]*$")


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
        skipped: lines a reader skipped as not jobs, by reason (sacct's job steps), counted
            among the workload's dropped jobs.
    """

    path: Path
    header: dict[str, str]
    table: np.ndarray
    line_numbers: np.ndarray
    malformed: int = 0
    notes: list[str] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)

    def column(self, name: str) -> np.ndarray:
        """One column by name (see ``COLUMNS``), shape (n_lines,)."""
        return self.table[:, COLUMNS.index(name)]

    @property
    def max_procs(self) -> int | None:
        """The header's ``MaxProcs`` (never ``MaxNodes``), or None if absent/invalid."""
        # Partitioned machines write "1664 (72, 1368, 224)": the machine is the first number.
        match = re.match(r"\s*(\d+)(?:\s*\(.*\))?\s*$", self.header.get("MaxProcs", ""))
        procs = int(match[1]) if match else 0
        return procs if procs > 0 else None


def read_bytes(path: Path) -> bytes:
    """The file's content, gunzipped when it ends in ``.gz``."""
    data = path.read_bytes()
    if path.suffix == ".gz" or data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise SWFFormatError(f"{path}: not a valid gzip file ({exc})") from None
    return data


def parse_header(comment_lines: list[bytes]) -> dict[str, str]:
    """Header items ``; Key: value`` from the comment lines (first value wins)."""
    header: dict[str, str] = {}
    for line in comment_lines:
        match = _HEADER_ITEM.match(line)
        if match:
            key, value = match.groups()
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
    data_lines, comment_lines = _classify_lines(data)
    header = parse_header(comment_lines)
    if data_lines.size == 0:
        return _parse_slow(path, data, header, lenient)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "input contained no data"
            full = np.loadtxt(io.BytesIO(data), comments=";", dtype=np.float64, ndmin=2)
    except ValueError:
        return _parse_slow(path, data, header, lenient)
    if full.shape != (data_lines.size, N_FIELDS) or not np.isfinite(full).all() or \
            (np.abs(full[:, _FIELD_INDEX]) > MAX_FIELD).any():
        return _parse_slow(path, data, header, lenient)
    return RawTrace(path, header, _to_int_table(full), data_lines)


def _classify_lines(data: bytes) -> tuple[np.ndarray, list[bytes]]:
    """1-based numbers of the data lines, and the comment lines' bytes.

    A comment line holds a ``;``, a blank line is empty (or just ``\r``);
    everything else is data. Lines of only spaces count as data here and
    make the caller fall back to the exact line-by-line parser.
    """
    buf = np.frombuffer(data, dtype=np.uint8)
    newlines = np.flatnonzero(buf == ord("\n"))
    starts = np.concatenate(([0], newlines + 1))
    ends = np.concatenate((newlines, [buf.size]))
    length = ends - starts
    has_cr = np.zeros(starts.size, dtype=bool)
    nonempty = length > 0
    has_cr[nonempty] = buf[ends[nonempty] - 1] == ord("\r")
    length = length - has_cr
    comment = np.zeros(starts.size, dtype=bool)
    semicolons = np.flatnonzero(buf == ord(";"))
    comment[np.searchsorted(starts, semicolons, side="right") - 1] = True
    data_lines = np.flatnonzero((length > 0) & ~comment).astype(np.int64) + 1
    comment_lines = [data[starts[i] : ends[i]] for i in np.flatnonzero(comment)]
    return data_lines, comment_lines


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
                elif out_of_range := [f + 1 for f in _FIELD_INDEX if abs(row[f]) > MAX_FIELD]:
                    field = out_of_range[0]
                    problem = (f"field {field} is out of range: {tokens[field - 1].decode()} "
                               f"(more than {MAX_FIELD:.0f})")
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
