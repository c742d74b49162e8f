"""Time one benchmark script at two commits in the same run, alternating, on the same machine.

Run: ``.venv/bin/python experiments/benchmarks/compare_commits.py [--bench bench_grid.py]
[--rounds 2] OLD NEW [ARGS for the benchmark]``

Each commit is checked out into a temporary git worktree (its own numba
cache; the first round also compiles, outside the timed sections) and the
benchmark runs there with that worktree first on ``PYTHONPATH``, OLD and NEW
alternating for ``--rounds`` rounds so that drift of the machine hits both.
Every line the benchmark prints is echoed with the commit it came from; the
benchmarks' results files are written inside the temporary worktrees, which
are removed afterwards.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def worktree(rev: str, where: Path) -> Path:
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(where), rev], check=True)
    return where


def run(tree: Path, bench: str, label: str, bench_args: list[str]) -> None:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    script = tree / "experiments" / "benchmarks" / bench
    out = subprocess.run([sys.executable, str(script), *bench_args], env=env, cwd=tree,
                         capture_output=True, text=True, check=True)
    for line in out.stdout.splitlines():
        print(f"{label:>10}  {line}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--bench", default="bench_grid.py")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("bench_args", nargs=argparse.REMAINDER, help="passed to the benchmark")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        trees = {rev: worktree(rev, Path(tmp) / f"tree{i}") for i, rev in enumerate((args.old, args.new))}
        try:
            for r in range(args.rounds):
                for rev, tree in trees.items():
                    print(f"# round {r + 1}, {rev}", flush=True)
                    run(tree, args.bench, rev[:10], args.bench_args)
        finally:
            for tree in trees.values():
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)],
                               check=False)


if __name__ == "__main__":
    main()
