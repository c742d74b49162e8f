"""Cankar's Tables 4.1-4.3: co-location and vertical scaling before a scheduler that cannot scale jobs
(M. Cankar, dissertation, 4.5; docs/coallocation.md, "Co-location").

Per seed, his 128 cases: 5, 15, 30 and 100 nodes x 100, 66, 33 and 0 % fully balanced jobs x
batches without and with parallel jobs x 2 batches x the LJF and HDF schedulers
(``evogrid.nodes.cloud_jobs.scalable_batch``). Each batch is scheduled as it is (the reference), as
the preprocessor's surrogate jobs (the "set" approach) and as its groups (the "partition" approach),
with best-fit backfilling (``evogrid.nodes.packing``), and t_RUN (the sum of the nodes' last
finishing times, his 4.1) and the last job's end are compared. Prints Table 4.1's job counts and
Tables 4.2 and 4.3 (ours, mean ± sd over the seeds | his).

Run: ``.venv/bin/python experiments/cankar_colocation.py [--seeds 5] [--workers 2] [--no-backfill]
[--share-position log|linear|middle|top] [--partition-policy apart|leader-nodes|leader-waits]``
(about 3-5 minutes on 2 workers). Writes
``experiments/results/cankar_colocation/[no_backfill/][share_<position>/][partition_<policy>/]cases.csv``
and ``tables.md``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from cankar_collective import mean_sd
from joblib import Parallel, delayed

from evogrid.nodes import packing
from evogrid.nodes.cloud_jobs import SHARE_POSITIONS, scalable_batch
from evogrid.nodes.colocation import ScalableJobs, preprocess
from evogrid.optimize.rundir import write_csv

OUT = Path(__file__).parent / "results" / "cankar_colocation"
NODES = (5, 15, 30, 100)
BALANCED = (1.0, 0.66, 0.33, 0.0)
#: His Table 4.1: jobs per batch [min, max] without and with parallel jobs.
TABLE_4_1 = {5: ((36, 42), (25, 32)), 15: ((112, 125), (37, 46)), 30: ((215, 240), (38, 49)),
             100: ((689, 752), (44, 52))}
#: His Tables 4.2 (set) and 4.3 (partition): cases without improvement (lower, equal), mean (sd)
#: improvement (%), mean (sd) earlier end of the last job (h), cases whose last job ends no earlier.
TABLE_4_2_3 = {"set": ((10, 3), (8.0, 6.0), (1.75, 2 + 20 / 60), 25),
               "partition": ((6, 2), (8.2, 5.3), (2 + 14 / 60, 1 + 43 / 60), 12)}
TIE = 1e-9


def batch(seed: int, n_nodes: int, balanced: float, parallel: bool, copy: int,
          share_position: str = "log") -> ScalableJobs:
    """Copy ``copy`` of the batch of workload seed ``seed`` for this setting."""
    batch_seed = int(np.random.SeedSequence([seed, n_nodes, round(balanced * 100), parallel, copy])
                     .generate_state(1)[0])
    return scalable_batch(n_nodes, balanced, parallel, batch_seed, share_position)


def add_share_position(parser: argparse.ArgumentParser, where: str) -> None:
    """The scripts' ``--share-position``: where a job's share lies in its scaling range (his text
    leaves it open; ``log`` is ours); ``where``: where another position's results go."""
    parser.add_argument("--share-position", choices=SHARE_POSITIONS, default="log",
                        help=f"where a job's share lies in its scaling range (his text leaves it open; "
                        f"log: ours; another writes to {where})")


def results_dir(out: Path, share_position: str) -> Path:
    """``out``, or its subdirectory ``share_<position>`` for another share position than ours."""
    return out if share_position == "log" else out / f"share_{share_position}"


def run_batch(seed: int, n_nodes: int, balanced: float, parallel: bool, copy: int,
              backfill: bool = True, share_position: str = "log", policy: str = "apart") -> list[dict]:
    """The batch's rows, one per scheduler: t_RUN and last end (h) of the three inputs (the
    partition under ``policy``, evogrid.nodes.packing.PARTITION_POLICIES)."""
    jobs = batch(seed, n_nodes, balanced, parallel, copy, share_position)
    pre = preprocess(jobs)
    rows = []
    for strategy in packing.STRATEGIES:
        ref = packing.run(packing.reference(jobs, strategy), n_nodes, backfill)
        merged = packing.run(packing.as_set(pre, strategy), n_nodes, backfill)
        parts = packing.run(packing.as_partition(jobs, pre, strategy, policy), n_nodes, backfill)
        rows.append(dict(seed=seed, nodes=n_nodes, balanced=balanced, parallel=parallel, copy=copy,
                         strategy=strategy, jobs=len(jobs), groups=len(pre.groups),
                         merged_jobs=sum(len(g) for g in pre.groups if len(g) > 1),
                         t_run_ref=ref[0], t_run_set=merged[0], t_run_partition=parts[0],
                         end_ref=ref[1], end_set=merged[1], end_partition=parts[1]))
    return rows


def summary(rows: list[dict], approach: str) -> dict[str, float]:
    """Table 4.2 or 4.3's rows for one seed's 128 cases."""
    gain = np.array([(r["t_run_ref"] - r[f"t_run_{approach}"]) / r["t_run_ref"] for r in rows])
    earlier = np.array([r["end_ref"] - r[f"end_{approach}"] for r in rows])
    return {"lower": int(np.sum(gain < -TIE)), "equal": int(np.sum(np.abs(gain) <= TIE)),
            "gain %": float(gain.mean() * 100), "gain sd %": float(gain.std(ddof=1) * 100),
            "earlier h": float(earlier.mean()), "earlier sd h": float(earlier.std(ddof=1)),
            "end not earlier": int(np.sum(earlier <= TIE))}


def _gains(rows: list[dict]) -> list[float]:
    """The mean t_RUN gain (%) of the set and of the partition approach over ``rows``."""
    return [float(np.mean([1 - r[f"t_run_{a}"] / r["t_run_ref"] for r in rows])) * 100
            for a in ("set", "partition")]


def _hm(hours: float) -> str:
    sign = "-" if hours < 0 else ""
    minutes = round(abs(hours) * 60)
    return f"{sign}{minutes // 60} h {minutes % 60:02d} min"


def report(rows: list[dict]) -> str:
    """Markdown: Table 4.1's job counts, Tables 4.2 and 4.3 (ours mean ± sd over seeds | his)."""
    seeds = sorted({r["seed"] for r in rows})
    lines = [f"### Tables 4.1-4.3, {len(seeds)} seeds", "",
             "Table 4.1 (jobs per batch, ours [min, max] over every batch | his):", "",
             "| nodes | without parallel jobs | his | with parallel jobs | his |", "|---|---|---|---|---|"]
    for n_nodes in NODES:
        cells = []
        for k, parallel in enumerate((False, True)):
            jobs = [r["jobs"] for r in rows if r["nodes"] == n_nodes and r["parallel"] == parallel]
            cells += [f"[{min(jobs)}, {max(jobs)}]", str(list(TABLE_4_1[n_nodes][k]))]
        lines.append(f"| {n_nodes} | " + " | ".join(cells) + " |")
    for approach, table in (("set", "4.2"), ("partition", "4.3")):
        per_seed = [summary([r for r in rows if r["seed"] == s], approach) for s in seeds]
        his = TABLE_4_2_3[approach]
        def col(key: str, per_seed: list[dict] = per_seed) -> str:
            return mean_sd([p[key] for p in per_seed], 1)

        def hours(key: str, per_seed: list[dict] = per_seed) -> str:
            return _hm(float(np.mean([p[key] for p in per_seed])))

        lines += ["", f"Table {table} ({approach} approach, 128 cases per seed; ours mean ± sd over the "
                  "seeds | his):", "", "| row | ours | his |", "|---|---|---|",
                  f"| cases without improvement (lower + equal) | {col('lower')} + {col('equal')} | "
                  f"{his[0][0]} + {his[0][1]} |",
                  f"| efficiency improvement, mean (sd) | {col('gain %')} % ({col('gain sd %')} %) | "
                  f"{his[1][0]} % ({his[1][1]} %) |",
                  f"| last job's end earlier, mean (sd) | {hours('earlier h')} ({hours('earlier sd h')}) | "
                  f"{_hm(his[2][0])} ({_hm(his[2][1])}) |",
                  f"| cases whose last job ends no earlier | {col('end not earlier')} | {his[3]} |"]
    lines += ["", "Improvement by nodes, parallel jobs and scheduler (mean over seeds and batches, %; "
              "set / partition):", "", "| nodes | parallel | LJF | HDF |", "|---|---|---|---|"]
    for n_nodes in NODES:
        for parallel in (False, True):
            cells = []
            for strategy in packing.STRATEGIES:
                part = [r for r in rows if r["nodes"] == n_nodes and r["parallel"] == parallel
                        and r["strategy"] == strategy]
                cells.append(" / ".join(f"{g:.1f}" for g in _gains(part)))
            lines.append(f"| {n_nodes} | {'yes' if parallel else 'no'} | " + " | ".join(cells) + " |")
    lines += ["", "By scheduler and parallel jobs (his 4.5.4 compares the partition approach with the set "
              "approach so; mean over seeds, nodes and batches, %; the cases whose t_RUN both approaches "
              "give alike):", "", "| scheduler | parallel | set | partition | alike |",
              "|---|---|---|---|---|"]
    for strategy in packing.STRATEGIES:
        for parallel in (False, True):
            part = [r for r in rows if r["strategy"] == strategy and r["parallel"] == parallel]
            gains = _gains(part)
            alike = sum(abs(r["t_run_set"] - r["t_run_partition"]) <= TIE * r["t_run_ref"] for r in part)
            lines.append(f"| {strategy} | {'yes' if parallel else 'no'} | {gains[0]:.2f} | {gains[1]:.2f} | "
                         f"{alike} of {len(part)} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--no-backfill", action="store_true",
                        help="the scheduler without backfilling: each job no earlier than the one before "
                        "(a reading his text does not support; results in the subdirectory no_backfill)")
    add_share_position(parser, "the subdirectory share_<position>")
    parser.add_argument("--partition-policy", choices=packing.PARTITION_POLICIES, default="apart",
                        help="how the scheduler treats a partition's groups (his text leaves it open): "
                        "apart (ours); leader-nodes, a group's later members preferring its first "
                        "member's nodes at their start; leader-waits, waiting for room on them (results "
                        "in the subdirectory partition_<policy>)")
    args = parser.parse_args()
    out = results_dir(OUT / "no_backfill" if args.no_backfill else OUT, args.share_position)
    if args.partition_policy != "apart":
        out = out / f"partition_{args.partition_policy}"
    packing.run(packing.packed(np.full((2, 3), 0.5), np.ones(2), np.ones(2)), 2)  # compile once
    tasks = [(s, n, b, p, c) for s in range(1, args.seeds + 1) for n in NODES for b in BALANCED
             for p in (False, True) for c in (0, 1)]
    tasks.sort(key=lambda t: -t[1] * (1 if t[3] else 10))  # the long batches first
    backfill = not args.no_backfill
    done = Parallel(n_jobs=args.workers, verbose=5)(
        delayed(run_batch)(*t, backfill, args.share_position, args.partition_policy) for t in tasks)
    rows = sorted((r for batch in done for r in batch), key=lambda r: (
        r["seed"], r["nodes"], -r["balanced"], r["parallel"], r["copy"], r["strategy"]))
    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / "cases.csv", list(rows[0]),
              [[round(v, 5) if isinstance(v, float) else v for v in r.values()] for r in rows])
    text = report(rows)
    (out / "tables.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
