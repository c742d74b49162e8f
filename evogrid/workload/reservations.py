"""Reservation requests beside a window's batch jobs, and the published ways to make them from a log.

No archive log records reservations, so studies derive them from batch jobs.
Two generators are provided, each seeded and each making requests of the jobs
it draws (Röblitz et al.'s jobs leave the batch workload, and are counted there
under ``dropped["became_reservation"]``; Meltzer's stay batch jobs unless
``templates="taken"``):

- :func:`meltzer` (J. Meltzer's comparison of co-reservation algorithms,
  FU Berlin / ZIB): each job with probability 0.1 becomes a two-part
  co-reservation. Duration = the job's requested time ``wc``; parts =
  ``[cpus, min(M, round(0.7 cpus + 0.6 u cpus)))]`` (u uniform on [0, 1),
  M the log's machine size); earliest start ``f = u' * span``; deadline
  ``min(f + wc + 86400, f + wc + 6 wc)``, with ``3 wc`` instead of ``6 wc``
  for RW3; submission ``f - 3 wc`` (RW1) or ``f - wc / 2`` (RW2, RW3),
  never before 0 (the window start). ``rw1-6h`` and ``rw1-6h-3`` are his
  6.8 workloads: RW1's requests made 30 s before ``f`` ("Anfragen werden 30
  Sekunden vor der frühesten Startzeit gestellt") with deadline ``f + 6 h +
  wc`` ("eine Startzeitspanne von sechs Stunden"); ``-3`` adds a third part
  equal to the second ("Die dritte Teilreservierung ist ein Duplikat der
  zweiten") and leaves out every third request.
- :func:`roblitz` (T. Röblitz, F. Schintke, J. Wendler, elastic grid
  reservations): every ``every``-th job becomes a one-part reservation
  requested when the job was submitted and wanting to start
  ``book_ahead_hours`` later (their timing; ``request_at="before-start"``:
  requested that long before the job's submission, never before 0, and
  starting at it), with ``slack_hours`` of room: deadline = start + run
  time + slack. With ``elastic=`` a range of
  processor counts, each request is also an :class:`Elastic` request.

An elastic request may run on any processor count n in ``[procs_min,
procs_max]``; its duration on n processors is ``duration_ref * S(procs_ref)
/ S(n)`` (:func:`elastic_duration`) under Amdahl's law or Downey's model
(:func:`speedup`).

Times are seconds from the window start; use day windows (``SDSC03@d0-14``)
for the two-week windows of Meltzer's study.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal, get_args

import numpy as np

from evogrid.errors import ScenarioError
from evogrid.workload.model import SECONDS_PER_DAY, Workload

SECONDS_PER_HOUR = 3600
MELTZER_VARIANTS = ("rw1", "rw2", "rw3", "rw1-6h", "rw1-6h-3")
#: Meltzer's 6.8 (Tables 16-17): RW1's requests made 30 s before their earliest start with a
#: six-hour start range; ``-3``: a third part, a copy of the second, and every third request left out.
RANGE_SECONDS, AHEAD_SECONDS = 6 * 3600, 30
#: Speedup models of elastic requests, by code: Amdahl (params: sequential fraction f, unused) and
#: Downey (params: average parallelism A, variance sigma).
AMDAHL, DOWNEY = 0, 1
SPEEDUP_MODELS = {"amdahl": AMDAHL, "downey": DOWNEY}
#: What an elastic request may prefer among its feasible placements: Röblitz et al.'s objective
#: functions end time, cost, -esr and np (the fewest processors first, their 3.3.1 example).
PREFERENCES = ("earliest_end", "lowest_cost", "highest_success", "fewest_processors")
#: The order their experiments used (their 4: "1st end time, 2nd cost and 3rd -esr").
DEFAULT_PREFERENCES = PREFERENCES[:3]


def speedup(model: int, params: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Speedup S(n) on ``n`` processors (float64, shape of ``n``).

    Amdahl: ``1 / (f + (1 - f) / n)`` with ``params[0] = f`` in [0, 1].
    Downey (A. B. Downey, "A model for speedup of parallel programs", 1997):
    ``params = (A, sigma)``, average parallelism A >= 1 and variance sigma >= 0;
    the speedup rises to A and stays there.
    """
    n = np.asarray(n, dtype=np.float64)
    if model == AMDAHL:
        f = float(params[0])
        return 1.0 / (f + (1.0 - f) / n)
    A, sigma = float(params[0]), float(params[1])
    if sigma <= 1.0:
        low = A * n / (A + sigma / 2.0 * (n - 1.0))
        mid = A * n / (sigma * (A - 0.5) + n * (1.0 - sigma / 2.0))
        return np.where(n <= A, low, np.where(n <= 2.0 * A - 1.0, mid, A))
    rising = n * A * (sigma + 1.0) / (sigma * (n + A - 1.0) + A)
    return np.where(n <= A + A * sigma - sigma, rising, A)


@dataclass(frozen=True)
class Elastic:
    """The elastic part of reservation requests: a processor range and a speedup model.

    Attributes (shape (n,) unless noted): ``procs_min``, ``procs_max``
    (processors), ``procs_ref`` and ``duration_ref`` (seconds on
    ``procs_ref`` processors), ``model`` (AMDAHL or DOWNEY), ``params``
    (float64, shape (n, 2)), and ``preferences``, one order of
    :data:`PREFERENCES` names for all requests (default :data:`DEFAULT_PREFERENCES`).
    """

    procs_min: np.ndarray
    procs_max: np.ndarray
    procs_ref: np.ndarray
    duration_ref: np.ndarray
    model: np.ndarray
    params: np.ndarray
    preferences: tuple[str, ...] = DEFAULT_PREFERENCES

    def __post_init__(self) -> None:
        bad_pref = [p for p in self.preferences if p not in PREFERENCES]
        if bad_pref or len(set(self.preferences)) != len(self.preferences):
            raise ScenarioError(f"elastic requests: preferences {self.preferences!r} must be distinct names "
                                f"from {', '.join(PREFERENCES)}")
        checks = (
            ("procs_min", self.procs_min < 1, "must be at least 1"),
            ("procs_max", self.procs_max < self.procs_min, "must not be below procs_min"),
            ("duration_ref", self.duration_ref <= 0, "must be positive"),
            ("procs_ref", self.procs_ref < 1, "must be at least 1"),
            ("model", ~np.isin(self.model, list(SPEEDUP_MODELS.values())), "must be AMDAHL or DOWNEY"),
            ("params", ((self.model == AMDAHL) & ((self.params[:, 0] < 0) | (self.params[:, 0] > 1)))
             | ((self.model == DOWNEY) & ((self.params[:, 0] < 1) | (self.params[:, 1] < 0))),
             "out of range (Amdahl: 0 <= f <= 1; Downey: A >= 1, sigma >= 0)"),
        )
        for label, bad, why in checks:
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise ScenarioError(f"elastic requests: request {i}: field {label} {why}")

    def duration(self, i: int, n: np.ndarray) -> np.ndarray:
        """Request ``i``'s duration (seconds, rounded up) on each processor count in ``n``."""
        return elastic_duration(int(self.model[i]), self.params[i], int(self.duration_ref[i]),
                                int(self.procs_ref[i]), n)


def elastic_duration(model: int, params: np.ndarray, duration_ref: int, procs_ref: int,
                     n: np.ndarray) -> np.ndarray:
    """``duration_ref * S(procs_ref) / S(n)`` seconds, rounded up, on each count in ``n`` (int64)."""
    ratio = speedup(model, params, np.array([procs_ref]))[0] / speedup(model, params, n)
    return np.ceil(duration_ref * ratio - 1e-9).astype(np.int64)


@dataclass(frozen=True)
class Collective:
    """The collective part of reservation requests (Cankar): run on up to ``max_sites`` sites at once,
    at least ``site_min`` processors on each and ``total_min`` in all (int64, shape (n,) each). A
    simple request of N parts of d processors is ``total_min = N * d``."""

    max_sites: np.ndarray
    site_min: np.ndarray
    total_min: np.ndarray

    def __post_init__(self) -> None:
        checks = (("max_sites", self.max_sites < 1, "must be at least 1"),
                  ("site_min", self.site_min < 1, "must be at least 1"),
                  ("total_min", self.total_min < self.site_min, "must not be below site_min"))
        for label, bad, why in checks:
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise ScenarioError(f"collective requests: request {i}: field {label} {why}")


@dataclass(frozen=True)
class Reservations:
    """Reservation requests, sorted by submission.

    Attributes (int64 arrays of shape (n,) unless noted; times in seconds
    from the window start):
        name: a label (``"SDSC03@d0-14 rw1"``).
        submit: when the request is made.
        earliest_start: the first acceptable start (Meltzer's ``f_start``, Röblitz's ``est``).
        deadline: the latest acceptable end: start + duration <= deadline.
        duration: seconds the processors are held.
        parts: shape (n, P): processors per part, one part per distinct site
            (a co-reservation), 0 where a request has fewer than P parts.
        source_job: the batch job (index in the source window) it was made from, -1 if none.
        site: the site it is booked at (index in the scenario), -1 where the
            grid may choose (a co-reservation's parts go to distinct sites).
        elastic: for elastic requests, their processor ranges and speedup
            models (then ``parts`` holds the reference count, one part).
        collective: for collective requests, their site and processor bounds
            (then ``parts`` holds the simple request's parts, at least
            ``max_sites`` columns).
    """

    name: str
    submit: np.ndarray
    earliest_start: np.ndarray
    deadline: np.ndarray
    duration: np.ndarray
    parts: np.ndarray
    source_job: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    site: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    elastic: Elastic | None = None
    collective: Collective | None = None

    def __post_init__(self) -> None:
        """Reject requests that can never be met, naming the first offending one and the field."""
        n = self.submit.shape[0]
        for label in ("source_job", "site"):
            if getattr(self, label).shape[0] == 0 and n:
                object.__setattr__(self, label, np.full(n, -1, dtype=np.int64))
        for label, values in (("earliest_start", self.earliest_start), ("deadline", self.deadline),
                              ("duration", self.duration), ("source_job", self.source_job),
                              ("site", self.site)):
            if values.shape != (n,):
                raise ScenarioError(f"{self.name}: field {label} has shape {values.shape}, expected ({n},)")
        if self.parts.ndim != 2 or self.parts.shape[0] != n:
            raise ScenarioError(f"{self.name}: field parts has shape {self.parts.shape}, expected ({n}, P)")
        checks = (
            ("duration", self.duration <= 0, "must be positive"),
            ("submit", self.submit < 0, "must not be negative"),
            ("earliest_start", self.earliest_start < self.submit, "must not precede the submission"),
            ("deadline", self.deadline < self.earliest_start + self.duration,
             "leaves no room: deadline < earliest_start + duration"),
            ("parts", (self.parts < 0).any(axis=1) | (self.parts.sum(axis=1) == 0),
             "needs at least one part and no negative one"),
            ("site", (self.site < -1) | ((self.site >= 0) & ((self.parts > 0).sum(axis=1) > 1)),
             "must be -1 (any) or a site index, and a request booked at one site has one part"),
        )
        for label, bad, why in checks:
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise ScenarioError(
                    f"{self.name}: request {i}: field {label} {why} ({int(bad.sum())} such requests)")
        if self.elastic is not None and self.elastic.procs_min.shape != (n,):
            raise ScenarioError(f"{self.name}: the elastic part must have one entry per request ({n})")
        if self.collective is not None and (self.collective.max_sites.shape != (n,) or (
                n and self.collective.max_sites.max() > self.parts.shape[1])):
            raise ScenarioError(f"{self.name}: the collective part needs one entry per request ({n}) and "
                                "parts with at least max_sites columns")
        if n and (np.diff(self.submit) < 0).any():
            raise ScenarioError(f"{self.name}: field submit must be sorted (requests in submission order)")

    @property
    def n_requests(self) -> int:
        return int(self.submit.shape[0])

    def __len__(self) -> int:
        return self.n_requests

    def infeasible(self, machine_procs: np.ndarray) -> np.ndarray:
        """Boolean mask, shape (n,): requests no grid of these sites (processors) can ever hold:
        more parts than sites, or parts that do not fit distinct sites, largest part on largest
        site; booked at a site that is not there or too small."""
        machine_procs = np.asarray(machine_procs, dtype=np.int64)
        sizes = np.sort(machine_procs)[::-1]
        parts = -np.sort(-self.parts, axis=1)
        width = min(parts.shape[1], sizes.shape[0])
        too_many = (parts[:, sizes.shape[0]:] > 0).any(axis=1)
        fixed = self.site >= 0
        there = np.where(self.site < machine_procs.shape[0], self.site, 0)
        misplaced = fixed & ((self.site >= machine_procs.shape[0]) | (parts[:, 0] > machine_procs[there]))
        return too_many | (parts[:, :width] > sizes[:width]).any(axis=1) | misplaced


def _take_jobs(window: Workload, chosen: np.ndarray) -> Workload:
    """The window without the ``chosen`` jobs, which are counted as ``became_reservation``."""
    rest = window.select(~chosen)
    dropped = dict(window.dropped)
    if chosen.any():
        dropped["became_reservation"] = dropped.get("became_reservation", 0) + int(chosen.sum())
    return replace(rest, dropped=dropped)


#: How Meltzer's generator draws a request's second part and earliest start: with one number
#: ("shared", his 6.3 read literally and the default: "$random$ für jede zu konstruierende Anfrage
#: eine zufällige Zahl zwischen 0 und 1" in both formulas) or with two (``independent``, evogrid's
#: earlier reading).
MeltzerDraw = Literal["independent", "shared"]
MELTZER_DRAWS: tuple[str, ...] = get_args(MeltzerDraw)
#: What becomes of the jobs Meltzer's requests are made from: they stay batch jobs (``kept``, the
#: default: his 6.3 has a job serve "als Vorlage für eine Co-Reservierungsanfrage", as a template
#: for a request, and his BM 0 keeps its share of jobs in Table 20; docs/reservations.md) or leave
#: the workload (``taken``, evogrid's earlier reading, counted as ``became_reservation``).
MeltzerTemplates = Literal["kept", "taken"]
MELTZER_TEMPLATES: tuple[str, ...] = get_args(MeltzerTemplates)


def meltzer(window: Workload, variant: str = "rw1", seed: int = 0, probability: float = 0.1,
            span_seconds: int | None = None, draw: MeltzerDraw = "shared",
            templates: MeltzerTemplates = "kept") -> tuple[Workload, Reservations]:
    """Meltzer's RW1/RW2/RW3 co-reservations from one site's window (module docstring).

    Args:
        window: the batch jobs (one site's log window).
        variant: ``rw1``, ``rw2`` or ``rw3``.
        seed: the random stream; the same seed gives the same requests.
        probability: the chance that a job becomes a request.
        span_seconds: the range of earliest starts; default the window's
            span (0 to its last submission).
        draw: :data:`MELTZER_DRAWS`: one random number per request for its
            second part and earliest start (``shared``, his), or two.
        templates: :data:`MELTZER_TEMPLATES`: the drawn jobs stay batch jobs (``kept``, his) or
            leave the window (``taken``).

    Returns:
        ``(batch, requests)``: the window (without the drawn jobs if ``taken``), and the requests.
    """
    variant = variant.lower()
    if variant not in MELTZER_VARIANTS:
        known = ", ".join(MELTZER_VARIANTS)
        raise ScenarioError(f"unknown reservation workload {variant!r}; expected one of {known}")
    if draw not in MELTZER_DRAWS:
        raise ScenarioError(f"unknown draw {draw!r}; expected one of {', '.join(MELTZER_DRAWS)}")
    if templates not in MELTZER_TEMPLATES:
        known = ", ".join(MELTZER_TEMPLATES)
        raise ScenarioError(f"unknown templates {templates!r}; expected one of {known}")
    rng = np.random.default_rng(seed)
    chosen = rng.random(window.n_jobs) < probability
    idx = np.flatnonzero(chosen)
    wc = window.estimate[idx].astype(np.int64)
    cpus = window.procs[idx].astype(np.int64)
    span = window.span_seconds if span_seconds is None else int(span_seconds)
    u = rng.random(idx.size)
    start = np.floor(u * span).astype(np.int64)
    if draw == "independent":
        u = rng.random(idx.size)
    second = np.minimum(window.machine_procs, np.rint(0.7 * cpus + 0.6 * u * cpus))
    parts = np.stack([cpus, second.astype(np.int64)], axis=1)
    factor = 3 if variant == "rw3" else 6
    deadline = np.minimum(start + wc + SECONDS_PER_DAY, start + wc + factor * wc)
    ahead = 3 * wc if variant == "rw1" else wc // 2
    submit = np.maximum(0, start - ahead)
    if variant.startswith("rw1-6h"):
        deadline = start + RANGE_SECONDS + wc
        submit = np.maximum(0, start - AHEAD_SECONDS)
    if variant == "rw1-6h-3":
        parts = np.concatenate([parts, parts[:, 1:]], axis=1)
        made = np.arange(idx.size) % 3 != 2  # every third drawn job makes no request (and stays a job)
        chosen[idx[~made]] = False
        idx, wc, start, deadline, submit, parts = (a[made] for a in (idx, wc, start, deadline, submit, parts))
    order = np.argsort(submit, kind="stable")  # earliest starts are drawn at random
    requests = Reservations(f"{window.name} {variant}", submit[order], start[order], deadline[order],
                            wc[order], parts[order], idx[order].astype(np.int64))
    return (window if templates == "kept" else _take_jobs(window, chosen)), requests


#: When a book-ahead request is made: at its job's submission, its earliest start ``b`` hours later
#: (``submission``, Röblitz et al.'s 4: "The reference value for the book-ahead time is the
#: submission time from the original workload"), or ``b`` hours before the job's submission, which
#: stays its earliest start (``before-start``, evogrid's earlier reading).
RequestAt = Literal["submission", "before-start"]
REQUEST_AT: tuple[str, ...] = get_args(RequestAt)


def roblitz(window: Workload, book_ahead_hours: float = 0.0, slack_hours: float = 0.0, every: int = 10,
            first_jobs: int | None = None, elastic: tuple[float, float] | None = None,
            model: str = "amdahl", params: tuple[float, float] = (0.05, 0.0), site: int = 0,
            offset: int = 0, request_at: RequestAt = "submission") -> tuple[Workload, Reservations]:
    """Röblitz et al.'s book-ahead reservations: every ``every``-th job (module docstring).

    Args:
        window: the batch jobs.
        book_ahead_hours: how long before its wanted start a request is made.
        slack_hours: room between the earliest start + run time and the deadline.
        every: one job in this many becomes a request (the 10th, 20th, ...).
        first_jobs: use only the window's first jobs (their study: 2,000).
        elastic: ``(low, high)``: make the requests elastic, from
            ``max(1, floor(low * cpus))`` to ``min(M, ceil(high * cpus))``
            processors, with the job's run time on its own count as reference
            (the study's factor pairs are (1, 1) and (0.5, 2), their 4; which speedup
            model and parameters its experiments used it does not say).
        model, params: the speedup model (``amdahl``: f; ``downey``: A, sigma).
        site: the site (index in the scenario) the requests are booked at.
        offset: which job of each ``every`` becomes one (0: the 10th, 20th, ...;
            1: the 9th, 19th, ...), for repetitions with other requests.
        request_at: when the request is made (:data:`REQUEST_AT`; their timing by default).

    Returns:
        ``(batch, requests)``: the remaining batch jobs and the requests.
    """
    if every < 1 or book_ahead_hours < 0 or slack_hours < 0 or not 0 <= offset < every:
        raise ScenarioError("roblitz: every >= 1, 0 <= offset < every, book_ahead_hours >= 0 and "
                            "slack_hours >= 0 are needed")
    if model not in SPEEDUP_MODELS:
        raise ScenarioError(f"unknown speedup model {model!r}; expected one of {', '.join(SPEEDUP_MODELS)}")
    if request_at not in REQUEST_AT:
        raise ScenarioError(f"roblitz: request_at {request_at!r}; expected one of {', '.join(REQUEST_AT)}")
    if first_jobs is not None:
        window = window.select(np.arange(window.n_jobs) < first_jobs)
    chosen = (np.arange(window.n_jobs) + 1 + offset) % every == 0
    idx = np.flatnonzero(chosen)
    ahead = round(book_ahead_hours * SECONDS_PER_HOUR)
    submitted = window.submit[idx].astype(np.int64)
    run = np.maximum(1, window.run_time[idx].astype(np.int64))  # a zero-length job holds 1 s
    if request_at == "submission":
        submit, start = submitted, submitted + ahead
    else:
        submit, start = np.maximum(0, submitted - ahead), submitted
    deadline = start + run + round(slack_hours * SECONDS_PER_HOUR)
    cpus = window.procs[idx].astype(np.int64)
    name = f"{window.name} book-ahead {book_ahead_hours:g} h"
    # Already in submission order: the window's jobs are, and requesting a
    # constant ahead (never before 0) keeps that order.
    part = None
    if elastic is not None:
        low, high = elastic
        if not 0 < low <= 1 <= high:
            raise ScenarioError(f"roblitz: elastic range {elastic!r} needs 0 < low <= 1 <= high")
        part = Elastic(np.maximum(1, np.floor(low * cpus)).astype(np.int64),
                       np.minimum(window.machine_procs, np.ceil(high * cpus)).astype(np.int64),
                       cpus, run, np.full(idx.size, SPEEDUP_MODELS[model], dtype=np.int64),
                       np.tile(np.asarray(params, dtype=np.float64), (idx.size, 1)))
    requests = Reservations(name, submit, start, deadline, run, cpus[:, None], idx.astype(np.int64),
                            np.full(idx.size, site, dtype=np.int64), part)
    return _take_jobs(window, chosen), requests


def collective(requests: Reservations, max_sites: int | None = None, site_min_fraction: float = 0.5
               ) -> Reservations:
    """The collective counterparts of co-reservations (Cankar's comparison, our mapping): the same
    times, ``total_min`` = the parts' sum, ``max_sites`` (default: the parts' count) and
    ``site_min = max(1, ceil(site_min_fraction * total_min / max_sites))``; the simple request is the
    original one."""
    if not 0 < site_min_fraction <= 1:
        raise ScenarioError("collective: site_min_fraction must be in (0, 1]")
    n_parts = (requests.parts > 0).sum(axis=1)
    sites = n_parts if max_sites is None else np.full(requests.n_requests, int(max_sites), dtype=np.int64)
    total = requests.parts.sum(axis=1).astype(np.int64)
    site_min = np.maximum(1, np.ceil(site_min_fraction * total / np.maximum(sites, 1))).astype(np.int64)
    width = max(requests.parts.shape[1], int(sites.max(initial=1)))
    parts = np.zeros((requests.n_requests, width), dtype=np.int64)
    parts[:, :requests.parts.shape[1]] = requests.parts
    return replace(requests, name=f"{requests.name} collective", parts=parts,
                   collective=Collective(sites.astype(np.int64), site_min, np.maximum(total, site_min)))


def equal_parts(requests: Reservations, n_parts: int) -> Reservations:
    """Simple requests as Cankar defines them for his comparison: each request's processors (the
    parts' sum e) as ``n_parts`` equal fixed parts of ``ceil(e / n_parts)``, one per site; the
    same times. A part wider than every site cannot be placed."""
    if n_parts < 1:
        raise ScenarioError("equal_parts: n_parts >= 1 is needed")
    total = requests.parts.sum(axis=1).astype(np.int64)
    return replace(requests, name=f"{requests.name} {n_parts} equal parts",
                   parts=_equal_split(total, n_parts))


def _equal_split(total: np.ndarray, n_parts: int) -> np.ndarray:
    """``n_parts`` equal parts of ``ceil(total / n_parts)`` per row, shape (len(total), n_parts)."""
    return np.repeat((-(-total // n_parts))[:, None], n_parts, axis=1)


def wide_jobs(window: Workload, machine_procs: int, max_sites: int, site_min_fraction: float = 0.5,
              slack_hours: float = 168.0) -> tuple[Workload, Reservations]:
    """Co-allocate the jobs of ``window`` wider than ``machine_procs`` (an option; by default
    preprocessing drops them): ``(batch, requests)``, the narrower jobs on a machine of
    ``machine_procs`` processors, and one collective request per wide job, made at its submission
    to start then or later (within ``slack_hours``) for its run time, on up to ``max_sites`` sites
    with ``e`` = its processors and ``d = max(1, ceil(site_min_fraction * e / max_sites))``; the
    simple counterpart (``parts``) is ``max_sites`` equal parts of ``ceil(e / max_sites)``. The wide
    jobs leave the batch workload and are counted under ``dropped["became_collective"]``."""
    if machine_procs < 1 or max_sites < 1 or not 0 < site_min_fraction <= 1 or slack_hours < 0:
        raise ScenarioError("wide_jobs: machine_procs and max_sites >= 1, 0 < site_min_fraction <= 1 and "
                            "slack_hours >= 0 are needed")
    wide = window.procs > machine_procs
    rest = window.select(~wide)
    dropped = dict(rest.dropped)
    if wide.any():
        dropped["became_collective"] = dropped.get("became_collective", 0) + int(wide.sum())
    batch = replace(rest, machine_procs=int(machine_procs), dropped=dropped)
    e = window.procs[wide].astype(np.int64)
    submit = window.submit[wide].astype(np.int64)
    run = np.maximum(1, window.run_time[wide].astype(np.int64))
    parts = _equal_split(e, max_sites)
    site_min = np.maximum(1, np.ceil(site_min_fraction * e / max_sites)).astype(np.int64)
    requests = Reservations(f"{window.name} wide jobs", submit, submit.copy(),
                            submit + run + round(slack_hours * SECONDS_PER_HOUR), run, parts,
                            np.flatnonzero(wide).astype(np.int64),
                            collective=Collective(np.full(e.size, max_sites, dtype=np.int64), site_min, e))
    return batch, requests


def merge_requests(name: str, requests: list[Reservations]) -> Reservations:
    """Plain or collective requests of several sources as one set, in submission order (stable)."""
    if any(r.elastic is not None for r in requests) or len({r.collective is None for r in requests}) > 1:
        raise ScenarioError("merge_requests: elastic requests, or collective with other ones, do not merge")
    order = np.argsort(np.concatenate([r.submit for r in requests]), kind="stable")

    def cat(arrays: list[np.ndarray]) -> np.ndarray:
        return np.concatenate(arrays)[order]

    width = max(r.parts.shape[1] for r in requests)
    parts = cat([np.pad(r.parts, ((0, 0), (0, width - r.parts.shape[1]))) for r in requests])
    c = None
    if requests[0].collective is not None:
        c = Collective(*(cat([getattr(r.collective, f) for r in requests])
                         for f in ("max_sites", "site_min", "total_min")))
    return Reservations(name, *(cat([getattr(r, f) for r in requests])
                                for f in ("submit", "earliest_start", "deadline", "duration")),
                        parts, cat([r.source_job for r in requests]), cat([r.site for r in requests]),
                        collective=c)

