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

One file per LRMS holds its rule and its registry entry ``ENTRY`` (an
:class:`~evogrid.sim.lrms.base.Lrms`): ``fcfs``, ``easy``, ``greedy`` (LIST),
``conservative``, ``sjf`` and ``easy_sjf``. Adding an LRMS: write its file
with its rule and entry, :func:`register` the entry (a built-in one goes
into :data:`BUILT_IN` below), and give the reference simulator in
``tests/reference_sim.py`` its twin. The dispatch :func:`behind_head` over
the codes is generated from the registry.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from evogrid.errors import EvogridError
from evogrid.sim import numba_stamp
from evogrid.sim.dispatch import compile_inline
from evogrid.sim.lrms import conservative, easy, easy_sjf, fcfs, greedy, sjf
from evogrid.sim.lrms.base import SKIP, START, STOP, Lrms

__all__ = ["BUILT_IN", "MIXED", "REGISTRY", "SKIP", "START", "STOP", "Lrms", "lrms_code", "register"]

#: The built-in LRMS, one file each.
BUILT_IN = (fcfs, easy, greedy, conservative, sjf, easy_sjf)
REGISTRY: dict[str, Lrms] = {module.ENTRY.name: module.ENTRY for module in BUILT_IN}
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


#: The environment variable naming the LRMS whose grids run the mixed loops (:func:`mixed_loop_codes`).
MIXED_LOOPS_VARIABLE = "EVOGRID_MIXED_LOOPS"


def mixed_loop_codes() -> frozenset[int]:
    """Codes of the LRMS whose grids run the loops compiled for sites with different LRMS:
    ``$EVOGRID_MIXED_LOOPS``, LRMS names separated by commas, or ``all``; unset or empty, none (a grid
    whose sites all run one LRMS gets loops compiled for it alone). Same schedules either way; the
    mixed loops save compiling a grid loop and a loop of sites alone per LRMS and cost 0-8 % at run
    time (docs/architecture.md, "Compile modes"). EvogridError names the variable and the bad name."""
    value = os.environ.get(MIXED_LOOPS_VARIABLE, "").strip()
    if not value:
        return frozenset()
    if value.lower() == "all":
        return frozenset(e.code for e in REGISTRY.values())
    codes = set()
    for name in filter(None, (part.strip().lower() for part in value.split(","))):
        if name not in REGISTRY:
            raise EvogridError(f"{MIXED_LOOPS_VARIABLE}: unknown LRMS {name!r} "
                               f"(LRMS names separated by commas, or all; known: {', '.join(REGISTRY)})")
        codes.add(REGISTRY[name].code)
    return frozenset(codes)


def lrms_code(name: str) -> int:
    """The core's code for an LRMS name; ValueError names the known ones."""
    try:
        return REGISTRY[name.lower()].code
    except KeyError:
        raise ValueError(f"unknown LRMS {name!r}; expected one of {', '.join(REGISTRY)}") from None
