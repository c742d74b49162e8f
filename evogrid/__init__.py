"""evogrid: learn job-exchange policies for federated compute sites."""

from evogrid._version import __version__
from evogrid.errors import EvogridError
from evogrid.policy import (
    AcceptWhenFit,
    ActiveRequest,
    CentralPool,
    FuzzyPolicy,
    Local,
    Result,
    Rulebase,
    simulate,
)
from evogrid.sim import GridJobs, Schedule, simulate_local
from evogrid.sim.scenario import Scenario
from evogrid.workload import Preprocessing, Workload, load_swf, load_window, synthetic_workload

__all__ = [
    "AcceptWhenFit",
    "ActiveRequest",
    "CentralPool",
    "EvogridError",
    "FuzzyPolicy",
    "GridJobs",
    "Local",
    "Preprocessing",
    "Result",
    "Rulebase",
    "Scenario",
    "Schedule",
    "Workload",
    "__version__",
    "load_swf",
    "load_window",
    "simulate",
    "simulate_local",
    "synthetic_workload",
]
