"""How the dissertation cut its logs: Table 7.1's job counts located in the bundled logs, and the
Table 7.2 values that check the reading (docs/reproduction.md, "How the dissertation cut its logs").

Run: ``.venv/bin/python experiments/dissertation_windows.py`` (about 30 s)

For every row of Table 7.1 (a log and a length label) it prints the day interval in which a cut of
the log must fall to leave the table's number of jobs, with our preprocessing and with jobs without
a requested time dropped as well (``Preprocessing(drop_unknown_estimate=True)``). The counts only
locate the cut; the table's total area SA and Table 7.2's AWRT, utilisation and makespan are the
checks, printed for the rows where the cut is settled (LANL96).
"""

import numpy as np

from evogrid.sim.schedule import simulate_local
from evogrid.workload import Preprocessing
from evogrid.workload.traces import load_window

DAY = 86_400
#: Table 7.1: jobs and SA (processor-seconds) per log and length label.
TABLE_7_1 = {
    ("KTH", 11): (28_479, 2_017_737_644), ("CTC", 11): (77_199, 8_279_369_703),
    ("LANL96", 11): (57_715, 16_701_881_984), ("LANL96", 13): (67_043, 19_467_626_464),
    ("LANL96", 24): (110_769, 35_426_509_344), ("SDSC00", 11): (29_810, 2_780_016_139),
    ("SDSC00", 24): (54_006, 6_656_350_775), ("SDSC03", 11): (65_584, 23_337_438_904),
    ("SDSC03", 13): (78_951, 27_410_557_560), ("SDSC03", 24): (176_268, 54_233_113_112),
    ("SDSC05", 11): (74_903, 29_392_365_928), ("SDSC05", 13): (84_876, 34_347_849_760),
}
#: Table 7.2 for LANL96: (AWRT s, U %, C_max s) under FCFS, EASY, LIST.
TABLE_7_2_LANL96 = {
    11: ((13_886.61, 55.65, 29_306_900), (12_442.02, 55.65, 29_306_355), (13_082.10, 55.65, 29_307_464)),
    13: ((14_064.40, 56.24, 33_801_984), (12_467.61, 56.24, 33_802_986), (13_178.91, 56.24, 33_802_986)),
    24: ((12_265.92, 55.54, 62_292_428), (11_105.15, 55.54, 62_292_428), (11_652.44, 55.54, 62_292_428)),
}


def first_jobs(name: str, n: int, drop_unknown: bool):
    """The log's first ``n`` jobs in submission order, and the day interval a cut leaving them lies in."""
    w = load_window(name, Preprocessing(drop_unknown_estimate=drop_unknown))
    order = np.argsort(w.submit, kind="stable")
    if n > w.n_jobs:
        return None, (w.n_jobs, None, None)
    keep = np.zeros(w.n_jobs, dtype=bool)
    keep[order[:n]] = True
    after = w.submit[order[n]] / DAY if n < w.n_jobs else float("inf")
    return w.select(keep), (w.n_jobs, w.submit[order[n - 1]] / DAY, after)


def main() -> None:
    print("| log | label | jobs (Table 7.1) | cut lies in (days), our preprocessing | "
          "the same, jobs without a requested time dropped | SA ours / Table 7.1 |")
    print("|---|---|---:|---|---|---|")
    for (name, months), (n, sa) in TABLE_7_1.items():
        cells = []
        for drop in (False, True):
            jobs, (total, lo, hi) = first_jobs(name, n, drop)
            cells.append(f"log has {total:,} only" if jobs is None else
                         f"({lo:.3f}, {hi:.3f}]" + (" (whole log)" if hi == float("inf") else ""))
        jobs, _ = first_jobs(name, n, name in ("LANL96", "CTC"))
        ours = float((jobs.run_time.astype(float) * jobs.procs).sum()) if jobs is not None else float("nan")
        print(f"| {name} | -{months} | {n:,} | {cells[0]} | {cells[1]} | {100 * (ours / sa - 1):+.3f} % |")
    print("\nLANL96, jobs without a requested time dropped, cut after Table 7.1's count:\n")
    print("| label | LRMS | AWRT ours / theirs (s) | diff | U ours / theirs (%) | C_max ours / theirs (s) |")
    print("|---|---|---|---:|---|---|")
    for months, rows in TABLE_7_2_LANL96.items():
        jobs, _ = first_jobs("LANL96", TABLE_7_1["LANL96", months][0], True)
        for lrms, (awrt, u, c_max) in zip(("FCFS", "EASY", "LIST"), rows, strict=True):
            schedule = simulate_local([jobs], lrms.lower())
            m = schedule.metrics()[0]
            ours_cmax = int(schedule.end.max())
            diff = 100 * (m["awrt"] / awrt - 1)
            print(f"| -{months} | {lrms} | {m['awrt']:,.2f} / {awrt:,.2f} | {diff:+.2f} % | "
                  f"{100 * m['utilization']:.2f} / {u:.2f} | {ours_cmax:,} / {c_max:,} |")


if __name__ == "__main__":
    main()
