"""Transfer policies: does a site keep its own job, or take one a partner offers? (docs/grid.md)

One file per policy holds its compiled decision::

    accepts(s, job, partner, jobs, sc, policy, work, log) -> 1 (take or keep) or 0

for site ``s`` and ``job``, asked first of the job's own site (``partner`` is then the first
partner in location order), then of each partner in order (``partner`` is the job's own site),
until one says 1 (:mod:`evogrid.sim.grid`). Its registry entry
(:data:`evogrid.sim.registry.TRANSFERS`, a :class:`~evogrid.sim.registry.Transfer`) names the
function and whether the site routes its jobs as a broker; the dispatch over the codes is
generated from the registry (:mod:`evogrid.sim.dispatch`). A
:class:`~evogrid.sim.python_policy.TransferPolicy` object decides in Python instead.

Adding a transfer policy: a file with its decision, :func:`register` its entry (a built-in one
goes into ``TRANSFERS``), and its twin in the reference simulator (``tests/reference_sim.py``,
``accepts()``).
"""

from __future__ import annotations

import numpy as np

from evogrid.sim.codes import T_PYTHON
from evogrid.sim.dispatch import any_of, branch_on, compile_inline, component, register_component
from evogrid.sim.registry import TRANSFERS, Transfer

_GENERATED = ("accepts", "routes_jobs")


def _generate_dispatch(entries: tuple[Transfer, ...]) -> tuple:
    """The compiled ``accepts(transfer, s, job, partner, jobs, sc, policy, work, log)`` over the
    decisions of ``entries`` (codes sharing one share a branch), ``routes_jobs(transfer)``, and the
    codes it decides for (``DECIDED``)."""
    decisions: dict[str, list[int]] = {}
    for e in entries:
        decisions.setdefault(e.accepts, []).append(e.code)
    lines, namespace = branch_on("accepts", "transfer", "s, job, partner, jobs, sc, policy, work, log",
                                 decisions, "np.int64(0)  # not dispatched: refused when packed")
    namespace["np"] = np
    lines += ["def routes_jobs(transfer):",
              f"    return {any_of('transfer', [e.code for e in entries if e.routes])}"]
    decided = frozenset(c for codes in decisions.values() for c in codes)
    return (*compile_inline(lines, namespace, __file__, _GENERATED), decided)


accepts, routes_jobs, DECIDED = _generate_dispatch(tuple(TRANSFERS.values()))


def register(entry: Transfer) -> None:
    """Add a transfer policy with a compiled decision (before the first simulation of this process
    compiles the grid loop: the numba cache stamp takes the new entry in).

    Raises:
        ValueError: the code of Python policies (``T_PYTHON``).
        EvogridError: the name or code is taken.
        RuntimeError: this process has compiled a loop already.
    """
    global accepts, routes_jobs, DECIDED
    if entry.code == T_PYTHON:
        raise ValueError(f"transfer policy {entry.name!r}: code {T_PYTHON} is the Python policies' "
                         "(evogrid.sim.codes.T_PYTHON)")
    register_component(TRANSFERS, entry, component(entry.accepts))
    accepts, routes_jobs, DECIDED = _generate_dispatch(tuple(TRANSFERS.values()))
