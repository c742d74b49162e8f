"""Every setting that determines an optimisation run's result, one dataclass per kind of run.

:class:`TrainConfig` (EFS, CMA-ES, co-evolution, joint ES; docs/training.md)
and :class:`ParetoConfig` (NSGA-II fronts; docs/pareto.md) are what a run
directory's ``config.toml`` holds; ``--resume`` rebuilds them from it. This
module imports neither DEAP nor pymoo, so building a configuration (and
validating it) is cheap.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from evogrid.errors import EvogridError
from evogrid.optimize.evaluator import ScenarioRef
from evogrid.policy.registry import DEFAULT_FEATURES, LOCATIONS, features_for


class _EvolutionSettings:
    """What every (mu + lambda)-ES run shares: population sizes, length, rules, the flip rate."""

    mu: int
    lambda_: int
    generations: int
    n_rules: int
    p_flip: float

    def check_sizes(self) -> None:
        if self.mu < 1 or self.lambda_ < 1 or self.generations < 1 or self.n_rules < 1:
            raise EvogridError("--mu, --lambda, --generations and --rules must be >= 1")

    @property
    def flip_probability(self) -> float:
        return self.p_flip if self.p_flip > 0 else 1.0 / self.n_rules


class _OnScenario:
    """A run's scenario by reference (what its workers load)."""

    scenario: str
    lrms: str | None

    @property
    def ref(self) -> ScenarioRef:
        return ScenarioRef(self.scenario, self.lrms)


# --- training (docs/training.md) -------------------------------------------------------------

KINDS = ("efs", "coevolution", "joint")
#: Co-evolution: what a pairing's member gets as fitness, and how the result
#: pairing is chosen (docs/training.md, "Co-evolution"). ``own`` fitness and
#: the final generation's ``sum`` are the published algorithm; the default
#: (``worst-relative`` over an all-generations archive) is our change, because
#: only it improved every site on unseen months (docs/results.md).
FITNESSES = ("own", "shared")
PICKS = ("sum", "worst-relative", "sum-improving")
OPTIMIZERS = ("es", "cma")
#: What the trained rulebases decide: ``transfer`` (keep or exchange a job, FuzzyPolicy) or
#: ``ranking`` (score the sites for a job, every site a broker: evogrid.policy.strategies.Broker).
DECISIONS = ("transfer", "ranking")


@dataclass
class TrainConfig(_OnScenario, _EvolutionSettings):
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
        n_rules, features: rulebase shape (features: the decision's defaults when empty).
        beta: two-point step-size factor; p_flip: consequent flip probability (0: 1/N_r).
        fitness: co-evolution: a member's fitness, ``own`` (its site's AWRT) or
            ``shared`` (the pairing's worst AWRT / local AWRT, for every member).
        pick: co-evolution: the result pairing, ``sum`` (smallest AWRT sum),
            ``worst-relative`` (smallest max_k AWRT_k / local AWRT_k) or ``sum-improving`` (smallest
            AWRT sum of the pairings that make no site worse than local); joint: the fitness.
        archive: co-evolution: pick from every generation's pairings, not only the last.
        seed: seed of the whole run.
        cutoff: stop hopeless offspring simulations early (does not change the result).
        test: an unseen scenario (same sites, later months) to evaluate the result on.
        decision: ``transfer`` rulebases, or ``ranking`` rulebases of brokers (``others`` and
            ``location`` then do not apply: an untrained site keeps its jobs).
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
    features: list[str] = field(default_factory=list)
    beta: float = 0.6
    p_flip: float = 0.0
    fitness: str = "own"
    pick: str = "worst-relative"
    archive: bool = True
    seed: int = 1
    cutoff: bool = True
    test: str | None = None
    decision: str = "transfer"

    def __post_init__(self) -> None:
        if self.decision not in DECISIONS:
            raise EvogridError(f"--policy {self.decision}: expected one of {', '.join(DECISIONS)}")
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
        if not self.features:
            self.features = list(DEFAULT_FEATURES[self.decision])
        usable = features_for(self.decision)
        if unknown := [f for f in self.features if f not in usable]:
            raise EvogridError(f"--feature {','.join(unknown)}: expected {self.decision} features "
                               f"({', '.join(usable)})")
        self.check_sizes()

    def check_scenarios(self) -> None:
        """Check what needs the scenarios loaded: at least two sites (one site has nobody to exchange
        with and would "learn" +0.0 %), the trained site among them, a test scenario with the same
        sites, no ``[reservations]`` table (this run would ignore it). Raises EvogridError."""
        scenario = self.ref.scenario()
        n_sites = len(scenario.workloads)
        scenario.refuse_reservations(f"training {self.decision} rulebases")
        if n_sites < 2:
            raise EvogridError(f"{self.scenario}: training needs at least two sites (one site has "
                               "no partner to exchange jobs with)")
        if self.kind == "efs" and self.site >= n_sites:
            raise EvogridError(f"--site {self.site}: {self.scenario} has {n_sites} sites "
                               f"(0 to {n_sites - 1})")
        if self.test is not None:
            test = ScenarioRef(self.test, self.lrms).scenario()
            test.refuse_reservations("testing rulebases")
            if len(test.workloads) != n_sites:
                raise EvogridError(f"--test {self.test}: the test scenario has {len(test.workloads)} "
                                   f"site(s), the training scenario {self.scenario} has {n_sites} sites "
                                   "(a test runs the same sites on other months)")

    @property
    def optimizer_label(self) -> str:
        return f"es({self.mu}+{self.lambda_})" if self.optimizer == "es" else f"cma-es({self.lambda_})"

    @property
    def label(self) -> str:
        """What the run is, for progress bars."""
        labels = {"coevolution": "co-evolution", "joint": "joint ES"}
        return labels.get(self.kind, f"EFS {self.optimizer_label}")


# --- Pareto fronts (docs/pareto.md) ------------------------------------------------------------

#: What a Pareto run's genome is: job-to-site assignments (the offline bound), every site's transfer
#: rulebase, or every site's ranking rulebase (brokers; objectives: AWRT per site and load imbalance).
PARETO_MODES = ("partition", "policy", "ranking")
#: Feasibility limit on every site's AWRT, seconds (Lepping 2011; docs/pareto.md).
AWRT_LIMIT_SECONDS = 100_000.0
#: Default early stop of hopeless simulations: at this multiple of the limit.
CUTOFF_FACTOR = 2.0


@dataclass
class ParetoConfig(_OnScenario):
    """Everything that determines a Pareto run's result (written as config.toml)."""

    scenario: str
    mode: str = "partition"
    lrms: str | None = "easy"
    pop_size: int = 70
    generations: int = 200
    seed: int = 1
    limit: float = AWRT_LIMIT_SECONDS
    cutoff_factor: float = CUTOFF_FACTOR  # stop simulations beyond factor x limit (0: never)
    # partition mode (docs/pareto.md)
    n_changes: int = 5000
    keep_local: bool = True
    seed_strategies: bool = False  # start from AWF/pool/AA assignments too (an evogrid addition)
    p_crossover: float = 0.9
    p_gene: float = 0.1
    shift_sigma: float = 2000.0
    # policy and ranking modes (features: the mode's defaults when empty)
    n_rules: int = 10
    features: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.mode not in PARETO_MODES:
            raise EvogridError(f"--mode {self.mode}: expected one of {', '.join(PARETO_MODES)} "
                               "or reservation")
        if not self.features:
            self.features = list(DEFAULT_FEATURES[self.decision])
        usable = features_for(self.decision)
        if unknown := [f for f in self.features if f not in usable]:
            raise EvogridError(f"feature {','.join(unknown)}: expected {self.decision} features "
                               f"({', '.join(usable)})")
        if self.pop_size < 2 or self.generations < 1:
            raise EvogridError("--pop-size must be >= 2 and --generations >= 1")

    def check_scenarios(self) -> None:
        """At least two sites (a one-site front is one point) and no ``[reservations]`` table (use
        ``mode="reservation"``). Raises EvogridError."""
        scenario = self.ref.scenario()
        scenario.refuse_reservations(f"pareto --mode {self.mode}")
        if len(scenario.workloads) < 2:
            raise EvogridError(f"{self.scenario}: a Pareto front of per-site AWRT needs at least two sites")

    @property
    def decision(self) -> str:
        """What the genome's rulebases decide (evogrid.optimize.fitness.trained_strategy)."""
        return "ranking" if self.mode == "ranking" else "transfer"

    @property
    def label(self) -> str:
        """What the run is, for progress bars."""
        return f"NSGA-II {self.mode}"
