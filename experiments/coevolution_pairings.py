"""Every final-generation pairing of co-evolution runs, on the training and the unseen months.

Run: ``.venv/bin/python experiments/coevolution_pairings.py [RUN_DIR ...]``
(default: ``runs/experiments/coevolution/seed*`` from ``train_policies.py``).

Co-evolution returns the final pairing with the smallest AWRT sum
(docs/training.md, Co-evolution). This asks whether *any* of the final
generation's mu + lambda pairings improves every site over local FCFS, on
the training windows and on the unseen ones, and what a relative criterion
(smallest sum of AWRT / local AWRT) would have picked instead. Each run
directory's checkpoint holds the final pairings; they are re-simulated on
the test windows with the run's own location policy. Prints one line per
run and writes ``experiments/results/training/coevolution_pairings.json``.
"""

from __future__ import annotations

import argparse
import json
import tomllib
from pathlib import Path

import numpy as np

from evogrid.optimize import checkpoint
from evogrid.optimize.evaluator import ScenarioRef
from evogrid.optimize.fitness import GridTask, grid_awrt
from evogrid.sim.schedule import simulate_local

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "experiments" / "results" / "training" / "coevolution_pairings.json"


def analyse(run: Path) -> dict:
    config = tomllib.loads((run / "config.toml").read_text())
    pairings = checkpoint.load(run, "CoEvolutionState")["pairings"]
    train = ScenarioRef(config["scenario"], lrms=config["lrms"])
    test = ScenarioRef(config["test"], lrms=config["lrms"])
    local = {ref: simulate_local(ref.jobs(), config["lrms"]).awrt() for ref in (train, test)}
    features = tuple(config["features"])
    train_awrt = np.array([awrt for _, awrt in pairings])
    test_awrt = np.array([
        grid_awrt(GridTask(test, tuple(enumerate(params)), features, config["others"],
                           config["location"], decision=config.get("decision", "transfer")))[0]
        for params, _ in pairings
    ])
    gain_train = 100 * (1 - train_awrt / local[train])
    gain_test = 100 * (1 - test_awrt / local[test])
    by_sum = int(np.argmin(train_awrt.sum(axis=1)))
    by_relative = int(np.argmin((train_awrt / local[train]).sum(axis=1)))
    return {
        "run": str(run.relative_to(ROOT) if run.is_relative_to(ROOT) else run),
        "location": config["location"], "seed": config["seed"], "pairings": len(pairings),
        "all_improve_train": int((gain_train > 0).all(axis=1).sum()),
        "all_improve_test": int((gain_test > 0).all(axis=1).sum()),
        "best_worst_site_test_pct": round(float(gain_test.min(axis=1).max()), 2),
        "smallest_sum": {"train_pct": gain_train[by_sum].round(2).tolist(),
                         "test_pct": gain_test[by_sum].round(2).tolist()},
        "smallest_relative_sum": {"train_pct": gain_train[by_relative].round(2).tolist(),
                                  "test_pct": gain_test[by_relative].round(2).tolist()},
    }


def main(runs: list[Path]) -> None:
    runs = runs or sorted((ROOT / "runs" / "experiments" / "coevolution").glob("seed*"))
    results = []
    for run in runs:
        r = analyse(run.resolve())
        results.append(r)
        print(f"{r['run']} ({r['location']}): pairings improving every site: train "
              f"{r['all_improve_train']}/{r['pairings']}, test {r['all_improve_test']}/{r['pairings']}; "
              f"best worst-site test change {r['best_worst_site_test_pct']:+.1f} %; smallest sum "
              f"test {r['smallest_sum']['test_pct']}; smallest relative sum test "
              f"{r['smallest_relative_sum']['test_pct']}")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", type=Path,
                        help="run directories (default: those of train_policies.py)")
    main(parser.parse_args().runs)
