"""One fitness evaluation: a grid simulation with some sites' rulebases given as genomes.

A :class:`GridTask` is what an optimiser sends to a worker: the scenario by
name, the rulebase parameters of the sites being optimised, and the fixed
policy of the rest. Workers load the scenario once (``ScenarioRef`` caches
it) and return the per-site AWRT of one simulation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evogrid.optimize.evaluator import ScenarioRef
from evogrid.optimize.genome import to_rulebase
from evogrid.policy.rulebase import Rulebase
from evogrid.policy.strategies import Broker, FuzzyPolicy
from evogrid.sim.schedule import Schedule, simulate_grid


@dataclass(frozen=True)
class GridTask:
    """Attributes:
        ref: the scenario.
        rulebases: ``(site index, params)`` pairs; params of shape (N_r, 2 N_f + 1).
        features: the rulebases' feature names.
        others: transfer policy of the remaining sites (``awf`` or ``local``).
        location: location policy of every site.
        cutoff: per-site AWRT limit (s) at which to stop early (0: none), or empty.
        decision: ``transfer`` or ``ranking`` (:func:`trained_strategy`).
    """

    ref: ScenarioRef
    rulebases: tuple[tuple[int, np.ndarray], ...]
    features: tuple[str, ...]
    others: str = "awf"
    location: str = "fixed"
    cutoff: tuple[float, ...] = ()
    decision: str = "transfer"


def trained_strategy(rulebases: dict[int, Rulebase], decision: str, others: str,
                     location: str) -> FuzzyPolicy | Broker:
    """The grid of a training run: transfer rulebases at the trained sites (``others`` elsewhere), or
    ranking rulebases at the trained sites of an all-broker grid (the others keep their jobs)."""
    if decision == "ranking":
        return Broker("rank", rulebases, label="ranking")
    return FuzzyPolicy(rulebases, others=others, location=location)


def task_schedule(task: GridTask) -> Schedule:
    """The grid simulation of ``task``: its rulebases at their sites, the fixed policy elsewhere."""
    jobs = task.ref.jobs()
    policy = trained_strategy({k: to_rulebase(p, task.features) for k, p in task.rulebases},
                              task.decision, task.others, task.location)
    return simulate_grid(jobs, task.ref.scenario().lrms, policy.exchange(jobs),
                         awrt_cutoff=task.cutoff or 0.0)


def grid_awrt(task: GridTask) -> tuple[np.ndarray, bool]:
    """Per-site AWRT (s), shape (K,), and whether the run stopped at its cutoff
    (then the values are lower bounds)."""
    schedule = task_schedule(task)
    return schedule.awrt(), schedule.stopped_bounds is not None
