"""A small, obviously-correct pure-Python simulator of one site (spec 1.3).

Written for clarity, not speed, and deliberately literal: LIST restarts its
scan from the head after every start; EASY computes the shadow time from a
fresh sort of the running jobs. The compiled core must agree with it exactly.
"""

from __future__ import annotations

import math


def reference_start_times(submit, run_time, procs, estimate, machine_procs, lrms):
    """Start time of every job (lists in arrival order), LRMS 'fcfs'|'easy'|'list'."""
    n = len(submit)
    start = [None] * n
    running = []  # (actual end, estimated end, procs, job)
    queue = []
    free = machine_procs
    arrivals = list(range(n))

    def begin(job, t):
        nonlocal free
        start[job] = t
        free -= procs[job]
        running.append((t + run_time[job], t + estimate[job], procs[job], job))

    def schedule(t):
        while queue and procs[queue[0]] <= free:
            begin(queue.pop(0), t)
        if not queue or lrms == "fcfs":
            return
        if lrms == "list":
            started = True
            while started:
                started = False
                for job in queue:
                    if procs[job] <= free:
                        begin(job, t)
                        queue.remove(job)
                        started = True
                        break  # restart from the head
            return
        # EASY: the head's reservation from estimated ends.
        need = procs[queue[0]]
        shadow, extra = math.inf, 0
        for T in sorted({est for _, est, _, _ in running}):
            avail = free + sum(p for _, est, p, _ in running if est <= T)
            if avail >= need:
                shadow, extra = T, avail - need
                break
        for job in list(queue[1:]):
            if procs[job] > free:
                continue
            if t + estimate[job] <= shadow:
                begin(job, t)
                queue.remove(job)
            elif procs[job] <= extra:
                extra -= procs[job]
                begin(job, t)
                queue.remove(job)

    while arrivals or running:
        next_end = min((r[0] for r in running), default=math.inf)
        next_arrival = submit[arrivals[0]] if arrivals else math.inf
        if next_end <= next_arrival:  # completions first at equal times
            t = next_end
            for r in [r for r in running if r[0] == t]:
                running.remove(r)
                free += r[2]
            schedule(t)
        else:
            t = next_arrival
            queue.append(arrivals.pop(0))
            schedule(t)
    return start
