"""What every request-kind file uses: the registry entry (:class:`RequestKind`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import BaseModel

    from evogrid.sim.scenario import ReservationsConfig
    from evogrid.workload.model import Workload
    from evogrid.workload.reservations import Reservations

#: ``make(workloads, config, options) -> (workloads, requests)``: the sites' batch workloads without
#: the jobs that became requests, and the requests (module docstring of evogrid.sim.requests).
Make = Callable[["list[Workload]", "ReservationsConfig", "BaseModel | None"],
                "tuple[list[Workload], Reservations]"]


@dataclass(frozen=True)
class RequestKind:
    """A kind of reservation request: how a scenario's ``[reservations]`` table makes its requests.

    Attributes:
        name: as users write it (``workload = "rw1"``, ``evogrid reserve --workload``).
        help: one line for ``--help`` and docs.
        make: builds the requests from the scenario's site workloads (:data:`Make`); it reads the
            ``[reservations]`` table's fields it needs (``source``, ``seed``, ...) and its own
            ``options``.
        options: a pydantic model of the kind's own settings (the table's ``options = {...}``),
            validated before ``make`` runs; None: the kind takes none.
    """

    name: str
    help: str
    make: Make
    options: type[BaseModel] | None = None
