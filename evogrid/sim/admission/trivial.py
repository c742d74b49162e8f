"""Meltzer's Algorithm 1: depth first through the variant tree, asking every site it reaches."""

from __future__ import annotations

from evogrid.sim.admission.base import Algorithm

ENTRY = Algorithm("trivial", 1, "restrictive",
                  "Meltzer 1: depth-first over starts and sites, yes/no answers", asks_every_site=True)
