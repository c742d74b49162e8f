"""The :class:`Workload`: one site's preprocessed jobs as numpy arrays."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from evogrid.errors import ScenarioError

SECONDS_PER_DAY = 86_400
#: A "month" is exactly 30 days, counted from the log's start, not its first job (docs/model.md).
SECONDS_PER_MONTH = 30 * SECONDS_PER_DAY


@dataclass(frozen=True)
class Workload:
    """Rigid parallel jobs submitted to one site, sorted by submit time.

    All arrays have shape (n_jobs,) and dtype int64.

    Attributes:
        name: short label (``"KTH"``, ``"KTH@0-5"``).
        machine_procs: the site's machine size m_k in processors.
        submit: submit (= release) time r_j, seconds from the window start.
        run_time: actual run time p_j in seconds (already cut at the estimate).
        procs: processors m_j.
        estimate: user run-time estimate p~_j in seconds (>= run_time by default).
        job_id: SWF job number (field 1), for tracing results back to the log.
        user: SWF user id (field 12), -1 if unknown.
        dropped: jobs removed by preprocessing or windowing, per reason.
        source: the SWF file the jobs came from ("" for synthetic ones).
        queue, partition: SWF fields 15 and 16 (-1 where the log does not say), None for jobs that
            come from no log; requirements may be read from them (evogrid.sim.sites).
        req_memory: SWF field 10, the requested memory per processor in KB (-1 where the log does
            not say), None for jobs that come from no log; a per-processor demand that sites'
            attributes may be required to meet (evogrid.sim.sites).
    """

    name: str
    machine_procs: int
    submit: np.ndarray
    run_time: np.ndarray
    procs: np.ndarray
    estimate: np.ndarray
    job_id: np.ndarray
    user: np.ndarray
    dropped: dict[str, int] = field(default_factory=dict)
    source: str = ""
    queue: np.ndarray | None = None
    partition: np.ndarray | None = None
    req_memory: np.ndarray | None = None

    def __post_init__(self) -> None:
        n = self.submit.shape[0]
        for name in ("run_time", "procs", "estimate", "job_id", "user", "queue", "partition", "req_memory"):
            value = getattr(self, name)
            if value is not None and value.shape != (n,):
                raise ValueError(f"Workload.{name} must have shape ({n},)")

    def swf_field(self, name: str) -> np.ndarray:
        """SWF field ``name`` ("queue", "partition" or "req_memory") per job, -1 where unknown."""
        value = getattr(self, name)
        return np.full(self.n_jobs, -1, dtype=np.int64) if value is None else value

    @property
    def n_jobs(self) -> int:
        return int(self.submit.shape[0])

    def __len__(self) -> int:
        return self.n_jobs

    @property
    def span_seconds(self) -> int:
        """Time from 0 to the last submission, in seconds."""
        return int(self.submit[-1]) if self.n_jobs else 0

    def select(self, keep: np.ndarray, *, name: str | None = None) -> Workload:
        """The jobs where the boolean mask ``keep`` holds."""
        return replace(
            self,
            name=name or self.name,
            submit=self.submit[keep],
            run_time=self.run_time[keep],
            procs=self.procs[keep],
            estimate=self.estimate[keep],
            job_id=self.job_id[keep],
            user=self.user[keep],
            queue=None if self.queue is None else self.queue[keep],
            partition=None if self.partition is None else self.partition[keep],
            req_memory=None if self.req_memory is None else self.req_memory[keep],
        )

    def window(self, first: int, last: int | None, *, name: str | None = None,
               unit_days: int = 30) -> Workload:
        """Jobs submitted in ``[first, last)`` 30-day months (or days, ``unit_days=1``), rebased to time 0.

        ``last=None`` means to the end of the log. Jobs outside the window are
        counted in ``dropped`` under ``"outside_window"``.

        Raises:
            ScenarioError: if the window is inverted, ends a whole unit or more after the log's last
                submission, or holds no job.
        """
        if first < 0 or (last is not None and last <= first):
            raise ScenarioError(f"{self.name}: invalid window {first}..{last} (need 0 <= A < B)")
        unit = unit_days * SECONDS_PER_DAY
        label = name or self.name
        longest = self.span_seconds // unit + 1  # the last unit that holds a submission, plus one
        if last is not None and last > longest:
            what = "day" if unit_days == 1 else "30-day month"
            raise ScenarioError(
                f"{label}: the window runs to {what} {last}, past the end of the log (its last "
                f"submission is on day {self.span_seconds / SECONDS_PER_DAY:.1f}: at most {longest} "
                f"{what}s)")
        lo = first * unit
        keep = self.submit >= lo
        if last is not None:
            keep &= self.submit < last * unit
        if not keep.any():
            raise ScenarioError(
                f"{label}: the window [day {unit_days * first}, "
                f"{'end' if last is None else f'day {unit_days * last}'}) holds no job"
                f" (the log spans {self.span_seconds / SECONDS_PER_DAY:.1f} days)"
            )
        out = self.select(keep, name=label)
        dropped = dict(self.dropped)
        outside = int((~keep).sum())
        if outside:
            dropped["outside_window"] = dropped.get("outside_window", 0) + outside
        return replace(out, submit=out.submit - lo, dropped=dropped)
