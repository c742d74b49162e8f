"""Time one benchmark script at two commits in the same run, alternating, on the same machine.

Run: ``.venv/bin/python experiments/benchmarks/compare_commits.py [--bench bench_grid.py]
[--rounds 2] [--processes 1] OLD NEW [ARGS for the benchmark]``

Each commit is checked out into a temporary git worktree (its own numba
cache; the first round also compiles, outside the timed sections) and the
benchmark runs there with that worktree first on ``PYTHONPATH``, OLD and NEW
alternating for ``--rounds`` rounds so that drift of the machine hits both.
Every line the benchmark prints is echoed with the commit it came from; the
benchmarks' results files are written inside the temporary worktrees, which
are removed afterwards.

On this VM a process's speed is bimodal: the same code in a fresh process
runs in a fast or a slow mode, 40-80 % apart (docs/benchmarks.md), so one
process per commit and round can show a regression that is a draw.
``--processes N`` runs the benchmark N times per commit in each round, the
commits alternating process by process. At the end a table gives each case's
best value per commit over all processes (the lowest time or size, the
highest rate) and the change.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: A benchmark's result line (bench_foundation.report): case, value, unit, target.
RESULT = re.compile(r"^(?P<case>.+?)\s+(?P<value>-?[0-9.]+(?:e[+-]?[0-9]+)?)\s+(?P<unit>\S+)"
                    r"\s+\(target .*\)$")
#: Units where more is better (a rate, a speed-up); for every other unit (s, ms, us, MB, a growth in
#: x/doubling) less is.
HIGHER_IS_BETTER = {"jobs/s", "x"}


def worktree(rev: str, where: Path) -> Path:
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(where), rev], check=True)
    return where


def run(tree: Path, bench: str, label: str, bench_args: list[str]) -> list[tuple[str, float, str]]:
    """Run the benchmark once in ``tree``, echo its lines, return its results ``(case, value, unit)``."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    script = tree / "experiments" / "benchmarks" / bench
    out = subprocess.run([sys.executable, str(script), *bench_args], env=env, cwd=tree,
                         capture_output=True, text=True, check=True)
    results = []
    for line in out.stdout.splitlines():
        print(f"{label:>10}  {line}", flush=True)
        if match := RESULT.match(line.strip()):
            results.append((match["case"], float(match["value"]), match["unit"]))
    return results


def better(value: float, than: float, unit: str) -> bool:
    """Is ``value`` better than ``than`` in ``unit``?"""
    return value > than if unit in HIGHER_IS_BETTER else value < than


def summary(best: dict[str, dict[str, tuple[float, str]]], old: str, new: str) -> None:
    """Each case's best value per commit and the change (+: the new commit is better)."""
    print(f"# best of every process: case | {old[:10]} | {new[:10]} | change", flush=True)
    for case in dict.fromkeys([*best[old], *best[new]]):
        if case not in best[old] or case not in best[new]:
            continue
        (a, unit), (b, _) = best[old][case], best[new][case]
        change = (b / a - 1 if unit in HIGHER_IS_BETTER else a / b - 1) if a and b else 0.0
        print(f"{case} | {a:.4g} {unit} | {b:.4g} {unit} | {change:+.1%}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--bench", default="bench_grid.py")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--processes", type=int, default=1, help="benchmark processes per commit and round")
    parser.add_argument("bench_args", nargs=argparse.REMAINDER, help="passed to the benchmark")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        trees = {rev: worktree(rev, Path(tmp) / f"tree{i}") for i, rev in enumerate((args.old, args.new))}
        best: dict[str, dict[str, tuple[float, str]]] = {rev: {} for rev in trees}
        try:
            for r in range(args.rounds):
                for p in range(args.processes):
                    for rev, tree in trees.items():
                        print(f"# round {r + 1}, process {p + 1}, {rev}", flush=True)
                        for case, value, unit in run(tree, args.bench, rev[:10], args.bench_args):
                            if case not in best[rev] or better(value, best[rev][case][0], unit):
                                best[rev][case] = (value, unit)
            summary(best, args.old, args.new)
        finally:
            for tree in trees.values():
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)],
                               check=False)


if __name__ == "__main__":
    main()
