"""Training runs (EFS and co-evolution) and what they leave behind
(docs/training.md, run directories).

``run_training(config, out, evaluator)`` leaves in ``out``:

- ``config.toml`` (resolved) and ``run.json`` (seed, versions, backend);
- ``generations.csv``: per generation and species the best, median and worst
  parent fitness (AWRT, s), the mean step size per feature, evaluations,
  simulations stopped early, wall time;
- ``checkpoint.pkl``: the :class:`~evogrid.optimize.es.EvolutionState`
  after every generation (atomic); ``resume_training(out)`` continues it and
  ends with exactly the result of an uninterrupted run;
- at the end ``rulebases/*.json`` (with provenance), ``summary.json`` and
  ``summary.csv`` (AWRT against local scheduling per site, on the training
  scenario and, with ``config.test``, on the unseen test scenario under FCFS
  and EASY), and the plots ``convergence.png``, ``improvement.png`` and
  ``surface_<site>.png``.
"""

from __future__ import annotations

import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
from deap import tools
from rich.progress import Progress

from evogrid.optimize import rundir
from evogrid.optimize.coevolution import CoEvolution
from evogrid.optimize.es import CMAES, EFS, EvolutionState, JointES, TrainConfig
from evogrid.optimize.evaluator import Evaluator
from evogrid.optimize.genome import to_rulebase
from evogrid.policy.rulebase import Rulebase
from evogrid.policy.strategies import FuzzyPolicy, simulate
from evogrid.sim.scenario import Scenario

GENERATIONS_CSV = "generations.csv"
SUMMARY = "summary"
#: LRMS under which the result is tested on the unseen scenario: FCFS as trained, and EASY.
TEST_LRMS = ("fcfs", "easy")


def make_algorithm(config: TrainConfig, evaluator: Evaluator) -> EFS | CoEvolution:
    if config.kind == "coevolution":
        return CoEvolution(config, evaluator)
    if config.kind == "joint":
        return JointES(config, evaluator)
    return CMAES(config, evaluator) if config.optimizer == "cma" else EFS(config, evaluator)


def trained_sites(config: TrainConfig, n_sites: int) -> list[int]:
    return [config.site] if config.kind == "efs" else list(range(n_sites))


def _statistics() -> tools.Statistics:
    stats = tools.Statistics(key=lambda ind: ind.value)
    stats.register("best", np.min)
    stats.register("median", np.median)
    stats.register("worst", np.max)
    return stats


def generation_row(config: TrainConfig, state: EvolutionState, names: list[str], seconds: float) -> dict:
    """One CSV row: fitness statistics and mean step sizes of every species' parents."""
    row: dict[str, Any] = {"generation": state.generation, "evaluations": state.evaluations,
                           "cut_off": state.cut_off}
    stats = _statistics()
    if config.kind == "joint":  # one species for the whole grid; its fitness is the grid's score
        groups, metric, digits = [("grid", state.species[0])], "score", 4
    else:
        sites = trained_sites(config, len(names))
        groups = [(names[k], parents) for k, parents in zip(sites, state.species, strict=True)]
        metric, digits = "awrt", 2
    for label, parents in groups:
        for key, value in stats.compile(parents).items():
            row[f"{key}_{metric}_{label}"] = f"{value:.{digits}f}"
        steps = np.mean([p.steps for p in parents], axis=0)
        for f, s in zip(config.features, steps, strict=True):
            row[f"step_{f}_{label}"] = f"{s:.4g}"
    row["wall_seconds"] = f"{seconds:.2f}"
    return row


def run_training(config: TrainConfig, out: Path, evaluator: Evaluator, *, progress: bool = True,
                 stop_after: int | None = None) -> dict[str, Any]:
    """Start a run in ``out`` (which must not hold one); see :func:`_advance`."""
    rundir.start_run(out, asdict(config), GENERATIONS_CSV)
    rundir.write_json(out / "run.json", rundir.run_record(
        config.seed, kind=config.kind, optimizer=config.optimizer_label, backend=evaluator.backend,
        workers=evaluator.n_workers))
    algorithm = make_algorithm(config, evaluator)
    started = time.perf_counter()
    state = algorithm.start()
    _record(config, state, out, time.perf_counter() - started)
    return _advance(algorithm, state, config, out, progress, stop_after)


def resume_training(out: Path, evaluator: Evaluator, *, progress: bool = True,
                    stop_after: int | None = None) -> dict[str, Any]:
    """Continue the run in ``out`` from its last checkpoint."""
    config = TrainConfig(**rundir.resumable_config(out))
    state = rundir.load_checkpoint(out)
    rundir.truncate_csv(out / GENERATIONS_CSV, state.generation)
    return _advance(make_algorithm(config, evaluator), state, config, out, progress, stop_after)


def _record(config: TrainConfig, state: EvolutionState, out: Path, seconds: float) -> None:
    names = [w.name for w in config.ref.scenario().workloads]
    rundir.append_csv_row(out / GENERATIONS_CSV, generation_row(config, state, names, seconds))
    rundir.save_checkpoint(out, state)


def _advance(algorithm, state: EvolutionState, config: TrainConfig, out: Path, progress: bool,
             stop_after: int | None) -> dict[str, Any]:
    """Run generations to the end (or ``stop_after`` more), checkpointing after each."""
    before = rundir.recorded_seconds(out / GENERATIONS_CSV, state.generation)
    started = time.perf_counter()
    label = {"coevolution": "co-evolution", "joint": "joint ES"}.get(config.kind,
                                                                      f"EFS {config.optimizer_label}")
    with Progress(disable=not progress, transient=True) as bar:
        task = bar.add_task(label, total=config.generations, completed=state.generation)
        done = 0
        while state.generation < config.generations:
            if stop_after is not None and done >= stop_after:
                return {"finished": False, "generation": state.generation}
            algorithm.step(state)
            done += 1
            _record(config, state, out, before + time.perf_counter() - started)
            bar.update(task, completed=state.generation)
    return write_results(config, state, out, algorithm.best(state))


def learned_rulebases(config: TrainConfig, best: dict[int, tuple[np.ndarray, float]]) -> dict[int, Rulebase]:
    """The result's rulebases by site index, with provenance (docs/grid.md, rulebase JSON); ``best`` maps each
    trained site to its rulebase params and their training AWRT (s)."""
    sc = config.ref.scenario()
    names = [w.name for w in sc.workloads]
    sizes = [w.machine_procs for w in sc.workloads]
    result = {}
    for k, (p, awrt) in best.items():
        partners = [l for l in range(len(names)) if l != k]
        single = partners[0] if len(partners) == 1 else None
        result[k] = to_rulebase(p, config.features).with_provenance(
            site=names[k], m=int(sizes[k]),
            partner=names[single] if single is not None else [names[l] for l in partners],
            partner_m=int(sizes[single]) if single is not None else None,
            trained_on=config.scenario, lrms=config.lrms, kind=config.kind,
            optimizer=config.optimizer_label, generations=config.generations, seed=config.seed,
            fitness_awrt=round(awrt, 2),
        )
    return result


def evaluate_policy(config: TrainConfig, rulebases: dict[int, Rulebase], spec: str, lrms: str,
                    window: str) -> list[dict[str, Any]]:
    """Per-site rows: AWRT with local scheduling and with the learned policy, and the change."""
    sc = Scenario.from_spec(spec, lrms=lrms)
    policy = FuzzyPolicy(rulebases, others=config.others, location=config.location)
    res = simulate(sc, policy)
    rows = []
    for k, (row, base) in enumerate(zip(res.metrics(), res.baseline.metrics(), strict=True)):
        rows.append({"window": window, "scenario": sc.name, "lrms": lrms, "site": row["site"],
                     "learned": k in rulebases, "local_awrt": round(base["awrt"], 2),
                     "policy_awrt": round(row["awrt"], 2),
                     "improvement_pct": round(row["delta_awrt_pct"], 2)})
    return rows


def write_results(config: TrainConfig, state: EvolutionState, out: Path,
                  best: dict[int, tuple[np.ndarray, float]]) -> dict[str, Any]:
    """Rulebase JSON files, the summary table and the plots."""
    from evogrid.plots import convergence_plot, decision_surface, improvement_plot

    rulebases = learned_rulebases(config, best)
    files = []
    for rb in rulebases.values():
        p = rb.provenance
        stem = p["site"] + (f"_vs_{p['partner']}" if isinstance(p["partner"], str) else "")
        files.append(str(rb.save(out / "rulebases" / f"{stem}.json")))
        decision_surface(rb, out / f"surface_{stem}.png",
                         title=f"{p['site']} ({config.kind}, seed {config.seed})")
    rows = evaluate_policy(config, rulebases, config.scenario, config.lrms, "train")
    if config.test:
        for lrms in TEST_LRMS:
            rows += evaluate_policy(config, rulebases, config.test, lrms, "test")
    rundir.write_rows(out / SUMMARY, rows)
    convergence_plot(out / "convergence.png", rundir.csv_rows(out / GENERATIONS_CSV))
    improvement_plot(out / "improvement.png", rows)
    return {"finished": True, "rulebases": files, "summary": rows,
            "evaluations": state.evaluations, "cut_off": state.cut_off}
