"""Running the compiled core from Python: merging sites' jobs, validating, results."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

import numpy as np

from evogrid.errors import ScenarioError
from evogrid.sim import codes, core, grid, locations, lrms, queue_index, transfers
from evogrid.sim.metrics import awrt_per_site, site_metrics
from evogrid.sim.python_policy import AdmissionPolicy, LocationPolicy, QueueOrder, TransferPolicy, decider
from evogrid.sim.registry import (
    ACTIVE_TAKE,
    FEATURES,
    HANDOVER,
    LOCATIONS,
    POOL_ARRIVALS,
    REFUSALS,
    SCHEMES,
    SLOT_RULES,
    TRANSFERS,
    Location,
    Transfer,
    index_aware,
)
from evogrid.sim.reserving import no_requests
from evogrid.sim.sites import SWF_FIELDS, SiteArrays, Sites
from evogrid.sim.tsk import TSKStack
from evogrid.workload.model import Workload


def lrms_code(name: str) -> int:
    """The core's code for a registered LRMS name (``fcfs``, ``easy``, ``list``, ...; evogrid.sim.lrms)."""
    try:
        return lrms.lrms_code(name)
    except ValueError as exc:
        raise ScenarioError(str(exc)) from None


@dataclass(frozen=True)
class GridJobs:
    """The jobs of K sites merged into arrival order, as the core wants them.

    All job arrays have shape (n,), int64, sorted by (submit, origin, position
    in the origin's log). ``index`` maps each row back to its position in
    ``workloads[origin]``. ``sites``: speeds, attributes and requirements
    (evogrid.sim.sites; the default: equal sites, no requirements).
    """

    workloads: tuple[Workload, ...]
    submit: np.ndarray
    run_time: np.ndarray
    procs: np.ndarray
    estimate: np.ndarray
    origin: np.ndarray
    index: np.ndarray
    machine_procs: np.ndarray
    sites: Sites = Sites()

    @classmethod
    def merge(cls, workloads: Sequence[Workload], sites: Sites | None = None) -> GridJobs:
        """Merge the sites' workloads (their windows all start at time 0)."""
        if not workloads:
            raise ScenarioError("a scenario needs at least one site")
        for w in workloads:
            if w.n_jobs == 0:
                raise ScenarioError(f"site {w.name}: no jobs to simulate")
            if w.procs.min() < 1 or w.procs.max() > w.machine_procs:
                raise ScenarioError(
                    f"site {w.name}: job sizes must lie in [1, {w.machine_procs}] processors"
                )
            if w.run_time.min() < 0 or (w.submit[1:] < w.submit[:-1]).any():
                raise ScenarioError(f"site {w.name}: negative run times or unsorted submits")
        origin = np.concatenate(
            [np.full(w.n_jobs, k, dtype=np.int64) for k, w in enumerate(workloads)]
        )
        index = np.concatenate([np.arange(w.n_jobs, dtype=np.int64) for w in workloads])
        submit = np.concatenate([w.submit for w in workloads])
        order = np.lexsort((index, origin, submit))
        return cls(
            workloads=tuple(workloads),
            submit=np.ascontiguousarray(submit[order]),
            run_time=np.concatenate([w.run_time for w in workloads])[order],
            procs=np.concatenate([w.procs for w in workloads])[order],
            estimate=np.concatenate([w.estimate for w in workloads])[order],
            origin=origin[order],
            index=index[order],
            machine_procs=np.array([w.machine_procs for w in workloads], dtype=np.int64),
            sites=sites or Sites(),
        )

    @property
    def n_sites(self) -> int:
        return len(self.workloads)

    @cached_property
    def packed(self) -> np.ndarray:
        """The job arrays as the core takes them: shape (N_JOB_FIELDS, n), ``HOME`` = origin."""
        return core.pack_jobs(self.submit, self.run_time, self.estimate, self.procs, self.origin)

    @cached_property
    def site_arrays(self) -> SiteArrays:
        """Speeds, attributes and requirements as the compiled grid loop takes them (evogrid.sim.sites)."""
        fields = {name: np.concatenate([w.swf_field(name) for w in self.workloads])[self.offset + self.index]
                  for name in SWF_FIELDS}
        return self.sites.arrays(self.origin, self.n_sites, fields)

    @cached_property
    def offset(self) -> np.ndarray:
        """Where each job's site starts in the sites' jobs laid end to end."""
        starts = np.concatenate([[0], np.cumsum([w.n_jobs for w in self.workloads])[:-1]])
        return starts[self.origin]


@dataclass(frozen=True)
class DecisionLog:
    """Rulebase decisions taken during a simulation, in the order taken.

    Attributes:
        site: shape (d,), the deciding site; partner: shape (d,), the partner
        whose rulebase it used; x: shape (d, NF), the features it saw;
        y: shape (d,), the rulebase output (accept where y > 0).
    """

    site: np.ndarray
    partner: np.ndarray
    x: np.ndarray
    y: np.ndarray


@dataclass(frozen=True)
class Schedule:
    """A simulated grid: when and where every job ran.

    Attributes:
        jobs: the merged input.
        lrms: LRMS name per site.
        start: shape (n,), start time in seconds of each row of ``jobs`` (-1: refused, :attr:`refused`).
        site: shape (n,), index of the site that ran it (a refused job's origin).
        strategy: a label of the exchange strategy (``local`` without one).
        scheme: ``local``, the Exchange scheme (``exchange``, ``pool``, ``active``), or ``partition``
            (an offline job-to-site assignment, evogrid.optimize.partition).
        moves: shape (n,), how often each job moved between sites.
        pool_arrivals: with a central pool, how new jobs entered it
            (``first`` or ``queued``, see :class:`Exchange`); None otherwise.
        decisions: the rulebase decisions, when recorded.
        stopped_bounds: shape (K,), lower bounds on each site's AWRT (s) when
            the run stopped early at an AWRT cutoff (unstarted jobs have
            start -1); None for a complete schedule.
        run_time: shape (n,), seconds each job ran where it ran: its logged
            run time, scaled by the speeds when it moved between sites of
            different speed (default: ``jobs.run_time``).
    """

    jobs: GridJobs
    lrms: tuple[str, ...]
    start: np.ndarray
    site: np.ndarray
    strategy: str = "local"
    scheme: str = "local"
    moves: np.ndarray = field(default=None)  # type: ignore[assignment]
    decisions: DecisionLog | None = None
    stopped_bounds: np.ndarray | None = None
    pool_arrivals: str | None = None
    run_time: np.ndarray = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.moves is None:
            object.__setattr__(self, "moves", (self.site != self.jobs.origin).astype(np.int64))
        if self.run_time is None:
            object.__setattr__(self, "run_time", self.jobs.run_time)

    @property
    def end(self) -> np.ndarray:
        """Completion times C_j in seconds, shape (n,) (meaningless where :attr:`refused`)."""
        return self.start + self.run_time

    @property
    def refused(self) -> np.ndarray:
        """Shape (n,): the jobs a broker refused (``Exchange.refusals``), which never ran; their start
        is -1 and ``site`` their origin. All False for a run stopped at its AWRT cutoff."""
        if self.stopped_bounds is not None:
            return np.zeros(self.start.shape, dtype=bool)
        return self.start < 0

    @property
    def ran(self) -> np.ndarray:
        """Shape (n,): the jobs that ran (all but the :attr:`refused`)."""
        return ~self.refused

    def ran_at(self, k: int) -> np.ndarray:
        """Shape (n,): the jobs that ran at site k."""
        return (self.site == k) & self.ran

    def metrics(self) -> list[dict[str, float]]:
        """Per-site metrics (docs/model.md, Metrics); see :func:`evogrid.sim.metrics.site_metrics`."""
        if self.stopped_bounds is not None:
            raise ScenarioError("the simulation stopped at its AWRT cutoff: no complete metrics")
        return site_metrics(self)

    def awrt(self) -> np.ndarray:
        """AWRT per site (s), shape (K,); the lower bounds if the run stopped at its cutoff."""
        if self.stopped_bounds is not None:
            return self.stopped_bounds
        return awrt_per_site(self.jobs, self.start, self.run_time)


def _lrms_names(lrms: str | Sequence[str], n_sites: int) -> tuple[str, ...]:
    names = (lrms,) * n_sites if isinstance(lrms, str) else tuple(lrms)
    if len(names) != n_sites:
        raise ScenarioError(f"{len(names)} LRMS names for {n_sites} sites")
    for name in names:
        lrms_code(name)
    return tuple(n.lower() for n in names)


def simulate_local(
    workloads: Sequence[Workload] | GridJobs, lrms: str | Sequence[str] = "fcfs"
) -> Schedule:
    """Simulate sites without job exchange.

    Simulate level 2 of 3 (workloads -> Schedule): over the compiled :func:`evogrid.sim.core.run_local`,
    under :func:`evogrid.policy.strategies.simulate` (Scenario -> Result).

    Args:
        workloads: one workload per site (windows aligned at time 0), or
            their already merged jobs.
        lrms: one LRMS name for all sites, or one per site.
    """
    jobs = workloads if isinstance(workloads, GridJobs) else GridJobs.merge(workloads)
    names = _lrms_names(lrms, jobs.n_sites)
    codes = np.array([lrms_code(name) for name in names], dtype=np.int64)
    start, _ = core.run_local(jobs.packed, jobs.machine_procs, codes)
    return Schedule(jobs, names, start, jobs.origin.copy())


@dataclass(frozen=True)
class Exchange:
    """How the sites of a grid exchange jobs, in the compiled loop's terms.

    Attributes:
        label: a name for tables (``awf``, ``easy-js``, ...).
        scheme: ``exchange`` (transfer + location policies), ``pool``
            (central job pool) or ``active`` (active request).
        transfer: per site, ``local``, ``awf``, ``rulebase`` or ``broker``
            (exchange only; a broker sends each job to the first of all
            qualified sites, itself included, in location order), or a
            :class:`~evogrid.sim.python_policy.TransferPolicy` object.
        pool_arrivals: how a new job meets the central pool (pool only):
            ``first`` (the published rule read literally: it starts at once at its
            site if it fits, else joins the pool) or ``queued`` (it joins
            the pool behind the older jobs and its site schedules the pool:
            under EASY it starts at once only without delaying the
            reservation of the oldest pool job that site can run) or
            ``first-pool`` (``first``, and the site passes over the pool after
            every arrival).
        active_take: what an active request does with the jobs it takes
            (active only): ``queue`` (the published rule: into the requesting
            site's queue, all judged on its state before the request, any
            LRMS), ``start`` (at once, free processors counted down, EASY only) or
            ``fits`` (the published rule taking every job that fits the free
            processors, without EASY's condition).
        location: a name of :data:`evogrid.sim.registry.LOCATIONS` (exchange only), or a
            :class:`~evogrid.sim.python_policy.LocationPolicy` object.
        seed: seeds the random location policy.
        rulebases: the rulebases sites use.
        rulebase_of: int, shape (K, K): the rulebase site k uses with partner
            l (-1 where none); required for ``rulebase`` sites. The diagonal
            holds each site's ranking rulebase (location ``rank``).
        order: a :class:`~evogrid.sim.python_policy.QueueOrder` for every site's queue
            (None: each LRMS's own order).
        refresh_s: how often the grid's information service publishes the sites' state, in
            seconds (exchange only): the location policy ranks sites as they were at the last
            multiple of ``refresh_s`` (their free processors, queues, running jobs, MCT's work
            ahead), as Beichter's MDS did every 30 s; 0 (the default): as they are now. The sites'
            own transfer decisions always see themselves as they are (docs/grid.md).
        job_locations: ``((name, share), ...)``: a location policy per job, as Beichter's jobs
            name theirs (his POLICY tag, 6.4): each job draws one of these with its share (seeded by
            ``seed``), the rest use ``location`` (exchange only; no batch or Python policies).
        handover: when a broker hands a job over: ``interactive`` (at its arrival), ``when-room``
            (Beichter's proposal in 8.1.6: while no site the broker may send the job to has room for
            it now, as the location policy sees them, the job waits in the grid's holding queue;
            after each instant at which jobs end, the held jobs that now have room go in order, each
            to the site its location policy ranks first; not with Min-Min and Max-Min) or ``batch``
            (his batch mode, 5.3.2: every job waits in the holding queue until the next multiple of
            ``batch_s``, or until ``batch_jobs`` jobs are held, when all go, one by one, in arrival
            order or in Min-Min's or Max-Min's). Exchange with a broker and compiled policies, no
            reservation requests (docs/grid.md).
        batch_s: the batch interval of hand-over ``batch``, seconds (> 0; only with it).
        batch_jobs: instead of ``batch_s``, the batch's size: the held jobs go at the arrival of
            the ``batch_jobs``-th, and the last, smaller batch at the last submission (> 0; only
            with hand-over ``batch``).
        grid_cap: per site, the most processors the jobs of other sites may hold there at once,
            waiting or running (None: no cap), the grid's share of a site (after LoadLeveler's
            per-user ``maxjobs``, which Beichter's grid scheduler ran under): a site whose jobs
            from elsewhere would exceed it with a job does not qualify for that job, for a broker or
            as a partner. Empty: no caps (exchange only; docs/grid.md).
        grid_slots: per site, the slots LoadLeveler gives the grid's jobs there (his ``maxslots``;
            None: the site's processors), as Beichter's policies read them: free slots fall when a
            job from elsewhere starts, not when it joins the queue (his 7.1.1). Whole slots >= 1.
            Empty: none (exchange only; docs/grid.md).
        grid_maxjobs: per site, how many jobs the grid's user may run there at once (his
            ``maxjobs``; None: no limit), which ``beichter-new`` reads (``freejobs = maxjobs -
            running``) and ``beichter-old`` does not. Whole jobs >= 1. Empty: none (exchange only).
        slot_rule: what the slots and maxjobs do: ``enforced`` (Beichter's LoadLeveler: a site
            starts no job from another site while such jobs would hold more processors there than
            its slots, or while its maxjobs of them run; the job waits in the site's queue, passed
            over by its LRMS, and a job wider than a site's slots does not qualify there; any
            location policy and LRMS; not with reservation requests) or ``read`` (only Beichter's
            policies read them, so needed with policies that do).
        refusals: what a broker does with a job its location policy would hand to no site
            (``beichter-old`` and ``beichter-new`` where every queue is full): ``refuse`` (Beichter:
            the job never runs; its start stays -1 and it counts as refused) or ``keep`` (evogrid's
            reading: it joins its origin's queue); docs/grid.md.
    """

    label: str
    scheme: str = "exchange"
    pool_arrivals: str = "first"
    active_take: str = "queue"
    transfer: tuple[str | TransferPolicy, ...] = ()
    location: str | LocationPolicy = "fixed"
    seed: int = 0
    rulebases: TSKStack = field(default_factory=TSKStack.empty)
    rulebase_of: np.ndarray | None = None
    order: QueueOrder | None = None
    refresh_s: int = 0
    job_locations: tuple[tuple[str, float], ...] = ()
    handover: str = HANDOVER.default.name
    batch_s: int = 0
    batch_jobs: int = 0
    grid_cap: tuple[int | None, ...] = ()
    grid_slots: tuple[int | None, ...] = ()
    grid_maxjobs: tuple[int | None, ...] = ()
    refusals: str = REFUSALS.default.name
    slot_rule: str = SLOT_RULES.default.name

    def arrays(self, jobs: GridJobs) -> grid.PolicyArrays:
        """The validated ``policy`` argument of the compiled grid loop (evogrid.sim.grid.run_grid)."""
        n_sites = jobs.n_sites
        scheme = SCHEMES.lookup(self.scheme)
        pool_arrivals = POOL_ARRIVALS.lookup(self.pool_arrivals)
        active_take = ACTIVE_TAKE.lookup(self.active_take)
        transfer = self.transfer or ("local",) * n_sites
        if len(transfer) != n_sites:
            raise ScenarioError(f"{len(transfer)} transfer policies for {n_sites} sites")
        entries = [None if isinstance(t, TransferPolicy) else TRANSFERS.lookup(t) for t in transfer]
        for entry in entries:
            if entry is not None and entry.code not in transfers.DECIDED:
                raise ScenarioError(f"transfer policy {entry.name!r} has no compiled decision: register it "
                                    f"with evogrid.sim.transfers.register (docs/architecture.md)")
        transfer_codes = np.array([codes.T_PYTHON if e is None else e.code for e in entries], dtype=np.int64)
        location = None if isinstance(self.location, LocationPolicy) else LOCATIONS.lookup(self.location)
        per_job = [LOCATIONS.lookup(name, "job_locations") for name, _ in self.job_locations]
        compiled = ([] if location is None else [location]) + per_job  # every policy the run ranks by
        for entry in compiled:
            if entry.code not in locations.ORDERED:
                raise ScenarioError(f"location policy {entry.name!r} has no compiled key: register it with "
                                    f"evogrid.sim.locations.register (docs/architecture.md)")
        rulebase_of = (
            np.full((n_sites, n_sites), -1, dtype=np.int64)
            if self.rulebase_of is None else np.asarray(self.rulebase_of, dtype=np.int64)
        )
        n_stack = len(self.rulebases)
        for k, name in enumerate(transfer):
            if name == "rulebase":
                mine = np.delete(rulebase_of[k], k)
                if ((mine < 0) | (mine >= n_stack)).any():
                    raise ScenarioError(f"site {k} uses a rulebase but has none for some partner")
        if any(e is not None and e.routes for e in entries):
            for entry in compiled:
                if not entry.ranks_every_site:
                    raise ScenarioError(f"a broker needs a location policy that ranks every site "
                                        f"({', '.join(LOCATIONS.names(ranks_every_site=True))}), "
                                        f"not {entry.name!r}")
        if self.location == "rank" and self.scheme == "exchange":
            ranking = np.diag(rulebase_of)
            if ((ranking < 0) | (ranking >= n_stack)).any():
                raise ScenarioError("the rank location policy needs a ranking rulebase at every site "
                                    "(rulebase_of[k, k])")
        if self.scheme == "active" and self.order is not None:
            # An active request moves waiting jobs into queues their keys were not made for.
            raise ScenarioError("a Python queue order does not work with the active request")
        if self.scheme != "exchange" and not jobs.sites.is_default:
            raise ScenarioError(f"site speeds and job requirements work with the exchange scheme only, "
                                f"not {self.scheme!r}")
        refresh = self.refresh_s
        if not _whole(refresh):
            raise ScenarioError(f"refresh_s {refresh!r}: expected whole seconds >= 0 (0: no staleness)")
        if refresh > 0 and self.scheme != "exchange":
            raise ScenarioError(f"refresh_s applies to the exchange scheme, not {self.scheme!r}")
        handover = HANDOVER.lookup(self.handover)
        if handover.code != codes.H_INTERACTIVE:
            if self.scheme != "exchange":
                raise ScenarioError(f"handover {self.handover!r} applies to the exchange scheme with "
                                    f"brokers, not {self.scheme!r}")
            if not any(e is not None and e.routes for e in entries):
                raise ScenarioError(f"handover {self.handover!r} holds jobs at brokers: no site routes jobs "
                                    "(transfer broker)")
            if self.in_python:
                raise ScenarioError(f"handover {self.handover!r} works with compiled location policies and "
                                    "no Python decisions")
            if handover.code == codes.H_WHEN_ROOM and any(e.batch for e in compiled):
                raise ScenarioError(f"handover {self.handover!r} works with location policies that route "
                                    "jobs one by one (Min-Min and Max-Min: handover 'batch')")
        batch_s, batch_jobs = self.batch_s, self.batch_jobs
        if not _whole(batch_s):
            raise ScenarioError(f"batch_s {batch_s!r}: expected whole seconds > 0")
        if not _whole(batch_jobs):
            raise ScenarioError(f"batch_jobs {batch_jobs!r}: expected whole jobs > 0")
        if handover.code == codes.H_BATCH and (batch_s > 0) == (batch_jobs > 0):
            raise ScenarioError("handover 'batch' needs its interval or its size: batch_s > 0 (whole "
                                "seconds) or batch_jobs > 0 (jobs), one of them")
        for name, value in (("batch_s", batch_s), ("batch_jobs", batch_jobs)):
            if handover.code != codes.H_BATCH and value > 0:
                raise ScenarioError(f"{name} {value}: applies to handover 'batch' only, not "
                                    f"{self.handover!r}")
        grid_cap, grid_slots = self._per_site("grid_cap", n_sites), self._per_site("grid_slots", n_sites)
        grid_maxjobs = self._per_site("grid_maxjobs", n_sites)
        slot_rule = SLOT_RULES.lookup(self.slot_rule)
        if slot_rule.code != SLOT_RULES.default.code and not (self.grid_slots or self.grid_maxjobs):
            raise ScenarioError(f"slot_rule {self.slot_rule!r} applies to grid_slots and grid_maxjobs, and "
                                "none are given")
        for name, flag in (("grid_slots", "reads_slots"), ("grid_maxjobs", "reads_maxjobs")):
            if getattr(self, name) and slot_rule.code == codes.S_READ:
                unread = [e.name if e else "a Python one" for e in [location, *per_job]
                          if not (e and getattr(e, flag))]
                if unread:
                    readers = ", ".join(LOCATIONS.names(**{flag: True}))
                    raise ScenarioError(f"{name} with slot_rule 'read' are read by the location policies "
                                        f"{readers} only, not {', '.join(unread)}")
        refusals = REFUSALS.lookup(self.refusals)
        if refusals.code != REFUSALS.default.code and not self._brokers_refuse:
            raise ScenarioError(f"refusals {self.refusals!r} applies to brokers with a location policy that "
                                f"refuses ({', '.join(LOCATIONS.names(refuses=True))})")
        job_location = self._job_locations(jobs, location, per_job)
        setup = np.zeros(grid.N_SETUP_FIELDS, dtype=np.int64)
        setup[grid.SCHEME] = scheme.code
        setup[grid.POOL_ARRIVALS] = pool_arrivals.code
        setup[grid.ACTIVE_TAKE] = active_take.code
        setup[grid.LOCATION] = codes.L_PYTHON if location is None else location.code
        setup[grid.SEED] = int(self.seed)
        setup[grid.MATCHING] = int(not jobs.sites.is_default)
        setup[grid.PY_ORDER] = int(self.order is not None)
        setup[grid.REFRESH] = int(refresh)
        setup[grid.JOB_LOCATIONS] = int(len(self.job_locations) > 0)
        setup[grid.TRACK_AREA] = int(any(e.reads_work_ahead for e in compiled))
        setup[grid.TRACK_DELEGATED] = int(any(e.reads_delegated for e in compiled))
        setup[grid.NO_INDEX] = int(not all(index_aware(e) for e in self._components(entries, compiled)))
        setup[grid.HANDOVER] = handover.code
        setup[grid.BATCH_S] = int(batch_s)
        setup[grid.BATCH_JOBS] = int(batch_jobs)
        setup[grid.CAPPED] = int((grid_cap >= 0).any())
        setup[grid.REFUSALS] = refusals.code
        setup[grid.SLOT_RULE] = slot_rule.code
        return grid.PolicyArrays(setup, transfer_codes, rulebase_of, self.rulebases.params,
                                 self.rulebases.meta, self.rulebases.bounds, job_location, jobs.site_arrays,
                                 self._limits(jobs.machine_procs, grid_cap, grid_slots, grid_maxjobs,
                                              slot_rule.code))

    def _components(self, transfers: list[Transfer | None], compiled: list[Location]) -> list:
        """The registry entries of the run's compiled transfer and location policies and of its
        rulebases' features (a Python policy reads queues through its view, which skips holes)."""
        by_code = {e.code: e for e in FEATURES.values()}
        meta = self.rulebases.meta
        used = {int(c) for r in range(meta.shape[0]) for c in meta[r, 2:2 + meta[r, 1]]}
        return [e for e in transfers if e is not None] + compiled + [by_code[c] for c in sorted(used)]

    @staticmethod
    def _limits(machine_procs: np.ndarray, grid_cap: np.ndarray, grid_slots: np.ndarray,
                grid_maxjobs: np.ndarray, slot_rule: int) -> np.ndarray:
        """The loop's per-site limits (``core.LIM_*`` rows): the three given (-1: none) and the widest
        job from another site each site may take: its processors, or fewer where LoadLeveler
        enforces fewer slots, as a wider job would never start there."""
        limits = np.empty((core.N_LIMITS, machine_procs.shape[0]), dtype=np.int64)
        limits[core.LIM_CAP], limits[core.LIM_SLOTS] = grid_cap, grid_slots
        limits[core.LIM_MAXJOBS] = grid_maxjobs
        limits[core.LIM_WIDTH] = machine_procs
        if slot_rule == codes.S_ENFORCED:
            limited = grid_slots >= 0
            limits[core.LIM_WIDTH, limited] = np.minimum(machine_procs[limited], grid_slots[limited])
        return limits

    def _per_site(self, name: str, n_sites: int) -> np.ndarray:
        """``grid_cap``, ``grid_slots`` or ``grid_maxjobs`` (``name``) as the loop reads it: int64 (K,),
        -1 where a site has none; each value whole, at least its :data:`PER_SITE` least."""
        values = getattr(self, name)
        least, unit = PER_SITE[name]
        if not values:
            return np.full(n_sites, -1, dtype=np.int64)
        if self.scheme != "exchange":
            raise ScenarioError(f"{name} applies to the exchange scheme, not {self.scheme!r}")
        if all(t == "local" for t in (self.transfer or ("local",))):
            raise ScenarioError(f"{name}: every site keeps its jobs (transfer local), so none can apply")
        if len(values) != n_sites:
            raise ScenarioError(f"{name}: {len(values)} values for {n_sites} sites")
        for k, value in enumerate(values):
            if value is not None and not (_whole(value) and value >= least):
                raise ScenarioError(f"{name} of site {k}: {value!r}, expected whole {unit} >= {least} "
                                    "(None: none)")
        return np.array([-1 if value is None else value for value in values], dtype=np.int64)

    def _job_locations(self, jobs: GridJobs, location: Location | None,
                       per_job: list[Location]) -> np.ndarray:
        """Each job's location policy code: ``job_locations`` (``per_job``, their registry entries)
        drawn with their shares, the rest ``location``; shape (1,) without ``job_locations``."""
        if not per_job:
            return np.full(1, -1, dtype=np.int64)
        if location is None or self.scheme != "exchange" or any(e.batch for e in (location, *per_job)):
            raise ScenarioError("job_locations work with the exchange scheme and compiled location policies "
                                "that route jobs one by one")
        shares = np.array([s for _, s in self.job_locations], dtype=np.float64)
        if ((shares <= 0) | (shares > 1)).any() or shares.sum() > 1 + 1e-12:
            raise ScenarioError(f"job_locations: shares {shares.tolist()} must each lie in (0, 1] and sum to "
                                "at most 1")
        draw = np.random.default_rng([int(self.seed), 1]).random(len(jobs.submit))
        job_location = np.full(len(jobs.submit), location.code, dtype=np.int64)
        edges = np.cumsum(shares)
        for e, low, high in zip(per_job, edges - shares, edges, strict=True):
            job_location[(draw >= low) & (draw < high)] = e.code
        return job_location

    @property
    def _brokers_refuse(self) -> bool:
        """Does some site route its jobs (a broker) by a location policy that refuses jobs
        (``beichter-old``, ``beichter-new``)? Names only; :meth:`arrays` validates them."""
        names = [self.location, *(name for name, _ in self.job_locations)]
        refusing, routing = LOCATIONS.names(refuses=True), TRANSFERS.names(routes=True)
        return any(n in refusing for n in names) and any(t in routing for t in self.transfer)

    @property
    def enforces_limits(self) -> bool:
        """Does LoadLeveler limit the jobs from other sites at some site (``slot_rule`` ``enforced``
        with slots or maxjobs given)?"""
        given = [v for v in (*self.grid_slots, *self.grid_maxjobs) if v is not None]
        return self.slot_rule == "enforced" and bool(given)

    @property
    def may_refuse(self) -> bool:
        """Can a broker refuse jobs in this run (``refusals`` ``refuse`` where brokers refuse)?"""
        return self.refusals == "refuse" and self._brokers_refuse

    @property
    def python_transfer(self) -> dict[int, TransferPolicy]:
        """The sites whose transfer policy is a Python object, and the object."""
        return {k: t for k, t in enumerate(self.transfer) if isinstance(t, TransferPolicy)}

    @property
    def in_python(self) -> bool:
        """Does some decision pause the compiled loop for Python?"""
        python_location = isinstance(self.location, LocationPolicy)
        return python_location or bool(self.python_transfer) or self.order is not None


#: Per-site values of an :class:`Exchange`: the least each may be, and its unit.
PER_SITE = {"grid_cap": (0, "processors"), "grid_slots": (1, "slots"), "grid_maxjobs": (1, "jobs")}


def _whole(value: object) -> bool:
    """Is ``value`` a whole number >= 0 (an int, not a bool)?"""
    return not isinstance(value, bool) and isinstance(value, (int, np.integer)) and value >= 0


def simulate_grid(
    workloads: Sequence[Workload] | GridJobs,
    lrms: str | Sequence[str],
    exchange: Exchange,
    *,
    record_decisions: bool = False,
    awrt_cutoff: float | Sequence[float] = 0.0,
    index_span: int = queue_index.SPAN,
) -> Schedule:
    """Simulate sites that exchange jobs.

    Simulate level 2 of 3 (workloads -> Schedule): over the compiled :func:`evogrid.sim.grid.run_grid`,
    under :func:`evogrid.policy.strategies.simulate` (Scenario -> Result).

    Args:
        workloads: one workload per site, or their merged jobs.
        lrms: one LRMS name for all sites, or one per site.
        exchange: the strategy in compiled-loop terms (evogrid.policy builds it).
        record_decisions: keep every rulebase decision (for plots).
        awrt_cutoff: stop early once some site's AWRT is certain to exceed
            this many seconds (0: never), one limit for all sites or one per
            site (0: no limit there); optimisers use it to drop hopeless
            candidates fast. A stopped schedule has ``stopped_bounds``.
        index_span: queue positions from which an EASY or LIST site's own queue, or the central
            pool where every site runs EASY or LIST, keeps an index (evogrid.sim.queue_index; the
            schedule does not depend on it, and the tests lower it to check the index on short
            queues).
    """
    jobs = workloads if isinstance(workloads, GridJobs) else GridJobs.merge(workloads)
    names = _lrms_names(lrms, jobs.n_sites)
    run = run_exchange(jobs, names, exchange, record_decisions=record_decisions, awrt_cutoff=awrt_cutoff,
                       index_span=index_span)
    return run.schedule


class GridRun(NamedTuple):
    """What :func:`run_exchange` gives: the schedule and the compiled loop's bookings of requests."""

    schedule: Schedule
    booked: tuple  #: evogrid.sim.reserving.Booked


def run_exchange(jobs: GridJobs, names: list[str], exchange: Exchange, *, record_decisions: bool = False,
                 awrt_cutoff: float | Sequence[float] = 0.0, requests: tuple | None = None,
                 admission: AdmissionPolicy | None = None, index_span: int = queue_index.SPAN) -> GridRun:
    """:func:`simulate_grid` on merged jobs and LRMS names, with ``requests = (book, rules)`` of
    reservation requests as evogrid.sim.booking packs them (None: none) and the Python policy that
    admits their parts (the ``python`` admission algorithm); the one path to the compiled grid
    loop."""
    codes = np.array([lrms_code(name) for name in names], dtype=np.int64)
    if requests is not None and exchange.handover != HANDOVER.default.name:
        raise ScenarioError(f"handover {exchange.handover!r} does not run with reservation requests")
    if exchange.scheme == "active" and exchange.active_take == "start" and set(names) != {"easy"}:
        raise ScenarioError("the active request's start rule needs EASY at every site (--lrms easy)")
    capacity = jobs.n_sites * len(jobs.submit) if record_decisions else 0
    cutoff = np.broadcast_to(np.asarray(awrt_cutoff, dtype=np.float64), (jobs.n_sites,)).copy()
    policy = exchange.arrays(jobs)  # (checks the per-site limits first)
    if requests is not None and exchange.enforces_limits:
        # A site holding reservations judges every job on its profile with them (core.profile_scan),
        # a pass that does not hide the jobs LoadLeveler's limits pass over.
        raise ScenarioError("grid_slots and grid_maxjobs with slot_rule 'enforced' do not run with "
                            "reservation requests (slot_rule 'read' does)")
    packed = jobs.packed
    if jobs.sites.speeds_differ:
        # The loop rescales moved jobs in place; and a job not yet routed may
        # still run faster elsewhere, so the AWRT bounds would not be bounds.
        packed = packed.copy()
        cutoff[:] = 0.0
    if exchange.may_refuse:  # a refused job never starts, and the bounds would count it as waiting
        cutoff[:] = 0.0
    mode = core.lrms_mode(codes)
    if requests is None:
        requests = no_requests(jobs.n_sites)
    else:  # one loop for every LRMS: a grid loop with reservations compiles for a minute and more
        mode = core.reserving_mode(lrms.MIXED)
    if exchange.enforces_limits:
        mode = core.limited_mode(lrms.MIXED)  # one loop for every LRMS, as above (not with requests)
    arguments = (mode, packed, jobs.machine_procs, codes, policy, capacity, cutoff, requests)
    if exchange.in_python or admission is not None:
        location = exchange.location if isinstance(exchange.location, LocationPolicy) else None
        decide = decider(packed, jobs.site_arrays.speed, exchange.python_transfer, location, exchange.order,
                         None if admission is None else (admission, requests),
                         published=exchange.refresh_s > 0)
    else:
        decide = None
    out, d_site, d_partner, d_x, d_y, bounds, booked = grid.run_grid(*arguments, decide, index_span)
    decisions = DecisionLog(d_site, d_partner, d_x, d_y) if record_decisions else None
    schedule = Schedule(jobs, names, out[core.START_TIME], out[core.SITE], exchange.label, exchange.scheme,
                        out[core.MOVES], decisions,
                        bounds if len(bounds) else None,
                        exchange.pool_arrivals if exchange.scheme == "pool" else None,
                        packed[core.RUN_TIME] if packed is not jobs.packed else None)
    return GridRun(schedule, booked)


def warm_up_site(m: int) -> Workload:
    """A site of ``m`` processors with one job of 1 s on 1 processor at time 0: enough to compile a loop."""
    one = np.ones(1, dtype=np.int64)
    return Workload("warm-up", m, 0 * one, one, one, one, one, 0 * one)


def warm_up(lrms: Sequence[str | Sequence[str]] = ("fcfs", "easy", "list", "conservative",
                                                  ("fcfs", "easy"))) -> None:
    """Compile, or load from numba's cache, the local loops (one site, several) and the grid loop for
    these LRMS choices.

    Each item is one LRMS for every site, or one per site (a mixed grid).
    Run it once in one process before starting parallel workers on a cold
    cache: numba's cache has no locking, and processes compiling different
    variants of one function at the same moment can clash. The grid loop for
    sites that hold reservations: :func:`evogrid.sim.booking.warm_up_reservations`.
    """
    for choice in lrms:
        per_site = (choice, choice) if isinstance(choice, str) else tuple(choice)
        sites = [warm_up_site(2 * (k + 1)) for k in range(len(per_site))]
        if isinstance(choice, str):  # a single site has a loop of its own (evogrid.sim.grid.run_local)
            simulate_local(sites[:1], per_site[:1])
        simulate_local(sites, per_site)
        simulate_grid(sites, per_site, Exchange("warm-up"))
