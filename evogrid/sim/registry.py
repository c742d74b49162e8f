"""The registries of the compiled loops' choices: name -> code, help and flags, the only such table.

One registry per kind of choice; the simulation packs a name into its code
here (:class:`evogrid.sim.schedule.Exchange`), and the CLI (``--help`` texts
and option checks), scenario TOML loading, rulebase JSON loading (feature
names) and the optimisers read the same entries
(:mod:`evogrid.policy.registry` adds the strategies and helpers):

- :data:`SCHEMES`: exchange schemes (``exchange``, ``pool``, ``active``);
- :data:`TRANSFERS`: transfer policies (``local``, ``awf``, ``rulebase``, ``broker``),
  codes ``T_*`` of :mod:`evogrid.sim.codes`;
- :data:`LOCATIONS`: location policies (``fixed``, ``random``, ``awrt``, ...),
  codes ``L_*``;
- :data:`POOL_ARRIVALS`: how a new job meets the central pool, codes ``A_*``;
- :data:`ACTIVE_TAKE`: what an active request does with a job it takes, codes ``AA_*``;
- :data:`HANDOVER`: when a broker hands a job over, codes ``H_*``;
- :data:`OUTSIDE_RANGE`: what a transfer rulebase does beyond its features' ranges, codes ``O_*``;
- :data:`FEATURES`: decision features of fuzzy rulebases with their default
  ranges and the decisions they can inform (transfer decisions, rankings,
  reservation admission; :mod:`evogrid.sim.features`, one file each), codes ``F_*``.

A registry is a read-only mapping name -> entry in registration order (the
first entry is the default where an option has one). An unknown name is an
error naming the known ones, never a fallback::

    LOCATIONS.lookup("near", "--location near")
    # ScenarioError: --location near: unknown location policy 'near'; expected one of fixed, random, awrt, ...

Adding a component (a feature, a location or a transfer policy): its file
with its compiled functions and its entry here for a built-in one, or
``register`` from its package from your own code (``features.register``,
``locations.register``, ``transfers.register``); the compiled dispatch over
the codes is generated from these entries.

Importable without numpy or numba: the CLI's ``--help`` reads these.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Generic, Protocol, TypeVar

from evogrid.errors import EvogridError, ScenarioError
from evogrid.sim import codes


class Entry(Protocol):
    """What every registry entry has (entries with a ``code`` get unique codes)."""

    @property
    def name(self) -> str: ...

    @property
    def help(self) -> str: ...


@dataclass(frozen=True)
class Choice:
    """A named branch of the compiled loop: an exchange scheme, a transfer policy, a pool arrival rule,
    an active-request rule.

    Attributes:
        name: as users write it (``--strategy pool``).
        code: its integer in the compiled loop (:mod:`evogrid.sim.codes`).
        help: one line for ``--help`` and docs.
    """

    name: str
    code: int
    help: str


@dataclass(frozen=True)
class Transfer(Choice):
    """A transfer policy: does a site keep its own job, or take one a partner offers?
    (:mod:`evogrid.sim.transfers`, one file per policy).

    Attributes:
        accepts: ``"module:function"`` of its compiled decision (:mod:`evogrid.sim.transfers`).
        routes: the site sends each of its own jobs to the first site in location order, itself
            included (a broker), instead of offering it to partners.
        index_aware: its compiled code is right on an indexed queue (:func:`index_aware`).
    """

    accepts: str = ""
    routes: bool = False
    index_aware: bool = False


@dataclass(frozen=True)
class Location(Choice):
    """A location policy: the order in which a site tries the sites it may send a job to
    (:mod:`evogrid.sim.locations`, one file per policy).

    Attributes:
        key: ``"module:function"`` of its compiled key, ``(key, tie)`` per candidate site,
            ascending (:mod:`evogrid.sim.locations`); empty for the orders the loop makes
            itself (``fixed``: index order, ``random``: a seeded shuffle).
        ranks_every_site: it orders every qualified site, the job's own included, so a broker
            can use it.
        reads_work_ahead: its key reads the sites' estimated work ahead
            (:func:`evogrid.sim.locations.work_ahead.ready_time`), which the loop then keeps.
        reads_delegated: its key reads the per-partner response sums of the jobs delegated so
            far (``work.delegated``), which the loop then keeps.
        batch: ``earliest`` or ``latest``: jobs submitted at the same second are routed one by
            one, each time the one whose best site has the smallest (Min-Min) or largest
            (Max-Min) key; empty: in arrival order.
        index_aware: its compiled code is right on an indexed queue (:func:`index_aware`).
        reads_slots: its key reads the grid's slots at each site (``Exchange.grid_slots``, Beichter's
            ``maxslots``), which are given for it alone where LoadLeveler does not enforce them.
        reads_maxjobs: its key reads how many jobs the grid's user may run at each site
            (``Exchange.grid_maxjobs``, Beichter's ``maxjobs``), likewise.
        refuses: its key gives ``codes.REFUSED_KEY`` to a site it would not hand the job to, and a
            broker refuses a job every site of which has that key (``Exchange.refusals``).
    """

    key: str = ""
    ranks_every_site: bool = False
    reads_work_ahead: bool = False
    reads_delegated: bool = False
    batch: str = ""
    index_aware: bool = False
    reads_slots: bool = False
    reads_maxjobs: bool = False
    refuses: bool = False


@dataclass(frozen=True)
class Feature:
    """A named input of a fuzzy rulebase (:mod:`evogrid.sim.features`, one file per feature).

    Attributes:
        name: as rulebase JSON files and ``--feature`` spell it.
        code: its integer in the compiled dispatch (:mod:`evogrid.sim.codes`).
        range: [low, high], used to initialise, bound and plot rulebases.
        help: what it measures, one line.
        decisions: which decisions it can inform: ``transfer`` (a job on
            offer), ``admission`` (a reservation part at a start) and/or
            ``ranking`` (a site as a home for a job).
        value, ranking, admission: ``"module:function"`` of its compiled value for a job at a site,
            for a ranked site (default: ``value`` as that site sees the job) and for a reservation
            part (:mod:`evogrid.sim.features`).
        reads_ready: its ranking reads the ranked site's ready time (MCT's work ahead), which the
            caller then computes.
        index_aware: its compiled code is right on an indexed queue (:func:`index_aware`).
    """

    name: str
    code: int
    range: tuple[float, float]
    help: str
    decisions: tuple[str, ...] = ("transfer",)
    value: str = ""
    ranking: str = ""
    admission: str = ""
    reads_ready: bool = False
    index_aware: bool = False


E = TypeVar("E", bound=Entry)


class Registry(Mapping[str, E], Generic[E]):
    """Entries by name, in registration order; ``kind`` names them in errors and help."""

    def __init__(self, kind: str, entries: Iterable[E] = ()) -> None:
        self.kind = kind
        self._entries: dict[str, E] = {}
        for entry in entries:
            self.register(entry)

    def __getitem__(self, name: str) -> E:
        return self._entries[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}: {', '.join(self._entries)})"

    def names(self, **flags: object) -> tuple[str, ...]:
        """The names of the entries whose attributes equal ``flags`` (all names without flags)."""
        return tuple(n for n, e in self._entries.items()
                     if all(getattr(e, f, None) == v for f, v in flags.items()))

    @property
    def default(self) -> E:
        """The first entry."""
        return next(iter(self._entries.values()))

    def register(self, entry: E, *, replace: bool = False) -> E:
        """Add ``entry``; a name or code already taken is an error unless ``replace``."""
        if not replace:
            if entry.name in self._entries:
                raise EvogridError(f"{self.kind} {entry.name!r} is registered already")
            code = getattr(entry, "code", None)
            taken = [e.name for e in self._entries.values() if code is not None and e.code == code]
            if taken:
                raise EvogridError(f"{self.kind} {entry.name!r}: code {code} is {taken[0]}'s already")
        self._entries[entry.name] = entry
        return entry

    def unregister(self, name: str) -> E:
        """Remove and return an entry (e.g. a toy one a test registered)."""
        return self._entries.pop(self.lookup(name).name)

    def unknown(self, name: object) -> str:
        """The one-line message for a name that is not registered."""
        return f"unknown {self.kind} {name!r}; expected one of {', '.join(self._entries)}"

    def lookup(self, name: str, where: str = "", error: type[Exception] = ScenarioError) -> E:
        """The entry of ``name``; else ``error`` with :meth:`unknown`, after ``where:`` if given."""
        try:
            return self._entries[name]
        except KeyError:
            message = self.unknown(name)
            raise error(f"{where}: {message}" if where else message) from None

    def check(self, name: str) -> str:
        """``name`` if registered, else ValueError (for pydantic field validators)."""
        if name not in self._entries:
            raise ValueError(self.unknown(name))
        return name

    def name_type(self) -> Any:
        """The pydantic type of a field that holds a registered name (checked when validated)."""
        from pydantic import AfterValidator  # here: the CLI's --help needs the registries, not pydantic

        return Annotated[str, AfterValidator(self.check)]

    def help(self, names: Iterable[str] | None = None) -> str:
        """``a (help), b (help) or c (help)`` over ``names`` (default: all), for option help texts."""
        parts = [f"{n} ({self._entries[n].help})" for n in (self._entries if names is None else names)]
        return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} or {parts[-1]}"


SCHEMES: Registry[Choice] = Registry("exchange scheme", [
    Choice("exchange", codes.EXCHANGE, "decentralised: a site offers the jobs it does not keep to partners"),
    Choice("pool", codes.POOL, "a central pool every site schedules from"),
    Choice("active", codes.ACTIVE, "active request: a site with free processors takes jobs from the others' "
                                   "queues"),
])
_TRANSFER_DECISIONS = "evogrid.sim.transfers."
TRANSFERS: Registry[Transfer] = Registry("transfer policy", [
    Transfer("local", codes.T_LOCAL, "keep own jobs, decline offers",
             accepts=_TRANSFER_DECISIONS + "local:accepts"),
    Transfer("awf", codes.T_AWF, "accept when fit: keep or accept a job iff it fits the free processors now",
             accepts=_TRANSFER_DECISIONS + "awf:accepts"),
    Transfer("rulebase", codes.T_RULEBASE, "a TSK fuzzy rulebase per partner decides",
             accepts=_TRANSFER_DECISIONS + "rulebase:accepts"),
    Transfer("broker", codes.T_BROKER, "information-rich: send each job to the best qualified site, this one "
                                      "included, by the location policy (which must rank every site); take "
                                      "offers as awf",
             accepts=_TRANSFER_DECISIONS + "awf:accepts", routes=True),
])
_LOCATION_KEYS = "evogrid.sim.locations."
LOCATIONS: Registry[Location] = Registry("location policy", [
    Location("fixed", codes.L_FIXED, "partners in index order"),
    Location("random", codes.L_RANDOM, "a seeded shuffle per job"),
    Location("awrt", codes.L_AWRT, "partners never tried first, then lowest AWRT of the jobs delegated "
                                  "to them so far", key=_LOCATION_KEYS + "awrt:key", reads_delegated=True),
    Location("least-load", codes.L_LEAST_LOAD, "information-rich: least load after assignment, "
                                              "1 - (free - m_j) / m, ties by fewer waiting jobs "
                                              "(after Beichter's 7.1.2, not his rule)",
             key=_LOCATION_KEYS + "least_load:key", ranks_every_site=True),
    Location("olb", codes.L_OLB, "information-rich: opportunistic load balancing, most free processors "
                                "now first, ties by fewer waiting jobs",
             key=_LOCATION_KEYS + "olb:key", ranks_every_site=True),
    Location("met", codes.L_MET, "minimum execution time: the fastest site first",
             key=_LOCATION_KEYS + "met:key", ranks_every_site=True),
    Location("mct", codes.L_MCT, "information-rich: minimum completion time, the earliest estimated end "
                                "(work ahead / m, plus the estimate at the site's speed)",
             key=_LOCATION_KEYS + "mct:key", ranks_every_site=True, reads_work_ahead=True),
    Location("min-min", codes.L_MIN_MIN, "information-rich: MCT, and jobs submitted together go in order "
                                        "of their earliest completion",
             key=_LOCATION_KEYS + "mct:key", ranks_every_site=True, reads_work_ahead=True, batch="earliest"),
    Location("max-min", codes.L_MAX_MIN, "information-rich: MCT, and jobs submitted together go in order "
                                        "of their latest best completion",
             key=_LOCATION_KEYS + "mct:key", ranks_every_site=True, reads_work_ahead=True, batch="latest"),
    Location("rank", codes.L_RANK, "each site's TSK ranking rulebase scores the sites, highest first",
             key=_LOCATION_KEYS + "rank:key", ranks_every_site=True, reads_work_ahead=True),
    Location("debt", codes.L_DEBT, "evogrid's reading of Lepping's debt account (11.2.1): partners that "
                                  "used the most processor-seconds here, less what this site used there, "
                                  "first", key=_LOCATION_KEYS + "debt:key", reads_delegated=True),
    Location("beichter-old", codes.L_BEICHTER_OLD, "information-rich: Beichter's original policy (3.4): "
                                                  "room now, most free share first; else the shortest "
                                                  "queue under 5 m jobs; full queues last",
             key=_LOCATION_KEYS + "beichter_old:key", ranks_every_site=True,
             reads_slots=True, refuses=True),
    Location("beichter-new", codes.L_BEICHTER_NEW, "information-rich: Beichter's new policy (7.1.2): room "
                                                  "and an empty queue, least load after the job first; "
                                                  "else the shortest queue under 5 m jobs; full queues last",
             key=_LOCATION_KEYS + "beichter_new:key", ranks_every_site=True,
             reads_slots=True, reads_maxjobs=True, refuses=True),
])

POOL_ARRIVALS: Registry[Choice] = Registry("pool arrival rule", [
    Choice("first", codes.A_FIRST, "the published rule: a new job starts at once at its site whenever it "
                                  "fits, overtaking older pool jobs, and joins the pool otherwise "
                                  "(reproduces the dissertation's Table 8.2)"),
    Choice("queued", codes.A_QUEUED, "evogrid's variant: a new job joins the pool behind the older jobs and "
                                    "its site schedules the pool; under EASY it starts at once only if it "
                                    "does not delay the reservation of the oldest pool job that site can run "
                                    "(reproduces the dissertation's Table 10.1, chapter 10's pool)"),
    Choice("first-pool", codes.A_FIRST_POOL, "evogrid's reading of chapter 8: the published rule, and "
                                            "the site passes over the pool after every arrival, also "
                                            "when the new job started at once (Table 8.2 within 5 % "
                                            "at 17 of 18 sites)"),
])

ACTIVE_TAKE: Registry[Choice] = Registry("active request rule", [
    Choice("queue", codes.AA_QUEUE, "the published rule (Lepping 9.1): a site with free processors takes "
                                   "into its queue every waiting job of the others it could start now "
                                   "without delaying its head, each judged on its state before the "
                                   "request, then runs its LRMS (any LRMS); a job that does not start "
                                   "there is offered again"),
    Choice("start", codes.AA_START, "evogrid's variant (EASY only): the site starts such jobs at once, "
                                   "counting its free processors down; a job moves at most once"),
    Choice("fits", codes.AA_FITS, "evogrid's variant: the published rule without EASY's condition, the "
                                 "site takes every waiting job of the others that fits its free "
                                 "processors (its moves per job come close to Table 9.3's)"),
])

HANDOVER: Registry[Choice] = Registry("broker hand-over", [
    Choice("interactive", codes.H_INTERACTIVE, "a broker hands each job over at its arrival (Beichter's "
                                              "interactive mode, 5.3.1)"),
    Choice("when-room", codes.H_WHEN_ROOM, "Beichter's proposal (8.1.6): while no site the broker may "
                                          "send a job to has room for it now, the job waits in the "
                                          "grid's holding queue; after each instant at which sites "
                                          "free processors, the held jobs that now have room somewhere "
                                          "are handed over in order, each by the location policy"),
    Choice("batch", codes.H_BATCH, "Beichter's batch mode (5.3.2): brokers collect their jobs and hand "
                                  "them all over at the next multiple of `batch_s` seconds, or once "
                                  "`batch_jobs` are held, one by one, in arrival order or, under min-min "
                                  "and max-min, in their order"),
])

REFUSALS: Registry[Choice] = Registry("refused job", [
    Choice("refuse", codes.R_REFUSE, "Beichter (3.4, 7.1.2): a broker whose location policy would hand a "
                                    "job to no site (beichter-old, beichter-new: every queue full) refuses "
                                    "it; the job never runs and is counted as refused"),
    Choice("keep", codes.R_KEEP, "evogrid's reading: such a job stays at its origin's queue"),
])

SLOT_RULES: Registry[Choice] = Registry("slot rule", [
    Choice("enforced", codes.S_ENFORCED,
           "Beichter's clusters (7.1.2): LoadLeveler starts no job from another site while such jobs would "
           "hold more processors there than the grid's slots, or while the grid user's maxjobs of them run; "
           "the job waits in the site's queue, passed over by its scheduler; his policies read the limits"),
    Choice("read", codes.S_READ, "evogrid's earlier reading: only his policies read them"),
])

OUTSIDE_RANGE: Registry[Choice] = Registry("rule outside a rulebase's ranges", [
    Choice("rules", codes.O_RULES, "the dissertation: the rules answer wherever the features lie"),
    Choice("awf", codes.O_AWF, "evogrid's guard: a decision whose features leave the rulebase's ranges "
                               "(its JSON's [low, high] per feature) is taken as AWF (keep or take the "
                               "job iff it fits the free processors now)"),
])

#: Features of a job at a site: for transfer decisions (the deciding site) and rankings (the ranked site).
_JOB_SITE = ("transfer", "ranking")
_F = "evogrid.sim.features."
FEATURES: Registry[Feature] = Registry("feature", [
    Feature("NWP", codes.F_NWP, (0.0, 10.0),
            "waiting jobs' processors / m_k (normalised waiting parallelism)",
            ("transfer", "admission", "ranking"), value=_F + "nwp:value", admission=_F + "nwp:admission"),
    Feature("NJP", codes.F_NJP, (0.0, 1.0), "m_j / m_k (normalised job parallelism)", _JOB_SITE,
            value=_F + "njp:value"),
    Feature("UTIL", codes.F_UTIL, (0.0, 1.0), "busy processors / m_k now", _JOB_SITE,
            value=_F + "util:value"),
    Feature("QLEN", codes.F_QLEN, (0.0, 100.0), "number of jobs waiting in the site's queue", _JOB_SITE,
            value=_F + "qlen:value"),
    Feature("EST_HOURS", codes.F_EST_HOURS, (0.0, 48.0), "the job's run-time estimate in hours (at the "
            "site's speed)", _JOB_SITE, value=_F + "est_hours:value", ranking=_F + "est_hours:ranking"),
    Feature("LOAD_AFTER", codes.F_LOAD_AFTER, (0.0, 1.5), "the site's load after taking the job, "
            "1 - (free - m_j) / m_k", ("ranking",), ranking=_F + "load_after:ranking"),
    Feature("SPEED", codes.F_SPEED, (0.0, 4.0), "the site's speed / the job's home site's speed",
            ("ranking",), ranking=_F + "speed:ranking"),
    Feature("WAIT_HOURS", codes.F_WAIT_HOURS, (0.0, 48.0), "information-rich: MCT's estimated wait at "
            "the site in hours, the work ahead (estimates) / m_k", ("ranking",),
            ranking=_F + "wait_hours:ranking", reads_ready=True),
    Feature("LEAD", codes.F_LEAD, (0.0, 1.0), "reservation start's lead over now, (s - t) / (s - t + "
            "backlog_k): 0.5 where the site's backlog clears", ("admission",),
            admission=_F + "lead:admission"),
    Feature("PART", codes.F_PART, (0.0, 1.0), "the part's processors / m_k", ("admission",),
            admission=_F + "part:admission"),
    Feature("RESERVED", codes.F_RESERVED, (0.0, 1.0),
            "share of m_k x duration already reserved over the part's interval", ("admission",),
            admission=_F + "reserved:admission"),
    Feature("BEFORE_NEXT", codes.F_BEFORE_NEXT, (0.0, 1.0),
            "1 if the part ends by the site's next planned start (Meltzer's backfill test), else 0",
            ("admission",), admission=_F + "before_next:admission"),
])


#: The entries defined above: their compiled code counts waiting jobs with ``core.waiting_jobs``
#: (the cross-checks against the reference simulator run them on indexed queues).
_BUILT_IN = frozenset((*TRANSFERS.values(), *LOCATIONS.values(), *FEATURES.values()))


def index_aware(entry: Transfer | Location | Feature) -> bool:
    """May a run that uses ``entry`` keep a queue index (evogrid.sim.queue_index, docs/architecture.md
    "Long queues")? A built-in entry may; a registered one if it says so, its ``index_aware``: its
    compiled code reads no queue row, or counts waiting jobs with ``core.waiting_jobs`` and skips
    ``queue_index.HOLE`` positions. A run that uses a registered component without it keeps no
    queue index: the same schedule, at a quadratic cost under overload."""
    return entry in _BUILT_IN or entry.index_aware
