"""evogrid: learn job-exchange policies for federated compute sites.

Names are imported on first use (``evogrid --help`` needs none of numpy, numba or pydantic).
"""

from evogrid._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "evogrid._version": ("__version__",),
    "evogrid.errors": ("EvogridError",),
    "evogrid.policy": ("AcceptWhenFit", "ActiveRequest", "AdmissionPolicy", "Broker", "CentralPool",
                       "FuzzyPolicy", "GridView", "Local", "LocationPolicy", "PythonPolicy", "QueueOrder",
                       "Result", "Rulebase", "TransferPolicy",
                       "simulate"),
    "evogrid.sim.schedule": ("GridJobs", "Schedule", "simulate_local"),
    "evogrid.sim.scenario": ("Scenario",),
    "evogrid.workload.preprocess": ("Preprocessing", "load_swf"),
    "evogrid.workload.model": ("Workload",),
    "evogrid.workload.traces": ("load_window",),
    "evogrid.workload.synthetic": ("synthetic_workload",),
})
