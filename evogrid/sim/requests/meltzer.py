"""Meltzer's co-reservations RW1, RW2, RW3 and his 6.8 workloads (evogrid.workload.reservations.meltzer)
from the source site's jobs."""

from __future__ import annotations

from functools import partial

from evogrid.sim.requests.base import RequestKind


def make(variant, workloads, config, options):
    """The source site's jobs drawn with ``config.probability`` are the templates of two-part (three
    for ``rw1-6h-3``) co-reservations of the ``variant``; they stay batch jobs, or leave the site's
    workload with ``config.meltzer_templates = "taken"``."""
    from evogrid.workload.reservations import meltzer  # numpy: not for --help

    workloads = list(workloads)
    workloads[config.source], requests = meltzer(workloads[config.source], variant, config.seed,
                                                 config.probability, draw=config.meltzer_draw,
                                                 templates=config.meltzer_templates)
    return workloads, requests


ENTRIES = tuple(RequestKind(variant, f"Meltzer's {text}", partial(make, variant)) for variant, text in (
    ("rw1", "RW1: two-part co-reservations requested 3 wc before the earliest start, start range "
            "min(6 wc, 1 day)"),
    ("rw2", "RW2: as RW1, requested wc/2 ahead"),
    ("rw3", "RW3: as RW2, start range min(3 wc, 1 day)"),
    ("rw1-6h", "6.8: RW1 requested 30 s ahead with a six-hour start range"),
    ("rw1-6h-3", "6.8: as rw1-6h, with a third part copying the second; every third request stays a job"),
))
