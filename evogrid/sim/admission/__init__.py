"""Reservation admission algorithms by name: one registry entry and one file each (docs/architecture.md).

A request arrives as an event of the grid loop (evogrid.sim.grid), and
:func:`book_request` hands it to the scenario's admission algorithm, which
accepts it (its start, sites and processors are then held) or refuses it.
An algorithm is an :class:`~evogrid.sim.admission.base.Algorithm`: either
its own compiled placement (``place``: ``first_fit``, ``probe``,
``collective``) or a set of flags over Meltzer's variant tree
(:func:`evogrid.sim.reserving.co_admit`, the rules in
:mod:`evogrid.sim.co_admission`): ``trivial``, ``cpu_count``, ``backlog``,
``backfill``, ``weighted`` (his Algorithms 1-5), ``rulebase`` and ``python``.

Adding one: write its file with its entry ``ENTRY`` (and its placement, if
it has one), :func:`register` the entry (a built-in one goes into
:data:`BUILT_IN` below), and give the reference simulator in
``tests/reference_sim.py`` its twin (``Desk``: the variant tree reads the
entry's flags; a placement of its own is a method in ``Desk.PLACEMENTS``).
The dispatch :func:`place_request` over the codes is generated from the
registry.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba.extending import overload

from evogrid.sim import co_admission as ca
from evogrid.sim.admission import (
    backfill,
    backlog,
    collective,
    cpu_count,
    first_fit,
    probe,
    python,
    rulebase,
    trivial,
    weighted,
)
from evogrid.sim.admission.base import PICKS, START_RULES, Algorithm
from evogrid.sim.core import compiles_reservations, take_starting
from evogrid.sim.dispatch import compile_inline, register_component
from evogrid.sim.numba_stamp import njit
from evogrid.sim.registry import Registry
from evogrid.sim.reserving import co_admit

__all__ = ["BUILT_IN", "REGISTRY", "Algorithm", "book_in_mode", "book_request", "pack_flags", "register"]

#: The built-in admission algorithms, one file each.
BUILT_IN = (first_fit, trivial, cpu_count, backlog, backfill, weighted, rulebase, probe, collective, python)
REGISTRY: Registry[Algorithm] = Registry("reservation algorithm", (m.ENTRY for m in BUILT_IN))


def _generate_dispatch(entries: tuple[Algorithm, ...]) -> Callable:
    """The compiled ``place_request(algorithm, r, t, book, rules, jobs, state, booked)``: the placement
    of the entry with code ``algorithm``, Meltzer's variant tree for an entry without one."""
    args = "r, t, book, rules, jobs, state, booked"
    lines = [f"def place_request(algorithm, {args}):",
             '    """Place request ``r`` by admission algorithm ``algorithm`` (module docstring)."""']
    placed = [e for e in entries if e.place is not None]
    for e in placed:
        lines += [f"    if algorithm == {e.code}:", f"        return place_{e.code}({args})"]
    lines.append(f"    return co_admit({args})")
    namespace = {"co_admit": co_admit, **{f"place_{e.code}": e.place for e in placed}}
    return compile_inline(lines, namespace, __file__, ("place_request",))[0]


place_request = _generate_dispatch(tuple(REGISTRY.values()))


def register(entry: Algorithm) -> None:
    """Add an admission algorithm (before the first simulation of this process compiles the loop:
    the numba cache stamp takes the new entry in, so loops compiled without it are never served
    for it).

    Raises:
        EvogridError: the name or code is taken.
        RuntimeError: this process has compiled a loop already.
    """
    global place_request
    register_component(REGISTRY, entry, entry.place)
    place_request = _generate_dispatch(tuple(REGISTRY.values()))


def pack_flags(entry: Algorithm, config: np.ndarray) -> None:
    """Write ``entry``'s code and its variant-tree flags into the ``config`` rows the compiled
    algorithms read (evogrid.sim.co_admission, ``C_*``)."""
    config[ca.C_ALGORITHM] = entry.code
    config[ca.C_ASKS_EVERY_SITE] = entry.asks_every_site
    config[ca.C_START_RULE] = START_RULES.index(entry.start_rule)
    config[ca.C_START_SORTED] = entry.start_sorted
    config[ca.C_PICK] = PICKS.index(entry.pick)
    config[ca.C_RULED] = entry.ruled
    config[ca.C_ASKS_PYTHON] = entry.asks_python


@njit(cache=True, _nrt=True)
def book_request(r, t, book, rules, jobs, state, booked):
    """Request ``r`` arrives at time ``t``: its admission algorithm places it or refuses it, and
    reservations accepted to start now take their processors. A call, not inlined: one compiled
    copy serves every loop that takes requests. With numba's runtime, unlike the loop that calls
    it (which would pass its ``_nrt=False`` on): the algorithms allocate scratch arrays."""
    place_request(np.int64(rules[0][ca.C_ALGORITHM]), r, t, book, rules, jobs, state, booked)
    take_starting(t, state)


def book_in_mode(mode, r, t, book, rules, jobs, state, booked):
    """:func:`book_request` in a loop compiled for ``mode`` (a literal); compiled for modes whose
    sites may hold reservations only (the overload below), so the other loops never compile the
    admission algorithms."""


@overload(book_in_mode, prefer_literal=True)
def _book_in_mode(mode, r, t, book, rules, jobs, state, booked):
    if not compiles_reservations(mode):
        def never(mode, r, t, book, rules, jobs, state, booked):
            return None
        return never

    def book_it(mode, r, t, book, rules, jobs, state, booked):
        book_request(r, t, book, rules, jobs, state, booked)
    return book_it
