"""Grids that take reservations next to their batch jobs: rules, results and the Python entry point.

:func:`simulate_reservations` runs the grid loop compiled for
reservations (evogrid.sim.grid, booking by :mod:`evogrid.sim.reserving`) on
K sites, without job exchange or with one: the batch jobs go to their own
site's LRMS (or where the exchange sends them), the requests are placed by
one admission algorithm (:data:`ALGORITHMS`, :mod:`evogrid.sim.admission`; the rules in
docs/reservations.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

import numpy as np
from pydantic import AfterValidator, ConfigDict, Field, ValidationError
from pydantic.dataclasses import dataclass as validated

from evogrid.errors import ScenarioError, validation_message
from evogrid.sim import admission, grid, probe
from evogrid.sim import co_admission as ca
from evogrid.sim import collective as collective_placement
from evogrid.sim import requests as request_kinds
from evogrid.sim.python_policy import AdmissionPolicy
from evogrid.sim.reserving import N_REQUEST_FIELDS, no_answers
from evogrid.sim.schedule import Exchange, GridJobs, Schedule, _lrms_names, run_exchange, warm_up_site
from evogrid.sim.sites import Sites
from evogrid.sim.tsk import TSKStack
from evogrid.validation import OneLineErrors
from evogrid.workload.model import Workload
from evogrid.workload.reservations import (
    DEFAULT_PREFERENCES,
    PREFERENCES,
    Reservations,
    collective,
)

if TYPE_CHECKING:
    from evogrid.sim.scenario import ReservationsConfig, Scenario

#: Admission algorithms by name (evogrid.sim.admission, one file each): the registry.
ALGORITHMS = admission.REGISTRY
#: Meltzer's readings and ours, side by side (docs/reservations.md): the order of the variant tree,
#: which held reservations a backlog counts, and the bound of Algorithm 4's backfill reservations.
VARIANT_ORDERS = {"tree": ca.TREE, "tree-sorted": ca.TREE_SORTED, "tree-unsorted": ca.TREE_UNSORTED,
                  "by-start": ca.BY_START}
BACKLOG_RULES = {"before-start": ca.BEFORE_START, "every-held": ca.EVERY_HELD}
BACKFILL_BOUNDS = {"next-event": ca.NEXT_EVENT, "next-end": ca.NEXT_END, "head-fit": ca.HEAD_FIT}
#: Which waiting jobs a site's status answer counts: the queue head at its earliest fit, as Maui's
#: reservation table holds its first waiting job (Meltzer's sites), or none (evogrid's earlier reading).
STATUS_QUEUES = {"head": ca.STATUS_HEAD, "none": ca.STATUS_NONE}
#: The candidate starts' step max(minsize, span / windows): in whole seconds (ours) or Meltzer's
#: exact division (evogrid.sim.co_admission.candidate_starts).
STEPS = {"floor": ca.FLOOR_STEP, "divided": ca.DIVIDED_STEP}
#: The probe's test of a site's load (its success estimate ``load`` and the site's rule that a
#: reservation may not overtake waiting jobs): Röblitz et al.'s T_wkl (running jobs counted by their
#: remaining run time, or, evogrid's earlier reading, by the time to their estimated end), or
#: Meltzer's backlog.
LOAD_RULES = {"workload-end": ca.WORKLOAD_END, "backlog": ca.BACKLOG_CLEARS,
              "workload-end-estimated": ca.WORKLOAD_END_ESTIMATED}
#: Where the probe places a count's start times: over the whole window (Röblitz et al.), or packed
#: from the earliest fit (evogrid's earlier reading).
PROBE_SLOTS = {"cover": ca.SLOTS_COVER, "earliest": ca.SLOTS_EARLIEST}
#: Success estimates of the probe algorithm (evogrid.sim.probe).
ESTIMATES = {"load": probe.LOAD, "static": probe.STATIC, "history": probe.HISTORY}
#: The most variants (candidate starts x site orders) one request may have: the admission
#: enumerates them all in memory (8 bytes per part each).
MAX_VARIANTS = 2_000_000


def flat_tariffs(n_sites: int, price: float = 1.0) -> np.ndarray:
    """Every site charges ``price`` per processor-hour at every hour: shape (K, 168)."""
    return np.full((n_sites, ca.HOURS_PER_WEEK), float(price))


def meltzer_tariffs(n_sites: int) -> np.ndarray:
    """Meltzer's tariffs (his Table 18), shape (K, 168): 2 per processor-hour from 8 to 18 h and 1
    otherwise at every site; sites 1 and 3 charge half at weekends (hours 120-167 of the week, which
    starts on a Monday at the scenario's time 0)."""
    hour = np.arange(ca.HOURS_PER_WEEK)
    day = np.where((hour % 24 >= 8) & (hour % 24 < 18), 2.0, 1.0)
    prices = np.tile(day, (n_sites, 1))
    for k in (1, 3):
        if k < n_sites:
            prices[k, 120:] /= 2
    return prices


def peak_tariffs(n_sites: int, off_peak: float = 1.0, peak: float = 2.0, spread: float = 1.0,
                 peak_hours: tuple[int, int] = (8, 20)) -> np.ndarray:
    """Prices per processor-hour, shape (K, 168): ``peak`` on weekdays (hours 0-119 of the week)
    within ``peak_hours``, ``off_peak`` otherwise, site k's scaled by ``1 + spread * k / (K - 1)``
    (site 0 cheapest). The week starts at time 0 of the scenario."""
    hour = np.arange(ca.HOURS_PER_WEEK)
    busy = (hour < 120) & (hour % 24 >= peak_hours[0]) & (hour % 24 < peak_hours[1])
    day = np.where(busy, float(peak), float(off_peak))
    scale = 1.0 + spread * np.arange(n_sites) / max(1, n_sites - 1)
    return scale[:, None] * day[None, :]


def _names(table: dict) -> Any:
    """The pydantic type of a field holding one of ``table``'s names."""
    return Literal[tuple(table)]


#: The types of the rules' settings, which the scenario's ``[reservations]`` table declares with
#: them too (evogrid.sim.scenario.ReservationsConfig): one declaration of what each takes.
Count = Annotated[int, Field(ge=1)]
NonNegative = Annotated[float, Field(ge=0)]
Positive = Annotated[float, Field(gt=0)]
Probability = Annotated[float, Field(ge=0, le=1)]
AlgorithmName = Annotated[str, AfterValidator(ALGORITHMS.check)]
EstimateName = _names(ESTIMATES)
VariantOrder = _names(VARIANT_ORDERS)
BacklogRule = _names(BACKLOG_RULES)
BackfillBound = _names(BACKFILL_BOUNDS)
StartStep = _names(STEPS)
StatusQueue = _names(STATUS_QUEUES)
LoadRule = _names(LOAD_RULES)
ProbeSlots = _names(PROBE_SLOTS)


@validated(frozen=True, config=ConfigDict(arbitrary_types_allowed=True, extra="forbid"))
class ReservationRules(OneLineErrors):
    """How a grid admits reservation requests.

    Attributes:
        algorithm: a name of :data:`ALGORITHMS`.
        minsize: the least step between candidate starts (s; Meltzer: 300).
        windows: candidate starts per request's range (Meltzer: 20).
        cost_weight, start_weight: Algorithm 5's k and s (k = 0, s = 1 is Algorithm 4).
        acc: per site, the run-time/estimate ratio of the backlog rule;
            None: measured on each site's workload (processor-weighted).
        tariffs: price per processor-hour for each hour of the week, shape
            (K, 168); None: 1 everywhere (cost = processor-hours).
        seed: seeds each request's site order and the shuffle of its variant tree.
        variant_order, backlog_rule, backfill_until: Meltzer's readings or our earlier ones
            (:data:`VARIANT_ORDERS`, :data:`BACKLOG_RULES`, :data:`BACKFILL_BOUNDS`); the defaults
            are his: ``backfill_until`` ``next-end`` counts the next job or reservation end (his
            6.7.5), ``next-event`` (ours) also a held reservation's start (docs/reservations.md).
        step: the candidate starts' step ``max(minsize, span / windows)``: ``divided`` (Meltzer's
            listing 1, the default: at most ``windows + 1`` starts, each rounded down to a second) or
            ``floor`` (our earlier reading, whole seconds: up to about ``2 windows``); :data:`STEPS`.
        status_queue: which waiting jobs a site's profile counts where Meltzer's algorithms (the
            variant tree) ask it, for the status query and the reservation alike: ``head`` (the
            default: also the queue head at its earliest fit, the job reservation Maui keeps for its
            first waiting job, as at Meltzer's sites) or ``none`` (running jobs and held reservations
            only, evogrid's earlier reading); :data:`STATUS_QUEUES`.
        rulebases: the ``rulebase`` algorithm's admission rulebases, one per
            site or one for every site (evogrid.policy.admission builds it
            from rulebase files).
        policy: the ``python`` algorithm's admission policy
            (:class:`~evogrid.sim.python_policy.AdmissionPolicy`).
        tsn_max, tss_gap: probe: start times probed per processor count, and
            their least distance (s); ``probe_slots``: where they lie (:data:`PROBE_SLOTS`).
        estimate: probe: the success estimate, ``load``, ``static`` or ``history``
            (``history_seconds``: its interval delta, our choice);
            ``success_hours``: the static estimate's h; ``threshold``: the
            least estimate a candidate needs (Röblitz et al.'s: 5 h, 0.85).
        load_rule, acc_running, acc_waiting: probe: when a site's known workload ends
            (:data:`LOAD_RULES`; Röblitz et al.'s T_wkl by default, with their accuracies 0.5:
            ``workload-end`` counts the running jobs' remaining run times, their j_ret,
            ``workload-end-estimated`` the time to their estimated ends, evogrid's earlier reading;
            ``backlog``: Meltzer's backlog).
        swaps: collective: best and random improving swaps per allowed site
            (Cankar's L1 and L2).
    """

    ERROR: ClassVar[type[Exception]] = ScenarioError
    PREFIX: ClassVar[str] = "reservation rules: "

    algorithm: AlgorithmName = "backfill"
    minsize: Count = 300
    windows: Count = 20
    cost_weight: NonNegative = 0.5
    start_weight: NonNegative = 0.5
    acc: tuple[NonNegative, ...] | None = None
    tariffs: np.ndarray | None = field(default=None, repr=False)
    seed: int = 0
    rulebases: TSKStack | None = field(default=None, repr=False)
    tsn_max: Count = 5
    tss_gap: Count = 1800
    estimate: EstimateName = "load"
    success_hours: Positive = 5.0
    threshold: Probability = 0.85
    swaps: tuple[Annotated[int, Field(ge=0)], Annotated[int, Field(ge=0)]] = (
        collective_placement.L1_SWAPS, collective_placement.L2_SWAPS)
    variant_order: VariantOrder = "tree"
    backlog_rule: BacklogRule = "before-start"
    backfill_until: BackfillBound = "next-end"
    step: StartStep = "divided"
    status_queue: StatusQueue = "head"
    load_rule: LoadRule = "workload-end"
    acc_running: NonNegative = 0.5
    acc_waiting: NonNegative = 0.5
    probe_slots: ProbeSlots = "cover"
    history_seconds: Count = 3600
    policy: AdmissionPolicy | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        # The rules between two settings (the others are the fields' types).
        entry = ALGORITHMS[self.algorithm]
        if entry.ruled != (self.rulebases is not None and len(self.rulebases) > 0):
            raise ScenarioError(f"reservation rules: an algorithm whose sites admit by rulebase needs "
                                f"admission rulebases, and only it takes them ({self.algorithm})")
        if entry.asks_python != (self.policy is not None):
            raise ScenarioError(f"reservation rules: an algorithm that asks a Python admission policy needs "
                                f"one (policy=), and only it takes one ({self.algorithm})")

    def starts(self, earliest: int, latest: int) -> tuple[int, int, int, int]:
        """A request's candidate starts from ``earliest`` to ``latest`` (s) under these rules, as
        :func:`evogrid.sim.co_admission.candidate_starts` gives them (the count last)."""
        return ca.candidate_starts.py_func(earliest, latest, self.minsize, self.windows, STEPS[self.step])

    def accuracies(self, workloads: Sequence[Workload]) -> np.ndarray:
        """Per site, the run-time/estimate ratio the backlog weighs the jobs' estimates by: ``acc``,
        or each workload's run time over its estimates, weighted by processors, shape (K,)."""
        if self.acc is None:
            return np.array([float((w.run_time * w.procs).sum() / max(1, (w.estimate * w.procs).sum()))
                             for w in workloads])
        acc, K = np.asarray(self.acc, dtype=np.float64), len(workloads)
        if acc.shape != (K,) or (acc < 0).any():
            raise ScenarioError(f"reservation rules: acc needs one non-negative ratio per site ({K})")
        return acc

    def arrays(self, workloads: Sequence[Workload],
               preferences: Sequence[str] = DEFAULT_PREFERENCES) -> tuple:
        """``(config, acc, tariff, cum, (params, meta))`` as the compiled loop takes them
        (evogrid.sim.reserving): the rulebase stack has one rulebase per site; ``preferences``:
        the probe's order of preferences."""
        K = len(workloads)
        config = np.zeros(ca.N_CONFIG)
        admission.pack_flags(ALGORITHMS[self.algorithm], config)
        config[ca.C_MINSIZE] = self.minsize
        config[ca.C_WINDOWS] = self.windows
        config[ca.C_STEP] = STEPS[self.step]
        config[ca.C_STATUS_QUEUE] = STATUS_QUEUES[self.status_queue]
        config[ca.C_COST_WEIGHT] = self.cost_weight
        config[ca.C_START_WEIGHT] = self.start_weight
        config[ca.C_TSN_MAX] = self.tsn_max
        config[ca.C_TSS_GAP] = self.tss_gap
        config[ca.C_ESTIMATE] = ESTIMATES[self.estimate]
        config[ca.C_SUCCESS_SECONDS] = self.success_hours * 3600.0
        config[ca.C_THRESHOLD] = self.threshold
        config[ca.C_L1], config[ca.C_L2] = self.swaps
        config[ca.C_SEED] = self.seed
        config[ca.C_ORDER] = VARIANT_ORDERS[self.variant_order]
        config[ca.C_BACKLOG_RULE] = BACKLOG_RULES[self.backlog_rule]
        config[ca.C_BACKFILL_BOUND] = BACKFILL_BOUNDS[self.backfill_until]
        config[ca.C_LOAD_RULE] = LOAD_RULES[self.load_rule]
        config[ca.C_SLOTS] = PROBE_SLOTS[self.probe_slots]
        config[ca.C_HISTORY_SECONDS] = self.history_seconds
        config[ca.C_ACC_RUNNING] = self.acc_running
        config[ca.C_ACC_WAITING] = self.acc_waiting
        config[ca.C_PREFERENCES:ca.C_PREFERENCES + ca.N_PREFERENCES] = -1
        for i, name in enumerate(preferences):
            config[ca.C_PREFERENCES + i] = PREFERENCES.index(name)
        acc = self.accuracies(workloads)
        tariff = flat_tariffs(K) if self.tariffs is None else np.asarray(self.tariffs, dtype=np.float64)
        if tariff.shape != (K, ca.HOURS_PER_WEEK) or (tariff < 0).any() or not np.isfinite(tariff).all():
            raise ScenarioError(f"reservation rules: tariffs need shape ({K}, 168), finite and >= 0")
        cum = np.concatenate([np.zeros((K, 1)), np.cumsum(tariff, axis=1)], axis=1)
        stack = self.rulebases or TSKStack.empty()
        if len(stack) == 1:
            stack = TSKStack(np.repeat(stack.params, K, axis=0), np.repeat(stack.meta, K, axis=0))
        if len(stack) not in (0, K):
            raise ScenarioError(f"reservation rules: {len(stack)} admission rulebases for {K} sites; give "
                                "one per site or one for all")
        return config, acc, np.ascontiguousarray(tariff), cum, (stack.params, stack.meta), no_answers()


@dataclass(frozen=True)
class Bookings:
    """What became of each reservation request (shape (R,) unless noted; times in seconds).

    Attributes:
        algorithm: the admission algorithm's name.
        start: the accepted start, -1 where refused.
        sites: shape (R, P), the site of each part (largest part first), -1.
        messages: what the broker sent for the request (evogrid.sim.co_admission).
        cost: the accepted variant's price (NaN where refused); ``cheapest``
            and ``dearest``: the extremes over the request's admissible variants.
        infeasible: requests no site combination could ever hold (counted, refused).
        procs: shape (R, P), the processors each part holds (an elastic request's
            chosen count, a collective request's share per site), -1; length:
            how long they are held (s), -1 where refused.
        status_queries: the status queries before the reservation step: one per part and
            candidate site for an information-rich algorithm (Meltzer's Table 9 counts them
            with the messages), 0 for the others.
        filtered: shape (R, K), Meltzer's Filterungsgrad: the share of the part variants
            Algorithm 1 would form at a candidate site that the site refuses (too few free
            processors, or the admission rule); NaN where the site was no candidate or the
            algorithm is not one of his (or the rulebase).
        span: shape (R, 2), the earliest and latest start of an accepted request's admissible
            variants (Meltzer's min_start, max_start), -1 where refused or not his algorithms.
        funnel: shape (R, 3), Röblitz et al.'s Fig. 7 for probe/reserve: the candidates probed
            (start times over every processor count), those over the success threshold, and
            those the site refused before it accepted one; 0 for other algorithms.
        most_messages: Meltzer's N, the most messages a request can need (6.1): ``C + 2 sum
            over i < r of C_i`` with ``C_i = z * K! / (K - i)!`` co-reservation variants of an
            i-part request (z candidate starts, K candidate sites, his Gleichung 1), ``C = C_r``;
            0 where the algorithm is not one of his Algorithms 1-4.
    """

    algorithm: str
    start: np.ndarray
    sites: np.ndarray
    messages: np.ndarray
    cost: np.ndarray
    cheapest: np.ndarray
    dearest: np.ndarray
    infeasible: np.ndarray
    procs: np.ndarray
    length: np.ndarray
    status_queries: np.ndarray
    filtered: np.ndarray
    span: np.ndarray
    most_messages: np.ndarray
    funnel: np.ndarray

    @property
    def accepted(self) -> np.ndarray:
        return self.start >= 0

    def held(self, requests: Reservations) -> tuple[np.ndarray, np.ndarray]:
        """``(parts, seconds)``: each request's parts, largest first, as held (an elastic request's
        chosen count), shape (R, P), and for how long (s; the asked duration where refused), (R,)."""
        parts = np.zeros(self.procs.shape, dtype=np.int64)
        asked = -np.sort(-requests.parts, axis=1)
        parts[:, :asked.shape[1]] = asked
        ok = self.accepted
        parts[ok] = np.maximum(self.procs[ok], 0)
        return parts, np.where(ok, self.length, requests.duration)

    @property
    def efficiency(self) -> np.ndarray:
        """Meltzer's reservation efficiency ``Eff = 1 - n / N`` (n: the messages sent, N:
        :attr:`most_messages`); NaN where N is 0."""
        most = self.most_messages
        return np.where(most > 0, 1.0 - self.messages / np.maximum(most, 1), np.nan)

    @property
    def relative_start(self) -> np.ndarray:
        """Meltzer's relative start difference of accepted requests placed by his algorithms:
        ``(start - min_start) / (max_start - min_start)`` over the admissible variants, 0 where all
        start together; NaN elsewhere."""
        first, last = self.span[:, 0], self.span[:, 1]
        known = self.accepted & (first >= 0)
        spread = last - first
        relative = np.where(spread > 0, (self.start - first) / np.where(spread > 0, spread, 1), 0.0)
        return np.where(known, relative, np.nan)

    @property
    def relative_cost(self) -> np.ndarray:
        """``(cost - cheapest) / (dearest - cheapest)`` of accepted requests, 0 where all variants cost
        the same; NaN where refused."""
        spread = self.dearest - self.cheapest
        return np.where(spread > 0, (self.cost - self.cheapest) / np.where(spread > 0, spread, 1.0),
                        np.where(self.accepted, 0.0, np.nan))


def simulate_reservations(workloads: Sequence[Workload], lrms: str | Sequence[str], requests: Reservations,
                          rules: ReservationRules | None = None, exchange: Exchange | None = None,
                          sites: Sites | None = None) -> tuple[Schedule, Bookings]:
    """Simulate sites that take reservation requests, without job exchange or with ``exchange``.

    Args:
        workloads: one workload per site (windows aligned at time 0); their
            jobs must be cut at their estimate (run time <= estimate), which
            is what guarantees accepted reservations their processors.
        lrms: an LRMS name (evogrid.sim.lrms) for all sites, or one per site.
        requests: the requests, in submission order; ``requests.site`` fixes
            a request's site, -1 lets the algorithm choose.
        rules: the admission algorithm and its parameters (default: backfill).
        exchange: how the sites exchange jobs (evogrid.policy builds it from a
            strategy): transfer and location policies or brokers; a central
            pool or active request does not take reservations.
        sites: the sites' speeds, attributes and the jobs' requirements
            (evogrid.sim.sites; default: equal sites). A reservation holds its
            processors for its duration at any site, whatever its speed.

    Returns:
        ``(schedule, bookings)``: the batch jobs' schedule and each request's fate.
    """
    rules = rules or ReservationRules()
    jobs = GridJobs.merge(workloads, sites)
    K = jobs.n_sites
    names = _lrms_names(lrms, K)
    if exchange is not None and exchange.scheme != "exchange":
        raise ScenarioError(f"reservations run with job exchange by transfer and location policies or "
                            f"brokers, not with the {exchange.scheme} scheme ({exchange.label})")
    if (jobs.run_time > jobs.estimate).any():
        raise ScenarioError("reservations need jobs cut at their estimate (run time <= estimate)")
    if (requests.site >= K).any():
        r = int(np.flatnonzero(requests.site >= K)[0])
        raise ScenarioError(f"{requests.name}: request {r}: field site {requests.site[r]} is not a site "
                            f"of this {K}-site scenario")
    entry = ALGORITHMS[rules.algorithm]
    refusal = entry.check(requests) if entry.check is not None else None
    if refusal:
        raise ScenarioError(f"{requests.name}: {refusal}")
    widest = int((requests.parts > 0).sum(axis=1).max(initial=1))
    orders = math.perm(K, min(widest, K)) * (2 * rules.windows + 2)
    if orders > MAX_VARIANTS:
        raise ScenarioError(f"{requests.name}: {widest}-part requests on {K} sites with {rules.windows} "
                            f"windows have up to {orders:,} variants each (limit {MAX_VARIANTS:,}); use "
                            "fewer windows, parts or sites")
    R = requests.n_requests
    parts = np.ascontiguousarray(-np.sort(-requests.parts, axis=1).T.astype(np.int64))
    packed = np.zeros((N_REQUEST_FIELDS, R), dtype=np.int64)
    counts, durations = _processor_counts(requests, parts[0] if R else np.zeros(0, np.int64))
    c = requests.collective  # other requests: bounds unused by their algorithms
    bounds = (c.max_sites, c.site_min, c.total_min) if c is not None else (np.ones(R, np.int64),) * 3
    for row, values in enumerate((requests.submit, requests.earliest_start, requests.deadline,
                                  requests.duration, requests.site, *counts, *bounds)):
        packed[row] = values
    rng = np.random.default_rng(rules.seed)
    orders = np.stack([rng.permutation(K) for _ in range(R)], axis=1) if R else np.zeros((K, 0), np.int64)
    fixed = np.flatnonzero(requests.site >= 0)
    orders[0, fixed] = requests.site[fixed]  # a booked site comes first; only it is tried
    book = (packed, parts, np.ascontiguousarray(orders.astype(np.int64)),
            durations_at_sites(durations, jobs.site_arrays.speed))
    preferences = requests.elastic.preferences if requests.elastic is not None else DEFAULT_PREFERENCES
    arrays = rules.arrays(workloads, preferences)
    if entry.asks_python:  # the table the Python policy answers into, per part, site and candidate start
        most = max((rules.starts(int(e), int(d - n))[3]
                    for e, d, n in zip(requests.earliest_start, requests.deadline, requests.duration,
                                       strict=True)), default=1)
        arrays = (*arrays[:5], np.zeros((parts.shape[0], K, max(most, 1)), dtype=np.bool_))
    run = run_exchange(jobs, names, exchange or Exchange("local", transfer=("local",) * K),
                       requests=(book, arrays), admission=rules.policy)
    booked = run.booked
    queried = entry.information == "information-rich"
    candidates = np.where(requests.site >= 0, 1, K)
    status = (requests.parts > 0).sum(axis=1) * candidates if queried else np.zeros(R, np.int64)
    bookings = Bookings(rules.algorithm, booked.accepted, np.ascontiguousarray(booked.sites.T),
                        booked.messages, booked.prices[0], booked.prices[1], booked.prices[2],
                        requests.infeasible(jobs.machine_procs), np.ascontiguousarray(booked.procs.T),
                        booked.length, status.astype(np.int64), np.ascontiguousarray(booked.filtered.T),
                        np.ascontiguousarray(booked.span.T), _most_messages(requests, rules, K),
                        np.ascontiguousarray(booked.funnel.T))
    schedule = run.schedule
    if exchange is None:  # the schedule of sites without exchange
        schedule = Schedule(jobs, names, schedule.start, jobs.origin.copy())
    return schedule, bookings


def durations_at_sites(durations: np.ndarray, speed: np.ndarray) -> np.ndarray:
    """int64 (K, len(durations)): each duration (s, given for speed factor 1, Röblitz et al.'s
    pp_ref) at each site, ``d * pp_ref / pp_site`` (their 3.2.1), rounded as a moved job's run time
    is (evogrid.sim.grid's rule, the one definition of it). The probe reads them; Meltzer's
    algorithms and first-fit hold a request for its duration at any site."""
    scaled = np.vectorize(grid.scaled_seconds.py_func, otypes=[np.int64])
    return np.ascontiguousarray(scaled(durations[None, :], 1.0 / speed[:, None]))


def _most_messages(requests: Reservations, rules: ReservationRules, n_sites: int) -> np.ndarray:
    """:attr:`Bookings.most_messages` of each request."""
    most = np.zeros(requests.n_requests, dtype=np.int64)
    if rules.algorithm not in ("trivial", "cpu-count", "backlog", "backfill"):
        return most
    parts = (requests.parts > 0).sum(axis=1)
    for r in range(requests.n_requests):
        earliest = int(requests.earliest_start[r])
        z = rules.starts(earliest, int(requests.deadline[r] - requests.duration[r]))[3]
        sites = 1 if requests.site[r] >= 0 else n_sites
        variants = [z * math.perm(sites, i) for i in range(1, int(parts[r]) + 1)]
        most[r] = variants[-1] + 2 * sum(variants[:-1])
    return most


def _processor_counts(requests: Reservations, largest: np.ndarray
                      ) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], np.ndarray]:
    """``((procs_min, procs_max, offset), durations)``: the processor counts each request may run
    on and, from ``offset``, its duration (s) on each; a plain request has one count, ``largest``
    (its largest part's processors)."""
    R = requests.n_requests
    low, high = largest.astype(np.int64).copy(), largest.astype(np.int64).copy()
    tables = [requests.duration[r:r + 1].astype(np.int64) for r in range(R)]
    if (e := requests.elastic) is not None:
        low, high = e.procs_min.astype(np.int64), e.procs_max.astype(np.int64)
        tables = [e.duration(r, np.arange(low[r], high[r] + 1)) for r in range(R)]
    sizes = np.array([len(x) for x in tables], dtype=np.int64)
    offset = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64) if R else sizes
    durations = np.concatenate(tables) if R else np.zeros(1, dtype=np.int64)
    return (low, high, offset), durations


def _tariffs(config: ReservationsConfig, n_sites: int) -> np.ndarray:
    """The scenario's tariffs, shape (K, 168), hour 0 being the scenario's time 0 (its table gives them
    from Monday 0:00; ``tariff_week_start_h`` says which hour of that week time 0 is)."""
    return np.roll(_weekly_tariffs(config, n_sites), -config.tariff_week_start_h, axis=1)


def _weekly_tariffs(config: ReservationsConfig, n_sites: int) -> np.ndarray:
    if config.tariffs == "flat":
        return flat_tariffs(n_sites)
    if config.tariffs == "peak":
        return peak_tariffs(n_sites)
    if config.tariffs == "meltzer":
        return meltzer_tariffs(n_sites)
    if isinstance(config.tariffs, str):
        raise ScenarioError(f"[reservations] tariffs: unknown {config.tariffs!r}; "
                            "expected flat, peak, meltzer or a list")
    if len(config.tariffs) != n_sites:
        raise ScenarioError(f"[reservations] tariffs: {len(config.tariffs)} entries for {n_sites} sites")
    rows = []
    for k, entry in enumerate(config.tariffs):
        if isinstance(entry, list):
            if len(entry) != ca.HOURS_PER_WEEK or min(entry) < 0:
                raise ScenarioError(f"[reservations] tariffs[{k}]: 168 prices >= 0 are needed, "
                                    f"got {len(entry)}")
            rows.append(np.asarray(entry, dtype=np.float64))
        else:
            rows.append(peak_tariffs(1, entry.off_peak, entry.peak, 0.0, entry.peak_hours)[0])
    return np.stack(rows)


def reservation_setup(scenario: Scenario, **overrides: object
                      ) -> tuple[tuple[Workload, ...], Reservations, ReservationRules]:
    """``(workloads, requests, rules)`` from a scenario's ``[reservations]`` table (defaults if it
    has none), with ``overrides`` of its fields (None values ignored): the source site's jobs
    that become requests leave its workload."""
    from evogrid.sim.scenario import ReservationsConfig

    base = scenario.reservations or ReservationsConfig()
    try:
        config = ReservationsConfig.model_validate({**base.model_dump(),
                                                    **{k: v for k, v in overrides.items() if v is not None}})
    except ValidationError as exc:
        raise ScenarioError(f"[reservations] {validation_message(exc)}") from None
    workloads = list(scenario.workloads)
    if config.source >= len(workloads):
        raise ScenarioError(f"[reservations] source: site {config.source} is not one of the "
                            f"{len(workloads)} sites")
    kind = request_kinds.REGISTRY[config.workload]  # a registered name: the table was validated
    options = None
    if kind.options is not None:
        try:
            options = kind.options.model_validate(config.options)
        except ValidationError as exc:
            raise ScenarioError(f"[reservations] options: {validation_message(exc)}") from None
    elif config.options:
        raise ScenarioError(f"[reservations] options: request kind {kind.name!r} takes none, got "
                            f"{', '.join(config.options)}")
    workloads, requests = kind.make(workloads, config, options)
    if config.collective_sites is not None and requests.collective is None:
        requests = collective(requests, config.collective_sites, config.collective_site_min)
    rules = ReservationRules(config.algorithm, config.minsize, config.windows, config.cost_weight,
                             config.start_weight, tariffs=_tariffs(config, len(workloads)), seed=config.seed,
                             tsn_max=config.tsn_max, tss_gap=config.tss_gap, estimate=config.estimate,
                             success_hours=config.success_hours, threshold=config.threshold,
                             variant_order=config.variant_order, backlog_rule=config.backlog_rule,
                             backfill_until=config.backfill_until, step=config.step,
                             status_queue=config.status_queue,
                             load_rule=config.load_rule, probe_slots=config.probe_slots,
                             history_seconds=config.history_seconds, acc_running=config.acc_running,
                             acc_waiting=config.acc_waiting)
    return tuple(workloads), requests, rules


def warm_up_reservations() -> None:
    """Compile, or load from numba's cache, the grid loop for sites that hold reservations (one loop
    for every LRMS), as :func:`evogrid.sim.schedule.warm_up` does for the others."""
    one = np.ones(1, dtype=np.int64)
    simulate_reservations([warm_up_site(2)], "easy",
                          Reservations("warm-up", 0 * one, one, 3 * one, one, one[:, None]))
