"""Workloads: SWF parsing, preprocessing, windows of bundled logs (names imported on first use)."""

from evogrid._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "evogrid.workload.model": ("SECONDS_PER_DAY", "SECONDS_PER_MONTH", "Workload"),
    "evogrid.workload.preprocess": ("Preprocessing", "load_swf", "preprocess"),
    "evogrid.workload.reservations": ("Elastic", "Reservations", "meltzer", "roblitz", "speedup"),
    "evogrid.workload.swf": ("RawTrace", "parse_swf"),
    "evogrid.workload.synthetic": ("synthetic_workload",),
    "evogrid.workload.traces": ("BUNDLED", "WindowSpec", "load_window", "parse_window", "resolve_trace"),
})
