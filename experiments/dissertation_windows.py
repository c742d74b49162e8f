"""How the dissertation cut its logs: Table 7.1's job counts located in the bundled logs, and the
Table 7.2 values that check the reading (docs/reproduction.md, "How the dissertation cut its logs").

Run: ``.venv/bin/python experiments/dissertation_windows.py [--logs KTH,CTC] [--makespans]`` (about 30 s;
``--logs``: only these logs' rows; ``--makespans``: also the cuts that make Table 7.2's makespans exact,
a few minutes)

For every row of Table 7.1 (a log and a length label) it prints the day interval in which a cut of
the log must fall to leave the table's number of jobs, with our preprocessing and with jobs without
a requested time dropped as well (``Preprocessing(drop_unknown_estimate=True)``). The counts only
locate the cut; the table's total area SA and Table 7.2's AWRT, utilisation and makespan are the
checks, for every row of Tables 7.2 and 7.3. With ``--makespans`` it tries every cut within a day of
each Table 7.2 row's (at the log's distinct submit times) and prints those at which the makespan is
exact under FCFS, EASY and LIST alike, and the nearest where there is none.
"""

import argparse

import numpy as np

from evogrid.sim.schedule import simulate_local
from evogrid.workload import Preprocessing
from evogrid.workload.dissertation import (
    TABLE_7_1,
    TABLE_7_2,
    TABLE_7_3,
    dissertation_cut,
    dissertation_log,
    jobs_in_order,
)
from evogrid.workload.traces import load_window

DAY = 86_400


def cut_interval(name: str, n: int, drop_unknown: bool) -> tuple[int, float | None, float]:
    """The log's number of jobs and the day interval (lo, hi] in which a cut leaving its first ``n``
    jobs lies (lo None: the log has fewer)."""
    submit = np.sort(load_window(name, Preprocessing(drop_unknown_estimate=drop_unknown)).submit)
    if n > submit.size:
        return submit.size, None, float("nan")
    return submit.size, submit[n - 1] / DAY, submit[n] / DAY if n < submit.size else float("inf")


def makespan_cuts(name: str, months: int, days: float = 1.0) -> dict:
    """Every cut of ``name``'s log (its first n' jobs, n' at a distinct submit time) within ``days`` of
    the Table 7.1 row's: the n' whose makespan equals Table 7.2's under FCFS, EASY and LIST alike, and
    the cut nearest to that (the smallest largest miss, s)."""
    log = dissertation_log(name)
    submit = np.sort(log.submit)
    n = TABLE_7_1[name, months][0]
    near = np.abs(submit - submit[n - 1]) <= days * DAY
    ends_a_second = np.append(submit[1:] != submit[:-1], True)  # n' = i + 1 keeps every job of its second
    counts = np.flatnonzero(near & ends_a_second) + 1
    exact, nearest = [], None
    for count in counts:
        jobs = jobs_in_order(log, 0, count, f"{name}-{months}@{count}")
        rows = zip(("fcfs", "easy", "list"), TABLE_7_2[name, months], strict=True)
        misses = [int(simulate_local([jobs], lrms).end.max()) - c_max for lrms, (_, _, c_max) in rows]
        if not any(misses):
            exact.append(int(count))
        if nearest is None or max(map(abs, misses)) < max(map(abs, nearest[1])):
            nearest = (int(count), misses)
    return {"tried": len(counts), "exact": exact, "nearest": nearest}


def main(logs: set[str] | None = None, makespans: bool = False) -> None:
    """Print the three tables in markdown; only the rows of ``logs`` (None: every log)."""

    def wanted(table: dict) -> dict:
        return {key: value for key, value in table.items() if logs is None or key[0] in logs}

    print("| log | label | jobs (Table 7.1) | cut lies in (days), our preprocessing | "
          "the same, jobs without a requested time dropped | SA ours / Table 7.1 |")
    print("|---|---|---:|---|---|---|")
    for (name, months), (n, sa) in wanted(TABLE_7_1).items():
        cells = []
        for drop in (False, True):
            total, lo, hi = cut_interval(name, n, drop)
            cells.append(f"log has {total:,} only" if lo is None else
                         f"({lo:.3f}, {hi:.3f}]" + (" (whole log)" if hi == float("inf") else ""))
        jobs = dissertation_cut(name, months)
        ours = float((jobs.run_time.astype(float) * jobs.procs).sum())
        print(f"| {name} | -{months} | {n:,} | {cells[0]} | {cells[1]} | {100 * (ours / sa - 1):+.3f} % |")
    print("\nTable 7.2 on the first n jobs of Table 7.1 (CTC, LANL96: jobs without a requested time "
          "dropped):\n")
    print("| log | LRMS | AWRT ours / theirs (s) | diff | U ours / theirs (%) | C_max ours / theirs (s) |")
    print("|---|---|---|---:|---|---|")
    for (name, months), rows in wanted(TABLE_7_2).items():
        jobs = dissertation_cut(name, months)
        for lrms, (awrt, u, c_max) in zip(("FCFS", "EASY", "LIST"), rows, strict=True):
            schedule = simulate_local([jobs], lrms.lower())
            m = schedule.metrics()[0]
            ours_cmax = int(schedule.end.max())
            diff = 100 * (m["awrt"] / awrt - 1)
            print(f"| {name}-{months} | {lrms} | {m['awrt']:,.2f} / {awrt:,.2f} | {diff:+.2f} % | "
                  f"{100 * m['utilization']:.2f} / {u:.2f} | {ours_cmax:,} / {c_max:,} |")

    print("\nTable 7.3 (FCFS) on the training (-5) and test (-6) parts of the -11 cuts:\n")
    print("| log | jobs ours / theirs | AWRT ours / theirs (s) | diff | U ours / theirs (%) | "
          "C_max ours / theirs (s) |")
    print("|---|---|---|---:|---|---|")
    for (name, months), (n, (awrt, u, c_max)) in wanted(TABLE_7_3).items():
        jobs = dissertation_cut(name, months)
        schedule = simulate_local([jobs], "fcfs")
        m = schedule.metrics()[0]
        print(f"| {name}-{months} | {jobs.n_jobs:,} / {n:,} | {m['awrt']:,.2f} / {awrt:,.2f} | "
              f"{100 * (m['awrt'] / awrt - 1):+.2f} % | {100 * m['utilization']:.2f} / {u:.2f} | "
              f"{int(schedule.end.max()):,} / {c_max:,} |")
    if not makespans:
        return
    print("\nCuts within a day of each Table 7.2 row's that make its three makespans exact:\n")
    print("| log | jobs (Table 7.1) | cuts tried | every makespan exact at (jobs) | "
          "nearest cut: jobs, C_max ours - theirs FCFS / EASY / LIST (s) |")
    print("|---|---:|---:|---|---|")
    for name, months in wanted(TABLE_7_2):
        found = makespan_cuts(name, months)
        exact = found["exact"]
        shown = ("none" if not exact else f"{exact[0]:,}" if len(exact) == 1
                 else f"{exact[0]:,}-{exact[-1]:,} ({len(exact)} cuts)")
        count, misses = found["nearest"]
        print(f"| {name}-{months} | {TABLE_7_1[name, months][0]:,} | {found['tried']} | {shown} | {count:,}: "
              + " / ".join(f"{m:+,}" for m in misses) + " |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logs", help="comma-separated log names (default: every log of Table 7.1)")
    parser.add_argument("--makespans", action="store_true",
                        help="also the cuts that make Table 7.2's makespans exact (a few minutes)")
    args = parser.parse_args()
    main(None if args.logs is None else set(args.logs.split(",")), args.makespans)
