"""Kinds of reservation request by name: one registry entry and one file each (docs/architecture.md).

A scenario's ``[reservations]`` table names its kind (``workload = "rw1"``);
the kind's ``make`` turns the sites' batch workloads into requests
(:class:`~evogrid.workload.reservations.Reservations`: rigid co-reservations,
elastic or collective requests) and the workloads without the jobs that
became requests. What the compiled loop does with a request is the
admission algorithm's business (evogrid.sim.admission), not the kind's.

Adding one: write its file with its entries ``ENTRIES`` (a kind with
variants, as Meltzer's, has one entry per variant) and :func:`register`
them (a built-in file goes into :data:`BUILT_IN`). Settings of its own go
into a pydantic model, the entry's ``options``, which the table's
``options = {...}`` fills. No numba here: the CLI's ``--help`` reads the
registry.
"""

from __future__ import annotations

from evogrid.sim.registry import Registry
from evogrid.sim.requests import book_ahead, meltzer, wide
from evogrid.sim.requests.base import RequestKind

__all__ = ["BUILT_IN", "REGISTRY", "RequestKind", "register"]

#: The built-in kinds, one file each.
BUILT_IN = (meltzer, book_ahead, wide)
REGISTRY: Registry[RequestKind] = Registry("request kind", (e for m in BUILT_IN for e in m.ENTRIES))


def register(entry: RequestKind) -> RequestKind:
    """Add a request kind (a scenario may then name it); its name must be new."""
    return REGISTRY.register(entry)
