"""Scenarios: which sites, which windows, which LRMS (docs/model.md, Scenarios).

Two forms:

- inline: ``KTH@0-5+SDSC03@0-5`` (``+`` between sites, window names as in
  :mod:`evogrid.workload.traces`), with one LRMS for all sites;
- a TOML file::

      name = "kth-vs-blue"          # optional
      lrms = "easy"                 # default for every site
      [preprocessing]               # optional, see evogrid.workload.Preprocessing
      kill_at_estimate = true
      [[sites]]
      window = "KTH@0-5"            # trace and 30-day months (KTH-5: the dissertation's cut)
      [[sites]]
      window = "traces/my.swf@2-7"  # any SWF file (a relative path: from this file's folder if
                                    # it is there, else from the working directory)
      procs = 512                   # machine size override (processors)
      lrms = "fcfs"                 # per-site override
      speed = 2.0                   # optional speed factor (default 1)
      attributes = { arch = "x86" } # optional, for matchmaking
      [[requirements]]              # optional: seeded synthetic job requirements
      attribute = "arch"
      value = "x86"
      share = 0.3                   # of the jobs (hard: of those whose home site has it)
      kind = "hard"                 # or preferred
      [strategy]                    # optional: how sites exchange jobs
      name = "rulebase"             # local, awf, rulebase, pool, aa
      location = "fixed"
      rulebases = { "KTH@0-5" = "kth.json" }   # relative to this file (@ needs quotes)
      # pool_arrivals = "first"     # pool only: first (default), queued or first-pool
      # active_take = "queue"       # aa only: queue (default), start or fits
      # refresh_s = 30              # location policies see sites as published every 30 s (0: now)
      # handover = "when-room"      # broker only: hold jobs while no site has room (interactive: at once)
      # batch_s = 60                # handover = "batch": hand held jobs over every 60 s
      # batch_jobs = 100            #   or whenever 100 are held (the last batch at the last job)
      # grid_cap = { "KTH@0-5" = 64 }    # the most processors other sites' jobs hold there
      # grid_slots = { "KTH@0-5" = 50 }  # the grid's LoadLeveler slots, which it enforces
      # grid_maxjobs = { "KTH@0-5" = 5 } # how many grid jobs may run there, enforced too
      # slot_rule = "read"          # only Beichter's policies read the two, nothing enforces them
      # outside_range = "awf"       # rulebase only: AWF decides beyond a rulebase's ranges
      [reservations]                # optional: requests booked ahead (evogrid reserve)
      workload = "rw1"              # the request kind: rw1, rw2, rw3, rw1-6h, rw1-6h-3, book-ahead, wide
      algorithm = "backfill"        # trivial, cpu-count, backlog, backfill, weighted, first-fit
      tariffs = "meltzer"           # or flat, peak, or one entry per site
      variant_order = "tree"        # Meltzer's readings (defaults) or ours: by-start, every-held,
      backlog_rule = "before-start" #   head-fit (docs/reservations.md)
      backfill_until = "next-end"   # his 6.7.5 (ours: next-event, head-fit)
      status_queue = "head"         # sites count their queue head's reservation, as Maui (ours: none)
      meltzer_templates = "kept"    # the requests' jobs stay batch jobs, his 6.3 (ours: taken)

Unknown keys are errors. All windows start at time 0 together. The
``[reservations]`` table is read here and used by
:func:`evogrid.sim.booking.reservation_setup`.

The ``[strategy]`` table is the business of :mod:`evogrid.policy.config`,
a layer above this one: a :class:`Scenario` keeps it as read
(``strategy``, with ``source``, the file, for relative paths and errors),
and ``evogrid.policy.simulate(scenario)`` validates and runs it, as
``evogrid simulate x.toml`` does (``evogrid.policy.scenario_strategy``
gives the strategy object).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from evogrid.errors import ScenarioError, validation_message
from evogrid.sim import booking
from evogrid.sim import requests as request_kinds
from evogrid.sim.schedule import GridJobs, Schedule, lrms_code, simulate_local
from evogrid.sim.sites import Requirement, Sites, sites_from_config
from evogrid.workload.model import Workload
from evogrid.workload.preprocess import Preprocessing
from evogrid.workload.reservations import MeltzerDraw, MeltzerTemplates, RequestAt
from evogrid.workload.traces import load_window, relative_to


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SiteConfig(_Strict):
    window: str = Field(description="window name, e.g. KTH@0-5, SDSC03@5-11, path.swf")
    procs: int | None = Field(default=None, gt=0, description="machine size override")
    lrms: str | None = Field(default=None, description="fcfs, easy or list")
    speed: float = Field(default=1.0, gt=0, description="speed factor: a job from site k runs p * s_k / s "
                                                        "seconds here")
    attributes: dict[str, str] = Field(default_factory=dict, description="site attributes for matchmaking, "
                                                                         "e.g. {arch = \"x86\"}")


class RequirementConfig(_Strict):
    """One ``[[requirements]]`` entry: a seeded share of jobs requiring or preferring an attribute value,
    or a condition in Beichter's job description language (evogrid.sim.requirement_expr)."""

    attribute: str = ""
    value: str = ""
    expression: str = Field(default="", description="instead of attribute and value: REQUIREMENT "
                            "elements with COMP (eq, ne, gr, lo) joined by AND, OR, NOT")
    share: float | None = Field(default=None, ge=0, le=1, description="share of the jobs drawn")
    swf_field: Literal["queue", "partition", "req_memory"] | None = Field(
        default=None, description="instead of share: the jobs whose SWF field has one of swf_values; "
        "req_memory (SWF field 10, KB per processor): sites whose attribute is at least the job's demand")
    swf_values: list[int] = Field(default_factory=list, description="the SWF field's values")
    kind: str = Field(default="hard", description="hard (filters sites) or preferred (ranks them first)")
    seed: int = 0

    @model_validator(mode="after")
    def _valid(self) -> RequirementConfig:
        """The checks are the Requirement's (evogrid.sim.sites); a ValueError here lets the message
        name the file and the entry."""
        try:
            Requirement(**self.model_dump())
        except ScenarioError as exc:
            raise ValueError(str(exc)) from None
        return self


class PreprocessingConfig(_Strict):
    drop_nonpositive_run_time: bool = True
    requested_procs_fallback: bool = True
    kill_at_estimate: bool = True
    drop_unknown_estimate: bool = False
    merge_small_jobs: bool = Field(default=False, description="Meltzer's merging of small jobs (his 6.2): "
                                   "runs of neighbouring jobs below 128 CPUs, one estimate, within an hour "
                                   "(on in experiments/configs/meltzer*.toml, his setting)")


#: A registered request kind's name (checked when the table is validated).
RequestKindName = request_kinds.REGISTRY.name_type()


class TariffConfig(_Strict):
    off_peak: float = Field(default=1.0, ge=0, description="price per processor-hour off peak")
    peak: float = Field(default=2.0, ge=0, description="price per processor-hour on weekdays at peak hours")
    peak_hours: tuple[int, int] = Field(default=(8, 20), description="peak from and to (hours of the day)")


class ReservationsConfig(_Strict):
    """The scenario's ``[reservations]`` table (evogrid.sim.booking.reservation_setup); the
    admission settings take the types :class:`evogrid.sim.booking.ReservationRules` declares."""

    workload: RequestKindName = Field(
        default="rw1", description=f"the request kind (evogrid.sim.requests): "
                                   f"{', '.join(request_kinds.REGISTRY)}")
    options: dict[str, Any] = Field(
        default_factory=dict, description="the request kind's own settings (its entry's options model)")
    source: int = Field(default=0, ge=0, description="index of the site whose jobs become the requests")
    seed: int = 0
    probability: float = Field(default=0.1, gt=0, le=1, description="Meltzer: share of jobs drawn")
    meltzer_draw: MeltzerDraw = Field(
        default="shared", description="Meltzer: the second part and the earliest start from one random "
                                      "number (shared, his 6.3 read literally) or from two (independent)")
    meltzer_templates: MeltzerTemplates = Field(
        default="kept", description="Meltzer: the jobs the requests are made from stay batch jobs (kept, "
                                    "his 6.3: templates) or leave the workload (taken)")
    book_ahead_hours: float = Field(default=6.0, ge=0, description="book-ahead: hours booked ahead")
    request_at: RequestAt = Field(
        default="submission", description="book-ahead: the request made at the job's submission, its start "
        "book_ahead_hours later (submission, Röblitz et al.'s), or that long before the job's "
        "submission, which stays its start (before-start, our earlier reading)")
    slack_hours: float = Field(default=2.0, ge=0, description="book-ahead: room after the run time")
    every: int = Field(default=10, ge=1, description="book-ahead: every n-th job becomes a request")
    elastic: tuple[float, float] | None = Field(
        default=None, description="book-ahead: elastic requests from low to high times the job's processors")
    algorithm: booking.AlgorithmName = "backfill"
    minsize: booking.Count = Field(default=300, description="least step between candidate starts (s)")
    windows: booking.Count = Field(default=20, description="candidate starts per request's range")
    step: booking.StartStep = Field(
        default="divided", description="the candidate starts' step max(minsize, span / windows): "
                                       "divided (Meltzer's listing 1, at most windows + 1 starts) or "
                                       "floor (whole seconds, our earlier reading)")
    cost_weight: booking.NonNegative = Field(default=0.5, description="Algorithm 5's k")
    start_weight: booking.NonNegative = Field(default=0.5, description="Algorithm 5's s")
    tsn_max: booking.Count = Field(default=5, description="probe: start times probed per processor count")
    tss_gap: booking.Count = Field(default=1800, description="probe: least gap between probed starts (s)")
    estimate: booking.EstimateName = Field(
        default="load", description="probe: success estimate, load, static or history")
    history_seconds: booking.Count = Field(
        default=3600, description="probe: the history estimate's interval delta (s; our choice, not given)")
    success_hours: booking.Positive = Field(
        default=5.0, description="probe: the static estimate's h (hours; Röblitz et al.: 5)")
    threshold: booking.Probability = Field(
        default=0.85, description="probe: least estimated success (Röblitz et al.: 0.85)")
    load_rule: booking.LoadRule = Field(
        default="workload-end", description="probe: when a site's known workload ends, Röblitz et al.'s "
                                            "T_wkl with the running jobs' remaining run times "
                                            "(workload-end) or their time to their estimated ends "
                                            "(workload-end-estimated), or Meltzer's backlog")
    acc_running: booking.NonNegative = Field(
        default=0.5, description="probe: T_wkl's accuracy of running jobs' remaining times (acc_r)")
    acc_waiting: booking.NonNegative = Field(
        default=0.5, description="probe: T_wkl's accuracy of waiting jobs' wall times (acc_w)")
    probe_slots: booking.ProbeSlots = Field(
        default="cover", description="probe: start times spread over the request's window (cover, "
                                     "Röblitz et al.) or packed tss_gap apart from the earliest fit "
                                     "(earliest)")
    collective_sites: int | None = Field(
        default=None, ge=1, description="make the requests collective too: on up to this many sites")
    wide_slack_hours: float = Field(default=168.0, ge=0, description="wide: room after the run time")
    collective_site_min: float = Field(
        default=0.5, gt=0, le=1, description="collective: least processors per site, times e / N")
    tariffs: str | list[TariffConfig | list[float]] = Field(
        default="meltzer",
        description="meltzer (his Table 18: 2 from 8 to 18 h, else 1; sites 1 and 3 half at weekends), "
                    "flat, peak (2 on weekdays 8-20 h, site k's prices scaled by 1 + k/(K-1)), or one "
                    "entry per site: a {off_peak, peak, peak_hours} table or 168 hourly prices")
    tariff_week_start_h: int = Field(
        default=0, ge=0, lt=168,
        description="the hour of the tariff week (0: Monday 0:00) at the scenario's time 0; 66 puts a "
                    "weekend at 799,200 s, where Meltzer's 6.9.2 places his first one (800,000 s)")
    variant_order: booking.VariantOrder = Field(
        default="tree", description="Meltzer's variant tree in shuffled order (Algorithm 4: sorted by "
                                    "start), tree-sorted (sorted by start for every algorithm, his 6.8), "
                                    "tree-unsorted (never sorted: with backfill, his 4.5 backfill "
                                    "algorithm of 6.7), or by-start with each request's site order")
    backlog_rule: booking.BacklogRule = Field(
        default="before-start", description="which held reservations a backlog counts: Meltzer's, those "
                                            "starting before the candidate, or every one")
    backfill_until: booking.BackfillBound = Field(
        default="next-end", description="Algorithm 4's backfill reservations end before the site's next "
                                        "scheduling event (Meltzer's t_sched: next-end, his 6.7.5, counts "
                                        "the running jobs' and held reservations' ends; next-event, ours, "
                                        "also the held reservations' starts) or by its queue head's "
                                        "earliest fit (head-fit)")
    status_queue: booking.StatusQueue = Field(
        default="head", description="which waiting jobs a site's profile counts when Meltzer's algorithms "
                                    "ask it: its queue head at its earliest fit (head: the job reservation "
                                    "Maui keeps for its first waiting job, as at his sites) or none (ours)")


class ScenarioConfig(_Strict):
    name: str | None = None
    lrms: str = "fcfs"
    lenient: bool = False
    preprocessing: PreprocessingConfig = PreprocessingConfig()
    sites: list[SiteConfig] = Field(min_length=1)
    strategy: dict[str, Any] | None = Field(
        default=None, description="how the sites exchange jobs: validated by evogrid.policy.config")
    reservations: ReservationsConfig | None = Field(
        default=None, description="reservation requests and how the grid admits them")
    requirements: list[RequirementConfig] = Field(
        default_factory=list, description="job requirements for matchmaking (synthetic, seeded)")


@dataclass(frozen=True)
class Scenario:
    """Sites ready to simulate: one workload and one LRMS per site.

    Attributes:
        strategy: the scenario file's ``[strategy]`` table as read (None
            without one); :mod:`evogrid.policy.config` builds it.
        source: the TOML file the scenario was read from (None for an inline spec).
    """

    name: str
    workloads: tuple[Workload, ...]
    lrms: tuple[str, ...]
    strategy: dict[str, Any] | None = None
    source: Path | None = None
    reservations: ReservationsConfig | None = None
    sites: Sites = Sites()

    def grid_jobs(self) -> GridJobs:
        """The sites' jobs merged for the simulator, with the sites' speeds and the jobs' requirements."""
        return GridJobs.merge(self.workloads, self.sites)

    @classmethod
    def from_config(cls, config: ScenarioConfig, *, label: str = "", source: Path | None = None) -> Scenario:
        """Load every site's window. Raises ScenarioError / SWFFormatError."""
        options = Preprocessing(**config.preprocessing.model_dump())
        workloads, lrms = [], []
        for site in config.sites:
            site_options = replace(options, machine_procs=site.procs)
            window = site.window if source is None else relative_to(site.window, source.parent)
            w = load_window(window, site_options, lenient=config.lenient)
            name = site.lrms or config.lrms
            lrms_code(name)  # validates the name
            workloads.append(w)
            lrms.append(name.lower())
        names = [w.name for w in workloads]
        where = f"{source}: " if source else ""
        try:
            sites = sites_from_config([s.speed for s in config.sites], [s.attributes for s in config.sites],
                                      [r.model_dump() for r in config.requirements])
            sites.check_demands(workloads)
        except ScenarioError as exc:
            raise ScenarioError(f"{where}{exc}") from None
        return cls(config.name or label or "+".join(names), tuple(workloads), tuple(lrms), config.strategy,
                   source, config.reservations, sites)

    @classmethod
    def from_spec(
        cls, spec: str, *, lrms: str | None = None, procs: int | None = None, lenient: bool = False
    ) -> Scenario:
        """A scenario from an inline spec (``KTH@0-5+SDSC03@0-5``) or a TOML file path.

        ``lrms`` and ``procs`` override the file's values for every site.
        """
        path = Path(spec)
        if path.suffix == ".toml":
            config = load_scenario_file(path)
            updates: dict[str, object] = {"lenient": config.lenient or lenient}
            if lrms is not None:
                updates["lrms"] = lrms
                config = config.model_copy(
                    update={"sites": [s.model_copy(update={"lrms": None}) for s in config.sites]}
                )
            config = config.model_copy(update=updates)
        else:
            parts = spec.split("+")
            if not all(part.strip() for part in parts):
                raise ScenarioError(f"scenario {spec!r}: a site is missing (an empty name around a '+')")
            sites = [SiteConfig(window=part) for part in parts]
            config = ScenarioConfig(lrms=lrms or "fcfs", lenient=lenient, sites=sites)
        if procs is not None:
            config = config.model_copy(
                update={"sites": [s.model_copy(update={"procs": procs}) for s in config.sites]}
            )
        toml = path.suffix == ".toml"
        return cls.from_config(config, label=path.stem if toml else spec, source=path if toml else None)

    def refuse_strategy(self, command: str) -> None:
        """Raise ScenarioError if the scenario has a ``[strategy]`` table, which ``command`` (one that
        runs the sites without job exchange: ``evogrid reserve``, ``train --policy admission``,
        ``pareto --mode reservation``) would ignore."""
        if self.strategy is not None:
            raise ScenarioError(
                f"{self.source or self.name}: {command} runs the sites without job exchange and would "
                "ignore the [strategy] table; remove it, or run both with evogrid simulate")

    def refuse_reservations(self, command: str) -> None:
        """Raise ScenarioError if the scenario has a ``[reservations]`` table, which ``command`` does
        not run (``evogrid reserve``, ``train --policy admission`` and ``pareto --mode reservation``
        do): a table read and then ignored would mislead."""
        if self.reservations is not None:
            raise ScenarioError(
                f"{self.source or self.name}: {command} does not run the [reservations] table; use "
                "evogrid reserve, train --policy admission or pareto --mode reservation, or remove it")

    def simulate_local(self) -> Schedule:
        """Every site alone (no exchange): :func:`evogrid.sim.schedule.simulate_local` (level 2 of 3)."""
        return simulate_local(self.workloads, self.lrms)

def load_scenario_file(path: Path) -> ScenarioConfig:
    """Read and validate a scenario TOML file; errors name the file and field."""
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ScenarioError(f"{path}: no such scenario file") from None
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"{path}: invalid TOML: {exc}") from None
    try:
        return ScenarioConfig.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(f"{path}: {validation_message(exc)}") from None
