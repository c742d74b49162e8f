"""NSGA-II over workload partitions: the offline bound of job exchange (docs/pareto.md).

A genome assigns every job of the merged, submit-ordered job list
(:class:`~evogrid.sim.schedule.GridJobs`) to a site; each site then
schedules its assigned jobs locally, and the objectives are the per-site
AWRT over the jobs *submitted* there. A job too large for its assigned site
runs at its origin. Assignments with any AWRT above ``limit`` (100,000 s)
are infeasible (one pymoo inequality constraint, ``max_k AWRT_k - limit``).

The pymoo parts: :class:`PartitionProblem` (evaluates a whole population
through an :class:`~evogrid.optimize.evaluator.Evaluator`),
:class:`PerturbedLocalSampling`, :class:`PartitionMutation` (random or shift
mutation, 50/50 per individual) and pymoo's own ``TwoPointCrossover``.
"""

from __future__ import annotations

import numpy as np
from pymoo.core.mutation import Mutation
from pymoo.core.problem import Problem
from pymoo.core.sampling import Sampling

from evogrid.optimize.config import AWRT_LIMIT_SECONDS
from evogrid.optimize.evaluator import Evaluator, ScenarioRef
from evogrid.sim import core
from evogrid.sim.metrics import awrt_per_site
from evogrid.sim.schedule import GridJobs, Schedule, lrms_code

#: Genes are site indices: int8 keeps populations, checkpoints and the
#: genomes sent to workers 8x smaller than int64 (K <= 127 sites).
GENE_DTYPE = np.int8


def effective_sites(jobs: GridJobs, assignment: np.ndarray) -> np.ndarray:
    """The site each job runs at: its assigned site, or its origin where it does not fit."""
    assignment = np.asarray(assignment, dtype=np.int64)
    fits = jobs.procs <= jobs.machine_procs[assignment]
    return np.where(fits, assignment, jobs.origin)


def _run_assignment(jobs: GridJobs, lrms: tuple[str, ...], site: np.ndarray,
                    cutoff: float) -> tuple[np.ndarray, np.ndarray]:
    codes = np.array([lrms_code(name) for name in lrms], dtype=np.int64)
    packed = jobs.packed.copy()
    packed[core.HOME] = site
    return core.run_local(packed, jobs.machine_procs, codes, jobs.origin, cutoff)


def partition_awrt(
    jobs: GridJobs, lrms: tuple[str, ...], assignment: np.ndarray, cutoff: float = 0.0
) -> np.ndarray:
    """Per-site AWRT (s, over jobs submitted there), shape (K,), of one assignment (shape (n,)).

    With ``cutoff`` > 0, a simulation that certainly exceeds it at some site
    stops early and returns lower bounds instead (all infeasible anyway).
    """
    start, bounds = _run_assignment(jobs, lrms, effective_sites(jobs, assignment), cutoff)
    return bounds if len(bounds) else awrt_per_site(jobs, start)


def partition_schedule(jobs: GridJobs, lrms: tuple[str, ...], assignment: np.ndarray) -> Schedule:
    """The schedule of one assignment: each job at its effective site, under that site's LRMS."""
    site = effective_sites(jobs, assignment)
    start, _ = _run_assignment(jobs, lrms, site, 0.0)
    return Schedule(jobs, lrms, start, site, "nsga2 partition", "partition")


def _evaluate_task(task: tuple[ScenarioRef, np.ndarray, float]) -> np.ndarray:
    ref, assignment, cutoff = task
    return partition_awrt(ref.jobs(), ref.scenario().lrms, assignment, cutoff)


class PartitionProblem(Problem):
    """K objectives (AWRT per site, s) over one integer gene per job.

    Args:
        ref: the scenario (its LRMS is every site's local scheduler).
        evaluator: runs the simulations (rebuilt, not checkpointed, on resume).
        limit: feasibility limit on every AWRT, seconds.
        cutoff: simulations stop once some AWRT certainly exceeds this
            (seconds, 0: never; see ``config.CUTOFF_FACTOR``); such candidates get lower
            bounds as objectives, far in the infeasible region.
    """

    def __init__(self, ref: ScenarioRef, evaluator: Evaluator, limit: float = AWRT_LIMIT_SECONDS,
                 cutoff: float = 0.0):
        self.ref = ref
        self.evaluator = evaluator
        self.limit = limit
        self.cutoff = cutoff
        jobs = ref.jobs()
        super().__init__(
            n_var=len(jobs.submit), n_obj=jobs.n_sites, n_ieq_constr=1, xl=0, xu=jobs.n_sites - 1,
            vtype=int, exclude_from_serialization=["evaluator"],
        )

    def _evaluate(self, X, out, *args, **kwargs):
        tasks = [(self.ref, x, self.cutoff) for x in X.astype(GENE_DTYPE)]
        F = np.array(self.evaluator.map(_evaluate_task, tasks))
        out["F"] = F
        out["G"] = F.max(axis=1, keepdims=True) - self.limit


class PerturbedLocalSampling(Sampling):
    """The local assignment (every job at its origin) with ``n_changes`` random genes
    moved to another site per individual.

    With ``keep_local`` the first individual stays unperturbed, so the front
    always contains or dominates the local point. ``seeds`` (assignments, e.g.
    where an online strategy ran the jobs) replace the next individuals.
    """

    def __init__(self, origin: np.ndarray, n_sites: int, n_changes: int = 5000, keep_local: bool = True,
                 seeds: list[np.ndarray] | None = None):
        super().__init__()
        self.origin = np.asarray(origin, dtype=np.int64)
        self.n_sites = n_sites
        self.n_changes = n_changes
        self.keep_local = keep_local
        self.seeds = [np.asarray(s, dtype=np.int64) for s in seeds or []]

    def _do(self, problem, n_samples, *args, random_state=None, **kwargs):
        n = len(self.origin)
        X = np.tile(self.origin.astype(GENE_DTYPE), (n_samples, 1))
        for i in range(1 if self.keep_local else 0, n_samples):
            genes = random_state.choice(n, size=min(self.n_changes, n), replace=False)
            X[i, genes] = _other_site(X[i, genes], self.n_sites, random_state)
        first = 1 if self.keep_local else 0
        for i, seed in enumerate(self.seeds[: max(0, n_samples - first)]):
            X[first + i] = seed
        return X


def _other_site(current: np.ndarray, n_sites: int, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random site different from ``current`` for every gene."""
    return (current + rng.integers(1, n_sites, size=len(current))) % n_sites


class PartitionMutation(Mutation):
    """The partition mutation (docs/pareto.md), applied to every offspring: with probability 1/2 each,

    - random mutation: every gene moves to another site with probability ``p_gene``;
    - shift mutation: draw ``n_s = round(|N(0, shift_sigma)|)``, pick one target
      site, move exactly ``min(n_s, genes not on it)`` genes not yet on it there.
    """

    def __init__(self, n_sites: int, p_gene: float = 0.1, shift_sigma: float = 2000.0):
        super().__init__(prob=1.0)
        self.n_sites = n_sites
        self.p_gene = p_gene
        self.shift_sigma = shift_sigma

    def _do(self, problem, X, *args, random_state=None, **kwargs):
        X = X.astype(GENE_DTYPE, copy=True)
        for x in X:
            if random_state.random() < 0.5:
                random_mutation(x, self.n_sites, self.p_gene, random_state)
            else:
                shift_mutation(x, self.n_sites, self.shift_sigma, random_state)
        return X


def random_mutation(x: np.ndarray, n_sites: int, p_gene: float, rng: np.random.Generator) -> int:
    """Move each gene of ``x`` (in place) to another site with probability ``p_gene``; returns how many."""
    genes = np.flatnonzero(rng.random(len(x)) < p_gene)
    x[genes] = _other_site(x[genes], n_sites, rng)
    return len(genes)


def shift_mutation(x: np.ndarray, n_sites: int, sigma: float, rng: np.random.Generator) -> int:
    """Move ``round(|N(0, sigma)|)`` genes not on one random target site to it (in place).

    Returns how many moved: fewer than drawn only if fewer genes are off the target.
    """
    n_s = int(round(abs(rng.normal(0.0, sigma))))
    target = int(rng.integers(n_sites))
    candidates = np.flatnonzero(x != target)
    n_s = min(n_s, len(candidates))
    x[rng.choice(candidates, size=n_s, replace=False)] = target
    return n_s
