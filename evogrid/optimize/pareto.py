"""Pareto-front runs with pymoo's NSGA-II: set-up, per-generation records, checkpoints, results.

:class:`NSGA2Front` is the optimiser (:class:`~evogrid.optimize.loop.Optimizer`)
and :class:`ParetoState` its state: pymoo's own NSGA-II (problem, sampling,
crossover and mutation of :mod:`~evogrid.optimize.partition` or
:mod:`~evogrid.optimize.policy_front`), one ``next()`` per generation.

``run_pareto(config, out)`` leaves in ``out``: ``config.toml`` (resolved),
``run.json`` (seed, versions, reference points), ``generations.csv`` (one row
per generation: front size, hypervolume against the local point, best AWRT
per site, evaluations, wall time), ``checkpoint.npz`` (the state after each
generation as plain data, written atomically: :meth:`NSGA2Front.to_data`), and at the end ``front.json``,
``front.csv`` and, with ``plots``, ``pareto.png``. ``resume_pareto(out)``
continues from the checkpoint and ends with exactly the front an
uninterrupted run gives.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pymoo.algorithms.moo.nsga2 import NSGA2
from pymoo.core.population import Population
from pymoo.indicators.hv import HV
from pymoo.operators.crossover.pntx import TwoPointCrossover

from evogrid.files import atomic_write_bytes
from evogrid.jobs_file import write_jobs
from evogrid.optimize import rundir
from evogrid.optimize.config import ParetoConfig
from evogrid.optimize.evaluator import Evaluator
from evogrid.optimize.fitness import GridTask, task_schedule
from evogrid.optimize.loop import STANDARD_PLOTS, Plots, RunKind, new_run, resolve_plots, resume_run
from evogrid.optimize.partition import (
    PartitionMutation,
    PartitionProblem,
    PerturbedLocalSampling,
    effective_sites,
    partition_awrt,
    partition_schedule,
)
from evogrid.optimize.policy_front import RulebaseProblem, decode, site_params
from evogrid.policy.config import trained_in
from evogrid.policy.rulebase import Rulebase
from evogrid.policy.strategies import (
    AcceptWhenFit,
    ActiveRequest,
    Broker,
    CentralPool,
    FuzzyPolicy,
    simulate,
    strategy_label,
)
from evogrid.sim.metrics import load_imbalance
from evogrid.sim.scenario import Scenario
from evogrid.sim.schedule import Schedule, simulate_local

GENERATIONS_CSV = rundir.GENERATIONS_CSV
#: The broker heuristics a ranking front is drawn with.
REFERENCE_BROKERS = ("least-load", "olb", "mct", "min-min", "max-min")


@dataclass
class ParetoState:
    """What a Pareto run's generations change (the checkpoint holds :meth:`NSGA2Front.to_data`).

    Attributes:
        algorithm: pymoo's NSGA-II after ``setup``: population, random generator, counters.
    """

    algorithm: NSGA2


#: What a pymoo individual holds that a checkpoint keeps: its arrays, and the data survival and
#: selection read (NSGA-II's rank and crowding distance, the generation it was made in).
_INDIVIDUAL_ARRAYS = ("X", "F", "G", "H", "CV")
_INDIVIDUAL_DATA = ("rank", "crowding", "n_gen", "n_iter")


def population_data(pop: Population | None) -> dict[str, Any] | None:
    """A pymoo population as checkpoint data: one stacked array per attribute."""
    if pop is None:
        return None
    data: dict[str, Any] = {"size": len(pop), "evaluated": [sorted(ind.evaluated or ()) for ind in pop]}
    for name in _INDIVIDUAL_ARRAYS:
        values = [getattr(ind, f"_{name}") for ind in pop]
        data[name] = None if any(v is None for v in values) else np.array(values)
    for name in _INDIVIDUAL_DATA:
        values = [ind.data.get(name) for ind in pop]
        data[name] = None if any(v is None for v in values) else np.array(values)
    return data


def population_from_data(data: dict[str, Any] | None) -> Population | None:
    """The population :func:`population_data` gave."""
    if data is None:
        return None
    pop = Population.empty(data["size"])
    for i, ind in enumerate(pop):
        for name in _INDIVIDUAL_ARRAYS:
            if data[name] is not None:
                setattr(ind, f"_{name}", data[name][i])
        for name in _INDIVIDUAL_DATA:
            if data[name] is not None:
                ind.data[name] = data[name][i].item()
        ind.evaluated = set(data["evaluated"][i])
    return pop


def front_solutions(algorithm) -> Population | None:
    """The solutions a front reports: every non-dominated solution evaluated so far where the
    algorithm keeps an archive (pymoo's ``archive``), else the current population's optimum."""
    return algorithm.archive if algorithm.archive is not None else algorithm.opt


def feasible_front(algorithm) -> np.ndarray:
    """Objective vectors of the current non-dominated feasible solutions, shape (P, K)."""
    opt = front_solutions(algorithm)
    if opt is None or len(opt) == 0:
        return np.empty((0, algorithm.problem.n_obj))
    feasible = opt.get("FEAS").ravel()
    return opt.get("F")[feasible]


def local_point(config: ParetoConfig) -> np.ndarray:
    """Per-site AWRT (s) without exchange, shape (K,): every job at its origin (ranking mode: and the
    load imbalance, shape (K + 1,))."""
    jobs = config.ref.jobs()
    if config.mode != "ranking":
        return partition_awrt(jobs, config.ref.scenario().lrms, jobs.origin)
    local = simulate_local(jobs, config.ref.scenario().lrms)
    return np.append(local.awrt(), load_imbalance(local))


def objective_names(config: ParetoConfig, sites: list[str]) -> list[str]:
    """Column names of the front: ``awrt_<site>`` per site (ranking mode: and ``load_imbalance``)."""
    return [f"awrt_{n}" for n in sites] + (["load_imbalance"] if config.mode == "ranking" else [])


def reference_points(config: ParetoConfig, rulebases: dict[int, Rulebase] | None = None) -> dict[str, list]:
    """Per-site AWRT of local scheduling and of the exchange strategies on the same sites (ranking mode:
    AWF and the broker heuristics, each with its load imbalance)."""
    scenario = config.ref.scenario()
    points = {"local": local_point(config).tolist()}
    if config.mode == "ranking":
        brokers: list = [AcceptWhenFit(), *(Broker(h) for h in REFERENCE_BROKERS)]
        if rulebases:
            brokers.append(Broker("rank", rulebases))
        for strategy in brokers:
            res = simulate(scenario, strategy)
            points[strategy_label(res.schedule)] = [*res.schedule.awrt(), load_imbalance(res.schedule)]
        return points
    # Both pool rules: chapter 8's pool is the published rule, chapter 10's (whose fronts these
    # points sit in) reproduces with queued arrivals (docs/results.md).
    strategies: list = [AcceptWhenFit(), CentralPool("first"), CentralPool("queued"), ActiveRequest()]
    if rulebases:
        strategies.append(FuzzyPolicy(rulebases))
    for strategy in strategies:
        res = simulate(scenario, strategy)
        points[strategy_label(res.schedule)] = [r["awrt"] for r in res.schedule.metrics()]
    if config.lrms == "easy":
        list_scenario = Scenario.from_spec(config.scenario, lrms="list")
        res = simulate(list_scenario, CentralPool())
        points[strategy_label(res.schedule)] = [r["awrt"] for r in res.schedule.metrics()]
    return points


def strategy_assignments(config: ParetoConfig) -> list[np.ndarray]:
    """Where AWF, the pool and AA ran each job: starting points for the search."""
    scenario = config.ref.scenario()
    strategies: list = [AcceptWhenFit(), CentralPool(), ActiveRequest()]
    return [simulate(scenario, s).schedule.site for s in strategies]


def _problem(config: ParetoConfig, evaluator: Evaluator):
    cutoff = config.cutoff_factor * config.limit
    if config.mode == "partition":
        return PartitionProblem(config.ref, evaluator, config.limit, cutoff)
    return RulebaseProblem(config.ref, evaluator, config.n_rules, config.features, config.limit, cutoff,
                           config.decision)


def _algorithm(config: ParetoConfig) -> NSGA2:
    if config.mode != "partition":
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


class NSGA2Front:
    """pymoo's NSGA-II as an :class:`~evogrid.optimize.loop.Optimizer`: ``start`` sets it up and runs
    its first ``next()`` (the initial population, pymoo's generation 1), ``step`` one more ``next()``.

    Args:
        config: the run's settings.
        evaluator: runs the simulations (handed to the problem before every generation, since
            checkpoints leave it out).

    The hypervolume's reference point is the local point (:func:`local_point`).
    """

    def __init__(self, config: ParetoConfig, evaluator: Evaluator):
        self.config = config
        self.evaluator = evaluator
        self.reference = local_point(config)
        self.hv = HV(ref_point=self.reference)
        self.label = config.label

    checkpoint_kind = "ParetoState"

    def setup(self) -> NSGA2:
        """pymoo's NSGA-II set up on the run's problem, before its first generation."""
        algorithm = _algorithm(self.config)
        algorithm.setup(_problem(self.config, self.evaluator), termination=("n_gen", self.config.generations),
                        seed=self.config.seed)
        return algorithm

    def start(self) -> ParetoState:
        return self.step(ParetoState(self.setup()))

    def to_data(self, state: ParetoState) -> dict[str, Any]:
        """What pymoo's ``next()`` changes, as plain data: the counters, the generator, the population
        and the current optimum (genomes, objectives, constraints, ranks and crowding distances)."""
        a = state.algorithm
        return {"n_iter": a.n_iter, "n_eval": a.evaluator.n_eval, "random_state": a.random_state,
                "pop": population_data(a.pop), "opt": population_data(a.opt),
                "archive": population_data(a.archive)}

    def from_data(self, data: dict[str, Any]) -> ParetoState:
        """A freshly set-up algorithm (the problem, operators and evaluator rebuilt from the config)
        carrying the checkpointed data."""
        algorithm = self.setup()
        algorithm._initialize()  # pymoo's own start of a run (time, counters), as next() would call it
        algorithm.is_initialized = True
        algorithm.n_iter = data["n_iter"]
        algorithm.evaluator.n_eval = data["n_eval"]
        algorithm.random_state = data["random_state"]
        algorithm.pop = population_from_data(data["pop"])
        algorithm.opt = population_from_data(data["opt"])
        if algorithm.archive is not None and data.get("archive") is not None:
            algorithm.archive = algorithm.archive.add(population_from_data(data["archive"]))
        return ParetoState(algorithm)

    def step(self, state: ParetoState) -> ParetoState:
        state.algorithm.problem.evaluator = self.evaluator
        state.algorithm.next()
        return state

    def generation(self, state: ParetoState) -> int:
        return state.algorithm.n_gen - 1  # pymoo counts the generation under way

    def row(self, state: ParetoState) -> dict[str, Any]:
        """Front size, hypervolume, best AWRT per site (s) and evaluations so far."""
        F = feasible_front(state.algorithm)
        best = F.min(axis=0) if len(F) else np.full(len(self.reference), np.nan)
        K = self.config.ref.jobs().n_sites
        columns = {f"best_awrt_{k}": f"{b:.2f}" for k, b in enumerate(best[:K])}
        if len(best) > K:
            columns["best_load_imbalance"] = f"{best[K]:.4f}"
        return {"generation": self.generation(state), "front_size": len(F),
                "hypervolume": f"{self.hypervolume(F):.6g}", **columns,
                "evaluations": state.algorithm.evaluator.n_eval}

    def best(self, state: ParetoState) -> tuple[np.ndarray, np.ndarray]:
        """The feasible front: objectives F (AWRT per site, s) and genomes X, by the first site's AWRT."""
        opt = front_solutions(state.algorithm)
        feasible = opt.get("FEAS").ravel()
        F, X = opt.get("F")[feasible], opt.get("X")[feasible]
        order = np.argsort(F[:, 0], kind="stable")
        return F[order], X[order]

    def hypervolume(self, F: np.ndarray) -> float:
        """Hypervolume (s^K; ranking mode: times the imbalance) dominated by ``F`` and bounded by the
        local reference point."""
        inside = F[np.all(self.reference > F, axis=1)] if len(F) else F
        return float(self.hv(inside)) if len(inside) else 0.0


def run_pareto(
    config: ParetoConfig,
    out: Path,
    evaluator: Evaluator,
    *,
    rulebases: dict[int, Rulebase] | None = None,
    progress: bool = True,
    stop_after: int | None = None,
    plots: Plots | str | None = STANDARD_PLOTS,
) -> dict[str, Any]:
    """Start a run in ``out`` (which must not hold one); see :func:`~evogrid.optimize.loop.run_loop`.
    ``rulebases``: also a reference point for these; ``plots``: what draws pareto.png (None: nothing)."""
    config.check_scenarios()
    return new_run(PARETO, config, out, evaluator,
                   lambda: {"kind": "pareto", "reference_points": reference_points(config, rulebases)},
                   progress=progress, stop_after=stop_after, plots=plots)


def resume_pareto(out: Path, evaluator: Evaluator, *, progress: bool = True, stop_after: int | None = None,
                  plots: Plots | str | None = STANDARD_PLOTS) -> dict[str, Any]:
    """Continue the run in ``out`` from its last checkpoint."""
    return resume_run(PARETO, out, evaluator, progress=progress, stop_after=stop_after, plots=plots)


def write_results(config: ParetoConfig, front: NSGA2Front, state: ParetoState, out: Path,
                  plots: Plots | str | None = STANDARD_PLOTS) -> dict[str, Any]:
    """front.json, front.csv (and the assignments or rulebases) and, with ``plots``, pareto.png."""
    points = json.loads((out / "run.json").read_text())["reference_points"]
    F, X = distinct_points(*front.best(state))
    names = [w.name for w in config.ref.scenario().workloads]
    result = {
        "scenario": config.scenario,
        "mode": config.mode,
        "label": f"NSGA-II {config.mode}" + (" (seeded with AWF/pool/AA)" if config.seed_strategies else ""),
        "sites": names,
        **({"objectives": [f"AWRT {n} (s)" for n in names] + ["load imbalance"]}
           if config.mode == "ranking" else {}),
        "generations": config.generations,
        "front": F.tolist(),
        "hypervolume": front.hypervolume(F),
        "reference_points": points,
        "reference_hypervolumes": {k: front.hypervolume(np.array([v])) for k, v in points.items()},
        **({"empty_reason": empty_front_reason(config)} if len(F) == 0 else {}),
    }
    rundir.write_json(out / "front.json", result)
    rundir.write_csv(out / "front.csv", objective_names(config, names), F.tolist())
    jobs = config.ref.jobs()
    if config.mode == "partition":
        sites = np.array([effective_sites(jobs, x) for x in X], dtype=np.int8)
        buffer = io.BytesIO()
        np.savez_compressed(buffer, sites=sites, origin=jobs.origin.astype(np.int8))
        atomic_write_bytes(out / "front_assignments.npz", buffer.getvalue())
    else:
        grid = trained_in(config.ref.scenario())
        for i, x in enumerate(X):
            for k, rb in enumerate(decode(x, jobs.n_sites, config.n_rules, config.features)):
                facts = {"site": names[k], "front_point": i, "objectives": F[i].tolist(),
                         "trained_on": config.scenario, "optimizer": "nsga2", "seed": config.seed, **grid}
                rb.with_provenance(**facts).save(out / "front_rulebases" / f"point{i:03d}_site{k}.json")
    for i in corner_points(F, len(names)):
        write_jobs(out / f"jobs_point{i:03d}.csv", point_schedule(config, X[i]))
    if (plots := resolve_plots(plots)) is not None:
        plots.pareto_plot(out / "pareto.png", names, {result["label"]: F}, points)
    return {"finished": True, **result}


def corner_points(F: np.ndarray, n_sites: int) -> list[int]:
    """The front points with the lowest AWRT at some site (the first of equal ones), ascending: the
    ones whose schedules a run directory keeps (any other: evogrid simulate with its rulebases)."""
    return sorted({int(np.argmin(F[:, k])) for k in range(n_sites)}) if len(F) else []


def point_schedule(config: ParetoConfig, x: np.ndarray) -> Schedule:
    """The schedule of the front point with genome ``x``."""
    jobs = config.ref.jobs()
    if config.mode == "partition":
        return partition_schedule(jobs, config.ref.scenario().lrms, x)
    params = site_params(x, jobs.n_sites, config.n_rules, config.features)
    return task_schedule(GridTask(config.ref, tuple(enumerate(params)), tuple(config.features),
                                  decision="ranking" if config.mode == "ranking" else "transfer"))


def distinct_points(F: np.ndarray, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The front without repeated objective vectors (e.g. many rulebases that never exchange a job
    all reach the local point), keeping the first genome of each, in the front's order."""
    if len(F) == 0:
        return F, X
    _, first = np.unique(F, axis=0, return_index=True)
    keep = np.sort(first)
    return F[keep], X[keep]


def empty_front_reason(config: ParetoConfig) -> str:
    """Why a front has no point: no candidate met the feasibility limit."""
    return (f"no candidate was feasible: every one left some site with an AWRT above the limit of "
            f"{config.limit:,.0f} s (ParetoConfig.limit); more generations, a larger population or a "
            "lighter scenario may find one")


#: Pareto runs for :func:`~evogrid.optimize.loop.new_run` and :func:`~evogrid.optimize.loop.resume_run`.
PARETO = RunKind("pareto", ParetoConfig, NSGA2Front, write_results)
