"""Model workloads as SWF logs (docs/workload_models.md): Lublin-Feitelson jobs with Tsafrir
estimates, written so that every reader of SWF (evogrid's scenarios included) takes them."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from evogrid.files import atomic_write_bytes
from evogrid.workload.lublin import lublin99
from evogrid.workload.tsafrir import HOUR, tsafrir05


@dataclass(frozen=True)
class ModelLog:
    """What :func:`write_model_log` wrote.

    Attributes:
        path: the SWF file.
        n_jobs: jobs written.
        span_days: last arrival (days).
        offered_load: sum(run time x processors) / (processors x last arrival).
        max_estimate: the largest estimate (s), or None without estimates.
        cut: run times cut to the maximum estimate.
    """

    path: Path
    n_jobs: int
    span_days: float
    offered_load: float
    max_estimate: int | None
    cut: int


def write_model_log(path: Path, n_jobs: int, machine_procs: int, *, seed: int,
                    max_estimate: int | None = None, estimates: bool = True) -> ModelLog:
    """Draw ``n_jobs`` jobs for ``machine_procs`` processors and write them to ``path`` as SWF.

    Args:
        max_estimate: the largest estimate users may give (s); default: the longest run time
            rounded up to whole hours.
        estimates: give jobs Tsafrir estimates (field 9); without, field 9 is -1 and evogrid
            takes the run time as the estimate.
    """
    from evogrid._version import __version__

    jobs = lublin99(n_jobs, machine_procs, seed=seed)
    run_time, requested, cut = jobs.run_time, np.full(n_jobs, -1, dtype=np.int64), 0
    if estimates:
        if max_estimate is None:
            max_estimate = max(math.ceil(int(run_time.max()) / HOUR), 1) * HOUR
        dealt = tsafrir05(run_time, max_estimate, seed=seed + 1)
        run_time, requested, cut = dealt.run_time, dealt.estimate, dealt.cut
    span = max(int(jobs.submit[-1]), 1)
    load = float((run_time * jobs.procs).sum()) / (machine_procs * span)
    model = "Lublin-Feitelson 1999" + (f", Tsafrir 2005 estimates up to {max_estimate} s"
                                       if estimates else "")
    header = [
        "; Version: 2.2",
        f"; Computer: a model machine of {machine_procs} processors",
        f"; Installation: evogrid {__version__}: {model}, seed {seed}",
        f"; MaxJobs: {n_jobs}",
        f"; MaxRecords: {n_jobs}",
        f"; MaxProcs: {machine_procs}",
        "; Note: field 15 (queue) is the model's job class: 0 interactive, 1 batch",
        f"; Note: offered load {load:.3f}"
        + (f"; {cut} run times cut to the maximum estimate" if cut else ""),
    ]
    rows = (f"{i + 1} {s} -1 {r} {p} -1 -1 {p} {e} -1 1 -1 -1 -1 {c} -1 -1 -1" for i, (s, r, p, e, c) in
            enumerate(zip(jobs.submit.tolist(), run_time.tolist(), jobs.procs.tolist(), requested.tolist(),
                          jobs.job_class.tolist(), strict=True)))
    atomic_write_bytes(path, ("\n".join([*header, *rows]) + "\n").encode())
    return ModelLog(path, n_jobs, span / 86_400, load, max_estimate if estimates else None, cut)
