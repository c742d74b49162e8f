"""Learned admission parameters on unseen windows: the NSGA-II reservation front of
``experiments/configs/meltzer7.toml`` (RW1, request seed 1 as in the file), one point picked, and the pick
against Meltzer's Algorithms 2-5 on the next seven two-week windows
(``experiments/configs/meltzer7_test.toml``) with RW1 request seeds 1-5.

Run: ``.venv/bin/python experiments/reservations_front.py`` (about 40 s on 2 cores once compiled).
Writes ``experiments/results/reservations/front_test.csv`` and prints the table of
docs/reservations.md. The pick: among the front points at least as good as Algorithm 3 on both
objectives on the training windows, the one with the lowest batch AWRT.
"""

from __future__ import annotations

import argparse
import csv
import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np
from admission_rulebase import ALGORITHMS

from evogrid.optimize.evaluator import Evaluator
from evogrid.optimize.reservation_front import (
    ReservationFrontConfig,
    genome_rules,
    run_reservation_front,
)
from evogrid.sim.booking import reservation_setup, simulate_reservations
from evogrid.sim.scenario import Scenario

CONFIGS = Path(__file__).parent / "configs"
OUT = Path(__file__).parent / "results" / "reservations"
SEEDS = (1, 2, 3, 4, 5)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, Evaluator("loky", 2) as evaluator:
        config = ReservationFrontConfig(str(CONFIGS / "meltzer7.toml"))
        front = run_reservation_front(config, Path(tmp) / "run", evaluator, plots=None)
    F, X = np.array(front["front"]), np.array(front["genomes"])
    three = np.array(front["reference_points"]["backlog"])
    eligible = np.flatnonzero((three >= F).all(axis=1))
    pick = eligible[np.argmin(F[eligible, 1])]
    print(f"training front: {len(F)} points; Algorithm 3 {three.round(3).tolist()}; "
          f"pick {F[pick].round(3).tolist()}, genome {X[pick].round(3).tolist()}")
    test = Scenario.from_spec(str(CONFIGS / "meltzer7_test.toml"))
    rows = []
    for seed in SEEDS:
        workloads, requests, base = reservation_setup(test, seed=seed)
        measured = base.arrays(workloads)[1]
        compared = {label: replace(base, algorithm=name) for label, name in ALGORITHMS.items()}
        compared["learned parameters"] = genome_rules(X[pick], base, measured)
        for label, rules in compared.items():
            schedule, bookings = simulate_reservations(workloads, test.lrms, requests, rules)
            rows.append({"rule": label, "seed": seed, "failure_rate": 1.0 - bookings.accepted.mean(),
                         "batch_awrt": float(np.mean(schedule.awrt()))})
    OUT.mkdir(parents=True, exist_ok=True)
    with (OUT / "front_test.csv").open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print("| rule | failure rate | batch AWRT (s) | seeds where it beats Algorithm 3 on both |")
    print("|---|---|---|---|")
    base_rows = {r["seed"]: r for r in rows if r["rule"].startswith("Algorithm 3")}
    for label in dict.fromkeys(r["rule"] for r in rows):
        mine = [r for r in rows if r["rule"] == label]
        fail = np.array([r["failure_rate"] for r in mine])
        awrt = np.array([r["batch_awrt"] for r in mine])
        wins = sum(r["failure_rate"] <= base_rows[r["seed"]]["failure_rate"]
                   and r["batch_awrt"] <= base_rows[r["seed"]]["batch_awrt"] for r in mine)
        print(f"| {label} | {fail.mean():.3f} ± {fail.std(ddof=1):.3f} | {awrt.mean():,.0f} ± "
              f"{awrt.std(ddof=1):,.0f} | {wins} of {len(mine)} |")


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()  # --help; no options
    main()
