"""Competitive co-evolution: one (mu + lambda)-ES species per site (spec 3.2).

An individual has a fitness only inside a grid with one individual of every
other species. Each generation every species makes lambda offspring with
the EFS operators (no mating between species); each species' parents are
ranked by their current fitness, best first, and its offspring follow in
random order; pairing r is rank r of every species; each of the mu + lambda
pairings is simulated once and every member gets its own site's AWRT as
fitness; each species keeps its mu best. The result is the final
generation's pairing with the smallest sum of per-site AWRT.
"""

from __future__ import annotations

import numpy as np

from evogrid.optimize.es import (
    EvolutionState,
    TrainConfig,
    evaluate,
    make_toolbox,
    offspring,
    set_fitness,
)
from evogrid.optimize.evaluator import Evaluator
from evogrid.optimize.fitness import GridTask
from evogrid.optimize.genome import Individual


class CoEvolution:
    """Co-evolves every site's rulebase of ``config.scenario``."""

    def __init__(self, config: TrainConfig, evaluator: Evaluator):
        self.config = config
        self.evaluator = evaluator
        self.n_sites = config.ref.jobs().n_sites

    def _play(self, state: EvolutionState, ranked: list[list[Individual]]) -> None:
        """Simulate pairing r = (ranked[0][r], ..., ranked[K-1][r]) for every rank r."""
        c = self.config
        pairings = list(zip(*ranked, strict=True))
        tasks = [GridTask(c.ref, tuple((k, ind.params) for k, ind in enumerate(p)), tuple(c.features),
                          c.others, c.location)
                 for p in pairings]
        awrt, _ = evaluate(self.evaluator, tasks)
        for pairing, row in zip(pairings, awrt, strict=True):
            for k, ind in enumerate(pairing):
                set_fitness(ind, self.member_fitness(row, k), False)
        state.evaluations += len(tasks)
        state.pairings = [([ind.params for ind in p], row) for p, row in zip(pairings, awrt, strict=True)]

    def start(self) -> EvolutionState:
        state = EvolutionState(0, [], np.random.default_rng(self.config.seed))
        toolbox = make_toolbox(state.rng, self.config)
        species = [[toolbox.individual() for _ in range(self.config.mu)] for _ in range(self.n_sites)]
        self._play(state, species)
        state.species = [toolbox.select(s, self.config.mu) for s in species]
        return state

    def step(self, state: EvolutionState) -> None:
        toolbox = make_toolbox(state.rng, self.config)
        ranked = []
        for parents in state.species:
            children = offspring(toolbox, state.rng, parents, self.config.lambda_)
            # Parents are sorted by fitness already (selBest); offspring have none yet.
            ranked.append(parents + [children[i] for i in state.rng.permutation(len(children))])
        self._play(state, ranked)
        state.species = [toolbox.select(pool, self.config.mu) for pool in ranked]
        state.generation += 1

    def member_fitness(self, awrt: np.ndarray, k: int) -> float:
        """Fitness of a pairing's member at site k, from the pairing's per-site AWRT (s): its own."""
        return float(awrt[k])

    def pairing_score(self, awrt: np.ndarray) -> float:
        """What the final pairing minimises, from its per-site AWRT (s): their sum."""
        return float(awrt.sum())

    def best(self, state: EvolutionState) -> dict[int, tuple[np.ndarray, float]]:
        """The final pairing with the smallest :meth:`pairing_score`: site -> (rulebase params, AWRT in s)."""
        params, awrt = min(state.pairings, key=lambda p: self.pairing_score(p[1]))
        return {k: (p, float(a)) for k, (p, a) in enumerate(zip(params, awrt, strict=True))}
