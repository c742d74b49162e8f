"""Cankar's choice of alpha and W (dissertation, 4.5.3): the co-location preprocessor's parameters on
training batches (docs/coallocation.md, "His choice of alpha and W").

What he did: training batches "pripravljene po istem postopku kot za teste" (made the same way as the
tests) with 5, 15 and 30 nodes and no fully balanced jobs ("brez popolnoma uravnovešenih opravil",
where the parameters have no effect: here the batches whose share of fully balanced jobs is 0 %);
a coarse sweep over alpha in [0, 0.5] and W in [1.1, 20] (his finding: efficiency "znatno pade"
(falls markedly) for alpha > 0.3 and W > 3); a fine grid alpha in {0, 0.1, 0.2, 0.3} x W in {1.1,
1.25, 1.5, 1.75, 2, 2.5, 3}, whose mean efficiency and per-case efficiency chose alpha = 0.1, W =
1.75 ("dajeta optimalne rezultate pri večini primerov", give optimal results in most cases, with
sets and with partitions); and, per case, the relative standard deviation of efficiency over the
fine grid: at most 1.6 %, 1.1 % in the mean (set), 2.4 % and 1.2 % (partition).

Ours: per seed (workload seeds ``100 + seed``: not the test batches of cankar_colocation.py) 5, 15
and 30 nodes x without and with parallel jobs x 2 batches x the LJF and HDF schedulers = 24 cases;
efficiency as in Tables 4.2 and 4.3: the improvement of t_RUN over the batch scheduled as it is
(%); the relative standard deviation is that of t_RUN over the fine grid (an improvement's own
relative spread would be tens of per cent; his 1.1 % fits t_RUN). Best-fit backfilling as in
cankar_colocation.py, or without it (``--no-backfill``).

Run: ``.venv/bin/python experiments/cankar_colocation_parameters.py [--seeds 5] [--workers 2]
[--no-backfill] [--share-position log|linear|middle|top]`` (a few minutes on 2 workers). Writes
``experiments/results/cankar_colocation/[no_backfill/]parameters.md`` and ``parameters.csv``
(``--report``: the tables again from that CSV).
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import numpy as np
from cankar_colocation import add_share_position, batch, results_dir
from joblib import Parallel, delayed

from evogrid.files import atomic_write_bytes
from evogrid.nodes import packing
from evogrid.nodes.colocation import ALPHA, W, preprocess
from evogrid.optimize.rundir import write_csv

OUT = Path(__file__).parent / "results" / "cankar_colocation"
NODES = (5, 15, 30)
TRAINING_SEED_OFFSET = 100
FINE_ALPHA = (0.0, 0.1, 0.2, 0.3)
FINE_W = (1.1, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0)
COARSE_ALPHA = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5)
COARSE_W = (1.1, 1.75, 3.0, 5.0, 10.0, 20.0)
APPROACHES = ("set", "partition")
#: His stability figures (4.5.3): the largest and the mean relative sd of a case's efficiency, %.
HIS_SD = {"set": (1.6, 1.1), "partition": (2.4, 1.2)}


def grid() -> list[tuple[float, float]]:
    """Every (alpha, W) the study runs: the fine grid and the coarse one, once each."""
    fine = {(a, w) for a in FINE_ALPHA for w in FINE_W}
    return sorted(fine | {(a, w) for a in COARSE_ALPHA for w in COARSE_W})


def run_batch(seed: int, n_nodes: int, parallel: bool, copy: int, backfill: bool,
              share_position: str = "log") -> list[dict]:
    """One training batch's rows: per scheduler and (alpha, W), t_RUN of the reference and of both
    approaches."""
    jobs = batch(TRAINING_SEED_OFFSET + seed, n_nodes, 0.0, parallel, copy, share_position)
    reference = {s: packing.run(packing.reference(jobs, s), n_nodes, backfill)[0]
                 for s in packing.STRATEGIES}
    rows = []
    for alpha, w in grid():
        pre = preprocess(jobs, alpha, w)
        merged = sum(len(g) for g in pre.groups if len(g) > 1)
        for strategy in packing.STRATEGIES:
            rows.append(dict(seed=seed, nodes=n_nodes, parallel=parallel, copy=copy, strategy=strategy,
                             alpha=alpha, w=w, jobs=len(jobs), merged=merged,
                             t_run_ref=reference[strategy],
                             t_run_set=packing.run(packing.as_set(pre, strategy), n_nodes, backfill)[0],
                             t_run_partition=packing.run(packing.as_partition(jobs, pre, strategy), n_nodes,
                                                         backfill)[0]))
    return rows


def _case(r: dict) -> tuple:
    return r["seed"], r["nodes"], r["parallel"], r["copy"], r["strategy"]


def _gain(r: dict, approach: str) -> float:
    return 100 * (1 - r[f"t_run_{approach}"] / r["t_run_ref"])


def sweep_table(rows: list[dict], approach: str, alphas: tuple, ws: tuple) -> list[str]:
    """Markdown: the mean efficiency improvement (%) over every case, per alpha (rows) and W."""
    lines = ["| alpha \\ W | " + " | ".join(f"{w:g}" for w in ws) + " |", "|---|" + "---|" * len(ws)]
    for a in alphas:
        cells = [f"{np.mean([_gain(r, approach) for r in rows if (r['alpha'], r['w']) == (a, w)]):.2f}"
                 for w in ws]
        lines.append(f"| {a:g} | " + " | ".join(cells) + " |")
    return lines


def report(rows: list[dict], backfill: bool) -> str:
    seeds = sorted({r["seed"] for r in rows})
    cases = sorted({_case(r) for r in rows})
    fine = [r for r in rows if r["alpha"] in FINE_ALPHA and r["w"] in FINE_W]
    lines = [f"### His choice of alpha and W (4.5.3), {len(seeds)} seeds, {len(cases)} cases "
             f"({'best-fit backfilling' if backfill else 'without backfilling'})", "",
             "Training batches: 5, 15 and 30 nodes, no fully balanced jobs, without and with parallel "
             "jobs, 2 per setting, LJF and HDF; workload seeds 100 + seed. Efficiency: t_RUN's "
             "improvement over the batch as it is, %, mean over the cases.", ""]
    at_alpha = [r for r in rows if r["alpha"] == ALPHA and r["strategy"] == packing.STRATEGIES[0]]
    shares = [100 * sum(r["merged"] for r in at_alpha if r["w"] == w)
              / sum(r["jobs"] for r in at_alpha if r["w"] == w) for w in COARSE_W]
    lines += [f"Jobs merged (alpha = {ALPHA:g}), % of the batches' jobs, by W: "
              + ", ".join(f"{w:g}: {v:.1f}" for w, v in zip(COARSE_W, shares, strict=True)) + ".", ""]
    for approach in APPROACHES:
        lines += [f"**Coarse sweep, {approach} approach** (his: it falls markedly for alpha > 0.3 and "
                  "W > 3):", "", *sweep_table(rows, approach, COARSE_ALPHA, COARSE_W), "",
                  f"**Fine grid, {approach} approach** (his choice: alpha = 0.1, W = 1.75):", "",
                  *sweep_table(fine, approach, FINE_ALPHA, FINE_W), ""]
        means = {(a, w): np.mean([_gain(r, approach) for r in fine if (r["alpha"], r["w"]) == (a, w)])
                 for a in FINE_ALPHA for w in FINE_W}
        best = max(means, key=means.get)
        by_case: dict[tuple, dict] = {}
        for r in fine:
            by_case.setdefault(_case(r), {})[(r["alpha"], r["w"])] = r[f"t_run_{approach}"]
        optimal = sum(t[(ALPHA, W)] <= min(t.values()) * (1 + 1e-9) for t in by_case.values())
        def rel_sd(ws: tuple, by_case: dict = by_case) -> list[float]:
            return [100 * float(np.std(v, ddof=1) / np.mean(v))
                    for v in ([t[k] for k in t if k[1] in ws] for t in by_case.values())]

        every, wider = rel_sd(FINE_W), rel_sd(FINE_W[1:])
        his_max, his_mean = HIS_SD[approach]
        lines += [f"- Best mean: alpha = {best[0]:g}, W = {best[1]:g} ({means[best]:.2f} %); his choice "
                  f"alpha = {ALPHA:g}, W = {W:g}: {means[(ALPHA, W)]:.2f} %, ranked "
                  f"{sorted(means.values(), reverse=True).index(means[(ALPHA, W)]) + 1} of {len(means)}.",
                  f"- His choice gives the lowest t_RUN of the fine grid (ties included) in {optimal} of "
                  f"{len(by_case)} cases.",
                  f"- Relative sd of a case's t_RUN over the fine grid: at most {max(every):.2f} %, "
                  f"mean {np.mean(every):.2f} % | his {his_max} %, {his_mean} %; without W = "
                  f"{FINE_W[0]:g}: {max(wider):.2f} %, {np.mean(wider):.2f} %.", ""]
    return "\n".join(lines)


def read_rows(path: Path) -> list[dict]:
    """The rows of a parameters.csv, typed as :func:`run_batch` makes them."""
    if not path.exists():
        raise SystemExit(f"{path}: no such file (run the study first, without --report)")
    types = {"seed": int, "nodes": int, "copy": int, "jobs": int, "merged": int, "strategy": str,
             "parallel": lambda v: v == "True"}
    with path.open() as f:
        return [{k: types.get(k, float)(v) for k, v in r.items()} for r in csv.DictReader(f)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5, help="training seeds 1..N (N >= 1)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--no-backfill", action="store_true",
                        help="the scheduler without backfilling (results in the subdirectory no_backfill)")
    parser.add_argument("--report", action="store_true",
                        help="only the tables again, from the parameters.csv an earlier run wrote")
    add_share_position(parser, "the subdirectory share_<position>")
    args = parser.parse_args()
    if args.seeds < 1:
        parser.error(f"--seeds {args.seeds}: expected 1 or more")
    out = results_dir(OUT / "no_backfill" if args.no_backfill else OUT, args.share_position)
    if args.report:
        text = report(read_rows(out / "parameters.csv"), not args.no_backfill)
        atomic_write_bytes(out / "parameters.md", text.encode())
        print(text)
        return
    tasks = [(s, n, p, c) for s in range(1, args.seeds + 1) for n in NODES for p in (False, True)
             for c in (0, 1)]
    tasks.sort(key=lambda t: -t[1] * (1 if t[2] else 10))  # the long batches first
    backfill = not args.no_backfill
    done = Parallel(n_jobs=args.workers, verbose=5)(delayed(run_batch)(*t, backfill, args.share_position)
                                                    for t in tasks)
    rows = sorted((r for batch in done for r in batch), key=lambda r: (*_case(r), r["alpha"], r["w"]))
    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / "parameters.csv", list(rows[0]), [list(r.values()) for r in rows])
    text = report(rows, backfill)
    atomic_write_bytes(out / "parameters.md", text.encode())
    print(text)


if __name__ == "__main__":
    main()
