"""Every setting that determines an optimisation run's result, one pydantic dataclass per kind of run.

:class:`TrainConfig` (EFS, CMA-ES, co-evolution, joint ES; docs/training.md)
and :class:`ParetoConfig` (NSGA-II fronts; docs/pareto.md), like the
admission and reservation-front configurations, are what a run directory's
``config.toml`` holds; ``--resume`` rebuilds them from it. One validation
idiom: the field types say what is allowed (ranges, the names a setting takes;
unknown settings are refused), pydantic checks them, and the first mistake
becomes one :class:`EvogridError` line naming the option and the value given
(``--lambda 0: Input should be greater than or equal to 1``); only rules
that relate two settings are written out, in ``__post_init__``. This module
imports neither DEAP nor pymoo, so building a configuration is cheap.
"""

from __future__ import annotations

from dataclasses import field
from typing import Annotated, ClassVar, Literal

from pydantic import AfterValidator, ConfigDict, Field, ValidationError
from pydantic.dataclasses import dataclass

from evogrid.errors import EvogridError, validation_error
from evogrid.optimize.evaluator import ScenarioRef
from evogrid.policy.config import conditions
from evogrid.policy.registry import DEFAULT_FEATURES, LOCATIONS, features_for
from evogrid.validation import OneLineErrors

#: Every configuration refuses settings it does not have: a typo in config.toml is a mistake, not a
#: default.
STRICT = ConfigDict(extra="forbid")
#: A count of at least one (generations, population sizes, rules).
Count = Annotated[int, Field(ge=1)]
Seed = Annotated[int, Field(ge=0)]
Probability = Annotated[float, Field(ge=0.0, le=1.0)]


def _known_location(name: str) -> str:
    if name not in LOCATIONS:
        raise ValueError(f"expected one of {', '.join(LOCATIONS)}")
    return name


Location = Annotated[str, AfterValidator(_known_location)]


class _Validated(OneLineErrors):
    """The one-line errors of every configuration (module docstring), naming options.

    ``OPTIONS`` maps a field to its command-line option where the two are not spelled alike
    (``lambda_`` -> ``--lambda``)."""

    OPTIONS: ClassVar[dict[str, str]] = {}

    @classmethod
    def _describe(cls, exc: ValidationError) -> str:
        err = exc.errors()[0]
        name = validation_error(exc, cls._fields())[0].partition(".")[0] if err["loc"] else ""
        if err["type"] in ("unexpected_keyword_argument", "extra_forbidden"):
            return f"{name}: not a setting of {cls.__name__}"
        if err["type"] in ("missing_argument", "missing"):
            return f"{name}: required"
        option = cls.OPTIONS.get(name, "--" + name.rstrip("_").replace("_", "-"))
        given = err.get("input")
        shown = f" {given}" if isinstance(given, str | int | float) else ""
        return f"{option}{shown}: {err['msg'].removeprefix('Value error, ')}"


#: How a child's step sizes mutate: ``per-feature`` (evogrid's: one two-point factor per feature's
#: step) or ``one`` (the dissertation's Eq. 3.3, ``o'_m = o_m * xi``: one factor for the whole step
#: vector); docs/training.md.
StepDraw = Literal["per-feature", "one"]


class _EvolutionSettings(_Validated):
    """What every (mu + lambda)-ES run shares: the flip rate from the number of rules."""

    n_rules: int
    p_flip: float

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

Kind = Literal["efs", "coevolution", "joint"]
#: Co-evolution: what a pairing's member gets as fitness, and how the result
#: pairing is chosen (docs/training.md, "Co-evolution"). ``own`` fitness and
#: the final generation's ``sum`` are the published algorithm; the default
#: (``worst-relative`` over an all-generations archive) is our change, because
#: only it improved every site on unseen months (docs/results.md).
Fitness = Literal["own", "shared"]
Pick = Literal["sum", "worst-relative", "sum-improving"]
Optimizer = Literal["es", "cma"]
#: What the trained rulebases decide: ``transfer`` (keep or exchange a job, FuzzyPolicy) or
#: ``ranking`` (score the sites for a job, every site a broker: evogrid.policy.strategies.Broker).
Decision = Literal["transfer", "ranking"]


@dataclass(config=STRICT)
class TrainConfig(_OnScenario, _EvolutionSettings):
    """Everything that determines a training run (written as config.toml).

    Attributes:
        scenario: training scenario (inline or TOML), e.g. ``KTH@0-5+SDSC03@0-5``.
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
        step_draw: one two-point factor per feature's step, or one for all (:data:`StepDraw`).
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
    kind: Kind = "efs"
    site: Annotated[int, Field(ge=0)] = 0
    lrms: str = "fcfs"
    others: Literal["awf", "local"] = "awf"
    location: Location = "awrt"
    optimizer: Optimizer = "es"
    mu: Count = 13
    lambda_: Count = 91
    generations: Count = 150
    n_rules: Count = 10
    features: list[str] = field(default_factory=list)
    beta: Annotated[float, Field(gt=0.0)] = 0.6
    p_flip: Probability = 0.0
    step_draw: StepDraw = "per-feature"
    fitness: Fitness = "own"
    pick: Pick = "worst-relative"
    archive: bool = True
    seed: Seed = 1
    cutoff: bool = True
    test: str | None = None
    decision: Decision = "transfer"

    OPTIONS: ClassVar[dict[str, str]] = {"decision": "--policy", "n_rules": "--rules", "kind": "kind"}

    def __post_init__(self) -> None:
        if self.optimizer == "cma" and self.kind != "efs":
            raise EvogridError("--optimizer cma is for EFS (evogrid train) only")
        if not self.features:
            self.features = list(DEFAULT_FEATURES[self.decision])
        usable = features_for(self.decision)
        if unknown := [f for f in self.features if f not in usable]:
            raise EvogridError(f"--feature {','.join(unknown)}: expected {self.decision} features "
                               f"({', '.join(usable)})")

    def check_scenarios(self) -> None:
        """Check what needs the scenarios loaded: at least two sites (one site has nobody to exchange
        with and would "learn" +0.0 %), the trained site among them, a test scenario with the same
        sites, no ``[reservations]`` table (this run would ignore it), grid conditions (``[strategy]``,
        docs/training.md) the trained policy can run in. Raises EvogridError."""
        from evogrid.optimize.fitness import check_conditions  # (fitness imports DEAP; this module does not)

        scenario = self.ref.scenario()
        n_sites = len(scenario.workloads)
        scenario.refuse_reservations(f"training {self.decision} rulebases")
        if n_sites < 2:
            raise EvogridError(f"{self.scenario}: training needs at least two sites (one site has "
                               "no partner to exchange jobs with)")
        if self.kind == "efs" and self.site >= n_sites:
            raise EvogridError(f"--site {self.site}: {self.scenario} has {n_sites} sites "
                               f"(0 to {n_sites - 1})")
        check_conditions(scenario, self.decision, self.others, self.location)
        if self.test is not None:
            test = ScenarioRef(self.test, self.lrms).scenario()
            test.refuse_reservations("testing rulebases")
            if len(test.workloads) != n_sites:
                raise EvogridError(f"--test {self.test}: the test scenario has {len(test.workloads)} "
                                   f"site(s), the training scenario {self.scenario} has {n_sites} sites "
                                   "(a test runs the same sites on other months)")
            check_conditions(test, self.decision, self.others, self.location)

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
ParetoMode = Literal["partition", "policy", "ranking"]
#: Feasibility limit on every site's AWRT, seconds (Lepping 2011; docs/pareto.md).
AWRT_LIMIT_SECONDS = 100_000.0
#: Default early stop of hopeless simulations: at this multiple of the limit.
CUTOFF_FACTOR = 2.0


@dataclass(config=STRICT)
class ParetoConfig(_OnScenario, _Validated):
    """Everything that determines a Pareto run's result (written as config.toml); ``mode`` is
    one of these or ``reservation`` (evogrid.optimize.reservation_front.ReservationFrontConfig)."""

    scenario: str
    mode: ParetoMode = "partition"
    lrms: str | None = "easy"
    pop_size: Annotated[int, Field(ge=2)] = 70
    generations: Count = 200
    seed: Seed = 1
    limit: Annotated[float, Field(gt=0.0)] = AWRT_LIMIT_SECONDS
    # stop simulations beyond factor x limit (0: never)
    cutoff_factor: Annotated[float, Field(ge=0.0)] = CUTOFF_FACTOR
    # partition mode (docs/pareto.md)
    n_changes: Annotated[int, Field(ge=0)] = 5000
    keep_local: bool = True
    seed_strategies: bool = False  # start from AWF/pool/AA assignments too (an evogrid addition)
    p_crossover: Probability = 0.9
    p_gene: Probability = 0.1
    shift_sigma: Annotated[float, Field(gt=0.0)] = 2000.0
    # policy and ranking modes (features: the mode's defaults when empty)
    n_rules: Count = 10
    features: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.features:
            self.features = list(DEFAULT_FEATURES[self.decision])
        usable = features_for(self.decision)
        if unknown := [f for f in self.features if f not in usable]:
            raise EvogridError(f"feature {','.join(unknown)}: expected {self.decision} features "
                               f"({', '.join(usable)})")

    def check_scenarios(self) -> None:
        """At least two sites (a one-site front is one point), no ``[reservations]`` table (use
        ``mode="reservation"``) and no grid conditions in the ``[strategy]`` table. Raises EvogridError."""
        scenario = self.ref.scenario()
        scenario.refuse_reservations(f"pareto --mode {self.mode}")
        if given := conditions(scenario):
            raise EvogridError(f"{self.scenario}: strategy.{next(iter(given))}: the Pareto front runs in the "
                               "exact grid (its reference strategies would not share these conditions); "
                               "train under them with evogrid train")
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
