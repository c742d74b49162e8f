"""One rulebase as an evolution-strategy individual, and the ES operators (docs/training.md).

Object parameters: ``params``, float64 of shape (N_r, 2 N_f + 1), per rule the
N_f centres, the N_f widths and the consequent (+1 accept, -1 decline); the
layout of one rulebase in :class:`~evogrid.sim.tsk.TSKStack`, so 50 genes for
the defaults. Strategy parameters: ``steps``, shape (N_f,), one step size per
feature shared by that feature's centres and widths (feature units).

The operators take an explicit ``numpy.random.Generator``; the optimiser owns
it and checkpoints it, so a resumed run draws the same numbers.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from deap import base

from evogrid.policy.rulebase import MIN_WIDTH_FRACTION, Rulebase

#: Initial step size as a fraction of the feature's range (0.01 for NWP, 0.001 for NJP).
INITIAL_STEP_FRACTION = 1e-3


class FitnessMin(base.Fitness):
    """AWRT of the trained site (s), minimised."""

    weights = (-1.0,)


class Individual:
    """A rulebase genome with its step sizes and DEAP fitness.

    Attributes:
        params: float64, shape (N_r, 2 N_f + 1): centres, widths, consequent per rule.
        steps: float64, shape (N_f,): mutation step size per feature.
        fitness: :class:`FitnessMin`; ``bounded`` is True when the value is
            only a lower bound (the simulation stopped at its AWRT cutoff).
    """

    __slots__ = ("params", "steps", "fitness", "bounded")

    def __init__(self, params: np.ndarray, steps: np.ndarray):
        self.params = params
        self.steps = steps
        self.fitness = FitnessMin()
        self.bounded = False

    def __getstate__(self) -> tuple:
        return self.params, self.steps, self.fitness.values, self.bounded

    def __setstate__(self, state: tuple) -> None:
        self.params, self.steps, values, self.bounded = state
        self.fitness = FitnessMin(values)

    @property
    def value(self) -> float:
        """The fitness (AWRT, s); +inf before evaluation."""
        return self.fitness.values[0] if self.fitness.valid else float("inf")


def init_individual(rng: np.random.Generator, n_rules: int, ranges: np.ndarray) -> Individual:
    """Centres uniform in the feature's range, widths uniform in (0, range width],
    consequents uniform in {-1, +1}, steps range/1000."""
    nf = len(ranges)
    low, span = ranges[:, 0], ranges[:, 1] - ranges[:, 0]
    params = np.empty((n_rules, 2 * nf + 1))
    params[:, :nf] = low + span * rng.random((n_rules, nf))
    params[:, nf : 2 * nf] = np.maximum(span * rng.random((n_rules, nf)), span * MIN_WIDTH_FRACTION)
    params[:, 2 * nf] = rng.choice([-1.0, 1.0], size=n_rules)
    return Individual(params, span * INITIAL_STEP_FRACTION)


def recombine(rng: np.random.Generator, a: Individual, b: Individual) -> Individual:
    """Discrete recombination of the object parameters (each gene from either
    parent), intermediate recombination (the mean) of the step sizes."""
    take_a = rng.random(a.params.shape) < 0.5
    return Individual(np.where(take_a, a.params, b.params), (a.steps + b.steps) / 2.0)


def mutate(rng: np.random.Generator, ind: Individual, ranges: np.ndarray, beta: float,
           p_flip: float, step_draw: str = "per-feature") -> Individual:
    """Self-adaptive mutation, in place: steps first (Rechenberg's two-point rule,
    times 1 + beta or 1 / (1 + beta), each with probability 1/2: one draw per
    feature's step, or with ``step_draw="one"`` one draw for all, the
    dissertation's Eq. 3.3), then N(0, s_h) added to every centre and width of
    feature h; widths are reflected at 0 and kept above a small epsilon; each
    consequent flips with probability ``p_flip``."""
    nf = len(ind.steps)
    up = rng.random(1 if step_draw == "one" else nf) < 0.5
    ind.steps = ind.steps * np.where(up, 1.0 + beta, 1.0 / (1.0 + beta))
    n_rules = ind.params.shape[0]
    noise = rng.standard_normal((n_rules, 2 * nf)) * np.tile(ind.steps, 2)
    ind.params[:, : 2 * nf] += noise
    min_width = (ranges[:, 1] - ranges[:, 0]) * MIN_WIDTH_FRACTION
    ind.params[:, nf : 2 * nf] = np.maximum(np.abs(ind.params[:, nf : 2 * nf]), min_width)
    flips = rng.random(n_rules) < p_flip
    ind.params[flips, 2 * nf] *= -1.0
    ind.fitness = FitnessMin()
    ind.bounded = False
    return ind


def to_rulebase(params: np.ndarray, features: Sequence[str]) -> Rulebase:
    """The :class:`Rulebase` a genome's object parameters encode."""
    nf = len(features)
    return Rulebase.from_arrays(params[:, :nf], params[:, nf : 2 * nf], params[:, 2 * nf], features)


def is_valid(params: np.ndarray, n_features: int) -> bool:
    """Widths > 0 and finite, consequents exactly +-1, centres finite."""
    widths = params[:, n_features : 2 * n_features]
    return bool(np.isfinite(params).all() and (widths > 0).all()
                and np.isin(params[:, 2 * n_features], (-1.0, 1.0)).all())
