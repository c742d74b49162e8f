"""Workloads: SWF parsing, preprocessing, windows, bundled traces, synthetic jobs."""

from evogrid.workload.model import SECONDS_PER_DAY, SECONDS_PER_MONTH, Workload
from evogrid.workload.preprocess import Preprocessing, load_swf, preprocess
from evogrid.workload.swf import RawTrace, parse_swf
from evogrid.workload.synthetic import synthetic_workload
from evogrid.workload.traces import BUNDLED, WindowSpec, load_window, parse_window, resolve_trace

__all__ = [
    "BUNDLED",
    "SECONDS_PER_DAY",
    "SECONDS_PER_MONTH",
    "Preprocessing",
    "RawTrace",
    "WindowSpec",
    "Workload",
    "load_swf",
    "load_window",
    "parse_swf",
    "parse_window",
    "preprocess",
    "resolve_trace",
    "synthetic_workload",
]
