"""Per-job schedules out: Batsim's ``out_jobs.csv`` columns plus evogrid's, and each site's executed
schedule as SWF (docs/jobs_file.md).

One row per job of a simulated grid, readable by evalys (``JobSet.from_csv``)
and by any spreadsheet. The simulator counts processors; it does not place a
job on particular ones. ``allocated_resources`` therefore comes from a
deterministic layout (:func:`processor_layout`: lowest free processors
first, the processors of jobs ending at an instant freed before jobs
starting then take theirs), the one the Gantt charts draw. Site ``k``'s
processors are numbered after those of sites ``0..k-1``, so a grid is one
resource space, as a Batsim platform is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from evogrid.errors import ScenarioError
from evogrid.files import atomic_write_bytes, file_stem

if TYPE_CHECKING:
    from evogrid.sim.schedule import Schedule

#: Batsim's out_jobs.csv columns, in its order, then evogrid's.
BATSIM_COLUMNS = ("job_id", "workload_name", "profile", "submission_time", "requested_number_of_resources",
                  "requested_time", "success", "final_state", "starting_time", "execution_time",
                  "finish_time", "waiting_time", "turnaround_time", "stretch", "allocated_resources",
                  "consumed_energy", "metadata")
EVOGRID_COLUMNS = ("origin_site", "site", "moves", "logged_run_time")


def processor_layout(m: int, start: Sequence[int], end: Sequence[int],
                     procs: Sequence[int]) -> list[np.ndarray]:
    """The processors (indices in ``0..m-1``) each item ``i`` holds from ``start[i]`` to ``end[i]``:
    lowest free first, in start order (ties: input order), releases before starts at equal times."""
    free = np.ones(m, dtype=bool)
    held: list[np.ndarray] = [np.empty(0, dtype=np.int64)] * len(start)
    events = sorted([(int(s), 1, i) for i, s in enumerate(start)]
                    + [(int(e), 0, i) for i, e in enumerate(end)])
    for _, kind, i in events:
        if kind == 0:
            free[held[i]] = True
            continue
        mine = np.flatnonzero(free)[: int(procs[i])]
        if mine.size < procs[i]:
            raise ValueError(f"item {i} needs {procs[i]} processors at {start[i]}, {mine.size} are free")
        held[i] = mine
        if end[i] > start[i]:  # an item of no length was released before it started: it holds nothing
            free[mine] = False
    return held


def interval_string(processors: np.ndarray, offset: int = 0) -> str:
    """Sorted processor indices as a procset interval string: ``0-3 7 9-10``."""
    if processors.size == 0:
        return ""
    p = np.sort(processors) + offset
    breaks = np.flatnonzero(np.diff(p) > 1) + 1
    runs = np.split(p, breaks)
    return " ".join(f"{r[0]}" if r.size == 1 else f"{r[0]}-{r[-1]}" for r in runs)


@dataclass(frozen=True)
class Occupied:
    """Processors of one site held by something other than its jobs (reservation parts): item ``i``
    holds ``procs[i]`` processors from ``start[i]`` to ``end[i]`` (s); arrays of shape (r,)."""

    start: np.ndarray
    end: np.ndarray
    procs: np.ndarray


def reservation_occupied(bookings: Any, requests: Any, n_sites: int) -> list[Occupied]:
    """Per site, the reservation parts ``bookings`` holds for ``requests`` (evogrid.sim.booking)."""
    parts, seconds = bookings.held(requests)
    out = []
    for k in range(n_sites):
        r, i = np.nonzero((bookings.sites == k) & bookings.accepted[:, None])
        start = bookings.start[r].astype(np.int64)
        out.append(Occupied(start, start + seconds[r].astype(np.int64), parts[r, i].astype(np.int64)))
    return out


def jobs_table(schedule: Schedule, occupied: Sequence[Occupied] | None = None) -> dict[str, list]:
    """The per-job columns of a complete schedule (times in seconds), rows in the merged arrival order;
    ``occupied``: per site, processors held besides the jobs (they take part in the layout). A job a
    broker refused is written as Batsim writes a rejected job: ``success`` 0, ``final_state``
    ``REJECTED``, its times and resources empty (None)."""
    if schedule.stopped_bounds is not None:
        raise ScenarioError("the simulation stopped early: no per-job schedule to write")
    jobs = schedule.jobs
    refused = schedule.refused
    names = [w.name for w in jobs.workloads]
    offsets = np.concatenate([[0], np.cumsum(jobs.machine_procs)[:-1]])
    allocated = [""] * len(jobs.submit)
    for k in range(jobs.n_sites):
        mine = np.flatnonzero(schedule.ran_at(k))
        other = occupied[k] if occupied else Occupied(*(np.empty(0, dtype=np.int64),) * 3)
        held = processor_layout(int(jobs.machine_procs[k]),
                                np.concatenate([schedule.start[mine], other.start]),
                                np.concatenate([schedule.end[mine], other.end]),
                                np.concatenate([jobs.procs[mine], other.procs]))
        for j, processors in zip(mine, held[: mine.size], strict=True):
            allocated[j] = interval_string(processors, int(offsets[k]))
    ids = [int(jobs.workloads[o].job_id[i]) for o, i in zip(jobs.origin, jobs.index, strict=True)]
    run = schedule.run_time
    wait = schedule.start - jobs.submit
    turnaround = wait + run

    def ran(values: np.ndarray) -> list:
        return [None if r else v for v, r in zip(values.tolist(), refused.tolist(), strict=True)]

    return {
        "job_id": [f"{names[o]}!{i}" for o, i in zip(jobs.origin, ids, strict=True)],
        "workload_name": [names[o] for o in jobs.origin],
        "profile": ["delay"] * len(ids),
        "submission_time": jobs.submit.tolist(),
        "requested_number_of_resources": jobs.procs.tolist(),
        "requested_time": jobs.estimate.tolist(),
        "success": (~refused).astype(int).tolist(),
        "final_state": np.where(refused, "REJECTED", "COMPLETED_SUCCESSFULLY").tolist(),
        "starting_time": ran(schedule.start),
        "execution_time": ran(run),
        "finish_time": ran(schedule.end),
        "waiting_time": ran(wait),
        "turnaround_time": ran(turnaround),
        "stretch": ran(turnaround / np.maximum(run, 1)),
        "allocated_resources": allocated,
        "consumed_energy": ran(np.full(len(ids), -1)),
        "metadata": [""] * len(ids),
        "origin_site": [names[o] for o in jobs.origin],
        "site": [names[s] for s in schedule.site],
        "moves": schedule.moves.tolist(),
        "logged_run_time": jobs.run_time.tolist(),
    }


def write_jobs(path: Path, schedule: Schedule, occupied: Sequence[Occupied] | None = None) -> Path:
    """Write :func:`jobs_table` (Batsim's columns first), atomically: Parquet where ``path`` ends in
    ``.parquet`` (needs pyarrow: ``pip install evogrid[parquet]``), else CSV."""
    import io

    table = jobs_table(schedule, occupied)
    columns = [*BATSIM_COLUMNS, *EVOGRID_COLUMNS]
    if path.suffix == ".parquet":
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise ScenarioError(f"{path}: writing Parquet needs pyarrow (pip install 'evogrid[parquet]'); "
                                "a .csv file needs nothing") from None
        sink = pa.BufferOutputStream()
        pq.write_table(pa.table({c: table[c] for c in columns}), sink)
        atomic_write_bytes(path, sink.getvalue().to_pybytes())
        return path
    import csv

    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer)
    writer.writerow(columns)
    writer.writerows(zip(*(table[c] for c in columns), strict=True))
    atomic_write_bytes(path, buffer.getvalue().encode())
    return path


def executed_estimates(schedule: Schedule) -> np.ndarray:
    """Each job's estimate (s) at the site that ran it: scaled by the speeds as its run time is
    (evogrid.sim.sites), the logged one where it ran at home or the speeds are equal."""
    from evogrid.sim.grid import scaled_seconds

    jobs = schedule.jobs
    speed = jobs.sites.speeds(jobs.n_sites)
    estimate = jobs.estimate.copy()
    for j in np.flatnonzero(speed[jobs.origin] != speed[schedule.site]):
        estimate[j] = scaled_seconds(jobs.estimate[j], speed[jobs.origin[j]] / speed[schedule.site[j]])
    return estimate


def write_swf(directory: Path, schedule: Schedule, note: str = "") -> list[Path]:
    """One SWF file per site, ``<directory>/<window>.swf``, holding the jobs that ran there, as they ran.

    Jobs are renumbered 1..n in submission order (an SWF's job numbers are its
    lines); field 3 is the wait, 4 the executed run time, 9 the estimate at that
    site, 12 the user, 16 (partition) the origin site (1-based, in the
    scenario's order; the header lists them). Other fields are -1, the status 1. Refused jobs
    never ran: the header counts them at their origin.
    """
    from evogrid._version import __version__

    table = jobs_table(schedule)  # checks the schedule is complete
    jobs = schedule.jobs
    names = [w.name for w in jobs.workloads]
    users = np.array([jobs.workloads[o].user[i] for o, i in zip(jobs.origin, jobs.index, strict=True)])
    estimate = executed_estimates(schedule)
    paths = []
    refused = schedule.refused
    for k, name in enumerate(names):
        mine = np.flatnonzero(schedule.ran_at(k))
        mine = mine[np.argsort(jobs.submit[mine], kind="stable")]
        n_refused = int((refused & (jobs.origin == k)).sum())
        header = [
            "; Version: 2.2",
            f"; Computer: site {name} of an evogrid simulation",
            f"; Installation: evogrid {__version__}{f', {note}' if note else ''}",
            f"; MaxJobs: {mine.size}",
            f"; MaxRecords: {mine.size}",
            f"; MaxProcs: {int(jobs.machine_procs[k])}",
            "; Note: the jobs that ran at this site, renumbered 1..n in submission order; field 3 is the "
            "wait, 4 the executed run time, 9 the estimate at this site",
            "; Note: field 16 (partition) is the origin site: "
            + ", ".join(f"{i + 1} = {n}" for i, n in enumerate(names)),
        ]
        if n_refused:
            header.append(f"; Note: {n_refused} jobs submitted here were refused by the grid's broker "
                          "and never ran; they are not listed")
        lines = [" ".join(str(v) for v in (
            n + 1, int(jobs.submit[j]), int(table["waiting_time"][j]), int(schedule.run_time[j]),
            int(jobs.procs[j]), -1, -1, int(jobs.procs[j]), int(estimate[j]), -1, 1, int(users[j]), -1, -1,
            -1, int(jobs.origin[j]) + 1, -1, -1)) for n, j in enumerate(mine)]
        path = directory / f"{file_stem(name)}.swf"
        atomic_write_bytes(path, ("\n".join(header + lines) + "\n").encode())
        paths.append(path)
    return paths
