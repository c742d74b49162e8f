"""Heterogeneous sites (speeds 4:2:1): broker heuristics, AWF and learned TSK rankings side by side.

Run: ``.venv/bin/python experiments/matchmaking_study.py [train|report|all] [--seeds N] [--generations G]``

The grid is ``experiments/configs/speeds421.toml``: KTH, SDSC03 and HPC2N with
speed factors 4, 2 and 1 (Beichter's setting of three clusters at 4:2:1),
EASY at every site, trained on the 5-month windows and tested on the
following six months (``speeds421_test.toml``, unseen).

``train`` (resumable) co-evolves one TSK ranking rulebase per site (every site
a broker: each job goes to the site its origin's rulebase scores highest),
seeds 1..N, into ``runs/experiments/ranking/<pick>/seed<s>``, for each
result pick (``worst-relative``, the default of ``evogrid coevolve``, and
``sum-improving``: the smallest AWRT sum among the pairings that make no
site worse than local). ``report`` simulates
local scheduling, AWF, the broker heuristics (MET, OLB, least load after
assignment, MCT, Min-Min, Max-Min, Beichter's old and new policies) and each seed's learned rankings on the
training and the test months; it writes per-site AWRT, their mean, and
Beichter's efficiency (mean run time / mean response time) and throughput
(jobs per hour of the makespan) to ``experiments/results/matchmaking/``, draws
the test months' per-site AWRT to ``docs/img/brokers_421.png``, and
copies the rulebases of the last pick's seed with the best training mean
AWRT to ``trained_rulebases/ranking/speeds421/``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
from pathlib import Path
from typing import get_args

import numpy as np

from evogrid.optimize import Evaluator, TrainConfig, run_training
from evogrid.optimize.config import Pick
from evogrid.plots import site_awrt_plot
from evogrid.policy.rulebase import Rulebase
from evogrid.policy.strategies import AcceptWhenFit, Broker, Local, Strategy, simulate
from evogrid.sim.scenario import Scenario

ROOT = Path(__file__).resolve().parents[1]
TRAIN = "experiments/configs/speeds421.toml"
TEST = "experiments/configs/speeds421_test.toml"
RUNS = ROOT / "runs" / "experiments" / "ranking"
RESULTS = ROOT / "experiments" / "results" / "matchmaking"
SHIPPED = ROOT / "trained_rulebases" / "ranking" / "speeds421"
IMAGE = ROOT / "docs" / "img" / "brokers_421.png"
HEURISTICS = ("met", "olb", "least-load", "mct", "min-min", "max-min", "beichter-old", "beichter-new")
SECONDS_PER_HOUR = 3600.0
#: The rankings' inputs: MCT's two terms (estimated wait, estimate at the site's speed), speed, load.
FEATURES = ("WAIT_HOURS", "EST_HOURS", "SPEED", "LOAD_AFTER")


def run_dir(seed: int, pick: str) -> Path:
    return RUNS / pick / f"seed{seed}"


def train(seeds: int, generations: int, pick: str) -> None:
    with Evaluator("loky", 2) as evaluator:
        for seed in range(1, seeds + 1):
            out = run_dir(seed, pick)
            if (out / "summary.json").exists():
                continue
            if out.exists():
                shutil.rmtree(out)  # an unfinished run of an earlier call: start it afresh
            print(f"training {out.relative_to(ROOT)}", flush=True)
            config = TrainConfig(str(ROOT / TRAIN), kind="coevolution", lrms="easy", decision="ranking",
                                 features=list(FEATURES),
                                 generations=generations, seed=seed, test=str(ROOT / TEST), pick=pick)
            run_training(config, out, evaluator, progress=False)


def measures(scenario: Scenario, strategy: Strategy) -> dict:
    """Per-site AWRT (s), their mean, and the grid's efficiency and throughput (Beichter's measures)."""
    res = simulate(scenario, strategy)
    schedule = res.schedule
    ran = schedule.ran  # a job Beichter's policies refused never ran
    response = (schedule.end - schedule.jobs.submit)[ran]
    span_hours = (schedule.end[ran].max() - schedule.jobs.submit.min()) / SECONDS_PER_HOUR
    awrt = [row["awrt"] for row in res.metrics()]
    local = [row["awrt"] for row in res.baseline.metrics()]
    return {"awrt": awrt, "mean_awrt": float(np.mean(awrt)), "local_awrt": local,
            "worse_than_local": [a > b for a, b in zip(awrt, local, strict=True)],
            "efficiency": float(schedule.run_time[ran].mean() / response.mean()),
            "throughput_per_hour": float(len(response) / span_hours)}


def learned(seed: int, pick: str) -> Broker:
    files = sorted((run_dir(seed, pick) / "rulebases").glob("*.json"))
    if not files:
        raise SystemExit(f"{run_dir(seed, pick)}: no rulebases; run `train` first")
    names = [w.name for w in Scenario.from_spec(str(ROOT / TRAIN)).workloads]
    rulebases = {names.index(rb.provenance["site"]): rb for rb in map(Rulebase.load, files)}
    return Broker("rank", rulebases, label="learned ranking")


def _mean_sd(values: list[float]) -> str:
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{statistics.mean(values):,.0f} ± {sd:,.0f}"


def report(seeds: int, picks: list[str], kept_learned: bool = False) -> None:
    """``kept_learned``: the learned rows from the results file already written (for heuristics added
    since; the simulator's schedules are unchanged, tests/test_schedule_digests.py), not from ``runs/``."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    strategies: dict[str, Strategy] = {"local": Local(), "awf": AcceptWhenFit()}
    strategies.update({f"broker {h}": Broker(h) for h in HEURISTICS})
    out: dict = {"train": {}, "test": {}}
    kept = json.loads((RESULTS / "matchmaking_results.json").read_text()) if kept_learned else None
    for window, spec in (("train", TRAIN), ("test", TEST)):
        scenario = Scenario.from_spec(str(ROOT / spec))
        out["sites"] = [w.name.split("-")[0].split("@")[0] for w in scenario.workloads]
        for name, strategy in strategies.items():
            out[window][name] = measures(scenario, strategy)
        for pick in picks:
            out[window][f"learned ({pick})"] = (kept[window][f"learned ({pick})"] if kept else
                                                [measures(scenario, learned(s, pick))
                                                 for s in range(1, seeds + 1)])
    (RESULTS / "matchmaking_results.json").write_text(json.dumps(out, indent=1) + "\n")
    lines = ["# Brokers on a 4:2:1 grid (KTH, SDSC03, HPC2N; EASY)", "",
             f"Learned: co-evolved TSK rankings, seeds 1-{seeds}, mean ± sd. AWRT in seconds.", ""]
    for window in ("train", "test"):
        lines += [f"## {window} months", "",
                  "| policy | " + " | ".join(out["sites"]) + " | mean AWRT | efficiency | jobs/h |",
                  "|---|" + "---|" * (len(out["sites"]) + 3)]
        for name in strategies:
            m = out[window][name]
            lines.append(f"| {name} | " + " | ".join(f"{a:,.0f}" for a in m["awrt"])
                         + f" | {m['mean_awrt']:,.0f} | {100 * m['efficiency']:.1f} % "
                         f"| {m['throughput_per_hour']:.1f} |")
        best = min(HEURISTICS, key=lambda h: out[window][f"broker {h}"]["mean_awrt"])
        notes = []
        for pick in picks:
            runs = out[window][f"learned ({pick})"]
            per_site = [_mean_sd([r["awrt"][k] for r in runs]) for k in range(len(out["sites"]))]
            worse = sum(any(r["worse_than_local"]) for r in runs)
            lines.append(f"| learned ranking ({pick}) | " + " | ".join(per_site)
                         + f" | {_mean_sd([r['mean_awrt'] for r in runs])} "
                         f"| {100 * statistics.mean(r['efficiency'] for r in runs):.1f} % "
                         f"| {statistics.mean(r['throughput_per_hour'] for r in runs):.1f} |")
            diff = [r["mean_awrt"] - out[window][f"broker {best}"]["mean_awrt"] for r in runs]
            notes.append(f"Learned ({pick}) minus {best}, the best heuristic by mean AWRT: "
                         f"{_mean_sd(diff)} s; "
                         f"better in {sum(d < 0 for d in diff)} of {len(runs)} seeds; seeds with some site "
                         f"worse than local: {worse} of {len(runs)}.")
        lines += ["", *notes, ""]
    (RESULTS / "matchmaking_results.md").write_text("\n".join(lines))
    test = out["test"]
    no_spread = [0.0] * len(out["sites"])
    bars = {name: (test[name]["awrt"], no_spread) for name in strategies if name != "broker met"}
    for pick in picks:
        runs = test[f"learned ({pick})"]
        per_site = np.array([r["awrt"] for r in runs])
        bars[f"learned ({pick})"] = (per_site.mean(axis=0).tolist(), per_site.std(axis=0, ddof=1).tolist())
    site_awrt_plot(IMAGE, out["sites"], bars, "unseen months, speeds 4:2:1, EASY (MET off the scale); "
                                              f"learned: mean and sd over {seeds} seeds")
    print("\n".join(lines))
    if kept:
        return  # the shipped rulebases stay those of the training runs
    pick = picks[-1]
    best_seed = min(range(1, seeds + 1), key=lambda s: out["train"][f"learned ({pick})"][s - 1]["mean_awrt"])
    SHIPPED.mkdir(parents=True, exist_ok=True)
    for file in sorted((run_dir(best_seed, pick) / "rulebases").glob("*.json")):
        # Paths relative to the repository, as `evogrid export` and the other shipped files have them.
        run = str(run_dir(best_seed, pick).relative_to(ROOT))
        Rulebase.load(file).with_provenance(trained_on=TRAIN, run=run).save(SHIPPED / file.name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=["train", "report", "all"], nargs="?", default="all")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--generations", type=int, default=40)
    parser.add_argument("--kept-learned", action="store_true",
                        help="report: the learned rows from the results file already there, not from runs/")
    parser.add_argument("--pick", action="append", choices=get_args(Pick),
                        help="co-evolution's result pairing (repeatable; default: both, reported in order)")
    args = parser.parse_args()
    picks = args.pick or ["worst-relative", "sum-improving"]
    if args.step in ("train", "all"):
        for pick in picks:
            train(args.seeds, args.generations, pick)
    if args.step in ("report", "all"):
        report(args.seeds, picks, args.kept_learned)


if __name__ == "__main__":
    main()
