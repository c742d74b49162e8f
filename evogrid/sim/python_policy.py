"""Transfer and location policies, queue orders and reservation admission written as plain Python
classes (docs/python_policies.md).

Subclass :class:`TransferPolicy` (does a site run a job?),
:class:`LocationPolicy` (in which order does a site offer a job to the
others?) or :class:`QueueOrder` (where does a job join a queue?) and hand an
instance to :class:`evogrid.policy.PythonPolicy`, or :class:`AdmissionPolicy`
(does a site admit a reservation part?) to
``ReservationRules("python", policy=...)``. The
compiled grid loop runs every other decision itself; at each decision of a
Python policy it pauses, this module asks the policy with a read-only
:class:`GridView` of the grid at that moment, and the loop goes on with the
answer (evogrid.sim.grid.run_grid). Decisions see what the compiled
ones see: estimates, not run times.

A policy is deterministic if its code is; the same seed gives the same
schedule. Example, AWF::

    class MyAwf(TransferPolicy):
        def accepts(self, view, site, partner):
            return view.procs[view.job] <= view.free[site]
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from evogrid.errors import ScenarioError
from evogrid.sim import core, grid, queue_index
from evogrid.sim.co_admission import C_MINSIZE, C_STEP, C_WINDOWS, candidate_starts, start_at
from evogrid.sim.reserving import R_DEADLINE, R_DURATION, R_EARLIEST, R_SITE


class GridView:
    """What a Python policy may read at a decision; every array is a read-only view of the loop's state.

    Attributes:
        time: the decision's time (s).
        job: the job being decided (an index into the per-job arrays).
        submit, estimate, procs, origin: per job, submission time (s), requested time (s, at the
            executing site once the job moved), processors, and the site it was submitted at.
        start, site: per job, start time (s; -1 while waiting, or for good where a broker refused
            the job, Beichter's policies) and the site it runs or waits at.
        machine_procs, free, waiting_procs, n_running: per site, processors; processors free now;
            processors the waiting jobs request; running jobs.
        speed: per site, the speed factor (1.0 on homogeneous grids).
        published: the view a location policy gets where the grid's information service refreshes
            every ``refresh_s`` > 0 seconds: ``free``, ``waiting_procs``, ``n_running``,
            :meth:`n_waiting` and :meth:`running` as last published, as the compiled location
            policies read them; the per-job arrays are the jobs' records as they are, and
            :meth:`waiting` (the queue's contents, which are not published) is an error.
    """

    def __init__(self, jobs: np.ndarray, state: core.State, speed: np.ndarray,
                 published: bool = False) -> None:
        queue, sc, running, out = state.queue, state.sc, state.running, state.out
        K = running.shape[1]
        self.time = 0
        self.job = -1
        self._queue, self._sc, self._running = queue, sc, running
        self.submit, self.estimate = _frozen(jobs[core.SUBMIT]), _frozen(jobs[core.ESTIMATE])
        self.procs, self.origin = _frozen(jobs[core.PROCS]), _frozen(jobs[core.HOME])
        self.start, self.site = _frozen(out[core.START_TIME]), _frozen(out[core.SITE])
        self.machine_procs, self.free = _frozen(sc[:K, core.M_PROCS]), _frozen(sc[:K, core.FREE])
        self.waiting_procs, self.n_running = _frozen(sc[:K, core.W_PROCS]), _frozen(sc[:K, core.N_HEAP])
        self.speed = _frozen(speed)
        self.n_sites = K
        self.published = published

    def waiting(self, site: int) -> np.ndarray:
        """The jobs waiting in ``site``'s queue, in queue order (not in a published view)."""
        if self.published:
            raise ScenarioError("GridView.waiting: the information service publishes the sites' counters "
                                "and running jobs, not their queues (refresh_s > 0); use n_waiting and "
                                "waiting_procs")
        positions = self._queue[site, self._sc[site, core.Q_HEAD]:self._sc[site, core.Q_TAIL]]
        if self._sc[site, core.Q_HOLES]:  # a long queue, indexed: jobs that left hold its positions
            positions = positions[positions != queue_index.HOLE]
        return _frozen(positions)

    def n_waiting(self, site: int) -> int:
        """How many jobs wait in ``site``'s queue."""
        return int(core.waiting_jobs.py_func(self._sc, site))

    def running(self, site: int) -> np.ndarray:
        """The jobs running at ``site`` (in no particular order)."""
        return _frozen(self._running[core.HEAP_JOB, site, :self._sc[site, core.N_HEAP]])


def _frozen(a: np.ndarray) -> np.ndarray:
    view = a.view()
    view.flags.writeable = False
    return view


class TransferPolicy(ABC):
    """A site's transfer policy: does ``site`` run ``view.job``?

    Asked first of the job's own site (``site == view.origin[view.job]``; True keeps the job, False
    offers it to the partners, ``partner`` is then the first of them in location order), then of
    each partner in location order until one says True (``partner`` is the job's own site).
    """

    @abstractmethod
    def accepts(self, view: GridView, site: int, partner: int) -> bool:
        """True: ``site`` runs the job (keeps its own, or takes the one ``partner`` offers)."""


class LocationPolicy(ABC):
    """The order in which ``site`` offers ``view.job`` to the others (a broker: sends it to the first)."""

    @abstractmethod
    def order(self, view: GridView, site: int, candidates: tuple[int, ...]) -> Sequence[int]:
        """``candidates`` (the sites wide enough and, with requirements and grid caps, qualified; for
        a broker ``site`` itself first) in the order to try them: a permutation of them."""


class QueueOrder(ABC):
    """The order of every site's queue: a key per job, asked once, at its submission (before the job is
    routed); a job joins a queue behind every waiting job whose key is not larger (ascending keys, ties
    in submission order). The LRMS then schedules the queue in that order; the central pool stays in
    submission order."""

    @abstractmethod
    def key(self, view: GridView) -> float:
        """``view.job``'s key (smaller: nearer the head). Shortest job first: ``view.estimate[view.job]``."""


class AdmissionPolicy(ABC):
    """Does a site admit a part of a reservation request (the ``python`` admission algorithm,
    evogrid.sim.admission)? Asked for every part of a request at each of its candidate sites and
    candidate starts when the request arrives (``view.time``; ``view.job`` is -1), before Meltzer's
    variant tree places it as his Algorithm 2 does: the first variant whose parts all fit the sites'
    profiles and are admitted. Only the answers where a part fits count."""

    @abstractmethod
    def admits(self, view: GridView, site: int, procs: int, start: int, duration: int) -> bool:
        """Does ``site`` admit ``procs`` processors over ``[start, start + duration)`` (s)?"""


def _ask_admission(admission: AdmissionPolicy, view: GridView, r: int, requests: tuple) -> None:
    """Fill the rules' ``asked`` table for request ``r`` (``requests = (book, rules)`` as the loop
    takes them) with ``admission``'s answers."""
    book, rules = requests
    packed, parts, orders = book[0], book[1], book[2]
    config, asked = rules[0], rules[5]
    earliest, duration = int(packed[R_EARLIEST, r]), int(packed[R_DURATION, r])
    starts = candidate_starts.py_func(earliest, int(packed[R_DEADLINE, r]) - duration, int(config[C_MINSIZE]),
                                      int(config[C_WINDOWS]), int(config[C_STEP]))
    sites = [int(packed[R_SITE, r])] if packed[R_SITE, r] >= 0 else orders[:, r].tolist()
    asked[...] = False
    for i in range(int((parts[:, r] > 0).sum())):
        procs = int(parts[i, r])
        for k in sites:
            for c in range(starts[3]):
                asked[i, k, c] = bool(admission.admits(view, k, procs, start_at.py_func(starts, c), duration))


def decider(jobs: np.ndarray, speed: np.ndarray, transfer: Mapping[int, TransferPolicy],
            location: LocationPolicy | None, order: QueueOrder | None = None,
            admission: tuple[AdmissionPolicy, tuple] | None = None,
            published: bool = False) -> Callable[[tuple, tuple], None]:
    """The ``decide(state, work)`` of :func:`evogrid.sim.grid.run_grid`: asks the Python policy
    named in the pause record (``work.pause``) and writes its answer there (a location policy's into the
    order ``work.order``, a queue order's key into ``work.queue_key``, an admission policy's into
    the rules' ``asked`` table). ``admission``: ``(policy, (book, rules))`` of a run with requests.
    ``published``: the location policy sees the sites as the information service last published
    them (``work.seen``; the run has ``refresh_s`` > 0), the other policies as they are."""
    views: list[GridView] = []

    def decide(state: tuple, work: tuple) -> None:
        if not views:
            views.append(GridView(jobs, state, speed))
            views.append(GridView(jobs, work.seen, speed, published=True) if published else views[0])
        view = views[0]
        ranking, pause = work.order, work.pause
        view.time, view.job = int(pause[grid.P_TIME]), int(pause[grid.P_JOB])
        site = int(pause[grid.P_SITE])
        if pause[grid.P_ASK] == grid.ASK_ADMISSION:
            view.job = -1
            _ask_admission(admission[0], view, int(pause[grid.P_REQUEST]), admission[1])
            pause[grid.P_ADMITTED] = pause[grid.P_REQUEST]
            return
        if pause[grid.P_ASK] == grid.ASK_KEY:
            work.queue_key[view.job] = float(order.key(view))
            pause[grid.P_KEYED] = view.job
            return
        if pause[grid.P_ASK] == grid.ASK_TRANSFER:
            pause[grid.P_ANSWER] = bool(transfer[site].accepts(view, site, int(pause[grid.P_PARTNER])))
            return
        n = int(pause[grid.P_COUNT])
        candidates = tuple(ranking[:n].tolist())
        seen = views[1]
        seen.time, seen.job = view.time, view.job
        ranked = list(location.order(seen, site, candidates))
        if sorted(ranked) != sorted(candidates):
            raise ScenarioError(f"{type(location).__name__}.order must return a permutation of the "
                                f"candidates {list(candidates)}, not {ranked}")
        ranking[:n] = ranked
        pause[grid.P_RANKED] = 1

    return decide
