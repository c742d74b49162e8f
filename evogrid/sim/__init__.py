"""Simulation: the compiled core, running it on workloads, and metrics (names imported on first use)."""

from evogrid._lazy import lazy_exports

_WHERE = {
    "GridJobs": "evogrid.sim.schedule",
    "Schedule": "evogrid.sim.schedule",
    "lrms_code": "evogrid.sim.schedule",
    "simulate_local": "evogrid.sim.schedule",
    "grid_utilization": "evogrid.sim.metrics",
    "site_metrics": "evogrid.sim.metrics",
}
__all__ = sorted(_WHERE)
__getattr__, __dir__ = lazy_exports(__name__, _WHERE)
