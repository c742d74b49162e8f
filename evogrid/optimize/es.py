"""Evolution strategies for one site's rulebase (EFS, docs/training.md), built with DEAP.

:class:`TrainConfig` holds every setting that determines a training run's
result. :class:`EFS` is the (mu + lambda)-ES: the operators of
:mod:`evogrid.optimize.genome` registered in a DEAP ``Toolbox``, DEAP's
``selBest`` for the plus-selection, and fitness = the trained site's AWRT in
a grid where the other sites keep a fixed policy (AWF by default).
:class:`CMAES` is the alternative optimiser (DEAP's ``cma.Strategy``).

Both work on an :class:`EvolutionState` (everything that changes, pickled as
the checkpoint) and advance it one generation per :meth:`step`; all
randomness comes from the state's generator, so a run resumed from a
checkpoint continues exactly as an uninterrupted one.

Speed-up: an offspring's simulation stops once its AWRT is certain to
exceed the worst parent's (then it cannot survive plus-selection, since all
mu parents beat it); its fitness is then that lower bound (``bounded``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from deap import base, cma, tools

from evogrid.errors import EvogridError
from evogrid.optimize.evaluator import Evaluator, ScenarioRef
from evogrid.optimize.fitness import GridTask, grid_awrt
from evogrid.optimize.genome import (
    FitnessMin,
    Individual,
    feature_ranges,
    init_individual,
    mutate,
    recombine,
)
from evogrid.policy.registry import FEATURES, LOCATIONS
from evogrid.sim.schedule import simulate_local

KINDS = ("efs", "coevolution", "joint")
#: Co-evolution: what a pairing's member gets as fitness, and how the result
#: pairing is chosen (docs/training.md, "Co-evolution"). ``own`` fitness and
#: the final generation's ``sum`` are the published algorithm; the default
#: (``worst-relative`` over an all-generations archive) is our change, because
#: only it improved every site on unseen months (docs/results.md).
FITNESSES = ("own", "shared")
PICKS = ("sum", "worst-relative")
OPTIMIZERS = ("es", "cma")
#: CMA-ES: initial step size of the normalised genome (feature ranges map to [0, 1]).
CMA_SIGMA = 0.1


@dataclass
class TrainConfig:
    """Everything that determines a training run (written as config.toml).

    Attributes:
        scenario: training scenario (inline or TOML), e.g. ``KTH-5+SDSC03-5``.
        kind: ``efs`` (one site against fixed partners), ``coevolution`` (all sites, one
            species each) or ``joint`` (all sites, one ES over the concatenated rulebases).
        site: EFS: index of the trained site.
        lrms: LRMS at every site while training (default FCFS: needs no run-time estimates).
        others: EFS: transfer policy of the other sites (``awf`` or ``local``).
        location: location policy of every site (with two sites all give the same order).
        optimizer: ``es`` ((mu + lambda)-ES) or ``cma`` (CMA-ES, EFS only).
        mu, lambda_, generations: population sizes and length.
        n_rules, features: rulebase shape.
        beta: two-point step-size factor; p_flip: consequent flip probability (0: 1/N_r).
        fitness: co-evolution: a member's fitness, ``own`` (its site's AWRT) or
            ``shared`` (the pairing's worst AWRT / local AWRT, for every member).
        pick: co-evolution: the result pairing, ``sum`` (smallest AWRT sum) or
            ``worst-relative`` (smallest max_k AWRT_k / local AWRT_k); joint: the fitness.
        archive: co-evolution: pick from every generation's pairings, not only the last.
        seed: seed of the whole run.
        cutoff: stop hopeless offspring simulations early (does not change the result).
        test: an unseen scenario (same sites, later months) to evaluate the result on.
    """

    scenario: str
    kind: str = "efs"
    site: int = 0
    lrms: str = "fcfs"
    others: str = "awf"
    location: str = "awrt"
    optimizer: str = "es"
    mu: int = 13
    lambda_: int = 91
    generations: int = 150
    n_rules: int = 10
    features: list[str] = field(default_factory=lambda: ["NWP", "NJP"])
    beta: float = 0.6
    p_flip: float = 0.0
    fitness: str = "own"
    pick: str = "worst-relative"
    archive: bool = True
    seed: int = 1
    cutoff: bool = True
    test: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise EvogridError(f"kind {self.kind!r}: expected one of {', '.join(KINDS)}")
        if self.optimizer not in OPTIMIZERS:
            raise EvogridError(f"--optimizer {self.optimizer}: expected one of {', '.join(OPTIMIZERS)}")
        if self.optimizer == "cma" and self.kind != "efs":
            raise EvogridError("--optimizer cma is for EFS (evogrid train) only")
        if self.location not in LOCATIONS:
            raise EvogridError(f"--location {self.location}: expected one of {', '.join(LOCATIONS)}")
        if self.fitness not in FITNESSES:
            raise EvogridError(f"--fitness {self.fitness}: expected one of {', '.join(FITNESSES)}")
        if self.pick not in PICKS:
            raise EvogridError(f"--pick {self.pick}: expected one of {', '.join(PICKS)}")
        if self.others not in ("awf", "local"):
            raise EvogridError(f"--others {self.others}: expected awf or local")
        unknown = [f for f in self.features if f not in FEATURES]
        if unknown or not self.features:
            raise EvogridError(f"--feature {','.join(unknown)}: expected registered features "
                               f"({', '.join(FEATURES)})")
        if self.mu < 1 or self.lambda_ < 1 or self.generations < 1 or self.n_rules < 1:
            raise EvogridError("--mu, --lambda, --generations and --rules must be >= 1")

    @property
    def ref(self) -> ScenarioRef:
        return ScenarioRef(self.scenario, self.lrms)

    @property
    def flip_probability(self) -> float:
        return self.p_flip if self.p_flip > 0 else 1.0 / self.n_rules

    @property
    def optimizer_label(self) -> str:
        return f"es({self.mu}+{self.lambda_})" if self.optimizer == "es" else f"cma-es({self.lambda_})"


@dataclass
class EvolutionState:
    """What a run's generations change; pickled as the checkpoint.

    Attributes:
        generation: generations done (0: the initial population is evaluated).
        species: per species (EFS: one; co-evolution: one per site) the
            parents, best first.
        rng: the generator behind every random choice.
        evaluations, cut_off: simulations run, and how many stopped early.
        pairings: co-evolution: the last generation's pairings, as
            (params per site, AWRT per site) tuples.
        archive: co-evolution with ``archive``: the best pairing of all
            generations so far, in the same form.
        cma: CMA-ES only: DEAP's strategy and numpy's global random state it draws from.
    """

    generation: int
    species: list[list[Individual]]
    rng: np.random.Generator
    evaluations: int = 0
    cut_off: int = 0
    pairings: list[tuple[list[np.ndarray], np.ndarray]] = field(default_factory=list)
    archive: tuple[list[np.ndarray], np.ndarray] | None = None
    cma: tuple[Any, Any] | None = None


def make_toolbox(rng: np.random.Generator, config: TrainConfig) -> base.Toolbox:
    """The ES's operators: ``individual``, ``mate``, ``mutate``, ``select``."""
    ranges = feature_ranges(config.features)
    toolbox = base.Toolbox()
    toolbox.register("individual", init_individual, rng, config.n_rules, ranges)
    toolbox.register("mate", recombine, rng)
    toolbox.register("mutate", mutate, rng, ranges=ranges, beta=config.beta,
                     p_flip=config.flip_probability)
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
    """What ``pick`` minimises over a grid's per-site AWRT (s): their sum, or :func:`worst_relative`."""
    return float(awrt.sum()) if pick == "sum" else worst_relative(awrt, local_awrt)


def set_fitness(ind: Individual, awrt: float, bounded: bool) -> None:
    ind.fitness.values = (float(awrt),)
    ind.bounded = bool(bounded)


class EFS:
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
                         c.location, tuple(limits) if cutoff > 0 else ())
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

    def step(self, state: EvolutionState) -> None:
        toolbox = make_toolbox(state.rng, self.config)
        parents = state.species[0]
        children = offspring(toolbox, state.rng, parents, self.config.lambda_)
        worst_parent = max(p.value for p in parents) if self.config.cutoff else 0.0
        self.evaluate_individuals(state, children, worst_parent)
        state.species[0] = toolbox.select(parents + children, self.config.mu)
        state.generation += 1

    def best(self, state: EvolutionState) -> dict[int, tuple[np.ndarray, float]]:
        """The result: the trained site -> (its best rulebase params, their AWRT in s)."""
        top = state.species[0][0]
        return {self.config.site: (top.params, top.value)}


class CMAES(EFS):
    """CMA-ES (DEAP's ``cma.Strategy``) over the normalised real-valued genome.

    Genes per rule: centres and widths divided by the feature's range (centres
    shifted by its low end), and one real consequent gene whose sign is the
    consequent (> 0 accept). DEAP's strategy draws from numpy's global
    generator; the state keeps that generator's state between generations.
    """

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
        params[:, nf : 2 * nf] = np.maximum(np.abs(g[:, nf : 2 * nf]), 1e-6) * self.span
        params[:, 2 * nf] = np.where(g[:, 2 * nf] > 0, 1.0, -1.0)
        return Individual(params, np.zeros(nf))

    def start(self) -> EvolutionState:
        state = EvolutionState(0, [[]], np.random.default_rng(self.config.seed))
        first = make_toolbox(state.rng, self.config).individual()
        np.random.seed(self.config.seed)
        strategy = cma.Strategy(centroid=self._encode(first.params), sigma=CMA_SIGMA,
                                lambda_=self.config.lambda_, mu=self.config.mu)
        self.evaluate_individuals(state, [first], 0.0)
        state.species[0] = [first]
        state.cma = (strategy, np.random.get_state())
        return state

    def step(self, state: EvolutionState) -> None:
        strategy, numpy_state = state.cma
        np.random.set_state(numpy_state)
        vectors = strategy.generate(_Vector)
        children = [self._decode(v) for v in vectors]
        for child in children:  # generations.csv reports CMA's global step, in feature units
            child.steps = strategy.sigma * self.span
        self.evaluate_individuals(state, children, 0.0)
        for v, child in zip(vectors, children, strict=True):
            v.fitness = child.fitness
        strategy.update(vectors)
        state.cma = (strategy, np.random.get_state())
        state.species[0] = tools.selBest(state.species[0] + children, 1)
        state.generation += 1


class _Vector(list):
    """A CMA-ES sample with a fitness, as DEAP's strategy expects."""

    def __init__(self, values):
        super().__init__(values)
        self.fitness = FitnessMin()


class JointES(EFS):
    """One (mu + lambda)-ES over all sites' rulebases at once (the dissertation's "EA" baseline
    against co-evolution).

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
                         c.location) for ind in individuals]

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
