"""Röblitz et al.'s book-ahead requests (evogrid.workload.reservations.roblitz) from the source site's
jobs: every ``every``-th job, booked ``book_ahead_hours`` ahead, plain or elastic."""

from __future__ import annotations

from evogrid.sim.requests.base import RequestKind


def make(workloads, config, options):
    """Every ``config.every``-th job of the source site becomes a one-part request at that site; it
    leaves the site's workload."""
    from evogrid.workload.reservations import roblitz  # numpy: not for --help

    workloads = list(workloads)
    workloads[config.source], requests = roblitz(workloads[config.source], config.book_ahead_hours,
                                                 config.slack_hours, config.every, site=config.source,
                                                 elastic=config.elastic, request_at=config.request_at)
    return workloads, requests


ENTRIES = (RequestKind("book-ahead", "Röblitz et al.: every n-th job of the source site, booked ahead, "
                                     "at that site (elastic with elastic = [low, high])", make),)
