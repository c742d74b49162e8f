"""Simulation: the compiled core, running it on workloads, and metrics (names imported on first use)."""

from evogrid._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "evogrid.sim.schedule": ("GridJobs", "Schedule", "lrms_code", "simulate_local"),
    "evogrid.sim.metrics": ("grid_utilization", "site_metrics"),
})
