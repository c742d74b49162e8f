"""Learned policies on the bundled logs: pairwise EFS, the rulebase pool, 3-site co-evolution.

Run: ``.venv/bin/python experiments/train_policies.py [train|report] [--seeds N]``

``train`` (resumable: finished runs are skipped) leaves run directories in
``runs/experiments/``:

- pairwise EFS (docs/training.md, pairwise protocol): for every ordered pair (k, l) of KTH, SDSC03 and
  HPC2N, k's rulebase trained on the 5-month windows ``k@0-5+l@0-5`` with FCFS
  against an AWF partner, tested on the following 6 months ``k@5-11+l@5-11``;
- co-evolution (docs/training.md) of the 3-site grid ``KTH@0-5+SDSC03@0-5+HPC2N@0-5``,
  tested on ``KTH@5-11+SDSC03@5-11+HPC2N@5-11``;

each with seeds 1..N. ``report`` applies each seed's pairwise rulebase pool
(every site holds its rulebases against each partner; with an unknown
partner it uses the one trained against the nearest partner size) on the
unseen months: the pairs, the 3-site grid (AWRT location policy) and a
4-site grid with the LLNL Thunder log as a site nobody was trained against
(it runs AWF), under FCFS and EASY. It writes mean, spread and range over
seeds to ``experiments/results/training/`` and copies the best rulebases
(lowest training AWRT over seeds) to ``trained_rulebases/pairwise/`` and
``trained_rulebases/coevolved/kth_sdsc03_hpc2n/``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import shutil
import statistics
from pathlib import Path

from evogrid.optimize import Evaluator, TrainConfig, run_training
from evogrid.plots import improvement_plot
from evogrid.policy.rulebase import Rulebase
from evogrid.policy.strategies import FuzzyPolicy, pool_for_sites, simulate
from evogrid.sim.scenario import Scenario

ROOT = Path(__file__).resolve().parents[1]
RUNS = ROOT / "runs" / "experiments"
RESULTS = ROOT / "experiments" / "results" / "training"
SHIPPED = ROOT / "trained_rulebases"
IMAGES = ROOT / "docs" / "img"
SITES = ("KTH", "SDSC03", "HPC2N")
UNKNOWN = "THUNDER@0-5"  # an LLNL log: a partner no rulebase was trained against
TEST_LRMS = ("fcfs", "easy")


def train_window(sites) -> str:
    return "+".join(f"{s}@0-5" for s in sites)


def test_window(sites) -> str:
    return "+".join(f"{s}@5-11" for s in sites)


def pairwise_dir(k: str, l: str, seed: int) -> Path:
    return RUNS / "pairwise" / f"{k}_vs_{l}" / f"seed{seed}"


def coevolution_dir(seed: int) -> Path:
    return RUNS / "coevolution" / f"seed{seed}"


def _run(config: TrainConfig, out: Path, evaluator: Evaluator) -> None:
    if (out / "summary.json").exists():
        return
    if out.exists():
        shutil.rmtree(out)  # an unfinished run of an earlier call: start it afresh
    print(f"training {out.relative_to(RUNS)}", flush=True)
    run_training(config, out, evaluator, progress=False)


def train(seeds: int) -> None:
    with Evaluator("loky", 2) as evaluator:
        for seed in range(1, seeds + 1):
            _run(TrainConfig(train_window(SITES), kind="coevolution", seed=seed, test=test_window(SITES),
                             pick="sum", archive=False),
                 coevolution_dir(seed), evaluator)
            for k, l in itertools.permutations(SITES, 2):
                _run(TrainConfig(train_window((k, l)), site=0, seed=seed, test=test_window((k, l))),
                     pairwise_dir(k, l, seed), evaluator)


def _pool(seed: int) -> list[Rulebase]:
    """Every pairwise rulebase of seed ``seed`` (each knows its site and partner sizes)."""
    return [Rulebase.load(f) for k, l in itertools.permutations(SITES, 2)
            for f in (pairwise_dir(k, l, seed) / "rulebases").glob("*.json")]


def apply_pool(pool: list[Rulebase], spec: str, lrms: str, unknown_sites: str = "others") -> list[dict]:
    """AWRT change per site against local scheduling, every site using the pool's rulebases
    for its size (sites of other sizes run AWF, or use the nearest size's with
    ``unknown_sites="nearest"``)."""
    scenario = Scenario.from_spec(spec, lrms=lrms)
    sizes = [w.machine_procs for w in scenario.workloads]
    rulebases = pool_for_sites(pool, sizes, unknown_sites=unknown_sites)
    res = simulate(scenario, FuzzyPolicy(rulebases, location="awrt" if len(sizes) > 2 else "fixed"))
    return [{"site": r["site"], "learned": k in rulebases, "improvement_pct": r["delta_awrt_pct"]}
            for k, r in enumerate(res.metrics())]


def _aggregate(rows_by_seed: list[list[dict]]) -> list[dict]:
    """Mean, standard deviation and range over seeds of each site's improvement."""
    out = []
    for k, first in enumerate(rows_by_seed[0]):
        values = [rows[k]["improvement_pct"] for rows in rows_by_seed]
        out.append({**{key: v for key, v in first.items() if key != "improvement_pct"},
                    "seeds": len(values), "mean_pct": statistics.fmean(values),
                    "std_pct": statistics.stdev(values) if len(values) > 1 else 0.0,
                    "min_pct": min(values), "max_pct": max(values)})
    return out


def _summary(out: Path) -> list[dict]:
    return json.loads((out / "summary.json").read_text())


def _table(title: str, rows: list[dict], keys: tuple[str, ...]) -> str:
    lines = [f"### {title}", "", "| " + " | ".join(keys) + " | mean | std | min .. max |",
             "|" + "---|" * (len(keys) + 3)]
    for r in rows:
        spread = f"{r['std_pct']:.1f} | {r['min_pct']:+.1f} .. {r['max_pct']:+.1f}"
        lines.append("| " + " | ".join(str(r[k]) for k in keys) + f" | {r['mean_pct']:+.1f} % | {spread} |")
    return "\n".join(lines) + "\n"


def report(seeds: int) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    results: dict[str, list[dict]] = {}
    markdown = ["# Learned policies: improvement of AWRT over local scheduling (%, positive = better)\n",
                f"Seeds 1..{seeds}; generated by `experiments/train_policies.py report`.\n"]
    # Co-evolution: train and test windows per site, from each run's summary.
    co = [_summary(coevolution_dir(s)) for s in range(1, seeds + 1)]
    results["coevolution"] = _aggregate(co)
    markdown.append(_table("Co-evolution, KTH + SDSC03 + HPC2N (trained 5 months FCFS, 150 generations)",
                           results["coevolution"], ("window", "lrms", "site")))
    # Pairwise EFS: the trained site (partner AWF), train and test.
    pair_rows = []
    for k, l in itertools.permutations(SITES, 2):
        runs = [_summary(pairwise_dir(k, l, s)) for s in range(1, seeds + 1)]
        for row in _aggregate(runs):
            pair_rows.append({"pair": f"{k} vs {l}", **row})
    results["pairwise"] = pair_rows
    markdown.append(_table("Pairwise EFS, trained site against an AWF partner (150 generations)",
                           pair_rows, ("pair", "window", "lrms", "site", "learned")))
    # The pool applied on unseen months.
    grids = [test_window(p) for p in itertools.combinations(SITES, 2)]
    grids += [test_window(SITES), test_window(SITES) + "+" + UNKNOWN]
    pool_rows = []
    pools = [_pool(s) for s in range(1, seeds + 1)]
    for spec in grids:
        for lrms in TEST_LRMS:
            runs = [apply_pool(pool, spec, lrms) for pool in pools]
            pool_rows += [{"grid": spec, "lrms": lrms, **row} for row in _aggregate(runs)]
            print(f"pool on {spec} {lrms}: " + ", ".join(f"{r['site']} {r['mean_pct']:+.1f} %"
                                                         for r in pool_rows[-len(runs[0]):]), flush=True)
    results["pool"] = pool_rows
    markdown.append(_table("Pairwise rulebase pool applied together on the unseen 6 months "
                           f"({UNKNOWN} is an unknown site running AWF)", pool_rows,
                           ("grid", "lrms", "site", "learned")))
    plots(results)
    (RESULTS / "training_results.json").write_text(json.dumps(results, indent=2) + "\n")
    (RESULTS / "training_results.md").write_text("\n".join(markdown))
    ship(seeds)


def plots(results: dict[str, list[dict]]) -> None:
    """Mean improvement with the standard deviation over seeds, per site (docs/img/)."""
    def short(row: dict, window: str) -> dict:
        return {**row, "window": window, "improvement_pct": row["mean_pct"],
                "site": row["site"].split("@")[0].split("-")[0]}

    co = [short(r, r["window"]) for r in results["coevolution"]]
    improvement_plot(IMAGES / "training_coevolution.png", co)
    grid3 = test_window(SITES)
    pool = [short(r, "3 sites" if r["grid"] == grid3 else "+ THUNDER (unknown)")
            for r in results["pool"] if r["grid"] in (grid3, grid3 + "+" + UNKNOWN)]
    improvement_plot(IMAGES / "training_pool.png", pool)


def ship(seeds: int) -> None:
    """Copy the best rulebases to trained_rulebases/: per ordered pair the seed with the lowest
    training AWRT (pairwise/), and the co-evolved grid of the seed with the lowest AWRT sum
    (coevolved/kth_sdsc03_hpc2n/)."""
    for k, l in itertools.permutations(SITES, 2):
        runs = [pairwise_dir(k, l, seed) for seed in range(1, seeds + 1)]
        found = [(Rulebase.load(f).provenance["fitness_awrt"], f, run)
                 for run in runs for f in (run / "rulebases").glob("*.json")]
        _, file, run = min(found)
        ship_rulebase(file, run, SHIPPED / "pairwise" / f"{k.lower()}_vs_{l.lower()}.json")
    best = min(range(1, seeds + 1), key=lambda s: sum(r["policy_awrt"] for r in _summary(coevolution_dir(s))
                                                    if r["window"] == "train"))
    for f in (coevolution_dir(best) / "rulebases").glob("*.json"):
        ship_rulebase(f, coevolution_dir(best),
                      SHIPPED / "coevolved" / "kth_sdsc03_hpc2n" / f"{f.stem.split('-')[0].lower()}.json")


def ship_rulebase(file: Path, run: Path, target: Path) -> None:
    """Copy a learned rulebase to ``target`` with the run it came from in its provenance."""
    where = run.relative_to(ROOT) if run.is_relative_to(ROOT) else run
    Rulebase.load(file).with_provenance(run=str(where)).save(target)
    print(f"shipped {target.relative_to(ROOT)} from {where}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("phase", choices=["train", "report", "all"], nargs="?", default="all")
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()
    if args.phase in ("train", "all"):
        train(args.seeds)
    if args.phase in ("report", "all"):
        report(args.seeds)


if __name__ == "__main__":
    main()
