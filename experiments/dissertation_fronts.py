"""The dissertation's Figs. 10.3 and 10.4: NSGA-II's front of per-site AWRT for Table 10.1's four setups,
with local EASY, the pool, the active request and AWF drawn in (Lepping 2011, 10.2).

Run: ``.venv/bin/python experiments/dissertation_fronts.py [run|report|all] [--seeds N] [--workers N]``

``run`` (resumable: a finished run is kept, an unfinished one continues from its checkpoint) runs
``evogrid pareto`` with the dissertation's settings (population 70, 200 generations, the local
assignment with 5,000 random changes) on each setup's cuts (``lepping:NAME-11``) for seeds 1..N,
into ``runs/experiments/dissertation_fronts/<setup>/seed<s>``. ``report`` prints, per setup and seed,
the front's AWRT range and hypervolume against local EASY, the strategies' points next to Table
10.1's, and whether the front reaches the active request's point ("dass dieser Punkt auch mit der
Front erreicht wird", 10.2.2).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from dissertation_pool import TABLE_10_1

from evogrid.workload.dissertation import TABLE_7_2

ROOT = Path(__file__).resolve().parents[1]
RUNS = ROOT / "runs" / "experiments" / "dissertation_fronts"
RESULTS = ROOT / "experiments" / "results" / "dissertation_fronts"
#: Table 10.1's EASY column is Table 7.2's EASY AWRT of each cut.
EASY = 1


def run(seeds: int, workers: int) -> None:
    """Every setup and seed not finished yet (a progress line per run on stderr)."""
    for seed in range(1, seeds + 1):  # every setup's first seed first
        for setup, (cuts, *_) in TABLE_10_1.items():
            out = RUNS / setup / f"seed{seed}"
            if (out / "front.json").exists():
                continue
            scenario = "+".join(f"lepping:{n}-{m}" for n, m in cuts)
            command = [sys.executable, "-m", "evogrid.cli", "pareto"]
            command += (["--resume", str(out)] if (out / "run.json").exists() else
                        [scenario, "--seed", str(seed), "--out", str(out)])
            print(f"setup {setup}, seed {seed}", file=sys.stderr, flush=True)
            subprocess.run([*command, "--workers", str(workers)], check=True, cwd=ROOT)


def dominated(point: list[float], front: list[list[float]]) -> bool:
    """Is ``point`` weakly dominated by a point of ``front`` (both AWRTs as low or lower)?"""
    return any(f[0] <= point[0] and f[1] <= point[1] for f in front)


def report(seeds: int) -> None:
    """Print the markdown tables of the finished runs, and keep each run's ``front.json`` in
    ``experiments/results/dissertation_fronts/`` (the run directories hold gigabytes of job files)."""
    print("| setup | seed | front: points, AWRT site 1 / site 2 range (s) | HV | AA reached |")
    print("|---|---|---|---|---|")
    points = {}
    for setup in TABLE_10_1:
        for seed in range(1, seeds + 1):
            path = RUNS / setup / f"seed{seed}" / "front.json"
            if not path.exists():
                continue
            data = json.loads(path.read_text())
            (RESULTS / setup).mkdir(parents=True, exist_ok=True)
            (RESULTS / setup / f"front_seed{seed}.json").write_text(path.read_text())
            front = [row[:2] for row in data["front"]]
            points[setup] = data["reference_points"]
            aa = points[setup]["AA"]
            # how far the front is from AA: the least factor by which a front point exceeds AA's worse AWRT
            closest = min(max(f[0] / aa[0], f[1] / aa[1]) for f in front)
            reached = "yes" if dominated(aa, front) else f"no, +{100 * (closest - 1):.1f} %"
            one, two = sorted(f[0] for f in front), sorted(f[1] for f in front)
            ranges = f"{one[0]:,.0f}-{one[-1]:,.0f} / {two[0]:,.0f}-{two[-1]:,.0f}"
            print(f"| {setup} | {seed} | {len(front)}, {ranges} | {data['hypervolume']:.3g} | {reached} |")
    print("\nThe strategies' points, ours / Table 10.1 (s; ours on the first seed's run):\n")
    print("| setup | sites | local EASY | pool (EASY-JS) | AA | AWF |")
    print("|---|---|---|---|---|---|")
    for setup, (cuts, platf, aa) in TABLE_10_1.items():
        if setup not in points:
            continue
        p = points[setup]
        sites = [f"{n}-{m}" for n, m in cuts]
        easy = tuple(TABLE_7_2[cut][EASY][0] for cut in cuts)

        def cell(ours: list[float], theirs: tuple[float, float] | None) -> str:
            return " / ".join(f"{o:,.0f}" + ("" if theirs is None else f" ({100 * (o / t - 1):+.1f} %)")
                              for o, t in zip(ours, theirs or (None, None), strict=True))
        print(f"| {setup} | {' + '.join(sites)} | {cell(p['local'], easy)} | {cell(p['EASY-JS'], platf)} | "
              f"{cell(p['AA'], aa)} | {cell(p['AWF'], None)} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("phase", choices=["run", "report", "all"], nargs="?", default="all")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    if args.phase in ("run", "all"):
        run(args.seeds, args.workers)
    if args.phase in ("report", "all"):
        report(args.seeds)


if __name__ == "__main__":
    main()
