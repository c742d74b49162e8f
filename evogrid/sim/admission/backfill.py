"""Meltzer's Algorithm 4: as 3, or the variant ends before the site's next planned start (a backfill
reservation); his variant tree sorted by start."""

from __future__ import annotations

from evogrid.sim.admission.base import Algorithm

ENTRY = Algorithm("backfill", 4, "information-rich",
                  "Meltzer 4: as 3, or ending before the site's next planned start",
                  start_rule="backlog-or-backfill", start_sorted=True)
