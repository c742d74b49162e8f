"""Competitive co-evolution: one (mu + lambda)-ES species per site
(docs/training.md, Co-evolution; Fölling, Grimme, Lepping, Papaspyrou 2011).

An individual has a fitness only inside a grid with one individual of every
other species. Each generation every species makes lambda offspring with
the EFS operators (no mating between species); each species' parents are
ranked by their current fitness, best first, and its offspring follow in
random order; pairing r is rank r of every species; each of the mu + lambda
pairings is simulated once and every member gets its own site's AWRT as
fitness; each species keeps its mu best. The published result is the
final generation's pairing with the smallest sum of per-site AWRT
(``pick="sum", archive=False``).

Switchable changes beyond the published algorithm (``TrainConfig``):
``pick="worst-relative"`` chooses the result by the worst relative AWRT
``max_k AWRT_k / AWRT_k(local)`` instead of the sum; ``archive=True`` chooses
it among the pairings of every generation, not only the last (no extra
simulation). Both are the default: on CTC + SDSC03 + SDSC05 only they
improve every site on unseen months (docs/results.md). ``fitness="shared"``
gives every member the pairing's worst relative AWRT.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from evogrid.optimize.config import TrainConfig
from evogrid.optimize.es import (
    Evolution,
    EvolutionState,
    evaluate,
    make_toolbox,
    offspring,
    pairing_score,
    set_fitness,
    worst_relative,
)
from evogrid.optimize.evaluator import Evaluator
from evogrid.optimize.fitness import GridTask
from evogrid.optimize.genome import Individual
from evogrid.sim.schedule import simulate_local

#: A pairing: the params of every member's rulebase, and the grid's AWRT per site (s).
Pairing = tuple[list[np.ndarray], np.ndarray]


@dataclass
class CoEvolutionState(EvolutionState):
    """Co-evolution's state: also the pairings of the last generation and, with ``archive``, the best
    pairing of all generations so far (by :meth:`CoEvolution.pairing_score`)."""

    pairings: list[Pairing] = field(default_factory=list)
    archive: Pairing | None = None


class CoEvolution(Evolution):
    """Co-evolves every site's rulebase of ``config.scenario``."""

    state_class = CoEvolutionState

    def __init__(self, config: TrainConfig, evaluator: Evaluator):
        self.config = config
        self.evaluator = evaluator
        self.n_sites = config.ref.jobs().n_sites
        #: AWRT (s) of every site without exchange, the reference of relative scores.
        self.local_awrt = simulate_local(config.ref.jobs(), config.lrms).awrt()

    def _play(self, state: CoEvolutionState, ranked: list[list[Individual]]) -> None:
        """Simulate pairing r = (ranked[0][r], ..., ranked[K-1][r]) for every rank r."""
        c = self.config
        pairings = list(zip(*ranked, strict=True))
        tasks = [GridTask(c.ref, tuple((k, ind.params) for k, ind in enumerate(p)), tuple(c.features),
                          c.others, c.location, decision=c.decision)
                 for p in pairings]
        awrt, _ = evaluate(self.evaluator, tasks)
        for pairing, row in zip(pairings, awrt, strict=True):
            for k, ind in enumerate(pairing):
                set_fitness(ind, self.member_fitness(row, k), False)
        state.evaluations += len(tasks)
        state.pairings = [([ind.params for ind in p], row) for p, row in zip(pairings, awrt, strict=True)]
        if self.config.archive:
            state.archive = self._best_pairing(state.pairings + ([state.archive] if state.archive else []))

    def start(self) -> CoEvolutionState:
        state = CoEvolutionState(0, [], np.random.default_rng(self.config.seed))
        toolbox = make_toolbox(state.rng, self.config)
        species = [[toolbox.individual() for _ in range(self.config.mu)] for _ in range(self.n_sites)]
        self._play(state, species)
        state.species = [toolbox.select(s, self.config.mu) for s in species]
        return state

    def step(self, state: CoEvolutionState) -> CoEvolutionState:
        toolbox = make_toolbox(state.rng, self.config)
        ranked = []
        for parents in state.species:
            children = offspring(toolbox, state.rng, parents, self.config.lambda_)
            # Parents are sorted by fitness already (selBest); offspring have none yet.
            ranked.append(parents + [children[i] for i in state.rng.permutation(len(children))])
        self._play(state, ranked)
        state.species = [toolbox.select(pool, self.config.mu) for pool in ranked]
        state.generation += 1
        return state

    def member_fitness(self, awrt: np.ndarray, k: int) -> float:
        """Fitness of a pairing's member at site k, from the pairing's per-site AWRT (s)."""
        return float(awrt[k]) if self.config.fitness == "own" else worst_relative(awrt, self.local_awrt)

    def pairing_score(self, awrt: np.ndarray) -> float:
        """What the result pairing minimises, from its per-site AWRT (s)."""
        return pairing_score(self.config.pick, awrt, self.local_awrt)

    def _best_pairing(self, pairings: list[Pairing]) -> Pairing:
        return min(pairings, key=lambda p: self.pairing_score(p[1]))

    def best(self, state: CoEvolutionState) -> dict[int, tuple[np.ndarray, float]]:
        """The pairing with the smallest :meth:`pairing_score` (final generation, or the archive):
        site -> (rulebase params, AWRT in s)."""
        params, awrt = state.archive if self.config.archive else self._best_pairing(state.pairings)
        return {k: (p, float(a)) for k, (p, a) in enumerate(zip(params, awrt, strict=True))}
