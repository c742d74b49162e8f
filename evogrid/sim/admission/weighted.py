"""Meltzer's Algorithm 5: Algorithm 4's admission, the variant of least k * cost + s * start."""

from __future__ import annotations

from evogrid.sim.admission.base import Algorithm

ENTRY = Algorithm("weighted", 5, "information-rich",
                  "Meltzer 5: as 4's admission, the variant of least k * cost + s * start",
                  start_rule="backlog-or-backfill", pick="weighted")
