"""Running the compiled core from Python: merging sites' jobs, validating, results."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from evogrid.errors import ScenarioError
from evogrid.sim import core
from evogrid.sim.metrics import site_metrics
from evogrid.workload.model import Workload


def lrms_code(name: str) -> int:
    """The core's code for an LRMS name (``fcfs``, ``easy``, ``list``)."""
    try:
        return core.LRMS_CODES[name.lower()]
    except KeyError:
        known = ", ".join(core.LRMS_CODES)
        raise ScenarioError(f"unknown LRMS {name!r}; expected one of {known}") from None


@dataclass(frozen=True)
class GridJobs:
    """The jobs of K sites merged into arrival order, as the core wants them.

    All job arrays have shape (n,), int64, sorted by (submit, origin, position
    in the origin's log). ``index`` maps each row back to its position in
    ``workloads[origin]``.
    """

    workloads: tuple[Workload, ...]
    submit: np.ndarray
    run_time: np.ndarray
    procs: np.ndarray
    estimate: np.ndarray
    origin: np.ndarray
    index: np.ndarray
    machine_procs: np.ndarray

    @classmethod
    def merge(cls, workloads: Sequence[Workload]) -> GridJobs:
        """Merge the sites' workloads (their windows all start at time 0)."""
        if not workloads:
            raise ScenarioError("a scenario needs at least one site")
        for w in workloads:
            if w.n_jobs == 0:
                raise ScenarioError(f"site {w.name}: no jobs to simulate")
            if w.procs.min() < 1 or w.procs.max() > w.machine_procs:
                raise ScenarioError(
                    f"site {w.name}: job sizes must lie in [1, {w.machine_procs}] processors"
                )
            if w.run_time.min() < 0 or (w.submit[1:] < w.submit[:-1]).any():
                raise ScenarioError(f"site {w.name}: negative run times or unsorted submits")
        origin = np.concatenate(
            [np.full(w.n_jobs, k, dtype=np.int64) for k, w in enumerate(workloads)]
        )
        index = np.concatenate([np.arange(w.n_jobs, dtype=np.int64) for w in workloads])
        submit = np.concatenate([w.submit for w in workloads])
        order = np.lexsort((index, origin, submit))
        return cls(
            workloads=tuple(workloads),
            submit=np.ascontiguousarray(submit[order]),
            run_time=np.concatenate([w.run_time for w in workloads])[order],
            procs=np.concatenate([w.procs for w in workloads])[order],
            estimate=np.concatenate([w.estimate for w in workloads])[order],
            origin=origin[order],
            index=index[order],
            machine_procs=np.array([w.machine_procs for w in workloads], dtype=np.int64),
        )

    @property
    def n_sites(self) -> int:
        return len(self.workloads)

@dataclass(frozen=True)
class Schedule:
    """A simulated grid: when and where every job ran.

    Attributes:
        jobs: the merged input.
        lrms: LRMS name per site.
        start: shape (n,), start time in seconds of each row of ``jobs``.
        site: shape (n,), index of the site that ran it.
    """

    jobs: GridJobs
    lrms: tuple[str, ...]
    start: np.ndarray
    site: np.ndarray

    @property
    def end(self) -> np.ndarray:
        """Completion times C_j in seconds, shape (n,)."""
        return self.start + self.jobs.run_time

    def metrics(self) -> list[dict[str, float]]:
        """Per-site metrics (spec 1.4); see :func:`evogrid.sim.metrics.site_metrics`."""
        return site_metrics(self)


def simulate_local(workloads: Sequence[Workload], lrms: str | Sequence[str] = "fcfs") -> Schedule:
    """Simulate sites without job exchange.

    Args:
        workloads: one workload per site (windows aligned at time 0).
        lrms: one LRMS name for all sites, or one per site.
    """
    jobs = GridJobs.merge(workloads)
    names = (lrms,) * jobs.n_sites if isinstance(lrms, str) else tuple(lrms)
    if len(names) != jobs.n_sites:
        raise ScenarioError(f"{len(names)} LRMS names for {jobs.n_sites} sites")
    codes = np.array([lrms_code(name) for name in names], dtype=np.int64)
    start = core.simulate_local(
        jobs.submit, jobs.run_time, jobs.procs, jobs.estimate, jobs.origin,
        jobs.machine_procs, codes,
    )
    return Schedule(jobs, tuple(n.lower() for n in names), start, jobs.origin.copy())
