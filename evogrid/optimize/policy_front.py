"""NSGA-II over rulebase parameters: the front of *online* policies (beyond spec 3.3).

One real-valued genome holds every site's rulebase, site after site, each
rule as ``N_f`` centres, ``N_f`` widths and one consequent gene (its sign is
the consequent, 0 counting as decline): ``K * N_r * (2 N_f + 1)`` genes.
Bounds: centres in the feature's range, widths in [range/1000, range],
consequent genes in [-1, 1]. The objectives are the per-site AWRT of one
grid simulation with every site using its rulebase; the same feasibility
limit as the partition problem applies.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pymoo.core.problem import Problem

from evogrid.optimize.evaluator import Evaluator, ScenarioRef
from evogrid.optimize.partition import AWRT_LIMIT_SECONDS
from evogrid.policy.rulebase import Rulebase
from evogrid.policy.strategies import FuzzyPolicy
from evogrid.sim.features import FEATURES
from evogrid.sim.schedule import simulate_grid


def genome_bounds(n_sites: int, n_rules: int, features: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds, each of shape (K * N_r * (2 N_f + 1),)."""
    ranges = np.array([FEATURES[f].range for f in features], dtype=np.float64)
    span = ranges[:, 1] - ranges[:, 0]
    low = np.concatenate([ranges[:, 0], span / 1000.0, [-1.0]])
    high = np.concatenate([ranges[:, 1], span, [1.0]])
    return np.tile(low, n_sites * n_rules), np.tile(high, n_sites * n_rules)


def decode(genome: np.ndarray, n_sites: int, n_rules: int, features: Sequence[str]) -> list[Rulebase]:
    """One :class:`Rulebase` per site from a genome."""
    nf = len(features)
    rules = np.asarray(genome, dtype=np.float64).reshape(n_sites, n_rules, 2 * nf + 1)
    return [
        Rulebase.from_arrays(r[:, :nf], np.maximum(r[:, nf : 2 * nf], 1e-9),
                             np.where(r[:, 2 * nf] > 0, 1.0, -1.0), features)
        for r in rules
    ]


def policy_awrt(ref: ScenarioRef, genome: np.ndarray, n_rules: int, features: Sequence[str],
                cutoff: float = 0.0) -> np.ndarray:
    """Per-site AWRT (s) of the grid where every site uses its rulebase from ``genome``
    (lower bounds if the simulation stopped at ``cutoff``)."""
    jobs = ref.jobs()
    rulebases = decode(genome, jobs.n_sites, n_rules, features)
    policy = FuzzyPolicy(dict(enumerate(rulebases)))
    return simulate_grid(jobs, ref.scenario().lrms, policy.exchange(jobs), awrt_cutoff=cutoff).awrt()


def _evaluate_task(task: tuple[ScenarioRef, np.ndarray, int, tuple[str, ...], float]) -> np.ndarray:
    return policy_awrt(*task)


class RulebaseProblem(Problem):
    """K objectives (AWRT per site, s) over all sites' rulebase parameters."""

    def __init__(
        self,
        ref: ScenarioRef,
        evaluator: Evaluator,
        n_rules: int = 10,
        features: Sequence[str] = ("NWP", "NJP"),
        limit: float = AWRT_LIMIT_SECONDS,
        cutoff: float = 0.0,
    ):
        self.ref = ref
        self.evaluator = evaluator
        self.n_rules = n_rules
        self.features = tuple(features)
        self.limit = limit
        self.cutoff = cutoff
        K = ref.jobs().n_sites
        xl, xu = genome_bounds(K, n_rules, self.features)
        super().__init__(n_var=len(xl), n_obj=K, n_ieq_constr=1, xl=xl, xu=xu,
                         exclude_from_serialization=["evaluator"])

    def _evaluate(self, X, out, *args, **kwargs):
        tasks = [(self.ref, x, self.n_rules, self.features, self.cutoff) for x in X]
        F = np.array(self.evaluator.map(_evaluate_task, tasks))
        out["F"] = F
        out["G"] = F.max(axis=1, keepdims=True) - self.limit
