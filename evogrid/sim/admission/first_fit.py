"""First fit: a one-site request at its site's exact earliest fit, if that meets its deadline."""

from __future__ import annotations

from evogrid.sim.admission.base import Algorithm
from evogrid.sim.core import M_PROCS, hold, site_profile
from evogrid.sim.numba_stamp import njit
from evogrid.sim.profile import P_TIME, breakpoint_at, earliest_fit
from evogrid.sim.reserving import R_DEADLINE, R_DURATION, R_EARLIEST, R_SITE


@njit(cache=True, _nrt=False)
def place(r, t, book, rules, jobs, state, booked):
    """Accept one-site request ``r`` at time ``t`` at its exact earliest fit if that meets its deadline
    (``rules`` unused)."""
    requests, parts = book[0], book[1]
    sc, profile = state.sc, state.profile
    k = requests[R_SITE, r]
    need = parts[0, r]
    if need > sc[k, M_PROCS]:
        return
    not_before = max(t, requests[R_EARLIEST, r])
    n = site_profile(k, t, jobs, state)
    first, n = breakpoint_at(profile, n, not_before)
    duration = requests[R_DURATION, r]
    start = profile[P_TIME, earliest_fit(profile, n, need, duration, first)]
    if start + duration > requests[R_DEADLINE, r]:
        return
    accepted, sites, messages, procs, length = booked.accepted, booked.sites, booked.messages, booked.procs, \
        booked.length
    accepted[r] = start
    sites[0, r] = k
    messages[r] = 1
    procs[0, r] = need
    length[r] = duration
    hold(k, start, start + duration, need, state)


def check(requests) -> str | None:
    """First fit books at the request's own site."""
    if (requests.site < 0).any():
        return "first-fit books at one site; give every request a site"
    return None


ENTRY = Algorithm("first-fit", 0, "site-side", "one-site requests: the site's exact earliest fit",
                  place=place, check=check)
