"""evogrid: learn job-exchange policies for federated compute sites."""

from evogrid.errors import EvogridError
from evogrid.sim import GridJobs, Schedule, simulate_local
from evogrid.workload import Preprocessing, Workload, load_swf, load_window, synthetic_workload

__version__ = "0.1.0"

__all__ = [
    "EvogridError",
    "GridJobs",
    "Preprocessing",
    "Schedule",
    "Workload",
    "__version__",
    "load_swf",
    "load_window",
    "simulate_local",
    "synthetic_workload",
]
