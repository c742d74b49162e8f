"""TSK admission rulebases for reservation requests: Rulebase files -> the compiled loop's rules.

With the ``rulebase`` admission algorithm (evogrid.sim.booking) each site's
rulebase decides whether a part of a request may start at a candidate start
on that site, from features of the site's own state (``decisions`` =
``admission`` in :data:`~evogrid.policy.registry.FEATURES`: NWP, LEAD, PART,
RESERVED, BEFORE_NEXT); the broker then places the request as Meltzer's
Algorithm 2 does, on the first variant whose every part is admitted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from evogrid.policy.registry import check_features
from evogrid.policy.rulebase import Rulebase
from evogrid.sim.booking import ReservationRules
from evogrid.sim.tsk import TSKStack


def admission_stack(rulebases: Sequence[Rulebase]) -> TSKStack:
    """One rulebase per site, or one for every site, as the compiled loop takes them."""
    for k, rb in enumerate(rulebases):
        check_features(rb.features, "admission", f"admission rulebase {k}")
    return TSKStack.stack([rb.arrays() for rb in rulebases])


def admission_rules(base: ReservationRules, rulebases: Sequence[Rulebase]) -> ReservationRules:
    """``base`` (candidate starts, tariffs, seed) with the sites' admission rulebases deciding."""
    return replace(base, algorithm="rulebase", rulebases=admission_stack(rulebases))
