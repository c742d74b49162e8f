"""Simulation: the compiled core, running it on workloads, and metrics."""

# First: it sets how numba stamps the cache of every compiled function below.
from evogrid.sim import numba_stamp as _numba_stamp  # noqa: F401
from evogrid.sim.metrics import grid_utilization, site_metrics
from evogrid.sim.schedule import GridJobs, Schedule, lrms_code, simulate_local

__all__ = ["GridJobs", "Schedule", "grid_utilization", "lrms_code", "simulate_local", "site_metrics"]
