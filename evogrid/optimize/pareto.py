"""Pareto-front runs with pymoo's NSGA-II: set-up, per-generation records, checkpoints, results.

``run_pareto(config, out)`` leaves in ``out``: ``config.toml`` (resolved),
``run.json`` (seed, versions, reference points), ``generations.csv`` (one row
per generation: front size, hypervolume against the local point, best AWRT
per site, evaluations, wall time), ``checkpoint.pkl`` (the whole algorithm
after each generation, written atomically), and at the end ``front.json``,
``front.csv`` and ``pareto.png``. ``resume_pareto(out)`` continues from the
checkpoint and ends with exactly the front an uninterrupted run gives.
"""

from __future__ import annotations

import csv
import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from pymoo.algorithms.moo.nsga2 import NSGA2
from pymoo.core.callback import Callback
from pymoo.indicators.hv import HV
from pymoo.operators.crossover.pntx import TwoPointCrossover
from rich.progress import Progress

from evogrid.errors import EvogridError
from evogrid.optimize import rundir
from evogrid.optimize.evaluator import Evaluator, ScenarioRef
from evogrid.optimize.partition import (
    AWRT_LIMIT_SECONDS,
    CUTOFF_FACTOR,
    PartitionMutation,
    PartitionProblem,
    PerturbedLocalSampling,
    effective_sites,
    partition_awrt,
)
from evogrid.optimize.policy_front import RulebaseProblem, decode
from evogrid.policy.rulebase import Rulebase
from evogrid.policy.strategies import (
    AcceptWhenFit,
    ActiveRequest,
    CentralPool,
    FuzzyPolicy,
    simulate,
    strategy_label,
)
from evogrid.sim.scenario import Scenario

MODES = ("partition", "policy")
GENERATIONS_CSV = "generations.csv"


@dataclass
class ParetoConfig:
    """Everything that determines a Pareto run's result (written as config.toml)."""

    scenario: str
    mode: str = "partition"
    lrms: str | None = "easy"
    pop_size: int = 70
    generations: int = 200
    seed: int = 1
    limit: float = AWRT_LIMIT_SECONDS
    cutoff_factor: float = CUTOFF_FACTOR  # stop simulations beyond factor x limit (0: never)
    # partition mode (docs/pareto.md)
    n_changes: int = 5000
    keep_local: bool = True
    seed_strategies: bool = False  # start from AWF/pool/AA assignments too (an evogrid addition)
    p_crossover: float = 0.9
    p_gene: float = 0.1
    shift_sigma: float = 2000.0
    # policy mode
    n_rules: int = 10
    features: list[str] = field(default_factory=lambda: ["NWP", "NJP"])

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise EvogridError(f"--mode {self.mode}: expected one of {', '.join(MODES)}")
        if self.pop_size < 2 or self.generations < 1:
            raise EvogridError("--pop-size must be >= 2 and --generations >= 1")

    @property
    def ref(self) -> ScenarioRef:
        return ScenarioRef(self.scenario, self.lrms)


class GenerationRecorder(Callback):
    """pymoo callback: one CSV row per generation (front size, hypervolume, best AWRT per site)."""

    def __init__(self, path: Path, reference: np.ndarray, started: float):
        super().__init__()
        self.path = path
        self.reference = reference
        self.hv = HV(ref_point=reference)
        self.started = started
        self.elapsed_before = 0.0

    def notify(self, algorithm) -> None:
        F = feasible_front(algorithm)
        K = len(self.reference)
        best = F.min(axis=0) if len(F) else np.full(K, np.nan)
        row = [algorithm.n_gen, len(F), f"{self.hypervolume(F):.6g}", *(f"{b:.2f}" for b in best),
               algorithm.evaluator.n_eval, f"{self.elapsed_before + time.perf_counter() - self.started:.2f}"]
        new = not self.path.exists()
        with self.path.open("a", newline="") as fh:
            writer = csv.writer(fh)
            if new:
                writer.writerow(["generation", "front_size", "hypervolume",
                                 *(f"best_awrt_{k}" for k in range(K)), "evaluations", "wall_seconds"])
            writer.writerow(row)

    def hypervolume(self, F: np.ndarray) -> float:
        """Hypervolume (s^K) dominated by ``F`` and bounded by the local reference point."""
        inside = F[np.all(self.reference > F, axis=1)] if len(F) else F
        return float(self.hv(inside)) if len(inside) else 0.0


def feasible_front(algorithm) -> np.ndarray:
    """Objective vectors of the current non-dominated feasible solutions, shape (P, K)."""
    opt = algorithm.opt
    if opt is None or len(opt) == 0:
        return np.empty((0, algorithm.problem.n_obj))
    feasible = opt.get("FEAS").ravel()
    return opt.get("F")[feasible]


def reference_points(config: ParetoConfig, rulebases: dict[int, Rulebase] | None = None) -> dict[str, list]:
    """Per-site AWRT of local scheduling and of the exchange strategies on the same sites."""
    sc = config.ref.scenario()
    jobs = config.ref.jobs()
    points = {"local": partition_awrt(jobs, sc.lrms, jobs.origin).tolist()}
    strategies: list = [AcceptWhenFit(), CentralPool()]
    if set(sc.lrms) == {"easy"}:
        strategies.append(ActiveRequest())
    if rulebases:
        strategies.append(FuzzyPolicy(rulebases))
    for strategy in strategies:
        res = simulate(sc, strategy)
        points[strategy_label(res.schedule)] = [r["awrt"] for r in res.schedule.metrics()]
    if config.lrms == "easy":
        list_sc = Scenario.from_spec(config.scenario, lrms="list")
        res = simulate(list_sc, CentralPool())
        points[strategy_label(res.schedule)] = [r["awrt"] for r in res.schedule.metrics()]
    return points


def strategy_assignments(config: ParetoConfig) -> list[np.ndarray]:
    """Where AWF, the pool and (under EASY) AA ran each job: starting points for the search."""
    sc = config.ref.scenario()
    strategies: list = [AcceptWhenFit(), CentralPool()]
    if set(sc.lrms) == {"easy"}:
        strategies.append(ActiveRequest())
    return [simulate(sc, s).schedule.site for s in strategies]


def _problem(config: ParetoConfig, evaluator: Evaluator):
    cutoff = config.cutoff_factor * config.limit
    if config.mode == "partition":
        return PartitionProblem(config.ref, evaluator, config.limit, cutoff)
    return RulebaseProblem(config.ref, evaluator, config.n_rules, config.features, config.limit, cutoff)


def _algorithm(config: ParetoConfig) -> NSGA2:
    if config.mode == "policy":
        return NSGA2(pop_size=config.pop_size, eliminate_duplicates=False)
    jobs = config.ref.jobs()
    seeds = strategy_assignments(config) if config.seed_strategies else None
    # Duplicate elimination compares all genomes pairwise (10^5 genes each);
    # with mutation applied to every offspring duplicates are negligible.
    return NSGA2(
        pop_size=config.pop_size,
        sampling=PerturbedLocalSampling(jobs.origin, jobs.n_sites, config.n_changes, config.keep_local,
                                        seeds),
        crossover=TwoPointCrossover(prob=config.p_crossover),
        mutation=PartitionMutation(jobs.n_sites, config.p_gene, config.shift_sigma),
        eliminate_duplicates=False,
    )


def run_pareto(
    config: ParetoConfig,
    out: Path,
    evaluator: Evaluator,
    *,
    rulebases: dict[int, Rulebase] | None = None,
    progress: bool = True,
    stop_after: int | None = None,
) -> dict[str, Any]:
    """Start a run in ``out`` (which must not hold one); see :func:`_advance`."""
    rundir.start_run(out, asdict(config), GENERATIONS_CSV)
    points = reference_points(config, rulebases)
    rundir.write_json(out / "run.json", rundir.run_record(
        config.seed, kind="pareto", backend=evaluator.backend, workers=evaluator.n_workers,
        reference_points=points))
    problem = _problem(config, evaluator)
    algorithm = _algorithm(config)
    algorithm.setup(problem, termination=("n_gen", config.generations), seed=config.seed,
                    callback=GenerationRecorder(out / GENERATIONS_CSV, np.array(points["local"]),
                                                time.perf_counter()))
    return _advance(algorithm, config, out, evaluator, progress, stop_after)


def resume_pareto(out: Path, evaluator: Evaluator, *, progress: bool = True,
                  stop_after: int | None = None) -> dict[str, Any]:
    """Continue the run in ``out`` from its last checkpoint."""
    config = ParetoConfig(**rundir.resumable_config(out))
    algorithm = rundir.load_checkpoint(out)
    algorithm.problem.evaluator = evaluator
    recorder = algorithm.callback
    recorder.elapsed_before = rundir.recorded_seconds(out / GENERATIONS_CSV, algorithm.n_gen - 1)
    recorder.started = time.perf_counter()
    rundir.truncate_csv(out / GENERATIONS_CSV, algorithm.n_gen - 1)
    return _advance(algorithm, config, out, evaluator, progress, stop_after)


def _advance(algorithm, config: ParetoConfig, out: Path, evaluator: Evaluator, progress: bool,
             stop_after: int | None) -> dict[str, Any]:
    """Run generations to the end (or ``stop_after`` more), checkpointing after each."""
    done = 0
    with Progress(disable=not progress, transient=True) as bar:
        task = bar.add_task(f"NSGA-II {config.mode}", total=config.generations,
                            completed=algorithm.n_gen - 1 if algorithm.n_gen else 0)
        while algorithm.has_next():
            if stop_after is not None and done >= stop_after:
                return {"finished": False, "generation": algorithm.n_gen - 1}
            algorithm.next()
            done += 1
            rundir.save_checkpoint(out, algorithm)  # the problem leaves its evaluator out
            bar.update(task, completed=algorithm.n_gen - 1)
    return write_results(algorithm, config, out)


def write_results(algorithm, config: ParetoConfig, out: Path) -> dict[str, Any]:
    """front.json, front.csv (and the assignments or rulebases) and pareto.png."""
    from evogrid.plots import pareto_plot

    run = json.loads((out / "run.json").read_text())
    points = run["reference_points"]
    opt = algorithm.opt
    feasible = opt.get("FEAS").ravel()
    F, X = opt.get("F")[feasible], opt.get("X")[feasible]
    order = np.argsort(F[:, 0], kind="stable")
    F, X = F[order], X[order]
    recorder = algorithm.callback
    names = [w.name for w in config.ref.scenario().workloads]
    front = {
        "scenario": config.scenario,
        "mode": config.mode,
        "label": f"NSGA-II {config.mode}" + (" (seeded with AWF/pool/AA)" if config.seed_strategies else ""),
        "sites": names,
        "generations": config.generations,
        "front": F.tolist(),
        "hypervolume": recorder.hypervolume(F),
        "reference_points": points,
        "reference_hypervolumes": {k: recorder.hypervolume(np.array([v])) for k, v in points.items()},
    }
    rundir.write_json(out / "front.json", front)
    with (out / "front.csv").open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow([f"awrt_{n}" for n in names])
        writer.writerows(F.tolist())
    jobs = config.ref.jobs()
    if config.mode == "partition":
        sites = np.array([effective_sites(jobs, x) for x in X], dtype=np.int8)
        np.savez_compressed(out / "front_assignments.npz", sites=sites, origin=jobs.origin.astype(np.int8))
    else:
        for i, x in enumerate(X):
            for k, rb in enumerate(decode(x, jobs.n_sites, config.n_rules, config.features)):
                facts = {"site": names[k], "front_point": i, "objectives": F[i].tolist(),
                         "trained_on": config.scenario, "optimizer": "nsga2", "seed": config.seed}
                rb.with_provenance(**facts).save(out / "front_rulebases" / f"point{i:03d}_site{k}.json")
    pareto_plot(out / "pareto.png", names, {front["label"]: F}, points)
    return {"finished": True, **front}

