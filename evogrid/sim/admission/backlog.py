"""Meltzer's Algorithm 3: as 2, no start before now plus the site's backlog."""

from __future__ import annotations

from evogrid.sim.admission.base import Algorithm

ENTRY = Algorithm("backlog", 3, "information-rich",
                  "Meltzer 3: as 2, no start before now + the site's backlog", start_rule="backlog")
