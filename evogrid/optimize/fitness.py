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
from evogrid.policy.config import conditions, with_conditions
from evogrid.policy.rulebase import Rulebase
from evogrid.policy.strategies import Broker, FuzzyPolicy, Strategy
from evogrid.sim.scenario import Scenario
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


def trained_strategy(rulebases: dict[int, Rulebase], decision: str, others: str, location: str,
                     scenario: Scenario) -> Strategy:
    """The grid of a training run: transfer rulebases at the trained sites (``others`` elsewhere), or
    ranking rulebases at the trained sites of an all-broker grid (the others keep their jobs); in
    the grid's conditions of the scenario's ``[strategy]`` table (its slots, caps, stale
    information, ...: :func:`~evogrid.policy.config.with_conditions`)."""
    if decision == "ranking":
        policy: Strategy = Broker("rank", rulebases, label="ranking")
    else:
        policy = FuzzyPolicy(rulebases, others=others, location=location)
    return with_conditions(policy, scenario)


def check_conditions(scenario: Scenario, decision: str, others: str, location: str) -> None:
    """Raise, before a run starts, the error its candidates would meet in the scenario's grid conditions
    (slots a ranking does not read, a holding queue without brokers, ...): one simulation of
    the untrained grid, where the scenario gives conditions."""
    if conditions(scenario):
        jobs = scenario.grid_jobs()
        untrained = trained_strategy({}, decision, others, location, scenario)
        simulate_grid(jobs, scenario.lrms, untrained.exchange(jobs))


def task_schedule(task: GridTask) -> Schedule:
    """The grid simulation of ``task``: its rulebases at their sites, the fixed policy elsewhere."""
    jobs = task.ref.jobs()
    policy = trained_strategy({k: to_rulebase(p, task.features) for k, p in task.rulebases},
                              task.decision, task.others, task.location, task.ref.scenario())
    return simulate_grid(jobs, task.ref.scenario().lrms, policy.exchange(jobs),
                         awrt_cutoff=task.cutoff or 0.0)


def grid_awrt(task: GridTask) -> tuple[np.ndarray, bool]:
    """Per-site AWRT (s), shape (K,), and whether the run stopped at its cutoff
    (then the values are lower bounds)."""
    schedule = task_schedule(task)
    return schedule.awrt(), schedule.stopped_bounds is not None
