"""A site's availability profile: free processors over future time, as a step function.

The profile lives in a scratch array ``profile`` of shape (2, cap), int64:
``profile[P_TIME, i]`` are strictly increasing breakpoints (seconds) and
``profile[P_FREE, i]`` the processors free over ``[P_TIME[i], P_TIME[i+1])``
(the last step lasts for ever); ``n`` breakpoints are in use. The core
builds it at the start of a scheduling pass from the site's running jobs,
each holding its processors until start + estimate
(:func:`evogrid.sim.core.build_profile`); conservative backfilling then
reserves every waiting job on it, in queue order (docs/architecture.md).

The profile is derived, not stored: a pass rebuilds it from the running
jobs, so it never has to be kept in step with early ends.
"""

from __future__ import annotations

from evogrid.sim.numba_stamp import njit

P_TIME, P_FREE = 0, 1


@njit(cache=True, inline="always")
def earliest_fit(profile, n, need, duration, first=0):
    """Index of the first breakpoint, from ``first`` on, from which ``need`` processors stay free for
    ``duration`` seconds.

    The last step must have room for ``need`` (it does: every running job and
    reservation has ended by then).
    """
    i = first
    while True:
        if profile[P_FREE, i] >= need:
            end = profile[P_TIME, i] + duration
            j = i + 1
            while j < n and profile[P_TIME, j] < end and profile[P_FREE, j] >= need:
                j += 1
            if j == n or profile[P_TIME, j] >= end:
                return i
            i = j  # step j is too full: no start before it fits
        i += 1


@njit(cache=True, inline="always")
def fit_from(profile, n, need, duration, x):
    """The earliest start at or after ``x`` (s; the first breakpoint is at or before it) from which
    ``need`` processors stay free for ``duration`` seconds: ``x`` itself or a breakpoint."""
    i = 0
    while i + 1 < n and profile[P_TIME, i + 1] <= x:
        i += 1
    if profile[P_FREE, i] < need:  # not the last step: that one has room for everybody
        return profile[P_TIME, earliest_fit(profile, n, need, duration, i + 1)]
    end = x + duration
    j = i + 1
    while j < n and profile[P_TIME, j] < end and profile[P_FREE, j] >= need:
        j += 1
    if j == n or profile[P_TIME, j] >= end:
        return x
    return profile[P_TIME, earliest_fit(profile, n, need, duration, j + 1)]  # step j is too full


@njit(cache=True, inline="always")
def breakpoint_at(profile, n, x, first=0):
    """``(i, n)``: the index of a breakpoint at time ``x`` (>= breakpoint ``first``'s), inserted if
    missing (the step it splits keeps its free count), and the new breakpoint count."""
    i = first
    while i < n and profile[P_TIME, i] < x:
        i += 1
    if i < n and profile[P_TIME, i] == x:
        return i, n
    for r in range(n, i, -1):
        profile[P_TIME, r] = profile[P_TIME, r - 1]
        profile[P_FREE, r] = profile[P_FREE, r - 1]
    profile[P_TIME, i] = x
    profile[P_FREE, i] = profile[P_FREE, i - 1]
    return i, n + 1


@njit(cache=True, inline="always")
def first_short_step(profile, n, need, duration):
    """The first step, from breakpoint 0 on, with fewer than ``need`` free processors before
    ``duration`` seconds have passed; -1 if there is none (the job fits from breakpoint 0).

    A job that does not fit cannot start before the step after the short one.
    """
    if profile[P_FREE, 0] < need:
        return 0
    end = profile[P_TIME, 0] + duration
    j = 1
    while j < n and profile[P_TIME, j] < end:
        if profile[P_FREE, j] < need:
            return j
        j += 1
    return -1


@njit(cache=True, inline="always")
def reserve(profile, n, i, need, duration):
    """Take ``need`` processors from breakpoint ``i`` for ``duration`` seconds; returns the new ``n``.

    Splits the step in which the reservation ends, so the profile gains at
    most one breakpoint.
    """
    j, n = breakpoint_at(profile, n, profile[P_TIME, i] + duration, i)
    for r in range(i, j):
        profile[P_FREE, r] -= need
    return n
