"""First come, first served: the queue head blocks everyone (no rule)."""

from __future__ import annotations

from evogrid.sim.lrms.base import Lrms

ENTRY = Lrms("fcfs", 0, "first come, first served: the queue head blocks everyone")
