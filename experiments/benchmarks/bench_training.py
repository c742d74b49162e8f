"""Training benchmarks: a full default EFS run, 3-site co-evolution, 2 workers vs 1.

Run: ``.venv/bin/python experiments/benchmarks/bench_training.py [efs|coevolution|scaling ...]``

- EFS: exactly ``evogrid train KTH@0-5+SDSC03@0-5 --site 0 --workers 2`` (13 + 91,
  150 generations, FCFS, partner AWF), wall time of the whole run including
  the result's evaluation and plots (target <= 3 min);
- co-evolution: ``evogrid coevolve KTH@0-5+SDSC03@0-5+HPC2N@0-5 --workers 2``
  (target <= 5 min);
- scaling: one population of 91 EFS offspring (after 5 generations, so
  the candidates are realistic) evaluated by 1 and by 2 loky workers, best
  of 5 (target >= 1.7x).

The targets are in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from bench_foundation import best_of, report

from evogrid.optimize import Evaluator, TrainConfig, run_training
from evogrid.optimize.es import make_toolbox, offspring
from evogrid.optimize.training import make_algorithm


def full_run(label: str, config: TrainConfig, target: str) -> None:
    with tempfile.TemporaryDirectory() as tmp, Evaluator("loky", 2) as evaluator:
        t0 = time.perf_counter()
        result = run_training(config, Path(tmp) / "run", evaluator, progress=False)
        seconds = time.perf_counter() - t0
    report(label, seconds, "s", target)
    print(f"  {result['evaluations']:,} simulations, {result['cut_off']:,} stopped early; "
          + "; ".join(f"{r['site']} {r['improvement_pct']:+.1f} %" for r in result["summary"]))


def scaling() -> None:
    config = TrainConfig("KTH@0-5+SDSC03@0-5", generations=5, cutoff=False)
    times = {}
    for workers in (1, 2):
        with Evaluator("loky", workers) as evaluator:
            algorithm = make_algorithm(config, evaluator)
            state = algorithm.start()
            for _ in range(5):
                algorithm.step(state)
            children = offspring(make_toolbox(state.rng, config), state.rng, state.species[0], 91)
            times[workers] = best_of(
                lambda a=algorithm, s=state, c=children: a.evaluate_individuals(s, c, 0.0), 5)
        report(f"91 EFS evaluations, {workers} worker(s)", times[workers], "s", "-")
    report("population evaluation, 2 workers vs 1", times[1] / times[2], "x", ">= 1.7x")


def main(cases: list[str]) -> None:
    cases = cases or ["efs", "coevolution", "scaling"]
    if "efs" in cases:
        full_run("EFS 13+91 x 150 KTH@0-5+SDSC03@0-5 FCFS, 2 workers", TrainConfig("KTH@0-5+SDSC03@0-5"),
                 "<= 180 s")
    if "coevolution" in cases:
        full_run("co-evolution 3 sites x 150 (KTH,SDSC03,HPC2N@0-5), 2 workers",
                 TrainConfig("KTH@0-5+SDSC03@0-5+HPC2N@0-5", kind="coevolution"), "<= 300 s")
    if "scaling" in cases:
        scaling()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", choices=["efs", "coevolution", "scaling"],
                        help="which to run (default: all)")
    main(parser.parse_args().cases)
