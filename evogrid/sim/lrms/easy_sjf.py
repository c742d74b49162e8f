"""EASY backfilling over a queue in order of estimates (shortest first)."""

from __future__ import annotations

from evogrid.sim.lrms.base import Lrms
from evogrid.sim.lrms.easy import easy_may_start, easy_rule

ENTRY = Lrms("easy-sjf", 5, "EASY backfilling over a queue in order of estimates (shortest first)",
             easy_rule, uses_shadow=True, order="sjf", may_start=easy_may_start)
