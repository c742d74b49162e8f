"""An experiment beyond the published co-evolution: a pairing's members share one fitness.

Run: ``.venv/bin/python experiments/coevolution_shared_fitness.py [--seeds 5]``
(about 4 minutes per seed on 2 cores).

With the usual own-AWRT fitness (docs/training.md, Co-evolution), no final
pairing of the 3-site co-evolution improves every site
(``coevolution_pairings.py``). Here every
member of a pairing gets the pairing's *worst relative AWRT*,
``max_k AWRT_k / AWRT_k(local)``, so each species is selected for pairings
that are good for the site that gains least; the result is the final
pairing with the smallest such value. Everything else (operators, rank
pairings, 13 + 91, 150 generations, FCFS, AWRT location policy, windows) is
as in ``train_policies.py``. Run directories go to
``runs/experiments/shared_fitness/seed*`` (summary.json: train and test
AWRT against local); the table to
``experiments/results/training/shared_fitness.json``.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import numpy as np

from evogrid.optimize import Evaluator, TrainConfig
from evogrid.optimize.coevolution import CoEvolution
from evogrid.optimize.training import write_results

ROOT = Path(__file__).resolve().parents[1]
RUNS = ROOT / "runs" / "experiments" / "shared_fitness"
OUT = ROOT / "experiments" / "results" / "training" / "shared_fitness.json"
TRAIN, TEST = "KTH@0-5+SDSC03@0-5+HPC2N@0-5", "KTH@5-11+SDSC03@5-11+HPC2N@5-11"


def run(seed: int, evaluator: Evaluator) -> list[dict]:
    out = RUNS / f"seed{seed}"
    if not (out / "summary.json").exists():
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
        config = TrainConfig(TRAIN, kind="coevolution", seed=seed, test=TEST, fitness="shared",
                             pick="worst-relative", archive=False)
        algorithm = CoEvolution(config, evaluator)
        state = algorithm.start()
        while state.generation < config.generations:
            algorithm.step(state)
        result = write_results(config, state, out, algorithm.best(state))
        (out / "summary.json").write_text(json.dumps(result["summary"], indent=2))
    return json.loads((out / "summary.json").read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    seeds = range(1, parser.parse_args().seeds + 1)
    rows = []
    with Evaluator("loky", 2) as evaluator:
        for seed in seeds:
            for r in run(seed, evaluator):
                rows.append({"seed": seed, **r})
                print(f"seed {seed} {r['window']:5} {r['lrms']:4} {r['site']:12} "
                      f"{r['improvement_pct']:+7.1f} %")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(rows, indent=2) + "\n")
    for window, lrms in (("train", "fcfs"), ("test", "fcfs"), ("test", "easy")):
        sites = dict.fromkeys(r["site"] for r in rows if r["window"] == window)
        cells = []
        for site in sites:
            v = np.array([r["improvement_pct"] for r in rows
                          if (r["window"], r["lrms"], r["site"]) == (window, lrms, site)])
            cells.append(f"{site} {v.mean():+.1f} +- {v.std(ddof=1) if len(v) > 1 else 0:.1f} %")
        print(f"{window} {lrms}: " + "; ".join(cells))


if __name__ == "__main__":
    main()
