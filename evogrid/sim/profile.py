"""A site's availability profile: free processors over future time, as a step function.

The profile lives in a scratch array ``profile`` of shape (3, cap), int64:
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

import numpy as np
from numba import njit

P_TIME, P_FREE, P_STATE = 0, 1, 2
#: Columns of ``profile[P_STATE]``, a conservative pass's state (evogrid.sim.core.conservative_verdict):
#: breakpoints in use (0: not built yet); kept jobs ``queue[q, S_RESERVED:]`` are off the profile;
#: the fewest processors an unjudged one of them needs, and the time before which the running jobs
#: alone do not free them (for that count); the time before which no judged one off the profile starts.
S_N, S_RESERVED, S_PENDING_NEED, S_RUNNING_BOUND, S_RUNNING_BOUND_NEED, S_OFF_BOUND = range(6)
N_PASS_STATE = 6
NEVER = np.iinfo(np.int64).max


@njit(cache=True, inline="always")
def start_profile_pass(profile, first_waiting):
    """Begin a conservative pass whose blocked head is kept at queue position ``first_waiting``."""
    st = profile[P_STATE]
    st[S_N] = 0
    st[S_RESERVED] = first_waiting
    st[S_PENDING_NEED] = NEVER
    st[S_RUNNING_BOUND] = NEVER
    st[S_RUNNING_BOUND_NEED] = NEVER
    st[S_OFF_BOUND] = NEVER


@njit(cache=True, inline="always")
def note_unjudged(profile, need):
    """A job needing ``need`` processors waits, unjudged and off the profile."""
    profile[P_STATE, S_PENDING_NEED] = min(profile[P_STATE, S_PENDING_NEED], need)


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
