"""Cankar's time measurements (dissertation, 4.5.5, Fig. 4.10): how many times the co-location
preprocessor minimises t_pair, against the theoretical most, what that costs, and how much
scheduling time the preprocessing saves (docs/coallocation.md, "His time measurements").

What he gives: the preprocessing's cost is set by its optimisations, the minimisations of t_pair
(4.10); at most "2 · |O|^2/4" of them (every job tried with every one of the complementary class
in both steps), and his approach does "znatno manjše število optimizacij" (markedly fewer), more on
batches with more jobs and fewer on those with more balanced jobs (Fig. 4.10, without numbers in
the text). Merging and scaling took "okrog minute za 100 optimizacij" (about a minute per 100
optimisations), up to 55 minutes per batch; Haizea took about 1 s for 40 jobs, 10 s for 100, a
minute for 200 and up to 50 minutes for 700; the preprocessing cut the scheduling time by 70 %
(no parallel and no balanced jobs), 5 % (only balanced jobs), 18 % in the mean, and less with
partitions.

Ours, on the test batches of cankar_colocation.py (his 128 cases per seed, without the
scheduler's two orders: 64 batches per seed): per batch the jobs |O|, the optimisations, the
preprocessing's time, and the best-fit backfilling scheduler's time (LJF; evogrid.nodes.packing,
compiled; the least of ``--repeats`` runs) on the batch as it is, as sets and as partitions.

Run: ``.venv/bin/python experiments/cankar_colocation_timing.py [--seeds 1] [--repeats 3]`` (about
2 minutes a seed on one core, most of it the 100-node batches; time it with nothing else
running: the counts do not depend on the machine, the times do). Writes
``experiments/results/cankar_colocation/timing.md`` and ``timing.csv``. ``--share-position
linear|middle|top`` (``timing_<position>.md``): the same with the generator's other readings of
where a share lies in its scaling range, which sets how many pairs can share a node.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from cankar_colocation import BALANCED, NODES, add_share_position, batch

from evogrid.files import atomic_write_bytes
from evogrid.nodes import packing
from evogrid.nodes.colocation import preprocess
from evogrid.optimize.rundir import write_csv

OUT = Path(__file__).parent / "results" / "cankar_colocation"
STRATEGY = packing.STRATEGIES[0]


def _least_time(fn, repeats: int) -> float:
    """The least wall time (s) of ``repeats`` calls of ``fn``."""
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def time_batch(seed: int, n_nodes: int, balanced: float, parallel: bool, copy: int, repeats: int,
               share_position: str = "log") -> dict:
    jobs = batch(seed, n_nodes, balanced, parallel, copy, share_position)
    pre = preprocess(jobs)
    inputs = {"ref": packing.reference(jobs, STRATEGY), "set": packing.as_set(pre, STRATEGY),
              "partition": packing.as_partition(jobs, pre, STRATEGY)}
    row = dict(seed=seed, nodes=n_nodes, balanced=balanced, parallel=parallel, copy=copy,
               jobs=len(jobs), optimizations=pre.optimizations,
               optimizations_once=preprocess(jobs, retry_failed=False).optimizations, most=len(jobs) ** 2 / 2,
               preprocess_s=_least_time(lambda: preprocess(jobs), repeats))
    for name, args in inputs.items():
        row[f"schedule_{name}_s"] = _least_time(lambda args=args: packing.run(args, n_nodes), repeats)
    return row


def report(rows: list[dict], share_position: str) -> str:
    seeds = sorted({r["seed"] for r in rows})
    lines = [f"### His time measurements (4.5.5), {len(seeds)} seeds, {len(rows)} batches, shares at "
             f"the {share_position!r} position of their scaling ranges", "",
             "Per setting, mean over its batches: jobs |O|, t_pair minimisations (his count, step 3 "
             "retrying step 2's failed pairs; without the retries; the most, |O|^2 / 2), the "
             "preprocessing's time, and the LJF best-fit scheduler's time on the batch as it is and "
             "its saving with sets and with partitions.", "",
             "| nodes | parallel | balanced | jobs | optimisations | without retries | the most | "
             "share of the most | preprocessing (ms) | scheduling as it is (ms) | saved: set | "
             "saved: partition |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for n_nodes in NODES:
        for parallel in (False, True):
            for balanced in BALANCED:
                key = (n_nodes, parallel, balanced)
                part = [r for r in rows if (r["nodes"], r["parallel"], r["balanced"]) == key]
                m = {k: float(np.mean([r[k] for r in part])) for k in part[0] if k != "parallel"}
                ref = np.sum([r["schedule_ref_s"] for r in part])
                saved = {a: 100 * (1 - np.sum([r[f"schedule_{a}_s"] for r in part]) / ref)
                         for a in ("set", "partition")}
                lines.append(f"| {n_nodes} | {'yes' if parallel else 'no'} | {100 * balanced:.0f} % | "
                             f"{m['jobs']:.0f} | {m['optimizations']:.0f} | {m['optimizations_once']:.0f} | "
                             f"{m['most']:,.0f} | "
                             f"{100 * m['optimizations'] / m['most']:.2f} % | "
                             f"{1e3 * m['preprocess_s']:.2f} | {1e3 * m['schedule_ref_s']:.2f} | "
                             f"{saved['set']:.0f} % | {saved['partition']:.0f} % |")
    opt = np.array([r["optimizations"] for r in rows], dtype=float)
    pre_s = np.array([r["preprocess_s"] for r in rows])
    ref = np.array([r["schedule_ref_s"] for r in rows])
    saved = {a: 100 * (1 - sum(r[f"schedule_{a}_s"] for r in rows) / ref.sum()) for a in ("set", "partition")}
    lines += ["", f"- Optimisations per batch: at most {opt.max():,.0f} (his: 4,200 took 50 minutes and no "
              "batch over 55, so about 4,600 at most); per optimisation "
              f"{1e3 * pre_s.sum() / max(opt.sum(), 1):.3f} ms of preprocessing in all (his: about 0.6 s, "
              "\"okrog minute za 100 optimizacij\").",
              f"- Preprocessing at most {1e3 * pre_s.max():.1f} ms per batch (his: up to 55 minutes); "
              f"scheduling as it is at most {1e3 * ref.max():.1f} ms (his Haizea: up to 50 minutes for "
              "700 jobs).",
              f"- Scheduling time saved over every batch: set {saved['set']:.0f} %, partition "
              f"{saved['partition']:.0f} % (his mean: 18 %, less with partitions).", ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=1, help="workload seeds 1..N (N >= 1)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="timed runs of each step (the least counts)")
    add_share_position(parser, "timing_<position>.md/.csv")
    args = parser.parse_args()
    if args.seeds < 1 or args.repeats < 1:
        parser.error("--seeds and --repeats: expected 1 or more")
    packing.run(packing.reference(batch(1, 5, 0.0, False, 0), STRATEGY), 5)  # compile before timing
    rows = [time_batch(s, n, b, p, c, args.repeats, args.share_position) for s in range(1, args.seeds + 1)
            for n in NODES for b in BALANCED for p in (False, True) for c in (0, 1)]
    OUT.mkdir(parents=True, exist_ok=True)
    name = "timing" if args.share_position == "log" else f"timing_{args.share_position}"
    write_csv(OUT / f"{name}.csv", list(rows[0]), [list(r.values()) for r in rows])
    text = report(rows, args.share_position)
    atomic_write_bytes(OUT / f"{name}.md", text.encode())
    print(text)


if __name__ == "__main__":
    main()
