"""Local schedulers (LRMS) by name: one registry entry and one compiled rule each (docs/architecture.md).

Every LRMS shares one compiled queue scan (:func:`evogrid.sim.core.lrms_scan`):
jobs start in queue order while they fit the free processors; the first job
that does not fit is the *head*, and each later job that fits is put to the
LRMS's *rule*. A rule is a small compiled function::

    rule(t, need, estimate, T, extra) -> (verdict, extra)

for a job behind a blocked head at time ``t`` (seconds) needing ``need``
processors for an estimated ``estimate`` seconds; ``T`` and ``extra`` are the
head's EASY reservation (its shadow time and the processors spare then; only
computed for an LRMS with ``uses_shadow``). The verdict is ``START``, ``SKIP``
(keep it waiting) or ``STOP`` (end the pass). An LRMS without a rule (FCFS)
ends the pass at the blocked head.

An LRMS with ``profile`` (conservative backfilling) judges jobs behind the
head on the site's availability profile instead (:mod:`evogrid.sim.profile`):
every waiting job holds the earliest reservation that fits, in queue order,
and a job starts now only if its reservation is now.

The queue order is first come, first served, or with ``order="sjf"``
shortest estimate first (a new job joins behind every waiting job whose
estimate is not longer): ``sjf`` and ``easy-sjf`` are FCFS and EASY over
such a queue.

Adding an LRMS: write its rule, :func:`register` an :class:`Lrms` entry (a
built-in one goes into :data:`REGISTRY` below), and give the reference
simulator in ``tests/reference_sim.py`` its twin. The dispatch
:func:`behind_head` over the codes is generated from the registry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from evogrid.sim import numba_stamp
from evogrid.sim.dispatch import compile_inline
from evogrid.sim.numba_stamp import njit

#: Verdicts of an LRMS rule on a job behind the blocked head.
SKIP, START, STOP = 0, 1, 2


@njit(cache=True, inline="always")
def easy_rule(t, need, estimate, T, extra):
    """EASY backfilling: start a job that does not delay the head's reservation.

    It ends (by its estimate) by the shadow time ``T``, or it uses only the
    ``extra`` processors spare at ``T`` (which it then takes).
    """
    if t + estimate <= T:
        return START, extra
    if need <= extra:
        return START, extra - need
    return SKIP, extra


@njit(cache=True, inline="always")
def easy_may_start(t, need, estimate, T, extra):
    """Might EASY start a job needing at least ``need`` processors for at least ``estimate`` s?"""
    return t + estimate <= T or need <= extra


@njit(cache=True, inline="always")
def list_rule(t, need, estimate, T, extra):
    """LIST (greedy): start whatever fits."""
    return START, extra


@njit(cache=True, inline="always")
def always(t, need, estimate, T, extra):
    """A rule's ``may_start`` where every job that fits starts."""
    return True


@dataclass(frozen=True)
class Lrms:
    """A local scheduler.

    Attributes:
        name: as users write it (``--lrms easy``).
        code: its integer in the compiled core (0, 1, ...).
        help: one line for ``--help`` and docs.
        rule: the compiled rule for jobs behind a blocked head (module
            docstring); None: nothing passes a blocked head.
        uses_shadow: the rule reads the head's reservation (T, extra); the core
            then keeps the site's running jobs sorted by estimated end.
        profile: jobs behind the head are judged on the availability profile
            (module docstring) instead of by a rule; the core keeps the
            running jobs sorted by estimated end, which the profile starts from.
        order: ``fifo`` (submission order) or ``sjf`` (shortest estimate first, ties in
            submission order) for the site's own queue.
        may_start: ``may_start(t, need, estimate, T, extra) -> bool``, False only if
            the rule skips every job needing at least ``need`` processors for at
            least ``estimate`` seconds (the arguments as for ``rule``). With it, a
            ``fifo`` queue is indexed (evogrid.sim.queue_index) and a pass jumps
            over such jobs; the rule must then never answer ``STOP`` and must
            leave ``extra`` as it is when it answers ``SKIP``. None: the pass
            reads every job.
        reference: where its twin in the pure-Python reference simulator lives.
    """

    name: str
    code: int
    help: str
    rule: Callable | None = None
    uses_shadow: bool = False
    profile: bool = False
    order: str = "fifo"
    may_start: Callable | None = None
    reference: str = "tests/reference_sim.py"

    @property
    def backfills(self) -> bool:
        """Can a job pass the blocked head?"""
        return self.rule is not None or self.profile

    @property
    def indexed(self) -> bool:
        """Does a pass over its own queue use the queue index (``may_start``)?"""
        return self.rule is not None and self.may_start is not None and self.order == "fifo"


REGISTRY: dict[str, Lrms] = {
    e.name: e
    for e in (
        Lrms("fcfs", 0, "first come, first served: the queue head blocks everyone"),
        Lrms("easy", 1, "EASY backfilling: jobs may pass the head if they do not delay its reservation",
             easy_rule, uses_shadow=True, may_start=easy_may_start),
        Lrms("list", 2, "LIST (greedy): every job that fits starts, in queue order", list_rule,
             may_start=always),
        Lrms("conservative", 3, "conservative backfilling: every waiting job holds a reservation; "
             "a job may start early only if it delays none", profile=True),
        Lrms("sjf", 4, "shortest job first: the queue in order of estimates, its head blocks everyone",
             order="sjf"),
        Lrms("easy-sjf", 5, "EASY backfilling over a queue in order of estimates (shortest first)",
             easy_rule, uses_shadow=True, order="sjf", may_start=easy_may_start),
    )
}
FCFS, EASY, LIST, CONSERVATIVE = (REGISTRY[n].code for n in ("fcfs", "easy", "list", "conservative"))
#: The compilation mode of a grid whose sites run different LRMS (not an LRMS code).
MIXED = -1


def _generate_dispatch(entries: tuple[Lrms, ...]) -> tuple[Callable, tuple[bool, ...], ...]:
    """The compiled ``behind_head(lrms, ...)`` and ``group_may_start(lrms, ...)`` over ``entries``;
    then by code: ``uses_shadow``, ``backfills``, ``profile``, "keeps the running jobs sorted by
    estimated end", "orders its queue by estimate" and ``indexed``.

    Generated rather than written so that a registry entry is all an LRMS
    needs (:mod:`evogrid.sim.dispatch`).
    """
    lines = ["def behind_head(lrms, t, need, estimate, T, extra):",
             '    """The verdict of LRMS ``lrms`` on a job behind the blocked head (module docstring)."""']
    ruled = [e for e in entries if e.rule is not None]
    for e in ruled:
        lines += [f"    if lrms == {e.code}:", f"        return rule_{e.code}(t, need, estimate, T, extra)"]
    lines.append("    return STOP, extra  # no rule: the scan never asks")
    indexed = [e for e in entries if e.indexed]
    lines += ["def group_may_start(lrms, t, need, estimate, T, extra):",
              '    """``may_start`` of LRMS ``lrms`` (the registry entry) for a group of jobs."""']
    for e in indexed:
        lines += [f"    if lrms == {e.code}:", f"        return may_{e.code}(t, need, estimate, T, extra)"]
    lines.append("    return True  # not indexed: the pass never asks")
    namespace = {"STOP": STOP, **{f"rule_{e.code}": e.rule for e in ruled},
                 **{f"may_{e.code}": e.may_start for e in indexed}}
    by_code = sorted(entries, key=lambda e: e.code)
    return (*compile_inline(lines, namespace, __file__, ("behind_head", "group_may_start")),
            tuple(e.uses_shadow for e in by_code), tuple(e.backfills for e in by_code),
            tuple(e.profile for e in by_code), tuple(e.uses_shadow or e.profile for e in by_code),
            tuple(e.order == "sjf" for e in by_code), tuple(e.indexed for e in by_code))


ORDERS = ("fifo", "sjf")
(behind_head, group_may_start, USES_SHADOW, BACKFILLS, USES_PROFILE, KEEPS_RUN_LIST, SJF_ORDER,
 INDEXED) = _generate_dispatch(tuple(REGISTRY.values()))


def register(entry: Lrms) -> None:
    """Add an LRMS (before the first simulation of this process compiles the core).

    Its code must be the next free one. The numba cache stamp takes the new
    entry in, so compiled loops without it are never served for it.
    """
    global behind_head, group_may_start, USES_SHADOW, BACKFILLS, USES_PROFILE, KEEPS_RUN_LIST
    global SJF_ORDER, INDEXED
    if entry.name in REGISTRY or entry.code != len(REGISTRY):
        raise ValueError(f"LRMS {entry.name!r}: the name must be new and the code {len(REGISTRY)}")
    if entry.order not in ORDERS:
        raise ValueError(f"LRMS {entry.name!r}: order must be one of {', '.join(ORDERS)}, "
                         f"not {entry.order!r}")
    rule = entry.rule.py_func.__code__.co_code.hex() if entry.rule is not None else "-"
    may = entry.may_start.py_func.__code__.co_code.hex() if entry.may_start is not None else "-"
    numba_stamp.add_to_stamp(f"lrms {entry.name} {entry.code} {entry.uses_shadow} {entry.profile} "
                             f"{entry.order} {rule} {may}")
    REGISTRY[entry.name] = entry
    (behind_head, group_may_start, USES_SHADOW, BACKFILLS, USES_PROFILE, KEEPS_RUN_LIST, SJF_ORDER,
     INDEXED) = _generate_dispatch(tuple(REGISTRY.values()))


def lrms_code(name: str) -> int:
    """The core's code for an LRMS name; ValueError names the known ones."""
    try:
        return REGISTRY[name.lower()].code
    except KeyError:
        raise ValueError(f"unknown LRMS {name!r}; expected one of {', '.join(REGISTRY)}") from None
