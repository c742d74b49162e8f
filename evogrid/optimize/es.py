"""Evolution strategies for one site's rulebase (EFS, docs/training.md), built with DEAP.

:class:`EFS` is the (mu + lambda)-ES: the operators of
:mod:`evogrid.optimize.genome` registered in a DEAP ``Toolbox``, DEAP's
``selBest`` for the plus-selection, and fitness = the trained site's AWRT in
a grid where the other sites keep a fixed policy (AWF by default).
:class:`CMAES` is the alternative optimiser (DEAP's ``cma.Strategy``), and
:class:`JointES` one ES over every site's rulebase at once. The settings are
a :class:`~evogrid.optimize.config.TrainConfig`.

Each is an :class:`~evogrid.optimize.loop.Optimizer`: it works on an
:class:`EvolutionState` (:class:`CMAState` for CMA-ES; everything that
changes, the checkpoint's data) and advances it one generation per
:meth:`step`; all randomness comes from the state's generators, so a run
resumed from a checkpoint continues exactly as an uninterrupted one.

Speed-up: an offspring's simulation stops once its AWRT is certain to
exceed the worst parent's (then it cannot survive plus-selection, since all
mu parents beat it); its fitness is then that lower bound (``bounded``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np
from deap import base, cma, tools

from evogrid.errors import EvogridError
from evogrid.optimize.config import TrainConfig
from evogrid.optimize.evaluator import Evaluator
from evogrid.optimize.fitness import GridTask, grid_awrt
from evogrid.optimize.genome import (
    FitnessMin,
    Individual,
    init_individual,
    mutate,
    recombine,
)
from evogrid.policy.registry import feature_ranges
from evogrid.policy.rulebase import MIN_WIDTH_FRACTION
from evogrid.sim.schedule import simulate_local

#: CMA-ES: initial step size of the normalised genome (feature ranges map to [0, 1]).
CMA_SIGMA = 0.1


@dataclass
class EvolutionState:
    """What a run's generations change; the checkpoint holds it (:meth:`Evolution.to_data`).

    Attributes:
        generation: generations done (0: the initial population is evaluated).
        species: per species (EFS: one; co-evolution: one per site) the
            parents, best first.
        rng: the generator behind every random choice.
        evaluations, cut_off: simulations run, and how many stopped early.
    """

    generation: int
    species: list[list[Individual]]
    rng: np.random.Generator
    evaluations: int = 0
    cut_off: int = 0


@dataclass
class CMAState(EvolutionState):
    """CMA-ES's state: also DEAP's strategy and the state of numpy's global generator it draws from."""

    strategy: Any = None
    numpy_state: Any = None


def trained_sites(config: TrainConfig, n_sites: int) -> list[int]:
    return [config.site] if config.kind == "efs" else list(range(n_sites))


def _statistics() -> tools.Statistics:
    stats = tools.Statistics(key=lambda ind: ind.value)
    stats.register("best", np.min)
    stats.register("median", np.median)
    stats.register("worst", np.max)
    return stats


def generation_row(config: TrainConfig, state: EvolutionState, names: list[str]) -> dict[str, Any]:
    """One generations.csv row: fitness statistics and mean step sizes of every species' parents."""
    row: dict[str, Any] = {"generation": state.generation, "evaluations": state.evaluations,
                           "cut_off": state.cut_off}
    stats = _statistics()
    if config.kind == "joint":  # one species for the whole grid; its fitness is the grid's score
        groups, metric, digits = [("grid", state.species[0])], "score", 4
    else:
        sites = trained_sites(config, len(names))
        groups = [(names[k], parents) for k, parents in zip(sites, state.species, strict=True)]
        metric, digits = "awrt", 2
    for label, parents in groups:
        for key, value in stats.compile(parents).items():
            row[f"{key}_{metric}_{label}"] = f"{value:.{digits}f}"
        steps = np.mean([p.steps for p in parents], axis=0)
        for f, s in zip(config.features, steps, strict=True):
            row[f"step_{f}_{label}"] = f"{s:.4g}"
    return row


class Evolution:
    """What the ES optimisers share (:class:`~evogrid.optimize.loop.Optimizer`): the generation
    counter, the generations.csv row, the progress label and the state as checkpoint data;
    subclasses set ``config`` (and ``state_class`` if they advance another state)."""

    config: TrainConfig
    #: The state this optimiser advances; its checkpoints carry the class's name as their kind.
    state_class: type[EvolutionState] = EvolutionState

    @property
    def checkpoint_kind(self) -> str:
        return self.state_class.__name__

    def to_data(self, state: EvolutionState) -> dict[str, Any]:
        """``state`` as plain data (evogrid.optimize.checkpoint): its fields, each individual as its
        arrays, fitness values and bound flag."""
        data = {f.name: getattr(state, f.name) for f in fields(state)}
        data["species"] = [[individual_data(ind) for ind in parents] for parents in state.species]
        return data

    def from_data(self, data: dict[str, Any]) -> EvolutionState:
        """The state :meth:`to_data` gave."""
        species = [[individual_from_data(d) for d in parents] for parents in data["species"]]
        return self.state_class(**{**data, "species": species})

    @property
    def label(self) -> str:
        return self.config.label

    def generation(self, state: EvolutionState) -> int:
        return state.generation

    def row(self, state: EvolutionState) -> dict[str, Any]:
        return generation_row(self.config, state, [w.name for w in self.config.ref.scenario().workloads])


def make_toolbox(rng: np.random.Generator, config: TrainConfig) -> base.Toolbox:
    """The ES's operators: ``individual``, ``mate``, ``mutate``, ``select``."""
    ranges = feature_ranges(config.features)
    toolbox = base.Toolbox()
    toolbox.register("individual", init_individual, rng, config.n_rules, ranges)
    toolbox.register("mate", recombine, rng)
    toolbox.register("mutate", mutate, rng, ranges=ranges, beta=config.beta,
                     p_flip=config.flip_probability, step_draw=config.step_draw)
    toolbox.register("select", tools.selBest)
    return toolbox


def offspring(toolbox: base.Toolbox, rng: np.random.Generator, parents: list[Individual],
              n: int) -> list[Individual]:
    """``n`` children, each recombined from two different random parents, then mutated."""
    children = []
    for _ in range(n):
        i, j = rng.choice(len(parents), size=2, replace=len(parents) < 2)
        children.append(toolbox.mutate(toolbox.mate(parents[i], parents[j])))
    return children


def evaluate(evaluator: Evaluator, tasks: list[GridTask]) -> tuple[np.ndarray, np.ndarray]:
    """AWRT per task and site, shape (T, K), and which runs stopped early, shape (T,)."""
    results = evaluator.map(grid_awrt, tasks)
    return np.array([r[0] for r in results]), np.array([r[1] for r in results], dtype=bool)


def worst_relative(awrt: np.ndarray, local_awrt: np.ndarray) -> float:
    """A grid's ``max_k AWRT_k / AWRT_k(local)`` (< 1: every site gains); both shape (K,), s."""
    return float((awrt / local_awrt).max())


def pairing_score(pick: str, awrt: np.ndarray, local_awrt: np.ndarray) -> float:
    """What ``pick`` minimises over a grid's per-site AWRT (s): their sum, :func:`worst_relative`, or
    (``sum-improving``) the sum where no site is worse than local, else ``sum(local) * worst + sum``,
    which ranks every such grid behind every improving one (each sums to at most ``sum(local)``)."""
    if pick == "worst-relative":
        return worst_relative(awrt, local_awrt)
    if pick == "sum-improving" and (worst := worst_relative(awrt, local_awrt)) > 1.0:
        return float(local_awrt.sum() * worst + awrt.sum())
    return float(awrt.sum())


def individual_data(ind: Individual) -> dict[str, Any]:
    """An individual as checkpoint data."""
    return {"params": ind.params, "steps": ind.steps, "fitness": ind.fitness.values, "bounded": ind.bounded}


def individual_from_data(data: dict[str, Any]) -> Individual:
    ind = Individual(data["params"], data["steps"])
    ind.fitness = FitnessMin(tuple(data["fitness"]))
    ind.bounded = bool(data["bounded"])
    return ind


def set_fitness(ind: Individual, awrt: float, bounded: bool) -> None:
    ind.fitness.values = (float(awrt),)
    ind.bounded = bool(bounded)


class EFS(Evolution):
    """(mu + lambda)-ES for site ``config.site``'s rulebase (docs/training.md, EFS)."""

    def __init__(self, config: TrainConfig, evaluator: Evaluator):
        self.config = config
        self.evaluator = evaluator
        self.n_sites = config.ref.jobs().n_sites
        if not 0 <= config.site < self.n_sites:
            raise EvogridError(f"--site {config.site}: the scenario has sites 0..{self.n_sites - 1}")

    def _tasks(self, individuals: list[Individual], cutoff: float) -> list[GridTask]:
        c = self.config
        limits = np.zeros(self.n_sites)
        limits[c.site] = cutoff
        return [GridTask(c.ref, ((c.site, ind.params),), tuple(c.features), c.others,
                         c.location, tuple(limits) if cutoff > 0 else (), c.decision)
                for ind in individuals]

    def evaluate_individuals(self, state: EvolutionState, individuals: list[Individual],
                             cutoff: float) -> None:
        """Set each individual's fitness (the site's AWRT, s); stop runs beyond ``cutoff`` (0: never)."""
        awrt, stopped = evaluate(self.evaluator, self._tasks(individuals, cutoff))
        for ind, a, s in zip(individuals, awrt[:, self.config.site], stopped, strict=True):
            set_fitness(ind, a, s)
        state.evaluations += len(individuals)
        state.cut_off += int(stopped.sum())

    def start(self) -> EvolutionState:
        state = EvolutionState(0, [[]], np.random.default_rng(self.config.seed))
        toolbox = make_toolbox(state.rng, self.config)
        parents = [toolbox.individual() for _ in range(self.config.mu)]
        self.evaluate_individuals(state, parents, 0.0)
        state.species[0] = toolbox.select(parents, self.config.mu)
        return state

    def step(self, state: EvolutionState) -> EvolutionState:
        toolbox = make_toolbox(state.rng, self.config)
        parents = state.species[0]
        children = offspring(toolbox, state.rng, parents, self.config.lambda_)
        worst_parent = max(p.value for p in parents) if self.config.cutoff else 0.0
        self.evaluate_individuals(state, children, worst_parent)
        state.species[0] = toolbox.select(parents + children, self.config.mu)
        state.generation += 1
        return state

    def best(self, state: EvolutionState) -> dict[int, tuple[np.ndarray, float]]:
        """The result: the trained site -> (its best rulebase params, their AWRT in s)."""
        top = state.species[0][0]
        return {self.config.site: (top.params, top.value)}


class CMAES(EFS):
    """CMA-ES (DEAP's ``cma.Strategy``) over the normalised real-valued genome.

    Genes per rule: centres and widths divided by the feature's range (centres
    shifted by its low end), and one real consequent gene whose sign is the
    consequent (> 0 accept). DEAP's strategy draws from numpy's global
    generator; the state (:class:`CMAState`) keeps that generator's state between generations.
    """

    state_class = CMAState

    def __init__(self, config: TrainConfig, evaluator: Evaluator):
        super().__init__(config, evaluator)
        ranges = feature_ranges(config.features)
        self.low, self.span = ranges[:, 0], ranges[:, 1] - ranges[:, 0]
        self.nf = len(ranges)

    def _encode(self, params: np.ndarray) -> np.ndarray:
        nf = self.nf
        return np.concatenate([(params[:, :nf] - self.low) / self.span, params[:, nf : 2 * nf] / self.span,
                               params[:, 2 * nf :]], axis=1).ravel()

    def _decode(self, vector: np.ndarray) -> Individual:
        nf = self.nf
        g = np.asarray(vector, dtype=np.float64).reshape(self.config.n_rules, 2 * nf + 1)
        params = np.empty_like(g)
        params[:, :nf] = self.low + g[:, :nf] * self.span
        params[:, nf : 2 * nf] = np.maximum(np.abs(g[:, nf : 2 * nf]), MIN_WIDTH_FRACTION) * self.span
        params[:, 2 * nf] = np.where(g[:, 2 * nf] > 0, 1.0, -1.0)
        return Individual(params, np.zeros(nf))

    def start(self) -> CMAState:
        state = CMAState(0, [[]], np.random.default_rng(self.config.seed))
        first = make_toolbox(state.rng, self.config).individual()
        np.random.seed(self.config.seed)
        state.strategy = cma.Strategy(centroid=self._encode(first.params), sigma=CMA_SIGMA,
                                      lambda_=self.config.lambda_, mu=self.config.mu)
        self.evaluate_individuals(state, [first], 0.0)
        state.species[0] = [first]
        state.numpy_state = np.random.get_state()
        return state

    def to_data(self, state: CMAState) -> dict[str, Any]:
        """Also DEAP's strategy, as its attributes (arrays and numbers)."""
        return {**super().to_data(state), "strategy": dict(vars(state.strategy))}

    def from_data(self, data: dict[str, Any]) -> CMAState:
        strategy = cma.Strategy.__new__(cma.Strategy)  # its attributes are the whole strategy
        vars(strategy).update(data["strategy"])
        return super().from_data({**data, "strategy": strategy})

    def step(self, state: CMAState) -> CMAState:
        strategy = state.strategy
        np.random.set_state(state.numpy_state)
        vectors = strategy.generate(_Vector)
        children = [self._decode(v) for v in vectors]
        for child in children:  # generations.csv reports CMA's global step, in feature units
            child.steps = strategy.sigma * self.span
        self.evaluate_individuals(state, children, 0.0)
        for v, child in zip(vectors, children, strict=True):
            v.fitness = child.fitness
        strategy.update(vectors)
        state.numpy_state = np.random.get_state()
        state.species[0] = tools.selBest(state.species[0] + children, 1)
        state.generation += 1
        return state


class _Vector(list):
    """A CMA-ES sample with a fitness, as DEAP's strategy expects."""

    def __init__(self, values):
        super().__init__(values)
        self.fitness = FitnessMin()


class JointES(EFS):
    """One (mu + lambda)-ES over all sites' rulebases at once: evogrid's joint baseline against
    co-evolution, not the dissertation's "EA" (its 13.3 compares co-evolution with the pairwise
    pool, "jeweils nur paarweise gelernt", and 12.4 rejects a joint encoding for its search space).

    An individual stacks the K rulebases (K N_r rules, one step size per
    feature for all of them); its fitness is the grid's AWRT sum, or with
    ``pick="worst-relative"`` its max_k AWRT_k / local AWRT_k. Operators as
    in EFS; lambda simulations per generation; no early stop.
    """

    def __init__(self, config: TrainConfig, evaluator: Evaluator):
        self.config = replace(config, n_rules=config.n_rules * config.ref.jobs().n_sites, cutoff=False)
        self.evaluator = evaluator
        self.n_sites = config.ref.jobs().n_sites
        self.rules = config.n_rules
        self.local_awrt = simulate_local(config.ref.jobs(), config.lrms).awrt()

    def split(self, params: np.ndarray) -> list[np.ndarray]:
        """The stacked genome's rulebase per site, each of shape (N_r, 2 N_f + 1)."""
        return [params[k * self.rules : (k + 1) * self.rules] for k in range(self.n_sites)]

    def _tasks(self, individuals: list[Individual], cutoff: float) -> list[GridTask]:
        c = self.config
        return [GridTask(c.ref, tuple(enumerate(self.split(ind.params))), tuple(c.features), c.others,
                         c.location, decision=c.decision) for ind in individuals]

    def evaluate_individuals(self, state: EvolutionState, individuals: list[Individual],
                             cutoff: float) -> None:
        awrt, _ = evaluate(self.evaluator, self._tasks(individuals, 0.0))
        for ind, row in zip(individuals, awrt, strict=True):
            set_fitness(ind, pairing_score(self.config.pick, row, self.local_awrt), False)
        state.evaluations += len(individuals)

    def best(self, state: EvolutionState) -> dict[int, tuple[np.ndarray, float]]:
        """Every site -> (its part of the best genome, its AWRT in s), from one more simulation."""
        top = state.species[0][0]
        awrt, _ = evaluate(self.evaluator, self._tasks([top], 0.0))
        parts = zip(self.split(top.params), awrt[0], strict=True)
        return {k: (p, float(a)) for k, (p, a) in enumerate(parts)}
