"""A seeded synthetic workload generator for scaling tests.

The model is deliberately simple and documented, not a fitted one:

- processors: ``2**u`` with ``u ~ U(0, log2 m)``; 75 % of jobs are rounded
  down to a power of two (as on real machines), the rest rounded up;
- run time (s): log-normal with median 30 min and sigma 1.5, clipped to
  [1 s, 7 days];
- estimate (s): run time times ``U(1, 4)``, rounded up (users overestimate);
- arrivals: a Poisson process whose rate gives the requested offered load
  ``sum(p_j m_j) / (m * span)``.
"""

from __future__ import annotations

import numpy as np

from evogrid.workload.model import Workload


def synthetic_workload(
    n_jobs: int, machine_procs: int = 128, *, load: float = 0.8, seed: int = 0
) -> Workload:
    """``n_jobs`` synthetic jobs for a machine of ``machine_procs`` processors.

    Args:
        n_jobs: number of jobs (>= 1).
        machine_procs: machine size m in processors.
        load: offered load in (0, inf); 1.0 saturates the machine.
        seed: seed for :func:`numpy.random.default_rng`.
    """
    if n_jobs < 1 or machine_procs < 1 or load <= 0:
        raise ValueError("need n_jobs >= 1, machine_procs >= 1 and load > 0")
    rng = np.random.default_rng(seed)
    exponent = rng.uniform(0.0, np.log2(machine_procs), n_jobs)
    pow2 = rng.random(n_jobs) < 0.75
    procs = np.where(pow2, np.floor(2.0**exponent), np.ceil(2.0**exponent))
    procs = np.clip(procs, 1, machine_procs).astype(np.int64)
    run_time = np.clip(rng.lognormal(np.log(1800.0), 1.5, n_jobs), 1, 7 * 86_400).astype(np.int64)
    estimate = np.ceil(run_time * rng.uniform(1.0, 4.0, n_jobs)).astype(np.int64)
    mean_gap = float(np.mean(procs * run_time)) / (load * machine_procs)
    submit = np.floor(np.cumsum(rng.exponential(mean_gap, n_jobs))).astype(np.int64)
    submit -= submit[0]
    return Workload(
        name=f"synthetic-{n_jobs}",
        machine_procs=int(machine_procs),
        submit=submit,
        run_time=run_time,
        procs=procs,
        estimate=estimate,
        job_id=np.arange(1, n_jobs + 1, dtype=np.int64),
        user=np.full(n_jobs, -1, dtype=np.int64),
    )
