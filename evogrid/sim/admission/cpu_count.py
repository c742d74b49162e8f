"""Meltzer's Algorithm 2: as 1, but the broker knows the sites' profiles and skips what they refuse."""

from __future__ import annotations

from evogrid.sim.admission.base import Algorithm

ENTRY = Algorithm("cpu-count", 2, "information-rich",
                  "Meltzer 2: as 1, skipping variants the profiles refuse")
