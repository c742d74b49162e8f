"""The dissertation's learned-policy experiments on its own sites (Lepping 2011, chapters 12-13).

Run: ``.venv/bin/python experiments/dissertation_grids.py [train|report|all] [--seeds N]``

``train`` (resumable: finished runs are skipped; a progress bar counts runs)
leaves run directories in ``runs/experiments/dissertation/``:

- ``coevolution/seed*``: co-evolution of ``CTC-5+SDSC03-5+SDSC05-5`` (FCFS, 13 + 91,
  150 generations), tested on the following six months with FCFS and EASY. Every
  run keeps the archive of its best pairing by worst relative AWRT, so one run
  gives both results: the published choice (the final generation's pairing with
  the smallest AWRT sum, written to ``published_pick/``) and the archive's pick
  (the run directory itself);
- ``pairwise/K_vs_L/seed*``: EFS of K's rulebase against an AWF partner L on
  ``K-5+L-5``, for every ordered pair of KTH, CTC and SDSC05 (Table 12.1).

``report`` writes ``experiments/results/dissertation/`` (JSON and markdown: per
seed, mean, standard deviation and range, next to the dissertation's values),
applies each seed's pairwise pool to the unseen months (KTH + CTC + SDSC05 with
the AWRT location policy, FCFS and EASY; and SDSC00 as a site nobody was trained
against, with CTC + SDSC05), and ships the best rulebases to
``trained_rulebases/``.
"""

from __future__ import annotations

import argparse
import itertools
import pickle
import shutil
from dataclasses import replace
from pathlib import Path

from rich.progress import Progress

from evogrid.optimize import Evaluator, TrainConfig, run_training
from evogrid.optimize.coevolution import CoEvolution
from evogrid.optimize.training import write_results

ROOT = Path(__file__).resolve().parents[1]
RUNS = ROOT / "runs" / "experiments" / "dissertation"
COEVOLVED = ("CTC", "SDSC03", "SDSC05")
PAIRWISE = ("KTH", "CTC", "SDSC05")
PUBLISHED_PICK = "published_pick"


def train_window(sites) -> str:
    return "+".join(f"{s}-5" for s in sites)


def test_window(sites) -> str:
    return "+".join(f"{s}@5-11" for s in sites)


def coevolution_config(seed: int) -> TrainConfig:
    return TrainConfig(train_window(COEVOLVED), kind="coevolution", seed=seed, test=test_window(COEVOLVED),
                       pick="worst-relative", archive=True)


def pairwise_config(k: str, l: str, seed: int) -> TrainConfig:
    return TrainConfig(train_window((k, l)), site=0, seed=seed, test=test_window((k, l)))


def runs(seeds: int, runs_dir: Path) -> list[tuple[TrainConfig, Path]]:
    """Every training run, co-evolution first (the longest and most important)."""
    out = [(coevolution_config(s), runs_dir / "coevolution" / f"seed{s}") for s in range(1, seeds + 1)]
    out += [(pairwise_config(k, l, s), runs_dir / "pairwise" / f"{k}_vs_{l}" / f"seed{s}")
            for s in range(1, seeds + 1) for k, l in itertools.permutations(PAIRWISE, 2)]
    return out


def published_pick(config: TrainConfig, run: Path, evaluator: Evaluator) -> None:
    """The published result of a finished co-evolution run: its final pairing with the smallest sum."""
    out = run / PUBLISHED_PICK
    if (out / "summary.json").exists():
        return
    state = pickle.loads((run / "checkpoint.pkl").read_bytes())
    published = replace(config, pick="sum", archive=False)
    out.mkdir(exist_ok=True)
    shutil.copy(run / "generations.csv", out / "generations.csv")
    write_results(published, state, out, CoEvolution(published, evaluator).best(state))


def train(seeds: int, runs_dir: Path) -> None:
    todo = runs(seeds, runs_dir)
    with Evaluator("loky", 2) as evaluator, Progress() as bar:
        task = bar.add_task("training runs", total=len(todo))
        for config, out in todo:
            if not (out / "summary.json").exists():
                if out.exists():
                    shutil.rmtree(out)  # an unfinished run of an earlier call: start it afresh
                bar.console.print(f"training {out.relative_to(runs_dir)}")
                run_training(config, out, evaluator, progress=False)
            if config.kind == "coevolution":
                published_pick(config, out, evaluator)
            bar.advance(task)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("phase", choices=["train", "report", "all"], nargs="?", default="all")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--runs", type=Path, default=RUNS, help="where the run directories go")
    args = parser.parse_args()
    if args.phase in ("train", "all"):
        train(args.seeds, args.runs)


if __name__ == "__main__":
    main()
