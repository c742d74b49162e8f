"""Batsim JSON workloads in (docs/model.md, Workload formats).

A Batsim workload is one JSON object: ``nb_res`` (the platform's
resources), ``jobs`` (``id``, ``subtime``, ``res``, ``walltime``,
``profile``) and ``profiles`` (by name). evogrid reads it into the same
:class:`~evogrid.workload.swf.RawTrace` an SWF file gives, so the same
preprocessing applies and counts what it drops:

- run time: a ``delay`` profile's ``delay`` (seconds, rounded); a profile of
  another type has no run time evogrid can use, and its jobs are dropped and
  counted as ``run_time_nonpositive`` (unknown), as SWF jobs without a run time are;
- processors: ``res`` (allocated and requested);
- estimate: ``walltime`` (absent or negative: unknown, the run time stands in);
- job number: ``id`` when it is an integer (``"17"``, ``17`` or ``"w0!17"``), else its position;
- machine size: ``nb_res`` (a ``--procs`` override still wins).

Mistakes name the file and the field (``jobs.3.res``), as the SWF reader does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evogrid.errors import SWFFormatError, validation_message
from evogrid.files import read_json
from evogrid.workload.swf import COLUMNS, MAX_FIELD, RawTrace


class BatsimJob(BaseModel):
    model_config = ConfigDict(extra="allow")  # Batsim lets workloads carry their own job fields

    id: str | int
    subtime: float = Field(ge=0, le=MAX_FIELD, description="submission time (s)")
    res: int = Field(ge=1, description="resources (processors) the job needs")
    walltime: float | None = Field(default=None, le=MAX_FIELD, description="the user's estimate (s)")
    profile: str


class BatsimWorkload(BaseModel):
    model_config = ConfigDict(extra="allow")

    nb_res: int = Field(ge=1, description="resources of the platform")
    jobs: list[BatsimJob]
    profiles: dict[str, dict[str, Any]]


def _number(job_id: str | int, position: int) -> int:
    tail = str(job_id).rpartition("!")[2]
    return int(tail) if tail.isdigit() else position + 1


def parse_batsim(path: str | Path) -> RawTrace:
    """Read a Batsim JSON workload. Raises SWFFormatError naming the file and field."""
    path = Path(path)
    data = read_json(path, SWFFormatError, "Batsim workload file")
    try:
        workload = BatsimWorkload.model_validate(data)
    except ValidationError as exc:
        raise SWFFormatError(f"{path}: {validation_message(exc)}") from None
    rows = np.full((len(workload.jobs), len(COLUMNS)), -1, dtype=np.int64)
    for i, job in enumerate(workload.jobs):
        profile = workload.profiles.get(job.profile)
        if profile is None:
            raise SWFFormatError(f"{path}: jobs.{i}.profile: unknown profile {job.profile!r}")
        run_time = -1
        if profile.get("type") == "delay":
            delay = profile.get("delay")
            if not isinstance(delay, int | float) or not 0 <= delay <= MAX_FIELD:
                raise SWFFormatError(f"{path}: profiles.{job.profile}.delay: expected seconds >= 0, "
                                     f"got {delay!r}")
            run_time = round(delay)
        walltime = -1 if job.walltime is None or job.walltime < 0 else round(job.walltime)
        values = {"job_id": _number(job.id, i), "submit": round(job.subtime), "run_time": run_time,
                  "alloc_procs": job.res, "req_procs": job.res, "req_time": walltime, "status": 1}
        for name, value in values.items():
            rows[i, COLUMNS.index(name)] = value
    lines = np.arange(1, len(workload.jobs) + 1, dtype=np.int64)  # the job's position, for messages
    return RawTrace(path, {"MaxProcs": str(workload.nb_res), "Format": "Batsim JSON"}, rows, lines)
