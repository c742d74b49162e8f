"""NSGA-II benchmark: pop 70 x 200 generations, KTH + SDSC03@0-11, EASY, 2 workers.

Run: ``.venv/bin/python experiments/benchmarks/bench_pareto.py [GENERATIONS]``

Runs exactly what ``evogrid pareto KTH+SDSC03@0-11 --workers 2`` runs (in a
temporary run directory) and reports the wall time of the whole run
(set-up, reference points, generations, results) and per generation
(target <= 10 min, docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from bench_foundation import report

from evogrid.optimize import Evaluator, ParetoConfig, run_pareto


def main(generations: int = 200) -> None:
    config = ParetoConfig("KTH+SDSC03@0-11", generations=generations)
    with tempfile.TemporaryDirectory() as tmp, Evaluator("loky", 2) as evaluator:
        t0 = time.perf_counter()
        result = run_pareto(config, Path(tmp) / "run", evaluator, progress=False)
        seconds = time.perf_counter() - t0
    target = "<= 600 s" if generations == 200 else "-"
    report(f"NSGA-II pop 70 x {generations} gen KTH+SDSC03@0-11 EASY, 2 workers", seconds, "s", target)
    report("  per generation", seconds / generations, "s", "-")
    print(f"  front: {len(result['front'])} points, hypervolume {result['hypervolume']:.6g}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("generations", nargs="?", type=int, default=200,
                        help="NSGA-II generations (default: 200)")
    main(parser.parse_args().generations)
