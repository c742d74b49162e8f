"""Shortest job first: FCFS over a queue in order of estimates."""

from __future__ import annotations

from evogrid.sim.lrms.base import Lrms

ENTRY = Lrms("sjf", 4, "shortest job first: the queue in order of estimates, its head blocks everyone",
             order="sjf")
