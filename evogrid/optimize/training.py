"""Training runs (EFS, CMA-ES, co-evolution, joint ES) and what they leave behind
(docs/training.md, run directories).

``run_training(config, out, evaluator)`` runs the optimiser of
:func:`make_algorithm` through :func:`~evogrid.optimize.loop.run_loop` and
leaves in ``out``:

- ``config.toml`` (resolved) and ``run.json`` (seed, versions, backend);
- ``generations.csv``: per generation and species the best, median and worst
  parent fitness (AWRT, s), the mean step size per feature, evaluations,
  simulations stopped early, wall time;
- ``checkpoint.npz``: the optimiser's state
  (:class:`~evogrid.optimize.es.EvolutionState` or a subclass) as plain data after
  every generation (atomic; :mod:`evogrid.optimize.checkpoint`, no pickle);
  ``resume_training(out)`` continues it and ends with exactly the result of an
  uninterrupted run;
- at the end ``rulebases/*.json`` (with provenance), ``summary.json`` and
  ``summary.csv`` (AWRT against local scheduling per site, on the training
  scenario and, with ``config.test``, on the unseen test scenario under FCFS
  and EASY), and with ``plots`` the plots ``convergence.png``,
  ``improvement.png`` and ``surface_<site>.png``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from evogrid.files import file_stem
from evogrid.jobs_file import write_jobs
from evogrid.optimize import rundir
from evogrid.optimize.coevolution import CoEvolution
from evogrid.optimize.config import TrainConfig
from evogrid.optimize.es import CMAES, EFS, EvolutionState, JointES
from evogrid.optimize.evaluator import Evaluator
from evogrid.optimize.fitness import trained_strategy
from evogrid.optimize.genome import to_rulebase
from evogrid.optimize.loop import STANDARD_PLOTS, Plots, RunKind, new_run, resolve_plots, resume_run
from evogrid.policy.config import trained_in
from evogrid.policy.rulebase import Rulebase
from evogrid.policy.strategies import Result, simulate
from evogrid.sim.scenario import Scenario
from evogrid.sim.schedule import DecisionLog

GENERATIONS_CSV = rundir.GENERATIONS_CSV
SUMMARY = "summary"
#: LRMS under which the result is tested on the unseen scenario: FCFS and EASY (and the training LRMS).
TEST_LRMS = ("fcfs", "easy")


def make_algorithm(config: TrainConfig, evaluator: Evaluator) -> EFS | CoEvolution:
    """The optimiser ``config`` asks for (:class:`~evogrid.optimize.loop.Optimizer`)."""
    if config.kind == "coevolution":
        return CoEvolution(config, evaluator)
    if config.kind == "joint":
        return JointES(config, evaluator)
    return CMAES(config, evaluator) if config.optimizer == "cma" else EFS(config, evaluator)


def run_training(config: TrainConfig, out: Path, evaluator: Evaluator, *, progress: bool = True,
                 stop_after: int | None = None, plots: Plots | str | None = STANDARD_PLOTS) -> dict[str, Any]:
    """Start a run in ``out`` (which must not hold one); see :func:`~evogrid.optimize.loop.run_loop`.

    Returns :func:`write_results`' summary, or ``{"finished": False, ...}`` after ``stop_after``
    generations. ``plots``: what draws the plots at the end (None: none).
    """
    config.check_scenarios()
    return new_run(TRAINING, config, out, evaluator,
                   lambda: {"kind": config.kind, "optimizer": config.optimizer_label},
                   progress=progress, stop_after=stop_after, plots=plots)


def resume_training(out: Path, evaluator: Evaluator, *, progress: bool = True, stop_after: int | None = None,
                    plots: Plots | str | None = STANDARD_PLOTS) -> dict[str, Any]:
    """Continue the run in ``out`` from its last checkpoint."""
    return resume_run(TRAINING, out, evaluator, progress=progress, stop_after=stop_after, plots=plots)


def learned_rulebases(config: TrainConfig, best: dict[int, tuple[np.ndarray, float]]) -> dict[int, Rulebase]:
    """The result's rulebases by site index, with provenance (docs/grid.md, rulebase JSON); ``best`` maps each
    trained site to its rulebase params and their training AWRT (s)."""
    scenario = config.ref.scenario()
    names = [w.name for w in scenario.workloads]
    sizes = [w.machine_procs for w in scenario.workloads]
    result = {}
    for k, (p, awrt) in best.items():
        partners = [l for l in range(len(names)) if l != k]
        single = partners[0] if len(partners) == 1 else None
        result[k] = to_rulebase(p, config.features).with_provenance(
            site=names[k], m=int(sizes[k]),
            partner=names[single] if single is not None else [names[l] for l in partners],
            partner_m=int(sizes[single]) if single is not None else None,
            trained_on=config.scenario, lrms=config.lrms, kind=config.kind, decision=config.decision,
            optimizer=config.optimizer_label, generations=config.generations, seed=config.seed,
            fitness_awrt=round(awrt, 2), **trained_in(scenario),
        )
    return result


def with_trained_range(rulebases: dict[int, Rulebase], decisions: DecisionLog) -> dict[int, Rulebase]:
    """The transfer rulebases with ``trained_range`` in their provenance: per feature, the least and
    the largest value of the site's ``decisions`` on the training windows (the states its training
    scored; None for a site that decided nothing). :meth:`Rulebase.with_trained_ranges` makes them
    the ranges the ``outside_range = "awf"`` guard acts beyond (docs/training.md)."""
    out = {}
    for k, rb in rulebases.items():
        x = decisions.x[decisions.site == k, : len(rb.features)]
        seen = None if not len(x) else {f: [float(x[:, h].min()), float(x[:, h].max())]
                                          for h, f in enumerate(rb.features)}
        out[k] = rb.with_provenance(trained_range=seen)
    return out


def run_policy(config: TrainConfig, rulebases: dict[int, Rulebase], spec: str, lrms: str,
               record_decisions: bool = False) -> Result:
    """The learned policy on scenario ``spec`` under ``lrms``, with its local baseline."""
    scenario = Scenario.from_spec(spec, lrms=lrms)
    return simulate(scenario, trained_strategy(rulebases, config.decision, config.others, config.location,
                                               scenario),
                    record_decisions=record_decisions)


def evaluate_policy(res: Result, rulebases: dict[int, Rulebase], lrms: str, window: str,
                    jobs_path: Path | None = None) -> list[dict[str, Any]]:
    """Per-site rows of a learned policy's run ``res`` (:func:`run_policy` under ``lrms``): AWRT
    with local scheduling and with the learned policy, and the change; with ``jobs_path``, the
    learned policy's schedule is written there, one row per job (evogrid.jobs_file)."""
    if jobs_path is not None:
        write_jobs(jobs_path, res.schedule)
    rows = []
    for k, (row, base) in enumerate(zip(res.metrics(), res.baseline.metrics(), strict=True)):
        rows.append({"window": window, "scenario": res.scenario.name, "lrms": lrms, "site": row["site"],
                     "learned": k in rulebases, "local_awrt": round(base["awrt"], 2),
                     "policy_awrt": round(row["awrt"], 2),
                     "improvement_pct": round(row["delta_awrt_pct"], 2)})
    return rows


def write_results(config: TrainConfig, state: EvolutionState, out: Path,
                  best: dict[int, tuple[np.ndarray, float]],
                  plots: Plots | str | None = STANDARD_PLOTS) -> dict[str, Any]:
    """Rulebase JSON files, the summary table and (with ``plots``) the plots."""
    rulebases = learned_rulebases(config, best)
    transfer = config.decision == "transfer"
    train = run_policy(config, rulebases, config.scenario, config.lrms, record_decisions=transfer)
    if transfer:  # the decisions of this run are the states the training scored
        rulebases = with_trained_range(rulebases, train.schedule.decisions)
    files = [str(rb.save(out / "rulebases" / f"{rulebase_stem(rb)}.json")) for rb in rulebases.values()]
    rows = evaluate_policy(train, rulebases, config.lrms, "train", out / "jobs_train.csv")
    if config.test:
        for lrms in dict.fromkeys((*TEST_LRMS, config.lrms)):
            rows += evaluate_policy(run_policy(config, rulebases, config.test, lrms), rulebases, lrms, "test",
                                    out / "jobs_test.csv" if lrms == config.lrms else None)
    rundir.write_rows(out / SUMMARY, rows)
    if (plots := resolve_plots(plots)) is not None:
        title = f"({config.kind}, seed {config.seed})"
        draw_training_plots(plots, out, rows, [(rulebase_stem(rb), rb, f"{rb.provenance['site']} {title}")
                                               for rb in rulebases.values()])
    return {"finished": True, "rulebases": files, "summary": rows,
            "evaluations": state.evaluations, "cut_off": state.cut_off}


def rulebase_stem(rb: Rulebase) -> str:
    """A learned rulebase's file stem: its site, and its partner if it had one
    (``KTH@0-5_vs_SDSC03@0-5``, ``lepping_KTH-5_vs_lepping_SDSC03-5``)."""
    p = rb.provenance
    return file_stem(p["site"] + (f"_vs_{p['partner']}" if isinstance(p["partner"], str) else ""))


def draw_training_plots(plots: Plots, out: Path, summary: list[dict],
                        surfaces: list[tuple[str, Rulebase, str]]) -> list[Path]:
    """A training run's plots in ``out``: convergence (from its generations.csv), improvement (from the
    ``summary`` rows) and a decision surface per ``(file stem, rulebase, title)`` of ``surfaces``."""
    paths = [plots.convergence_plot(out / "convergence.png", rundir.csv_rows(out / GENERATIONS_CSV)),
             plots.improvement_plot(out / "improvement.png", summary)]
    paths += [plots.decision_surface(rb, out / f"surface_{stem}.png", title=title)
              for stem, rb, title in surfaces]
    return paths


def _finish(config: TrainConfig, algorithm: EFS | CoEvolution, state: EvolutionState, out: Path,
            plots: Plots | None) -> dict[str, Any]:
    return write_results(config, state, out, algorithm.best(state), plots)


#: Training runs for :func:`~evogrid.optimize.loop.new_run` and :func:`~evogrid.optimize.loop.resume_run`.
TRAINING = RunKind("training", TrainConfig, make_algorithm, _finish)
