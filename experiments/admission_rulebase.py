"""A learned TSK admission rulebase against Meltzer's Algorithms 2-5 on unseen windows.

Trains one admission rulebase per ES seed 1-5 (``evogrid train --policy admission`` defaults) on
``experiments/configs/meltzer7.toml`` (seven two-week SDSC-BLUE windows, RW1, request seed 1 as in
the file), then runs each on the next seven windows (``experiments/configs/meltzer7_test.toml``)
with RW1 request seed = the ES seed, next to Algorithms 2-5 on the same requests.

Run: ``.venv/bin/python experiments/admission_rulebase.py [requests|area] [DRAWS]`` (about 3
minutes on 2 cores per training draw): the failure rate the ES scores counts requests (default,
Meltzer's measure) or their processor-seconds; with DRAWS > 1 each genome is scored on the mean over
the training requests drawn with seeds 1..DRAWS. Writes
``experiments/results/reservations/admission_<failure>[_draws<D>].{csv,json}``, the rulebases to
``trained_rulebases/admission/meltzer7_<failure>[_draws<D>]_seed<s>.json``, and prints the tables of
docs/reservations.md (mean ± sd over the 5 seeds; both failure rates for every rule; on the training
windows, the file's draw).
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np

from evogrid.optimize.admission import RULEBASE_FILE, AdmissionConfig, run_admission
from evogrid.optimize.evaluator import Evaluator
from evogrid.optimize.rundir import write_rows
from evogrid.policy.admission import admission_rules
from evogrid.policy.rulebase import Rulebase
from evogrid.sim.booking import reservation_setup, simulate_reservations
from evogrid.sim.metrics import refused_area_share
from evogrid.sim.scenario import Scenario

ROOT = Path(__file__).parent
CONFIGS = ROOT / "configs"
OUT = ROOT / "results" / "reservations"
RULEBASES = ROOT.parent / "trained_rulebases" / "admission"
SEEDS = (1, 2, 3, 4, 5)
TRAIN = "experiments/configs/meltzer7.toml"
#: Meltzer's Algorithms 2-5 (Algorithm 5 at evogrid's k = s = 0.5, the reservation front's reference
#: point); experiments/reservations_front.py compares the same.
ALGORITHMS = {"Algorithm 2 (cpu-count)": "cpu-count", "Algorithm 3 (backlog)": "backlog",
              "Algorithm 4 (backfill)": "backfill", "Algorithm 5 (weighted, k = s = 0.5)": "weighted"}


def measure(scenario: Scenario, seed: int, rulebase: Rulebase) -> list[dict]:
    """Rows (rule, failure rate, batch AWRT) of Algorithms 2-5 and ``rulebase`` on ``scenario``'s
    requests drawn with ``seed``."""
    workloads, requests, base = reservation_setup(scenario, seed=seed)
    rules = {label: replace(base, algorithm=name) for label, name in ALGORITHMS.items()}
    rules["learned rulebase"] = admission_rules(base, [rulebase])
    rows = []
    for label, r in rules.items():
        schedule, bookings = simulate_reservations(workloads, scenario.lrms, requests, r)
        rows.append({"rule": label, "seed": seed, "failure_rate": 1.0 - bookings.accepted.mean(),
                     "area_failure_rate": refused_area_share(requests, bookings),
                     "batch_awrt": float(np.mean(schedule.awrt()))})
    return rows


def table(rows: list[dict], failure: str) -> None:
    """Mean ± sd per rule; a seed counts where the rule is as good as Algorithm 3 on the trained failure
    rate and on batch AWRT."""
    key = "failure_rate" if failure == "requests" else "area_failure_rate"
    print("| rule | failure rate | by area | batch AWRT (s) | seeds where it beats Algorithm 3 on both |")
    print("|---|---|---|---|---|")
    three = {r["seed"]: r for r in rows if r["rule"].startswith("Algorithm 3")}
    for label in dict.fromkeys(r["rule"] for r in rows):
        mine = [r for r in rows if r["rule"] == label]
        cells = []
        for name in ("failure_rate", "area_failure_rate"):
            v = np.array([r[name] for r in mine])
            cells.append(f"{v.mean():.3f} ± {v.std(ddof=1):.3f}")
        awrt = np.array([r["batch_awrt"] for r in mine])
        wins = sum(r[key] <= three[r["seed"]][key] and r["batch_awrt"] <= three[r["seed"]]["batch_awrt"]
                   for r in mine)
        print(f"| {label} | {' | '.join(cells)} | {awrt.mean():,.0f} ± {awrt.std(ddof=1):,.0f} | "
              f"{wins} of {len(mine)} |")


def main(failure: str, draws: int) -> None:
    os.chdir(ROOT.parent)  # the rulebases' provenance names the scenario relative to the repository
    label = failure + (f"_draws{draws}" if draws > 1 else "")
    train = Scenario.from_spec(TRAIN)
    test = Scenario.from_spec(str(CONFIGS / "meltzer7_test.toml"))
    RULEBASES.mkdir(parents=True, exist_ok=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp, Evaluator("loky", 2) as evaluator:
        for seed in SEEDS:
            config = AdmissionConfig(TRAIN, seed=seed, failure=failure,
                                     request_seeds=list(range(1, draws + 1)) if draws > 1 else [])
            run_admission(config, Path(tmp) / f"seed{seed}", evaluator, progress=False, plots=None)
            saved = RULEBASES / f"meltzer7_{label}_seed{seed}.json"
            shutil.copy(Path(tmp) / f"seed{seed}" / RULEBASE_FILE, saved)
            rulebase = Rulebase.load(saved)
            # on the training requests (the file's seed) for every ES seed: the algorithms' rows repeat
            rows += [{"window": "train", **r, "seed": seed}
                     for r in measure(train, train.reservations.seed, rulebase)]
            rows += [{"window": "test", **r} for r in measure(test, seed, rulebase)]
    write_rows(OUT / f"admission_{label}", rows)
    for window in ("train", "test"):
        print(f"\n{window} windows")
        table([r for r in rows if r["window"] == window], failure)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("failure", nargs="?", default="requests", choices=["requests", "area"],
                        help="the failure rate the ES scores (default: %(default)s)")
    parser.add_argument("draws", nargs="?", type=int, default=1, help="training request draws (default: 1)")
    args = parser.parse_args()
    main(args.failure, args.draws)
