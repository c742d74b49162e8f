"""NSGA-II over rulebase parameters: the front of *online* policies (an evogrid addition).

One real-valued genome holds every site's rulebase, site after site, each
rule as ``N_f`` centres, ``N_f`` widths and one consequent gene (its sign is
the consequent, 0 counting as decline): ``K * N_r * (2 N_f + 1)`` genes.
Bounds: centres in the feature's range, widths in [range/1000, range],
consequent genes in [-1, 1]. The objectives are the per-site AWRT of one
grid simulation with every site using its rulebase; the same feasibility
limit as the partition problem applies.

With ``decision="ranking"`` the rulebases are the ranking rulebases of a
grid of brokers (:class:`~evogrid.policy.strategies.Broker`), and the load
imbalance (:func:`~evogrid.sim.metrics.load_imbalance`) is one more objective.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pymoo.core.problem import Problem

from evogrid.optimize.config import AWRT_LIMIT_SECONDS
from evogrid.optimize.evaluator import Evaluator, ScenarioRef
from evogrid.optimize.fitness import GridTask, grid_awrt, task_schedule
from evogrid.optimize.genome import to_rulebase
from evogrid.policy.registry import feature_ranges
from evogrid.policy.rulebase import MIN_WIDTH_FRACTION, Rulebase
from evogrid.sim.metrics import load_imbalance


def genome_bounds(n_sites: int, n_rules: int, features: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds, each of shape (K * N_r * (2 N_f + 1),)."""
    ranges = feature_ranges(features)
    span = ranges[:, 1] - ranges[:, 0]
    low = np.concatenate([ranges[:, 0], span / 1000.0, [-1.0]])
    high = np.concatenate([ranges[:, 1], span, [1.0]])
    return np.tile(low, n_sites * n_rules), np.tile(high, n_sites * n_rules)


def site_params(genome: np.ndarray, n_sites: int, n_rules: int, features: Sequence[str]) -> np.ndarray:
    """Per-site rulebase params, shape (K, N_r, 2 N_f + 1), in the layout of
    :mod:`evogrid.optimize.genome`: widths kept at least ``MIN_WIDTH_FRACTION`` of the
    feature's range, consequent genes turned into +-1."""
    ranges = feature_ranges(features)
    nf = len(ranges)
    rules = np.asarray(genome, dtype=np.float64).reshape(n_sites, n_rules, 2 * nf + 1).copy()
    min_width = (ranges[:, 1] - ranges[:, 0]) * MIN_WIDTH_FRACTION
    rules[:, :, nf : 2 * nf] = np.maximum(rules[:, :, nf : 2 * nf], min_width)
    rules[:, :, 2 * nf] = np.where(rules[:, :, 2 * nf] > 0, 1.0, -1.0)
    return rules


def decode(genome: np.ndarray, n_sites: int, n_rules: int, features: Sequence[str]) -> list[Rulebase]:
    """One :class:`Rulebase` per site from a genome."""
    return [to_rulebase(p, features) for p in site_params(genome, n_sites, n_rules, features)]


def policy_awrt(ref: ScenarioRef, genome: np.ndarray, n_rules: int, features: Sequence[str],
                cutoff: float = 0.0) -> np.ndarray:
    """Per-site AWRT (s) of the grid where every site uses its rulebase from ``genome``
    (lower bounds if the simulation stopped at ``cutoff``)."""
    K = ref.jobs().n_sites
    params = site_params(genome, K, n_rules, features)
    limits = (cutoff,) * K if cutoff > 0 else ()
    return grid_awrt(GridTask(ref, tuple(enumerate(params)), tuple(features), cutoff=limits))[0]


def ranking_objectives(ref: ScenarioRef, genome: np.ndarray, n_rules: int,
                       features: Sequence[str]) -> np.ndarray:
    """Per-site AWRT (s) and the load imbalance of the grid of brokers ranking with ``genome``'s
    rulebases, shape (K + 1,). (No early stop: a cutoff's bounds do not hold with site speeds.)"""
    params = site_params(genome, ref.jobs().n_sites, n_rules, features)
    schedule = task_schedule(GridTask(ref, tuple(enumerate(params)), tuple(features), decision="ranking"))
    return np.append(schedule.awrt(), load_imbalance(schedule))


def _evaluate_task(task: tuple[ScenarioRef, np.ndarray, int, tuple[str, ...], float, str]) -> np.ndarray:
    ref, genome, n_rules, features, cutoff, decision = task
    if decision == "ranking":
        return ranking_objectives(ref, genome, n_rules, features)
    return policy_awrt(ref, genome, n_rules, features, cutoff)


class RulebaseProblem(Problem):
    """K objectives (AWRT per site, s) over all sites' rulebase parameters; with ``decision="ranking"``
    the load imbalance as objective K + 1."""

    def __init__(
        self,
        ref: ScenarioRef,
        evaluator: Evaluator,
        n_rules: int = 10,
        features: Sequence[str] = ("NWP", "NJP"),
        limit: float = AWRT_LIMIT_SECONDS,
        cutoff: float = 0.0,
        decision: str = "transfer",
    ):
        self.ref = ref
        self.decision = decision
        self.evaluator = evaluator
        self.n_rules = n_rules
        self.features = tuple(features)
        self.limit = limit
        self.cutoff = cutoff
        K = ref.jobs().n_sites
        xl, xu = genome_bounds(K, n_rules, self.features)
        self.n_sites = K
        super().__init__(n_var=len(xl), n_obj=K + (decision == "ranking"), n_ieq_constr=1, xl=xl, xu=xu,
                         exclude_from_serialization=["evaluator"])

    def _evaluate(self, X, out, *args, **kwargs):
        tasks = [(self.ref, x, self.n_rules, self.features, self.cutoff, self.decision) for x in X]
        F = np.array(self.evaluator.map(_evaluate_task, tasks))
        out["F"] = F
        out["G"] = F[:, : self.n_sites].max(axis=1, keepdims=True) - self.limit
