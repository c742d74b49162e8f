"""Exchange strategies (docs/grid.md) and running a scenario with one of them.

A strategy turns a grid's sites into an :class:`~evogrid.sim.schedule.Exchange`
(the compiled loop's arguments)::

    scenario = Scenario.from_spec("KTH@0-5+SDSC03@0-5", lrms="fcfs")
    res = simulate(scenario, AcceptWhenFit())
    res.metrics()            # per-site rows with deltas against local
    res2 = simulate(scenario, FuzzyPolicy({0: Rulebase.load("kth.json")}))

- :class:`Local`: no exchange (the baseline);
- :class:`AcceptWhenFit` (AWF): accept iff the job fits the free processors;
- :class:`FuzzyPolicy`: TSK rulebases at some sites, another policy elsewhere;
- :class:`Broker`: every site sends each job to the best qualified site by a
  location policy that ranks sites (MCT, Min-Min, ..., or learned TSK rankings);
- :class:`PythonPolicy`: transfer and location policies and queue orders written
  as Python classes (:class:`~evogrid.sim.python_policy.TransferPolicy`,
  :class:`~evogrid.sim.python_policy.LocationPolicy`,
  :class:`~evogrid.sim.python_policy.QueueOrder`; docs/python_policies.md);
- :class:`CentralPool` (FCFS-JS / EASY-JS / LIST-JS) and
  :class:`ActiveRequest` (AA): baselines that break the information policy;
- :class:`Stale`: another strategy whose location policy sees the sites as an
  information service published them every so many seconds;
- :class:`JobLocations`: another strategy with a location policy per job.
- :class:`Held`: another strategy whose brokers hold jobs while no site has room for them, or
  in batches.
- :class:`GridCap`: another strategy with a cap per site on the grid's share of it.
- :class:`GridSlots`: another strategy whose Beichter policies count LoadLeveler's slots of the grid.

Their option names (location and transfer policies, pool arrival rules) are
the registries of :mod:`evogrid.policy.registry`. A scenario file's
``[strategy]`` table becomes one of them through :mod:`evogrid.policy.config`;
:func:`simulate` without a strategy runs it::

    scenario = Scenario.from_spec("experiments/configs/kth_blue_awf.toml")
    simulate(scenario)       # the file's strategy (AWF), as `evogrid simulate` runs it
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from evogrid.errors import ScenarioError
from evogrid.policy.registry import ACTIVE_TAKE, OUTSIDE_RANGE, POOL_ARRIVALS, check_features, plain_transfers
from evogrid.policy.rulebase import Rulebase
from evogrid.sim.booking import Bookings, reservation_setup, simulate_reservations
from evogrid.sim.codes import O_AWF
from evogrid.sim.metrics import (
    grid_utilization,
    improvements,
    migration_matrices,
    move_stats,
    reservation_metrics,
    site_reservation_metrics,
)
from evogrid.sim.python_policy import AdmissionPolicy, LocationPolicy, QueueOrder, TransferPolicy
from evogrid.sim.scenario import Scenario
from evogrid.sim.schedule import Exchange, GridJobs, Schedule, simulate_grid, simulate_local
from evogrid.sim.tsk import TSKStack
from evogrid.workload.reservations import Reservations

#: What a pool gives a site of a size nobody was trained for (:func:`pool_for_sites`).
UNKNOWN_SITES = ("others", "nearest")


@dataclass(frozen=True)
class Local:
    """Every job runs where it was submitted."""

    label: str = "local"

    def exchange(self, jobs: GridJobs) -> Exchange:
        return Exchange(self.label, transfer=("local",) * jobs.n_sites)


@dataclass(frozen=True)
class AcceptWhenFit:
    """AWF at every site: keep or accept a job iff it fits the free processors now."""

    location: str = "fixed"
    seed: int = 0
    label: str = "awf"

    def exchange(self, jobs: GridJobs) -> Exchange:
        return Exchange(self.label, transfer=("awf",) * jobs.n_sites, location=self.location,
                        seed=self.seed)


RulebaseChoice = Rulebase | Sequence[Rulebase] | Mapping[int, Rulebase]


@dataclass(frozen=True)
class FuzzyPolicy:
    """TSK rulebases as transfer policies.

    Args:
        rulebases: per site index, one of
            - a :class:`Rulebase`, used with every partner;
            - a mapping partner index -> Rulebase (selection by partner id);
            - a sequence of Rulebases from a pool: with each partner the one
              whose ``provenance["partner_m"]`` is nearest that partner's
              size (the unknown-partner rule, docs/training.md).
        others: the transfer policy of sites without a rulebase (``awf`` or ``local``,
            see :func:`~evogrid.policy.registry.plain_transfers`).
        location: a name of :data:`~evogrid.policy.registry.LOCATIONS` (``fixed``, ``random``, ``awrt``, ...).
        outside_range: a name of :data:`~evogrid.policy.registry.OUTSIDE_RANGE`: ``rules`` (the
            dissertation: the rules answer wherever the features lie) or ``awf`` (a decision whose
            features leave the rulebase's ranges is AWF's; docs/training.md).
    """

    rulebases: Mapping[int, RulebaseChoice]
    others: str = "awf"
    location: str = "fixed"
    seed: int = 0
    label: str = "rulebase"
    outside_range: str = OUTSIDE_RANGE.default.name

    def exchange(self, jobs: GridJobs) -> Exchange:
        K = jobs.n_sites
        _check_others(self.others)
        _check_sites(self.rulebases, K, "rulebase")
        stack: list[Rulebase] = []
        index: dict[int, int] = {}
        rulebase_of = np.full((K, K), -1, dtype=np.int64)
        transfer = [self.others] * K
        for k, choice in self.rulebases.items():
            transfer[k] = "rulebase"
            for partner in range(K):
                if partner == k:
                    continue
                rb = _select(choice, partner, int(jobs.machine_procs[partner]))
                check_features(rb.features, "transfer", f"rulebase of site {k}")
                if id(rb) not in index:
                    index[id(rb)] = len(stack)
                    stack.append(rb)
                rulebase_of[k, partner] = index[id(rb)]
        guarded = OUTSIDE_RANGE.lookup(self.outside_range, "outside_range").code == O_AWF
        return Exchange(
            self.label, transfer=tuple(transfer), location=self.location, seed=self.seed,
            rulebases=TSKStack.stack([rb.arrays() for rb in stack],
                                     [rb.ranges for rb in stack] if guarded else None),
            rulebase_of=rulebase_of,
        )


def _select(choice: RulebaseChoice, partner: int, partner_m: int) -> Rulebase:
    if isinstance(choice, Rulebase):
        return choice
    if isinstance(choice, Mapping):
        if partner not in choice:
            raise ScenarioError(f"no rulebase for partner site {partner}")
        return choice[partner]
    if not choice:
        raise ScenarioError("an empty rulebase pool")

    def distance(rb: Rulebase) -> float:
        m = rb.provenance.get("partner_m")
        return abs(float(m) - partner_m) if m is not None else float("inf")

    return min(choice, key=distance)


def pool_for_sites(pool: Sequence[Rulebase], sizes: Sequence[int], *,
                   unknown_sites: str = "others") -> dict[int, list[Rulebase]]:
    """A rulebase pool keyed by (site size, partner size), spread over a grid's sites.

    Site k gets every rulebase of the pool trained for a site of its size
    (``provenance["m"] == sizes[k]``); with each partner FuzzyPolicy then
    uses the one whose ``partner_m`` is nearest the partner's size
    (docs/training.md, pairwise protocol). A site of a size nobody was
    trained for gets no rulebase (it runs the ``others`` policy) with
    ``unknown_sites="others"``, or the rulebases of the trained site size
    nearest its own (in processors) with ``unknown_sites="nearest"``.
    """
    if unknown_sites not in UNKNOWN_SITES:
        raise ScenarioError(f"unknown_sites {unknown_sites!r}: expected one of {', '.join(UNKNOWN_SITES)}")
    trained = sorted({int(rb.provenance["m"]) for rb in pool if rb.provenance.get("m") is not None})
    chosen: dict[int, list[Rulebase]] = {}
    for k, m in enumerate(sizes):
        if int(m) not in trained and unknown_sites == "nearest" and trained:
            m = min(trained, key=lambda t: abs(t - int(m)))
        mine = [rb for rb in pool if rb.provenance.get("m") == int(m)]
        if mine:
            chosen[k] = mine
    return chosen


@dataclass(frozen=True)
class Broker:
    """Every site brokers its own jobs (information-rich): each job goes to the first qualified site,
    the origin included, in the location policy's order (docs/grid.md, Matchmaking and brokers).

    Args:
        location: a location policy that ranks every site (``mct``, ``min-min``, ``max-min``,
            ``met``, ``olb``, ``least-load``, ``beichter-old``, ``beichter-new``, or ``rank``), or a
            :class:`~evogrid.sim.python_policy.LocationPolicy`.
        rankings: with ``rank``: site index -> its TSK ranking rulebase (features of
            :func:`~evogrid.policy.registry.features_for` ``("ranking")``). A site without
            one keeps its own jobs (a constant rulebase: every site ties, and ties keep the job home).
    """

    location: str | LocationPolicy = "mct"
    rankings: Mapping[int, Rulebase] = field(default_factory=dict)
    label: str = ""

    def exchange(self, jobs: GridJobs) -> Exchange:
        K = jobs.n_sites
        label = self.label or f"broker-{_name(self.location)}"
        if self.location != "rank":
            if self.rankings:
                raise ScenarioError(f"ranking rulebases need location rank, not {self.location!r}")
            return Exchange(label, transfer=("broker",) * K, location=self.location)
        keep = Rulebase.constant(accept=True, features=["LOAD_AFTER"])
        stack = []
        for k in range(K):
            rb = self.rankings.get(k, keep)
            check_features(rb.features, "ranking", f"ranking rulebase of site {k}")
            stack.append(rb)
        _check_sites(self.rankings, K, "ranking rulebase")
        rulebase_of = np.full((K, K), -1, dtype=np.int64)
        np.fill_diagonal(rulebase_of, np.arange(K))
        return Exchange(label, transfer=("broker",) * K, location="rank",
                        rulebases=TSKStack.stack([rb.arrays() for rb in stack]), rulebase_of=rulebase_of)


def _name(policy: str | LocationPolicy | TransferPolicy | QueueOrder) -> str:
    return policy if isinstance(policy, str) else type(policy).__name__


def _check_others(others: str) -> None:
    """``others``, the transfer policy of sites a strategy leaves out, must run without a rulebase."""
    if others not in plain_transfers():
        raise ScenarioError(f"others must be one of {', '.join(plain_transfers())}, not {others!r}")


def _check_sites(by_site: Mapping[int, object], n_sites: int, what: str) -> None:
    """Every key of ``by_site`` is a site index of the scenario."""
    if extra := sorted(k for k in by_site if not 0 <= k < n_sites):
        raise ScenarioError(f"{what} for site {extra[0]}, but the scenario has {n_sites} sites")


@dataclass(frozen=True)
class PythonPolicy:
    """Transfer and location policies and a queue order written in Python (docs/python_policies.md).

    Args:
        transfer: a :class:`~evogrid.sim.python_policy.TransferPolicy` for every site, or
            site index -> a TransferPolicy or a transfer policy name (``awf``, ``local``);
            sites not in the mapping run ``others``.
        location: a :class:`~evogrid.sim.python_policy.LocationPolicy` or a location policy name.
        others: the transfer policy of the sites ``transfer`` leaves out (``local``: no exchange,
            e.g. to try a queue order alone).
        seed: seeds the ``random`` location policy.
        order: a :class:`~evogrid.sim.python_policy.QueueOrder` for every site's queue (None: each
            LRMS's own order).
    """

    transfer: TransferPolicy | Mapping[int, TransferPolicy | str] = field(default_factory=dict)
    location: LocationPolicy | str = "fixed"
    others: str = "awf"
    seed: int = 0
    order: QueueOrder | None = None
    label: str = ""

    def exchange(self, jobs: GridJobs) -> Exchange:
        K = jobs.n_sites
        by_site = ({k: self.transfer for k in range(K)} if isinstance(self.transfer, TransferPolicy)
                   else dict(self.transfer))
        _check_sites(by_site, K, "transfer policy")
        _check_others(self.others)
        transfer = tuple(by_site.get(k, self.others) for k in range(K))
        label = self.label or "+".join(dict.fromkeys(
            [_name(t) for t in transfer if not isinstance(t, str)] + [_name(self.location)]
            + ([_name(self.order)] if self.order is not None else [])))
        return Exchange(label, transfer=transfer, location=self.location, seed=self.seed, order=self.order)


@dataclass(frozen=True)
class CentralPool:
    """Job sharing through a central pool (FCFS-JS, EASY-JS, LIST-JS by the LRMS).

    Args:
        arrivals: how a new job meets the pool (docs/grid.md):
            - ``first`` (default): the published pool rule. The job is tried on
              its site's own queue first and starts at once if it fits the free
              processors; only a job that cannot start joins the pool. Under
              EASY a new job thus overtakes older, wider pool jobs that hold
              a reservation at its site. It reproduces the dissertation's
              Table 8.2 (FCFS-, EASY- and LIST-JS; docs/results.md).
            - ``first-pool`` (evogrid's reading of chapter 8): ``first``, and the
              site passes over the pool after every arrival, also when the new
              job started (Table 8.2 within 3.2 % but its outlier row).
            - ``queued`` (evogrid's variant; it reproduces the dissertation's
              EASY-JS of Table 10.1, chapter 10's pool, where the published
              rule misses Table 10.1 III by 30 %):
              the job joins the pool behind the older jobs and its site
              schedules the pool with its LRMS. Under EASY it starts
              at once only if it does not delay the reservation of the
              oldest pool job that site can run; under FCFS only if every
              older pool job the site can run has started; under LIST older
              fitting pool jobs start first.
    """

    arrivals: str = POOL_ARRIVALS.default.name
    label: str = "pool"

    def exchange(self, jobs: GridJobs) -> Exchange:
        POOL_ARRIVALS.lookup(self.arrivals, "pool arrivals")
        return Exchange(self.label, scheme="pool", pool_arrivals=self.arrivals)


@dataclass(frozen=True)
class ActiveRequest:
    """AA: sites with free processors fetch waiting jobs from the others.

    Attributes:
        take: what a site does with the jobs it takes (:data:`~evogrid.policy.registry.ACTIVE_TAKE`):
            ``queue`` (the published rule, default: into its queue, and a job that does not start
            there is offered again), ``start`` (evogrid's variant, EASY only: started at once,
            so a job moves at most once) or ``fits`` (evogrid's variant: the published rule taking
            every job that fits the free processors, without EASY's condition).
    """

    take: str = ACTIVE_TAKE.default.name
    label: str = "aa"

    def exchange(self, jobs: GridJobs) -> Exchange:
        ACTIVE_TAKE.lookup(self.take, "active request rule")
        label = self.label if self.take == ACTIVE_TAKE.default.name else f"{self.label}-{self.take}"
        return Exchange(label, scheme="active", active_take=self.take)


@dataclass(frozen=True)
class Stale:
    """``strategy`` with its location policy ranking the sites as the grid's information service last
    published them, every ``refresh_s`` seconds (Beichter's MDS: every 30 s), rather than as they
    are: what the sites' free processors, queues, running jobs and work ahead were at the last
    multiple of ``refresh_s``. The sites' own transfer decisions see themselves as they are.
    Exchange strategies only; a Python location policy gets the published view (docs/grid.md, Stale
    information)."""

    strategy: Strategy
    refresh_s: int

    def exchange(self, jobs: GridJobs) -> Exchange:
        inner = self.strategy.exchange(jobs)
        return replace(inner, label=f"{inner.label} (refresh {self.refresh_s} s)", refresh_s=self.refresh_s)


@dataclass(frozen=True)
class JobLocations:
    """``strategy`` with a location policy per job, as Beichter's jobs name theirs (his POLICY tag,
    6.4): each job draws one of ``shares`` (``((name, share), ...)``, seeded by the strategy's
    seed), the rest keep the strategy's location policy (docs/grid.md, A location policy per job)."""

    strategy: Strategy
    shares: tuple[tuple[str, float], ...]

    def exchange(self, jobs: GridJobs) -> Exchange:
        return replace(self.strategy.exchange(jobs), job_locations=tuple(self.shares))


@dataclass(frozen=True)
class Held:
    """``strategy`` with its brokers holding jobs in the grid's holding queue: ``when-room``
    (Beichter's proposal in 8.1.6: while no site a broker may send a job to has room for it now; the
    held jobs go, in order, once one has) or ``batch`` (his batch mode, 5.3.2: every job, until the
    next multiple of ``batch_s`` seconds, or until ``batch_jobs`` jobs are held; then all go).
    docs/grid.md, Holding jobs at the grid."""

    strategy: Strategy
    handover: str = "when-room"
    batch_s: int = 0
    batch_jobs: int = 0

    def exchange(self, jobs: GridJobs) -> Exchange:
        inner = self.strategy.exchange(jobs)
        what = self.handover
        if self.handover == "batch":
            what = f"batch {self.batch_jobs} jobs" if self.batch_jobs else f"batch {self.batch_s} s"
        return replace(inner, label=f"{inner.label} ({what})", handover=self.handover, batch_s=self.batch_s,
                       batch_jobs=self.batch_jobs)


@dataclass(frozen=True)
class GridCap:
    """``strategy`` with a cap per site (``caps``, None: none) on the processors the jobs of other
    sites may hold there at once, waiting or running: the grid's share of a site (after LoadLeveler's
    per-user ``maxjobs`` under which Beichter's grid scheduler ran). A site over it does not qualify
    for a job from elsewhere (docs/grid.md, The grid's share of a site)."""

    strategy: Strategy
    caps: tuple[int | None, ...]

    def exchange(self, jobs: GridJobs) -> Exchange:
        inner = self.strategy.exchange(jobs)
        return replace(inner, label=f"{inner.label} (capped)", grid_cap=self.caps)


@dataclass(frozen=True)
class GridSlots:
    """``strategy`` with ``slots`` per site (None: its processors), the slots LoadLeveler gives the
    grid's jobs there (Beichter's ``maxslots``), and ``maxjobs`` per site (None: no limit), how many
    jobs the grid's user may run there at once (his ``maxjobs``). ``rule`` ``enforced`` (his
    clusters): a site starts no job from another site while such jobs would hold more processors
    there than its slots or while its maxjobs of them run, and his policies read them
    (``beichter-old`` the slots, ``beichter-new`` both); ``read``: only his policies read them. Free
    slots fall when a job from elsewhere starts, not when it joins the queue, so a site whose
    processors its own users hold, or whose maxjobs are reached, keeps looking free to his old
    policy (his 7.1.1; docs/grid.md, LoadLeveler's slots)."""

    strategy: Strategy
    slots: tuple[int | None, ...]
    rule: str = "enforced"
    maxjobs: tuple[int | None, ...] = ()

    def exchange(self, jobs: GridJobs) -> Exchange:
        return replace(self.strategy.exchange(jobs), grid_slots=self.slots, grid_maxjobs=self.maxjobs,
                       slot_rule=self.rule)


@dataclass(frozen=True)
class Refusals:
    """``strategy`` with its brokers doing ``refusals`` with a job their location policy would hand to
    no site (``beichter-old`` and ``beichter-new`` where every queue is full): ``keep`` (evogrid's
    reading: it joins its origin's queue) instead of Beichter's ``refuse`` (docs/grid.md, Beichter's
    policies)."""

    strategy: Strategy
    refusals: str = "keep"

    def exchange(self, jobs: GridJobs) -> Exchange:
        inner = self.strategy.exchange(jobs)
        return replace(inner, label=f"{inner.label} ({self.refusals} refused)", refusals=self.refusals)


Strategy = (Local | AcceptWhenFit | FuzzyPolicy | Broker | PythonPolicy | CentralPool | ActiveRequest | Stale
            | JobLocations | Held | GridCap | GridSlots | Refusals)


#: The local scheduler Delta_b compares with (the dissertation's "best local algorithm").
DELTA_B_LRMS = "easy"


@dataclass(frozen=True)
class Result:
    """A simulated scenario with a strategy, and the same sites without exchange.

    With a ``[reservations]`` table the sites also took its requests: ``bookings`` holds each
    request's fate and the baseline is the same batch jobs without requests, so the deltas are what
    the reservations cost the batch jobs.
    """

    scenario: Scenario
    schedule: Schedule
    baseline: Schedule = field(repr=False)
    requests: Reservations | None = field(default=None, repr=False)
    bookings: Bookings | None = field(default=None, repr=False)

    def metrics(self) -> list[dict[str, Any]]:
        """Per-site metrics (docs/model.md, Metrics) with ``delta_*`` against local scheduling, and
        with reservations each site's reservation metrics (docs/reservations.md)."""
        base = self.baseline.metrics()
        rows = self.schedule.metrics()
        rows = [{**r, **d} for r, d in zip(rows, improvements(base, rows), strict=True)]
        if self.bookings is None:
            return rows
        extra = site_reservation_metrics(self.schedule, self.requests, self.bookings)
        return [{**r, **{k: v for k, v in e.items() if k != "site"}}
                for r, e in zip(rows, extra, strict=True)]

    def against_local(self, lrms: str = DELTA_B_LRMS) -> list[dict[str, float]]:
        """Per site, ``delta_*`` against the same sites scheduled locally by ``lrms`` instead of by
        their own LRMS. The default gives the dissertation's Delta_b (Table 8.2): "der Vergleich zu
        dem jeweils besten lokalen Algorithmus", the best local algorithm, which it names: "EASY
        als den besten lokalen Schedulingalgorithmus" (8.2.2)."""
        local = (self.baseline if set(self.baseline.lrms) == {lrms}  # already simulated
                 else simulate_local(self.schedule.jobs, lrms))
        return improvements(local.metrics(), self.schedule.metrics())

    def to_dict(self) -> dict[str, Any]:
        m_n, m_sa = migration_matrices(self.schedule)
        return {
            "scenario": self.scenario.name,
            "strategy": self.schedule.strategy,
            "lrms": list(self.schedule.lrms),
            "sites": self.metrics(),
            "local": self.baseline.metrics(),
            "delta_b": {"against": DELTA_B_LRMS, "sites": self.against_local()},
            "grid_utilization": grid_utilization(self.schedule),
            "migration_n": m_n.tolist(),
            "migration_sa": m_sa.tolist(),
            "moves": move_stats(self.schedule),
            **({"pool_arrivals": self.schedule.pool_arrivals} if self.schedule.pool_arrivals else {}),
            **({"reservations": {"requests_name": self.requests.name,
                                 **reservation_metrics(self.schedule, self.requests, self.bookings)}}
               if self.bookings is not None else {}),
        }


def simulate(
    scenario: Scenario, strategy: Strategy | None = None, *, record_decisions: bool = False,
    admission: AdmissionPolicy | None = None,
) -> Result:
    """Simulate ``scenario`` with ``strategy`` and its local baseline.

    Simulate level 3 of 3 (Scenario + Strategy -> Result): over :func:`~evogrid.sim.schedule.simulate_local`
    / :func:`~evogrid.sim.schedule.simulate_grid` (workloads -> Schedule), over the compiled
    :func:`~evogrid.sim.core.run_local` / :func:`~evogrid.sim.grid.run_grid` (packed arrays).

    Without ``strategy``: the scenario file's ``[strategy]`` table
    (:func:`evogrid.policy.config.scenario_strategy`), else :class:`Local`. A scenario with a
    ``[reservations]`` table runs its requests too (:func:`~evogrid.sim.booking.simulate_reservations`
    with the table's admission algorithm; with the strategy's exchange unless it is :class:`Local`;
    a central pool or active request refuses requests). ``admission``: a Python
    :class:`~evogrid.sim.python_policy.AdmissionPolicy` that admits the requests' parts instead (the
    ``python`` admission algorithm, with the table's other settings).
    """
    if admission is not None and scenario.reservations is None:
        raise ScenarioError(f"{scenario.source or scenario.name}: admission= needs a [reservations] table")
    if strategy is None:
        from evogrid.policy.config import scenario_strategy  # config builds on this module

        strategy = scenario_strategy(scenario)
    if scenario.reservations is not None:
        return _simulate_reservations(scenario, strategy, admission)
    jobs = scenario.grid_jobs()
    baseline = simulate_local(jobs, scenario.lrms)
    if isinstance(strategy, Local):
        return Result(scenario, baseline, baseline)
    schedule = simulate_grid(jobs, scenario.lrms, strategy.exchange(jobs), record_decisions=record_decisions)
    return Result(scenario, schedule, baseline)


def _simulate_reservations(scenario: Scenario, strategy: Strategy,
                           admission: AdmissionPolicy | None) -> Result:
    """:func:`simulate` for a scenario with a ``[reservations]`` table: the strategy's exchange (none
    for :class:`Local`) with the requests; the baseline is local scheduling without requests."""
    workloads, requests, rules = reservation_setup(scenario)
    if admission is not None:
        rules = replace(rules, algorithm="python", policy=admission)
    jobs = GridJobs.merge(workloads, scenario.sites)
    exchange = None if isinstance(strategy, Local) else strategy.exchange(jobs)
    try:
        schedule, bookings = simulate_reservations(workloads, scenario.lrms, requests, rules, exchange,
                                                   scenario.sites)
    except ScenarioError as exc:
        raise ScenarioError(f"{scenario.source or scenario.name}: {exc}") from None
    return Result(scenario, schedule, simulate_local(jobs, scenario.lrms), requests, bookings)


def strategy_label(schedule: Schedule) -> str:
    """A table label: ``EASY-JS`` for a pool under EASY, else the strategy's label.

    A pool whose new jobs enter other than by the default rule says so:
    ``EASY-JS (arrivals queued)``.
    """
    if schedule.strategy == "pool" and len(set(schedule.lrms)) == 1:
        label = f"{schedule.lrms[0].upper()}-JS"
        if schedule.pool_arrivals not in (None, POOL_ARRIVALS.default.name):
            label += f" (arrivals {schedule.pool_arrivals})"
        return label
    head, _, rest = schedule.strategy.partition(" ")  # "awf (refresh 30 s)": Stale's label
    return " ".join(filter(None, (head.upper(), rest))) if head in ("awf", "aa") else schedule.strategy
