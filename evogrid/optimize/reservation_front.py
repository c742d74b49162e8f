"""NSGA-II over a reservation admission rule's parameters: grid users against local users.

The objectives are the reservation failure rate and the batch users' AWRT
(mean over the sites, seconds; with ``objectives = "per-site"`` each site's
AWRT, one objective per site), all minimised, for one simulation of the
scenario's ``[reservations]`` table (evogrid.sim.booking.reservation_setup):
the same requests and batch jobs for every individual. The genome (bounds in
:data:`GENES`):

- ``backlog_scale``: the backlog rule's run-time/estimate ratio is this
  times the site's measured one (0: only reservations count as backlog);
- ``backfill``: >= 0.5 admits starts before the backlog clears if they end
  by the site's next planned start (Meltzer's Algorithm 4/5), else not (3);
- ``cost_weight``: Algorithm 5's k, with s = 1 - k (with backfill only);
- ``windows`` and ``minsize_minutes``: the candidate starts.

Meltzer's five algorithms are drawn as reference points, and the initial
population holds the genomes of Algorithms 3-5 (:data:`ALGORITHM_GENOMES`),
so the front is never worse than them. The run directory
and resume work as for the other Pareto runs (evogrid.optimize.loop).
"""

from __future__ import annotations

import functools
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import Field
from pydantic.dataclasses import dataclass
from pymoo.algorithms.moo.nsga2 import NSGA2
from pymoo.core.problem import Problem
from pymoo.indicators.hv import HV
from pymoo.util.archive import MultiObjectiveArchive

from evogrid.optimize import rundir
from evogrid.optimize.config import STRICT, Count, Seed, _OnScenario, _Validated
from evogrid.optimize.evaluator import Evaluator, ScenarioRef
from evogrid.optimize.loop import STANDARD_PLOTS, Plots, RunKind, new_run, resolve_plots, resume_run
from evogrid.optimize.pareto import NSGA2Front, ParetoState, distinct_points, feasible_front
from evogrid.sim.booking import ReservationRules, reservation_setup, simulate_reservations
from evogrid.sim.metrics import refused_area_share

#: Genes: name -> (low, high).
GENES = {"backlog_scale": (0.0, 2.0), "backfill": (0.0, 1.0), "cost_weight": (0.0, 1.0),
         "windows": (1.0, 40.0), "minsize_minutes": (1.0, 60.0)}
OBJECTIVES = ("failure_rate", "batch_awrt")
MELTZER = ("trivial", "cpu-count", "backlog", "backfill", "weighted")


@dataclass(config=STRICT)
class ReservationFrontConfig(_OnScenario, _Validated):
    """A reservation front's settings (config.toml); the scenario needs no ``[reservations]`` table
    (defaults: RW1 from site 0, seed 0)."""

    scenario: str
    lrms: str | None = None
    pop_size: Annotated[int, Field(ge=2)] = 40
    generations: Count = 40
    seed: Seed = 1
    mode: Literal["reservation"] = "reservation"
    #: ``mean``: (failure rate, mean batch AWRT); ``per-site``: the failure rate and every site's AWRT.
    objectives: Literal["mean", "per-site"] = "mean"

    @property
    def label(self) -> str:
        return "NSGA-II reservation"

    @property
    def per_site(self) -> bool:
        return self.objectives == "per-site"


@functools.lru_cache(maxsize=16)
def _setup(ref: ScenarioRef, seed: int | None = None):
    """``(workloads, requests, rules)`` of the scenario's ``[reservations]`` table, the requests drawn
    with ``seed`` (None: the table's); cached per process."""
    return reservation_setup(ref.scenario(), seed=seed)


def genome_rules(x: np.ndarray, base: ReservationRules, measured_acc: np.ndarray) -> ReservationRules:
    """The admission rules a genome stands for (module docstring)."""
    backfill = x[1] >= 0.5
    return replace(base, algorithm="weighted" if backfill else "backlog",
                   acc=tuple((x[0] * measured_acc).tolist()), cost_weight=float(x[2]),
                   start_weight=1.0 - float(x[2]), windows=int(round(x[3])), minsize=int(round(x[4] * 60)))


def objectives(ref: ScenarioRef, rules: ReservationRules, failure: str = "requests",
               seed: int | None = None, per_site: bool = False) -> np.ndarray:
    """(failure rate, mean batch AWRT in s) of the scenario's requests (drawn with ``seed``, None:
    the table's) under ``rules``, or with ``per_site`` (failure rate, each site's batch AWRT); the
    failure rate counts ``requests`` or, with ``area``, their processor-seconds."""
    workloads, requests, _ = _setup(ref, seed)
    schedule, bookings = simulate_reservations(workloads, ref.scenario().lrms, requests, rules)
    if failure == "area":
        refused = refused_area_share(requests, bookings)
    else:
        refused = 1.0 - bookings.accepted.mean() if requests.n_requests else 0.0
    awrt = np.asarray(schedule.awrt(), dtype=float)
    return np.array([refused, *awrt]) if per_site else np.array([refused, float(np.mean(awrt))])


def at_mean_awrt(F: np.ndarray) -> np.ndarray:
    """Front points (failure rate, AWRT per site...) as (failure rate, mean batch AWRT); points of
    the mean objectives (two columns) as they are."""
    F = np.asarray(F, dtype=float)
    return np.column_stack([F[:, 0], F[:, 1:].mean(axis=1)]) if F.ndim == 2 and F.shape[1] > 2 else F


def objective_names(ref: ScenarioRef, per_site: bool) -> tuple[str, ...]:
    """:data:`OBJECTIVES`, or the failure rate and ``batch_awrt_<site>`` for every site."""
    if not per_site:
        return OBJECTIVES
    return ("failure_rate", *(f"batch_awrt_{w.name}" for w in ref.scenario().workloads))


def _evaluate_task(task: tuple[ScenarioRef, np.ndarray, bool]) -> np.ndarray:
    ref, x, per_site = task
    workloads, _, base = _setup(ref)
    measured = base.arrays(workloads)[1]
    return objectives(ref, genome_rules(x, base, measured), per_site=per_site)


def reference_points(ref: ScenarioRef, per_site: bool = False) -> dict[str, list[float]]:
    """Meltzer's five algorithms with the scenario's parameters, as points of the objectives."""
    _, _, base = _setup(ref)
    return {name: objectives(ref, replace(base, algorithm=name), per_site=per_site).tolist()
            for name in MELTZER}


#: Genomes of Meltzer's Algorithms 3, 4 and 5 (k = s = 0.5) with his candidate starts, and of backfill
#: with no backlog ratio (close to Algorithm 2): the initial population starts from them.
ALGORITHM_GENOMES = np.array([[1.0, 0.0, 0.0, 20.0, 5.0], [1.0, 1.0, 0.0, 20.0, 5.0],
                              [1.0, 1.0, 0.5, 20.0, 5.0], [0.0, 1.0, 0.0, 20.0, 5.0]])


def initial_population(config: ReservationFrontConfig) -> np.ndarray:
    """:data:`ALGORITHM_GENOMES`, then uniform random genomes (seeded), ``pop_size`` rows in all."""
    low, high = (np.array(v) for v in zip(*GENES.values(), strict=True))
    rng = np.random.default_rng(config.seed)
    rest = low + rng.random((max(0, config.pop_size - len(ALGORITHM_GENOMES)), len(GENES))) * (high - low)
    return np.vstack([ALGORITHM_GENOMES, rest])[: config.pop_size]


class ReservationProblem(Problem):
    """The objectives (failure rate, mean batch AWRT or each site's) over :data:`GENES`."""

    def __init__(self, ref: ScenarioRef, evaluator: Evaluator, per_site: bool = False):
        self.ref = ref
        self.evaluator = evaluator
        self.per_site = per_site
        low, high = (np.array(v) for v in zip(*GENES.values(), strict=True))
        super().__init__(n_var=len(GENES), n_obj=len(objective_names(ref, per_site)), xl=low, xu=high,
                         exclude_from_serialization=["evaluator"])

    def _evaluate(self, X, out, *args, **kwargs):
        out["F"] = np.array(self.evaluator.map(_evaluate_task, [(self.ref, x, self.per_site) for x in X]))


class ReservationFront(NSGA2Front):
    """pymoo's NSGA-II on :class:`ReservationProblem` as an optimiser (evogrid.optimize.loop): the
    partition and policy fronts' steps, with hypervolume of (failure rate, mean batch AWRT) against
    (1, 2 x the worst algorithm's mean AWRT). With ``objectives = "per-site"`` the front is taken at
    its mean AWRT for the hypervolume: an exact hypervolume in 1 + K dimensions grows exponentially
    with K (seven sites: minutes per generation once the front holds hundreds of points)."""

    def __init__(self, config: ReservationFrontConfig, evaluator: Evaluator):
        self.config = config
        self.evaluator = evaluator
        self.per_site = config.per_site
        points = at_mean_awrt(np.array(list(reference_points(config.ref, self.per_site).values())))
        self.reference = np.array([1.0, 2.0 * points[:, 1].max()])
        self.hv = HV(ref_point=self.reference)
        self.label = config.label

    def hypervolume(self, F: np.ndarray) -> float:
        """Hypervolume of the front at (failure rate, mean batch AWRT) (class docstring)."""
        return super().hypervolume(at_mean_awrt(F))

    def setup(self) -> NSGA2:
        # Every non-dominated genome evaluated stays in the front (no truncation), so the front
        # weakly dominates the algorithms seeded into the first population.
        algorithm = NSGA2(pop_size=self.config.pop_size, sampling=initial_population(self.config),
                          eliminate_duplicates=True,
                          archive=MultiObjectiveArchive(max_size=None, truncate_size=None))
        algorithm.setup(ReservationProblem(self.config.ref, self.evaluator, self.per_site),
                        termination=("n_gen", self.config.generations), seed=self.config.seed)
        return algorithm

    def row(self, state: ParetoState) -> dict[str, Any]:
        F = at_mean_awrt(feasible_front(state.algorithm))
        best = F.min(axis=0) if len(F) else np.full(2, np.nan)
        return {"generation": self.generation(state), "front_size": len(F),
                "hypervolume": f"{self.hypervolume(F):.6g}", "best_failure_rate": f"{best[0]:.4f}",
                "best_batch_awrt": f"{best[1]:.2f}", "evaluations": state.algorithm.evaluator.n_eval}


def write_results(config: ReservationFrontConfig, front: ReservationFront, state: ParetoState, out: Path,
                  plots: Plots | str | None = STANDARD_PLOTS) -> dict[str, Any]:
    """front.json, front.csv (objectives and genes) and, with ``plots``, pareto.png."""
    import json

    points = json.loads((out / "run.json").read_text())["reference_points"]
    F, X = distinct_points(*front.best(state))
    names = objective_names(config.ref, front.per_site)
    result = {"scenario": config.scenario, "mode": "reservation", "label": config.label,
              "objectives": list(names), "genes": list(GENES), "generations": config.generations,
              "front": F.tolist(), "genomes": X.tolist(), "hypervolume": front.hypervolume(F),
              "reference_points": points,
              "reference_hypervolumes": {k: front.hypervolume(np.array([v])) for k, v in points.items()}}
    rundir.write_json(out / "front.json", result)
    rundir.write_csv(out / "front.csv", [*names, *GENES], np.hstack([F, X]).tolist())
    if (plots := resolve_plots(plots)) is not None:
        plots.reservation_front_plot(out / "pareto.png", {config.label: F}, points)
    return {"finished": True, **result}


RESERVATION_FRONT = RunKind("pareto", ReservationFrontConfig, ReservationFront, write_results)


def run_reservation_front(config: ReservationFrontConfig, out: Path, evaluator: Evaluator, *,
                          progress: bool = True, stop_after: int | None = None,
                          plots: Plots | str | None = STANDARD_PLOTS) -> dict[str, Any]:
    """Start a reservation front in ``out``; see :func:`~evogrid.optimize.loop.run_loop`."""
    config.ref.scenario().refuse_strategy("pareto --mode reservation")
    return new_run(RESERVATION_FRONT, config, out, evaluator,
                   lambda: {"kind": "pareto",
                            "reference_points": reference_points(config.ref, config.per_site)},
                   progress=progress, stop_after=stop_after, plots=plots)


def resume_reservation_front(out: Path, evaluator: Evaluator, *, progress: bool = True,
                             stop_after: int | None = None,
                             plots: Plots | str | None = STANDARD_PLOTS) -> dict[str, Any]:
    """Continue the reservation front in ``out`` from its last checkpoint."""
    return resume_run(RESERVATION_FRONT, out, evaluator, progress=progress, stop_after=stop_after,
                      plots=plots)
