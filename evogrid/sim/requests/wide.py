"""Every site's jobs wider than its machine as collective requests (workload.reservations.wide_jobs)."""

from __future__ import annotations

from evogrid.errors import EvogridError, ScenarioError
from evogrid.sim.requests.base import RequestKind


def make(workloads, config, options):
    """Each site's window again at its log's own machine size, which keeps the jobs preprocessing
    dropped as too wide: those become collective requests on up to ``collective_sites`` sites
    (default all), the others stay the site's workload."""
    from evogrid.workload.reservations import merge_requests, wide_jobs  # numpy: not for --help
    from evogrid.workload.traces import load_window

    workloads = list(workloads)
    pairs = []
    for k, w in enumerate(workloads):
        try:
            whole = load_window(w.name)
        except EvogridError as exc:
            raise ScenarioError(f"[reservations] workload wide: site {k} ({w.name}) is not a window "
                                f"of a log: {exc}") from None
        workloads[k], requests = wide_jobs(whole, w.machine_procs, config.collective_sites or len(workloads),
                                           config.collective_site_min, config.wide_slack_hours)
        pairs.append(requests)
    return workloads, merge_requests("wide jobs", pairs)


ENTRIES = (RequestKind("wide", "every site's jobs wider than its machine, as collective requests on up "
                               "to collective_sites sites", make),)
