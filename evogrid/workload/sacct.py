"""Slurm accounting dumps in: ``sacct --parsable2`` output saved as ``NAME.sacct`` (docs/model.md).

Make one with, for example::

    sacct --allusers --parsable2 --starttime 2024-01-01 --endtime 2024-02-01 \\
          --format JobID,Submit,Elapsed,Timelimit,NCPUS,User,State > cluster.sacct

The first line names the fields, separated by ``|``. evogrid reads:

- ``JobID`` (required): one row per job; job steps (``123.batch``, ``123.0``) are
  not jobs and are counted as ``job_steps``; array tasks (``123_4``) are jobs;
- ``Submit`` (required): ISO date and time; times are seconds from the earliest submission;
- ``Elapsed`` (required): ``[D-]HH:MM:SS`` or ``MM:SS``, the run time;
- ``NCPUS`` (required): the processors;
- ``Timelimit``: the estimate, in Elapsed's format (``UNLIMITED``, ``Partition_Limit``: unknown);
- ``User``: user names, numbered by first appearance;
- ``State``: ``COMPLETED`` is status 1, anything else 0 (the jobs are kept, as SWF's failed jobs are).

sacct knows no machine size: give it with ``--procs N`` (or a scenario
file's ``procs``). Jobs that never ran (``Elapsed`` 0) are dropped and
counted as ``run_time_nonpositive``. A malformed line is an error naming the
file, line and field (``--lenient`` skips and counts it).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from evogrid.errors import SWFFormatError
from evogrid.workload.swf import COLUMNS, RawTrace

REQUIRED = ("JobID", "Submit", "Elapsed", "NCPUS")
_DURATION = re.compile(r"^(?:(\d+)-)?(?:(\d+):)?(\d+):(\d+)(?:\.\d+)?$")
_UNKNOWN_LIMITS = {"UNLIMITED", "Partition_Limit", "INVALID", ""}


def duration_seconds(text: str) -> int:
    """``[D-]HH:MM:SS``, ``HH:MM:SS`` or ``MM:SS`` as seconds. Raises ValueError."""
    match = _DURATION.match(text.strip())
    if match is None:
        raise ValueError(f"not a duration ([D-]HH:MM:SS): {text!r}")
    days, hours, minutes, seconds = (int(g) if g else 0 for g in match.groups())
    return ((days * 24 + hours) * 60 + minutes) * 60 + seconds


def parse_sacct(path: str | Path, *, lenient: bool = False) -> RawTrace:
    """Read a ``sacct --parsable2`` dump. Raises SWFFormatError naming the file, line and field."""
    path = Path(path)
    try:
        lines = path.read_text().splitlines()
    except FileNotFoundError:
        raise SWFFormatError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise SWFFormatError(f"{path}: not a text file") from None
    if not lines:
        raise SWFFormatError(f"{path}: empty (expected sacct --parsable2 output with a header line)")
    fields = lines[0].split("|")
    if missing := [f for f in REQUIRED if f not in fields]:
        raise SWFFormatError(f"{path}:1: the header lacks {', '.join(missing)} "
                             f"(it names: {', '.join(fields)})")
    col = {name: fields.index(name) for name in fields}
    rows, numbers, users, notes = [], [], {}, []
    submits: list[float] = []
    steps = malformed = 0
    for lineno, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        values = line.split("|")
        try:
            if len(values) != len(fields):
                raise ValueError(f"expected {len(fields)} fields, found {len(values)}")
            job_id = values[col["JobID"]]
            if "." in job_id:
                steps += 1
                continue
            field = "Submit"
            submitted = datetime.fromisoformat(values[col["Submit"]])
            # sacct prints local times without a zone: read them as UTC, so no daylight-saving jump
            submit = (submitted if submitted.tzinfo else submitted.replace(tzinfo=UTC)).timestamp()
            field = "Elapsed"
            run_time = duration_seconds(values[col["Elapsed"]])
            field = "NCPUS"
            procs = int(values[col["NCPUS"]])
            field = "Timelimit"
            limit = values[col["Timelimit"]] if "Timelimit" in col else ""
            estimate = -1 if limit in _UNKNOWN_LIMITS else duration_seconds(limit)
        except ValueError as exc:
            where = "" if len(values) != len(fields) else f"{field}: "
            problem = f"{path}:{lineno}: malformed sacct line: {where}{exc}"
            if not lenient:
                raise SWFFormatError(problem) from None
            malformed += 1
            if len(notes) < 5:
                notes.append(problem)
            continue
        user = users.setdefault(values[col["User"]], len(users) + 1) if "User" in col else -1
        completed = "State" in col and values[col["State"]].startswith("COMPLETED")
        number = int(m[0]) if (m := re.match(r"\d+", job_id)) else len(rows) + 1
        rows.append({"job_id": number, "run_time": run_time, "alloc_procs": procs, "req_procs": procs,
                     "req_time": estimate, "status": int(completed), "user": user})
        submits.append(submit)
        numbers.append(lineno)
    table = np.full((len(rows), len(COLUMNS)), -1, dtype=np.int64)
    first = min(submits, default=0.0)
    for i, (row, submit) in enumerate(zip(rows, submits, strict=True)):
        table[i, COLUMNS.index("submit")] = round(submit - first)
        for name, value in row.items():
            table[i, COLUMNS.index(name)] = value
    skipped = {"job_steps": steps} if steps else {}
    return RawTrace(path, {"Format": "sacct --parsable2"}, table, np.array(numbers, dtype=np.int64),
                    malformed, notes, skipped)
