"""evogrid: learn job-exchange policies for federated compute sites.

Names are imported on first use (``evogrid --help`` needs none of numpy, numba or pydantic).
"""

from evogrid._lazy import lazy_exports

_WHERE = {
    "__version__": "evogrid._version",
    "EvogridError": "evogrid.errors",
    "AcceptWhenFit": "evogrid.policy.strategies",
    "ActiveRequest": "evogrid.policy.strategies",
    "CentralPool": "evogrid.policy.strategies",
    "FuzzyPolicy": "evogrid.policy.strategies",
    "Local": "evogrid.policy.strategies",
    "Result": "evogrid.policy.strategies",
    "simulate": "evogrid.policy.strategies",
    "Rulebase": "evogrid.policy.rulebase",
    "GridJobs": "evogrid.sim.schedule",
    "Schedule": "evogrid.sim.schedule",
    "simulate_local": "evogrid.sim.schedule",
    "Scenario": "evogrid.sim.scenario",
    "Preprocessing": "evogrid.workload.preprocess",
    "Workload": "evogrid.workload.model",
    "load_swf": "evogrid.workload.preprocess",
    "load_window": "evogrid.workload.traces",
    "synthetic_workload": "evogrid.workload.synthetic",
}
__all__ = sorted(_WHERE)
__getattr__, __dir__ = lazy_exports(__name__, _WHERE)
