"""How much of conservative backfilling's plan an event changes, under overload.

Run: ``.venv/bin/python experiments/benchmarks/conservative_plan_changes.py [--jobs 1500 3000 6000]
[--load 1.2]``

Conservative backfilling as evogrid schedules it (evogrid.sim.core.backfill_on_profile) re-plans
at every pass: each waiting job, in queue order, reserves its earliest fit on the profile of the
running jobs (held to their estimated ends) and of the reservations ahead of it; the jobs whose
fit is now start. Keeping the plan between passes and repairing it where an event changes it
pays only if an event changes few reservations. This script
replays the schedule in plain Python on one site of 1,024 processors (synthetic jobs, seed 1,
every estimate above its run time, so every end is early) and counts, after each pass, how many
of the waiting jobs' reservations differ from the previous pass's plan, and how many of those
moved later. It measures; it times nothing (docs/benchmarks.md, "Cost against the number of jobs").
"""

from __future__ import annotations

import argparse
import bisect
import heapq

from evogrid.workload import synthetic_workload

MACHINE_PROCS = 1024


def plan(t: int, running: list[tuple[int, int]], queue: list[int], procs: list[int],
         estimate: list[int]) -> dict[int, int]:
    """Each waiting job's reserved start (s) at time ``t``: running jobs ``(estimated end, procs)``."""
    times, free = [t], [MACHINE_PROCS - sum(p for _, p in running)]
    for end, p in sorted((max(e, t + 1), p) for e, p in running):
        if end != times[-1]:
            times.append(end)
            free.append(free[-1])
        free[-1] += p
    starts = {}
    for job in queue:
        need, duration = procs[job], max(estimate[job], 1)
        i = 0
        while True:  # the first breakpoint from which `need` stay free for `duration`
            if free[i] >= need:
                j = i + 1
                while j < len(times) and times[j] < times[i] + duration and free[j] >= need:
                    j += 1
                if j == len(times) or times[j] >= times[i] + duration:
                    break
                i = j
            i += 1
        starts[job] = times[i]
        end = times[i] + duration
        j = bisect.bisect_left(times, end)
        if j == len(times) or times[j] != end:
            times.insert(j, end)
            free.insert(j, free[j - 1])
        for r in range(i, j):
            free[r] -= need
    return starts


def replay(n: int, load: float) -> dict[str, list[float]]:
    """Per kind of pass (after an end, after an arrival): passes, mean queue, changed and later
    reservations per pass."""
    w = synthetic_workload(n, MACHINE_PROCS, load=load, seed=1)
    submit, run, estimate, procs = (a.tolist() for a in (w.submit, w.run_time, w.estimate, w.procs))
    running: dict[int, int] = {}  # job -> estimated end
    ends: list[tuple[int, int]] = []  # (actual end, job)
    queue: list[int] = []
    previous: dict[int, int] = {}
    totals = {"end": [0, 0, 0, 0], "arrival": [0, 0, 0, 0]}
    i = 0
    while i < n or ends:
        if ends and (i == n or ends[0][0] <= submit[i]):
            t, kind = ends[0][0], "end"
            while ends and ends[0][0] == t:
                del running[heapq.heappop(ends)[1]]
        else:
            t, kind = submit[i], "arrival"
            queue.append(i)
            i += 1
        starts = plan(t, [(e, procs[j]) for j, e in running.items()], queue, procs, estimate)
        for job in [j for j in queue if starts[j] == t]:
            running[job] = t + estimate[job]
            heapq.heappush(ends, (t + run[job], job))
            queue.remove(job)
        current = {j: starts[j] for j in queue}
        row = totals[kind]
        row[0] += 1
        row[1] += len(queue)
        row[2] += sum(1 for j in queue if j in previous and previous[j] != current[j])
        row[3] += sum(1 for j in queue if j in previous and previous[j] < current[j])
        previous = current
    return {kind: [p, q / p, c / p, later / p] for kind, (p, q, c, later) in totals.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, nargs="+", default=[1500, 3000, 6000])
    parser.add_argument("--load", type=float, default=1.2)
    args = parser.parse_args()
    print("jobs  pass after  passes  mean queue  changed per pass  share  moved later per pass")
    for n in args.jobs:
        for kind, (passes, queue, changed, later) in replay(n, args.load).items():
            print(f"{n:>5}  {kind:<10}  {passes:>6}  {queue:>10.1f}  {changed:>16.2f}  "
                  f"{changed / max(queue, 1e-9):>5.2f}  {later:>20.2f}")


if __name__ == "__main__":
    main()
