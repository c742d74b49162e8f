"""What every admission algorithm file uses: the registry entry (:class:`Algorithm`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from evogrid.sim.co_admission import PICKS, START_RULES

#: What the broker must know of the sites (Meltzer's information policies; docs/reservations.md):
#: ``site-side`` (the site places the request itself), ``restrictive`` (yes/no answers) or
#: ``information-rich`` (the sites' profiles).
INFORMATION = ("site-side", "restrictive", "information-rich")


@dataclass(frozen=True)
class Algorithm:
    """A reservation admission algorithm.

    Attributes:
        name: as users write it (``algorithm = "backfill"``, ``--algorithm``).
        code: its integer in the compiled core (0, 1, ...).
        information: what the broker must know (:data:`INFORMATION`).
        help: one line for ``--help`` and docs.
        place: its compiled placement ``place(r, t, book, rules, jobs, state, booked)`` of request
            ``r`` at time ``t`` (the arguments as :func:`evogrid.sim.admission.book_request` takes
            them); None: Meltzer's variant tree (:func:`evogrid.sim.reserving.co_admit`) with the
            flags below.
        asks_every_site: the tree asks every site it reaches, yes or no (his Algorithm 1); else it
            only sends attempts that succeed.
        start_rule: which candidate starts a site admits (:data:`START_RULES`).
        start_sorted: under his variant order (``tree``), the tree is sorted by start (his
            Algorithm 4).
        pick: which admissible variant is booked (:data:`PICKS`).
        ruled: each part is admitted by its site's TSK admission rulebase (the rules then need
            one).
        asks_python: each part is admitted by a Python admission policy
            (evogrid.sim.python_policy.AdmissionPolicy; the rules then need one), asked before the
            request is placed.
        check: ``check(requests) -> message or None``: what the algorithm refuses to place (a
            :class:`~evogrid.workload.reservations.Reservations`), checked before the run.
        reference: where its twin in the pure-Python reference simulator lives.
    """

    name: str
    code: int
    information: str
    help: str
    place: Callable | None = None
    asks_every_site: bool = False
    start_rule: str = "any"
    start_sorted: bool = False
    pick: str = "first"
    ruled: bool = False
    asks_python: bool = False
    check: Callable[[Any], str | None] | None = None
    reference: str = "tests/reference_sim.py"

    def __post_init__(self) -> None:
        for field, value, allowed in (("information", self.information, INFORMATION),
                                      ("start_rule", self.start_rule, START_RULES),
                                      ("pick", self.pick, PICKS)):
            if value not in allowed:
                raise ValueError(f"admission algorithm {self.name!r}: {field} must be one of "
                                 f"{', '.join(allowed)}, not {value!r}")
