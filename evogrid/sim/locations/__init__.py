"""Location policies: the order in which a site tries the sites it may send a job to (docs/grid.md).

One file per policy holds its compiled key::

    key(k, l, job, t, jobs, state, policy, work) -> (key, tie)

how site ``k`` rates candidate site ``l`` for ``job`` at time ``t`` (seconds), read from the grid
loop's state (``state``: :class:`evogrid.sim.core.State`; ``policy`` and ``work``:
:mod:`evogrid.sim.grid`). The loop tries the candidates in ascending ``(key, tie)``, after the
job's preferred attributes and before index order. Its registry entry
(:data:`evogrid.sim.registry.LOCATIONS`, a :class:`~evogrid.sim.registry.Location`) names the key
and says what else the loop keeps for it; the dispatch over the codes (:func:`site_key` and the
flags) is generated from the registry (:mod:`evogrid.sim.dispatch`).

``fixed`` (index order) and ``random`` (a seeded shuffle per job) have no key: the loop orders
the candidates itself. A :class:`~evogrid.sim.python_policy.LocationPolicy` object ranks them in
Python (docs/python_policies.md).

Adding a location policy: a file with its key, :func:`register` its entry (a built-in one goes
into ``LOCATIONS``), and its twin in the reference simulator (``tests/reference_sim.py``,
``LOCATION_KEYS``).
"""

from __future__ import annotations

import numpy as np

from evogrid.sim.codes import L_FIXED, L_PYTHON, L_RANDOM
from evogrid.sim.dispatch import any_of, branch_on, compile_inline, component, register_component
from evogrid.sim.registry import LOCATIONS, Location

#: What a location policy's ``batch`` may be (evogrid.sim.registry.Location).
BATCHES = ("", "earliest", "latest")
_GENERATED = ("site_key", "reads_work_ahead", "reads_delegated", "routes_batches", "batch_latest", "refuses")


def _generate_dispatch(entries: tuple[Location, ...]) -> tuple:
    """The compiled ``site_key(location, k, l, job, t, jobs, state, policy, work)`` over the keys of
    ``entries`` (codes sharing a key share a branch), the flags ``reads_work_ahead``,
    ``reads_delegated``, ``routes_batches``, ``batch_latest`` and ``refuses`` of a location code,
    and the codes the loop can order by (``ORDERED``)."""
    keys: dict[str, list[int]] = {}
    for e in entries:
        if e.key:
            keys.setdefault(e.key, []).append(e.code)
    lines, namespace = branch_on("site_key", "location", "k, l, job, t, jobs, state, policy, work", keys,
                                 "NAN, NAN  # no key: the loop orders the candidates itself")
    namespace["NAN"] = np.nan
    flags = {"reads_work_ahead": [e.code for e in entries if e.reads_work_ahead],
             "reads_delegated": [e.code for e in entries if e.reads_delegated],
             "routes_batches": [e.code for e in entries if e.batch],
             "batch_latest": [e.code for e in entries if e.batch == "latest"],
             "refuses": [e.code for e in entries if e.refuses]}
    for name, codes in flags.items():
        lines += [f"def {name}(location):", f"    return {any_of('location', codes)}"]
    ordered = frozenset(e.code for e in entries if e.key) | {L_FIXED, L_RANDOM}
    return (*compile_inline(lines, namespace, __file__, _GENERATED), ordered)


site_key, reads_work_ahead, reads_delegated, routes_batches, batch_latest, refuses, ORDERED = (
    _generate_dispatch(tuple(LOCATIONS.values())))


def register(entry: Location) -> None:
    """Add a location policy with a compiled key (before the first simulation of this process
    compiles the grid loop: the numba cache stamp takes the new entry in, so loops compiled
    without it are never served for it).

    Raises:
        ValueError: no key, the code of Python policies (``L_PYTHON``), or a ``batch`` not in
            :data:`BATCHES`.
        EvogridError: the name or code is taken.
        RuntimeError: this process has compiled a loop already.
    """
    global site_key, reads_work_ahead, reads_delegated, routes_batches, batch_latest, refuses, ORDERED
    if not entry.key:
        raise ValueError(f"location policy {entry.name!r}: a registered policy needs a compiled key")
    if entry.code == L_PYTHON:
        raise ValueError(f"location policy {entry.name!r}: code {L_PYTHON} is the Python policies' "
                         "(evogrid.sim.codes.L_PYTHON)")
    if entry.batch not in BATCHES:
        raise ValueError(f"location policy {entry.name!r}: batch must be one of {BATCHES}, "
                         f"not {entry.batch!r}")
    register_component(LOCATIONS, entry, component(entry.key))
    site_key, reads_work_ahead, reads_delegated, routes_batches, batch_latest, refuses, ORDERED = (
        _generate_dispatch(tuple(LOCATIONS.values())))
