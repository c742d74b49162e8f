"""Workloads: SWF parsing, preprocessing, windows of bundled logs (names imported on first use)."""

from evogrid._lazy import lazy_exports

_WHERE = {
    "SECONDS_PER_DAY": "evogrid.workload.model",
    "SECONDS_PER_MONTH": "evogrid.workload.model",
    "Workload": "evogrid.workload.model",
    "Preprocessing": "evogrid.workload.preprocess",
    "load_swf": "evogrid.workload.preprocess",
    "preprocess": "evogrid.workload.preprocess",
    "RawTrace": "evogrid.workload.swf",
    "parse_swf": "evogrid.workload.swf",
    "synthetic_workload": "evogrid.workload.synthetic",
    "BUNDLED": "evogrid.workload.traces",
    "WindowSpec": "evogrid.workload.traces",
    "load_window": "evogrid.workload.traces",
    "parse_window": "evogrid.workload.traces",
    "resolve_trace": "evogrid.workload.traces",
}
__all__ = sorted(_WHERE)
__getattr__, __dir__ = lazy_exports(__name__, _WHERE)
