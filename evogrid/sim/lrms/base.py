"""What every LRMS file uses: the verdicts of a rule and the registry entry (:class:`Lrms`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

#: Verdicts of an LRMS rule on a job behind the blocked head.
SKIP, START, STOP = 0, 1, 2


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
