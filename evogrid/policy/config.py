"""Strategy configuration: a scenario file's ``[strategy]`` table and the CLI's options -> a strategy.

A scenario TOML (:mod:`evogrid.sim.scenario`) may carry a ``[strategy]``
table; the simulator keeps it as plain data (``Scenario.strategy``) and
this module makes it a strategy object::

    scenario = Scenario.from_spec("experiments/configs/kth_blue_awf.toml")
    strategy_config(scenario)    # StrategyConfig(name='awf', location='fixed', ...): validated
    scenario_strategy(scenario)  # AcceptWhenFit(location='fixed', seed=0, label='awf')
    simulate(scenario)           # runs it (evogrid.policy.simulate without a strategy)

``evogrid simulate`` does the same, with its command-line options laid over
the table (:meth:`StrategyConfig.with_options`). Every name is checked
against the registries (:data:`~evogrid.policy.registry.STRATEGIES` and the rest of
:mod:`evogrid.policy.registry`): an unknown one is a one-line error naming
the file and field (``x.toml: strategy.location: unknown location policy
'near'; expected one of fixed, random, awrt, least-load, olb``) or the option.

Rulebases are given as :class:`RulebaseSpec`: a file for one site (a window
name or index), a file for every site, or a directory holding a pool (each
site gets the rulebases trained for its size, :func:`pool_for_sites`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from evogrid.errors import ScenarioError, validation_error, validation_message
from evogrid.policy.registry import (
    ACTIVE_TAKE,
    HANDOVER,
    LOCATIONS,
    OUTSIDE_RANGE,
    POOL_ARRIVALS,
    REFUSALS,
    SLOT_RULES,
    STRATEGIES,
    TRANSFERS,
    plain_transfers,
)
from evogrid.policy.rulebase import Rulebase
from evogrid.policy.strategies import (
    Broker,
    FuzzyPolicy,
    GridCap,
    GridSlots,
    Held,
    JobLocations,
    Refusals,
    Stale,
    Strategy,
    pool_for_sites,
)
from evogrid.sim.scenario import Scenario
from evogrid.sim.schedule import PER_SITE


@dataclass(frozen=True)
class RulebaseSpec:
    """Where a site's rulebases come from: one ``--rulebase`` argument or one ``[strategy]`` entry.

    Attributes:
        site: a window name or site index; None: ``path`` is for every site
            (a file) or a pool (a directory).
        path: a rulebase JSON file or a directory of them.
        where: names the option or field in errors.
    """

    site: str | None
    path: Path
    where: str

    @classmethod
    def parse(cls, text: str, option: str = "--rulebase") -> RulebaseSpec:
        """The command-line form: ``FILE``, ``SITE=FILE`` or ``DIR``."""
        site, sep, file = text.rpartition("=")
        return cls(site if sep else None, Path(file), f"{option} {text}")


def site_index(site: str, names: Sequence[str], where: str) -> int:
    """The index of ``site``, a site's index or its window name among ``names``; an error naming
    ``where`` (the option or field) otherwise."""
    if site.isascii() and site.isdigit() and int(site) < len(names):
        return int(site)
    if site in names:
        return list(names).index(site)
    raise ScenarioError(f"{where}: no site {site!r} (sites: {', '.join(names)})")


def load_rulebases(specs: Sequence[RulebaseSpec], scenario: Scenario) -> dict[int, list[Rulebase]]:
    """The rulebases per site index, in the order given (a site's several files form a pool)."""
    names = [w.name for w in scenario.workloads]
    chosen: dict[int, list[Rulebase]] = {}
    for spec in specs:
        if spec.site is None and spec.path.is_dir():
            pool = [Rulebase.load(f) for f in sorted(spec.path.glob("*.json"))]
            for k, rbs in pool_for_sites(pool, [w.machine_procs for w in scenario.workloads]).items():
                chosen.setdefault(k, []).extend(rbs)
            continue
        sites = list(range(len(names))) if spec.site is None else [site_index(spec.site, names, spec.where)]
        rb = Rulebase.load(spec.path)
        for k in sites:
            chosen.setdefault(k, []).append(rb)
    return chosen


def fuzzy_strategy(config: StrategyConfig, scenario: Scenario, specs: Sequence[RulebaseSpec]) -> FuzzyPolicy:
    """The ``rulebase`` strategy: FuzzyPolicy from the rulebase specs (STRATEGIES' factory)."""
    if not specs:
        raise ScenarioError("strategy rulebase needs rulebases: --rulebase FILE (or SITE=FILE, or a pool "
                            "DIR), or rulebases = { SITE = FILE } in the [strategy] table")
    chosen = load_rulebases(specs, scenario)
    if not chosen:
        raise ScenarioError(f"{', '.join(s.where for s in specs)}: no rulebase trained for a site of "
                            "these sizes")
    picks = {k: rbs[0] if len(rbs) == 1 else rbs for k, rbs in chosen.items()}
    return FuzzyPolicy(picks, others=config.others, location=config.location, seed=config.seed,
                       outside_range=config.outside_range)


def broker_strategy(config: StrategyConfig, scenario: Scenario, specs: Sequence[RulebaseSpec]) -> Broker:
    """The ``broker`` strategy (STRATEGIES' factory): with location ``rank``, one ranking rulebase per
    site from the specs (sites without one keep their jobs)."""
    if config.location != "rank":
        return Broker(config.location)
    chosen = load_rulebases(specs, scenario)
    if not chosen:
        raise ScenarioError("broker with location rank needs ranking rulebases: --rulebase SITE=FILE or "
                            "rulebases = { SITE = FILE } in the [strategy] table")
    return Broker("rank", {k: rbs[0] for k, rbs in chosen.items()})


StrategyName = STRATEGIES.name_type()
LocationName = LOCATIONS.name_type()
PoolArrivalName = POOL_ARRIVALS.name_type()
ActiveTakeName = ACTIVE_TAKE.name_type()
HandoverName = HANDOVER.name_type()
RefusalName = REFUSALS.name_type()
SlotRuleName = SLOT_RULES.name_type()
OutsideRangeName = OUTSIDE_RANGE.name_type()

#: The ``[strategy]`` fields that describe the grid a policy runs in, not the policy: training keeps
#: them and replaces the rest (:func:`with_conditions`).
CONDITIONS = ("job_locations", "grid_cap", "grid_slots", "grid_maxjobs", "slot_rule", "handover",
              "batch_jobs", "batch_s", "refusals", "refresh_s")


class StrategyConfig(BaseModel):
    """How the sites exchange jobs: a ``[strategy]`` table, or ``evogrid simulate``'s options."""

    model_config = ConfigDict(extra="forbid")

    name: StrategyName = Field(default=STRATEGIES.default.name,
                               description="the strategy: " + STRATEGIES.help())
    location: LocationName = Field(default=LOCATIONS.default.name, description=LOCATIONS.help())
    others: str = Field(default="awf", description="transfer policy of sites without a rulebase: "
                                                   + TRANSFERS.help(plain_transfers()))
    seed: int = Field(default=0, description="seeds the random location policy")
    pool_arrivals: PoolArrivalName = Field(default=POOL_ARRIVALS.default.name,
                               description="pool only: " + POOL_ARRIVALS.help())
    active_take: ActiveTakeName = Field(default=ACTIVE_TAKE.default.name,
                                        description="aa only: " + ACTIVE_TAKE.help())
    outside_range: OutsideRangeName = Field(default=OUTSIDE_RANGE.default.name,
                                            description="rulebase only: " + OUTSIDE_RANGE.help())
    job_locations: dict[LocationName, float] = Field(
        default_factory=dict, description="location policy -> share of the jobs that use it instead of "
                                          "`location` (Beichter's per-job POLICY tag; drawn with `seed`)")
    handover: HandoverName = Field(default=HANDOVER.default.name,
                                   description="broker only: when it hands a job over: " + HANDOVER.help())
    batch_jobs: int = Field(default=0, ge=0, strict=True,
                            description="handover batch only, instead of batch_s: the batch's size, jobs")
    batch_s: int = Field(default=0, ge=0, strict=True, validate_default=True,
                         description="handover batch only, and needed there unless batch_jobs: the batch "
                                     "interval, seconds")
    refusals: RefusalName = Field(default=REFUSALS.default.name,
                                  description="broker only: a job its location policy hands to no site: "
                                              + REFUSALS.help())
    refresh_s: int = Field(default=0, ge=0, strict=True,
                           description="seconds between the information service's publications of "
                                       "the sites' state, which location policies rank by (0: exact)")
    grid_cap: dict[str, int] = Field(
        default_factory=dict, description="site (window name or index) -> the most processors the jobs of "
                                          "other sites may hold there at once, waiting or running")
    grid_slots: dict[str, int] = Field(
        default_factory=dict, description="site (window name or index) -> the slots LoadLeveler gives the "
                                          "grid's jobs there (Beichter's maxslots; see slot_rule), which "
                                          "beichter-old and beichter-new read")
    grid_maxjobs: dict[str, int] = Field(
        default_factory=dict, description="site (window name or index) -> how many jobs the grid's user may "
                                          "run there at once (Beichter's maxjobs; see slot_rule), which "
                                          "beichter-new reads")
    slot_rule: SlotRuleName = Field(default=SLOT_RULES.default.name,
                                    description="grid_slots and grid_maxjobs only: what they do: "
                                                + SLOT_RULES.help())
    rulebases: dict[str, str | list[str]] = Field(
        default_factory=dict,
        description="site (window name or index) -> rulebase JSON, or a list of them (a pool); "
                    "paths relative to the scenario file",
    )

    @field_validator("others")
    @classmethod
    def _others(cls, name: str) -> str:
        if name not in plain_transfers():
            raise ValueError(f"{name!r} is no transfer policy for sites without a rulebase; "
                             f"expected one of {', '.join(plain_transfers())}")
        return name

    @field_validator("grid_cap", "grid_slots", "grid_maxjobs", mode="before")
    @classmethod
    def _per_site(cls, values: object, info: ValidationInfo) -> object:
        """Whole processors >= 0 (caps), slots or jobs >= 1 (the command line gives them as digits)."""
        if not isinstance(values, dict):
            return values
        least, unit = PER_SITE[info.field_name]
        checked = {}
        for site, value in values.items():
            if isinstance(value, str) and value.isascii() and value.isdigit():
                value = int(value)
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ValueError(f"{site} = {value!r}: expected whole {unit} >= {least}")
            checked[site] = value
        return checked

    @field_validator("batch_jobs", "batch_s")
    @classmethod
    def _batch(cls, value: int, info: ValidationInfo) -> int:
        """batch_jobs is declared first, so batch_s's check sees it."""
        handover = info.data.get("handover")
        if handover != "batch" and value > 0:
            raise ValueError(f"applies to handover 'batch' only, not {handover!r}")
        if info.field_name == "batch_s" and handover == "batch":
            jobs = info.data.get("batch_jobs", 0)
            if (value > 0) == (jobs > 0):
                raise ValueError("handover 'batch' needs its interval or its size: batch_s > 0 (whole "
                                 "seconds) or batch_jobs > 0 (jobs), one of them")
        return value

    @field_validator("outside_range")
    @classmethod
    def _outside_range(cls, choice: str, info: ValidationInfo) -> str:
        if choice != OUTSIDE_RANGE.default.name and info.data.get("name") != "rulebase":
            raise ValueError(f"applies to the rulebase strategy only, not {info.data.get('name')!r}")
        return choice

    def with_options(self, **options: object) -> StrategyConfig:
        """This configuration with the command line's values laid over it (None: not given).

        ``options`` are field names; an invalid value is an error naming the
        option (``--strategy`` for ``name``, else ``--field-name``) and the value.
        """
        given = {k: v for k, v in options.items() if v is not None}
        merged = {**self.model_dump(), **given}
        try:
            return StrategyConfig.model_validate(merged)
        except ValidationError as exc:
            field = str(exc.errors()[0]["loc"][0])
            option = "--strategy" if field == "name" else f"--{field.replace('_', '-')}"
            raise ScenarioError(f"{option} {merged.get(field)}: {validation_error(exc)[1]}") from None

    def rulebase_specs(self, where: str = "strategy.rulebases") -> list[RulebaseSpec]:
        """The ``rulebases`` table as specs, one per file (``where`` prefixes the field in errors)."""
        return [RulebaseSpec(site, Path(file), f"{where}.{site}")
                for site, files in self.rulebases.items()
                for file in (files if isinstance(files, list) else [files])]


def strategy_config(scenario: Scenario) -> StrategyConfig:
    """The scenario's ``[strategy]`` table validated, rulebase paths made relative to its file;
    the default configuration (local) without one. Errors name the file and field."""
    if scenario.strategy is None:
        return StrategyConfig()
    source = scenario.source
    try:
        config = StrategyConfig.model_validate(scenario.strategy)
    except ValidationError as exc:
        raise ScenarioError(f"{source or scenario.name}: strategy.{validation_message(exc)}") from None
    if source is None:
        return config

    def here(file: str) -> str:
        return file if Path(file).is_absolute() else str(source.parent / file)

    resolved = {site: [here(f) for f in files] if isinstance(files, list) else here(files)
                for site, files in config.rulebases.items()}
    return config.model_copy(update={"rulebases": resolved})


def build_strategy(config: StrategyConfig, scenario: Scenario,
                   rulebases: Sequence[RulebaseSpec] | None = None) -> Strategy:
    """The strategy object of ``config`` for ``scenario``.

    ``rulebases`` (e.g. from ``--rulebase``) replace the configuration's
    ``rulebases`` table; they are read only by strategies that use them.
    """
    if rulebases is None:
        where = f"{scenario.source}: strategy.rulebases" if scenario.source else "strategy.rulebases"
        rulebases = config.rulebase_specs(where)
    chosen = STRATEGIES.lookup(config.name, "strategy").factory(config, scenario, rulebases)
    return with_conditions(chosen, scenario, config)


def with_conditions(policy: Strategy, scenario: Scenario, config: StrategyConfig | None = None) -> Strategy:
    """``policy`` in the grid that ``config`` (default: the scenario's ``[strategy]`` table) describes:
    its fields that are conditions of the grid rather than the policy (:data:`CONDITIONS`: per-job
    location policies, caps, LoadLeveler's slots and maxjobs, the holding queue, refusals, stale
    information) wrapped around ``policy``. Training runs its candidates in them (docs/training.md,
    The grid a policy trains in)."""
    if config is None:
        config = strategy_config(scenario)
    chosen = policy
    if config.job_locations:
        chosen = JobLocations(chosen, tuple(config.job_locations.items()))
    if config.grid_cap:
        chosen = GridCap(chosen, _per_site(config.grid_cap, "grid_cap", scenario))
    if config.grid_slots or config.grid_maxjobs:
        slots = _per_site(config.grid_slots, "grid_slots", scenario) if config.grid_slots else ()
        maxjobs = _per_site(config.grid_maxjobs, "grid_maxjobs", scenario) if config.grid_maxjobs else ()
        chosen = GridSlots(chosen, slots, config.slot_rule, maxjobs)
    elif config.slot_rule != SLOT_RULES.default.name:
        raise ScenarioError(f"slot_rule {config.slot_rule!r} applies to grid_slots and grid_maxjobs, and "
                            "none are given")
    if config.handover != HANDOVER.default.name or config.batch_s or config.batch_jobs:
        chosen = Held(chosen, config.handover, config.batch_s, config.batch_jobs)
    if config.refusals != REFUSALS.default.name:
        chosen = Refusals(chosen, config.refusals)
    return Stale(chosen, config.refresh_s) if config.refresh_s else chosen


def conditions(scenario: Scenario, config: StrategyConfig | None = None) -> dict[str, Any]:
    """The grid conditions (:data:`CONDITIONS`) of ``config`` (default: the scenario's ``[strategy]``
    table) that differ from the defaults, as given."""
    config, default = config or strategy_config(scenario), StrategyConfig()
    return {name: value for name in CONDITIONS
            if (value := getattr(config, name)) != getattr(default, name)}


def trained_in(scenario: Scenario) -> dict[str, Any]:
    """The provenance entry of a rulebase trained on ``scenario``: ``{"trained_in": its grid
    conditions}``, or nothing in the exact grid (:func:`trained_elsewhere` reads it back)."""
    given = conditions(scenario)
    return {"trained_in": given} if given else {}


def trained_elsewhere(strategy: Strategy, scenario: Scenario, config: StrategyConfig) -> list[str]:
    """One line per rulebase of ``strategy`` that was trained in other grid conditions than it runs in
    here (its provenance's ``trained_in``, none: the exact grid), as a researcher would want to be told
    (a ranking learned without LoadLeveler's limits may not carry over to them: docs/grid.md)."""
    while not isinstance(strategy, FuzzyPolicy | Broker) and hasattr(strategy, "strategy"):
        strategy = strategy.strategy
    choices = (strategy.rulebases.values() if isinstance(strategy, FuzzyPolicy)
               else strategy.rankings.values() if isinstance(strategy, Broker) else ())
    rulebases = [rb for c in choices
                 for rb in (c.values() if isinstance(c, Mapping) else c if isinstance(c, Sequence) else [c])]
    here = conditions(scenario, config)

    def described(given: dict[str, Any]) -> str:
        return ", ".join(f"{k} = {v}" for k, v in given.items()) if given else "the exact grid"

    notes = []
    for rb in rulebases:
        trained = rb.provenance.get("trained_in", {})
        where = f"{rb.provenance.get('site', '?')} (trained on {rb.provenance.get('trained_on', '?')})"
        note = f"rulebase of {where} was trained in {described(trained)}; it runs in {described(here)}"
        if trained != here and note not in notes:
            notes.append(note)
    return notes


def _per_site(values: dict[str, int], name: str, scenario: Scenario) -> tuple[int | None, ...]:
    """``grid_cap``'s, ``grid_slots``' or ``grid_maxjobs``' (``name``) sites (window names or indices)
    resolved: one value per site, None where none."""
    names = [w.name for w in scenario.workloads]
    where = f"{scenario.source}: strategy.{name}" if scenario.source else name
    resolved: list[int | None] = [None] * len(names)
    for site, value in values.items():
        k = site_index(site, names, where)
        if resolved[k] is not None:
            raise ScenarioError(f"{where}: site {names[k]} given twice")
        resolved[k] = value
    return tuple(resolved)


def scenario_strategy(scenario: Scenario) -> Strategy:
    """The strategy of the scenario's ``[strategy]`` table (:class:`Local` without one)."""
    return build_strategy(strategy_config(scenario), scenario)
