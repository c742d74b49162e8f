"""EFS for a TSK admission rulebase: which reservation parts a site admits (docs/reservations.md).

The rulebase replaces Meltzer's fixed backlog rule (Algorithm 3): with the
``rulebase`` admission algorithm every site asks it, for each part of a
request that fits its profile at a candidate start, whether to admit it
(features: :func:`evogrid.sim.reserving.admission_feature`). One
rulebase is trained and every site of the scenario uses it (the sites of
Meltzer's setting are alike; the loop also takes one per site).

The ES is EFS's (mu + lambda)-ES with its DEAP toolbox (evogrid.optimize.es);
the fitness of a genome, minimised, scalarises the two objectives of the
reservation front (evogrid.optimize.reservation_front) for one simulation of
the scenario's ``[reservations]`` table, relative to Meltzer's Algorithm 3
on the same scenario (an augmented Chebyshev scalarisation)::

    f = failure rate / max(Algorithm 3's, 0.01),  a = batch AWRT / Algorithm 3's
    score = max(f, a) + augment * (f + a)

(batch AWRT: mean over the sites). A score below 1 + 2 augment means the
rulebase beats Algorithm 3 on both objectives; the max keeps the ES from
buying one objective with the other (a weighted sum is won by refusing every
request: the batch users then wait 24 % less on Meltzer's setting), the small
sum term still rewards the objective that is not the larger one.

The failure rate counts requests (``failure = "requests"``, Meltzer's
measure) or their processor-seconds (``"area"``). By count, a rule can win by
admitting the many small requests and refusing the few large ones; by area
it cannot. The summary reports both.

``run_admission(config, out, evaluator)`` leaves a run directory with
config.toml, run.json, generations.csv, checkpoints (``--resume``),
``rulebases/admission.json`` (with provenance), and ``summary.csv/json``:
failure rate and batch AWRT of Meltzer's Algorithms 2-4 and the learned
rulebase on the training scenario and, with ``test``, on the unseen one;
with plots, ``convergence.png`` and ``admission.png`` (the points in the
failure-rate/AWRT plane).
"""

from __future__ import annotations

from dataclasses import field, replace
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal, get_args

import numpy as np
from pydantic import Field
from pydantic.dataclasses import dataclass

from evogrid.errors import EvogridError
from evogrid.optimize import rundir
from evogrid.optimize.config import (
    STRICT,
    Count,
    Probability,
    Seed,
    StepDraw,
    _EvolutionSettings,
    _OnScenario,
)
from evogrid.optimize.es import EFS, EvolutionState, _statistics, set_fitness
from evogrid.optimize.evaluator import Evaluator, ScenarioRef
from evogrid.optimize.genome import Individual, to_rulebase
from evogrid.optimize.loop import STANDARD_PLOTS, Plots, RunKind, new_run, resolve_plots, resume_run
from evogrid.optimize.reservation_front import _setup, objectives
from evogrid.policy.admission import admission_rules
from evogrid.policy.registry import check_features
from evogrid.policy.rulebase import Rulebase

#: Meltzer's algorithms the learned rulebase is compared with.
COMPARED = ("cpu-count", "backlog", "backfill")
RULEBASE_FILE = "rulebases/admission.json"
#: What a failure rate counts: requests, or their processor-seconds.
Failure = Literal["requests", "area"]
#: Algorithm 3's failure rate is floored at this in the score (it can be 0 on a light scenario).
MIN_REFERENCE_FAILURE = 0.01


@dataclass(config=STRICT)
class AdmissionConfig(_OnScenario, _EvolutionSettings):
    """Everything that determines an admission-rulebase run (written as config.toml).

    Attributes:
        scenario: a scenario whose ``[reservations]`` table sets the requests (TOML or inline).
        lrms: LRMS override for every site (default: the scenario's).
        mu, lambda_, generations: the ES's parents, offspring and length.
        n_rules, features: the rulebase's shape; admission features only.
        beta, p_flip: step-size factor and consequent flip probability (0: 1/N_r).
        step_draw: one two-point factor per feature's step, or one for all (evogrid.optimize.config).
        augment: the weight of the sum in the score (module docstring).
        failure: what the failure rate counts: ``requests`` or ``area`` (processor-seconds).
        request_seeds: train on the requests drawn with each of these seeds (the objectives are
            their means); empty: the ``[reservations]`` table's one draw.
        seed: seed of the ES.
        test: an unseen scenario with a ``[reservations]`` table to compare on at the end.
    """

    scenario: str
    lrms: str | None = None
    mu: Count = 5
    lambda_: Count = 35
    generations: Count = 40
    n_rules: Count = 10
    features: list[str] = field(default_factory=lambda: ["LEAD", "BEFORE_NEXT", "RESERVED"])
    beta: Annotated[float, Field(gt=0.0)] = 0.6
    p_flip: Probability = 0.0
    step_draw: StepDraw = "per-feature"
    augment: Annotated[float, Field(ge=0.0)] = 0.05
    failure: Failure = "requests"
    request_seeds: list[Seed] = field(default_factory=list)
    seed: Seed = 1
    test: str | None = None
    policy: Literal["admission"] = "admission"

    OPTIONS: ClassVar[dict[str, str]] = {"n_rules": "--rules"}

    def __post_init__(self) -> None:
        check_features(self.features, "admission", "--feature")
        if not self.features:
            raise EvogridError("--feature: an admission rulebase needs at least one feature")

    @property
    def label(self) -> str:
        return f"EFS admission es({self.mu}+{self.lambda_})"

    @property
    def kind(self) -> str:
        """The run directory's default name stem (runs/admission-<seed>)."""
        return "admission"

    @property
    def cutoff(self) -> bool:
        """EFS's early stop needs an AWRT bound; the score has none."""
        return False


def rulebase_objectives(ref: ScenarioRef, rulebase: Rulebase, failure: str = "requests",
                        seeds: tuple[int, ...] = ()) -> np.ndarray:
    """(failure rate, mean batch AWRT in s) of the scenario's requests with every site admitting by
    ``rulebase``, the mean over the request draws of ``seeds`` (empty: the table's draw);
    ``failure`` as :attr:`AdmissionConfig.failure`."""
    _, _, base = _setup(ref)
    rules = admission_rules(base, [rulebase])
    return np.mean([objectives(ref, rules, failure, seed) for seed in seeds or (None,)], axis=0)


def algorithm_objectives(ref: ScenarioRef, algorithm: str, failure: str = "requests",
                         seeds: tuple[int, ...] = ()) -> np.ndarray:
    """(failure rate, mean batch AWRT in s) of one of Meltzer's algorithms on the scenario, the mean
    over the request draws of ``seeds`` (empty: the table's draw)."""
    _, _, base = _setup(ref)
    rules = replace(base, algorithm=algorithm)
    return np.mean([objectives(ref, rules, failure, seed) for seed in seeds or (None,)], axis=0)


def _objectives_task(task: tuple[ScenarioRef, np.ndarray, tuple[str, ...], str, tuple[int, ...]]
                     ) -> np.ndarray:
    ref, params, features, failure, seeds = task
    return rulebase_objectives(ref, to_rulebase(params, features), failure, seeds)


class AdmissionES(EFS):
    """EFS's (mu + lambda)-ES (its operators, start and step) over one admission rulebase, with the
    score of the module docstring as fitness; an :class:`~evogrid.optimize.loop.Optimizer` over
    :class:`~evogrid.optimize.es.EvolutionState`."""

    def __init__(self, config: AdmissionConfig, evaluator: Evaluator):
        self.config = config  # type: ignore[assignment]
        self.evaluator = evaluator
        self.reference = algorithm_objectives(config.ref, "backlog", config.failure,
                                              tuple(config.request_seeds))

    def score(self, failure_rate: float, awrt: float) -> float:
        f = failure_rate / max(float(self.reference[0]), MIN_REFERENCE_FAILURE)
        a = awrt / float(self.reference[1])
        return max(f, a) + self.config.augment * (f + a)

    def evaluate_individuals(self, state: EvolutionState, individuals: list[Individual],
                             cutoff: float = 0.0) -> None:
        """Set each individual's fitness (the score); there is no early stop (``cutoff`` unused)."""
        c = self.config
        results = self.evaluator.map(_objectives_task, [(c.ref, ind.params, tuple(c.features), c.failure,
                                                         tuple(c.request_seeds)) for ind in individuals])
        for ind, (failure, awrt) in zip(individuals, results, strict=True):
            set_fitness(ind, self.score(failure, awrt), False)
        state.evaluations += len(individuals)

    def best(self, state: EvolutionState) -> tuple[np.ndarray, float]:
        """The best genome's params and score."""
        top = state.species[0][0]
        return top.params, top.value

    def row(self, state: EvolutionState) -> dict[str, Any]:
        row: dict[str, Any] = {"generation": state.generation, "evaluations": state.evaluations}
        parents = state.species[0]
        for key, value in _statistics().compile(parents).items():
            row[f"{key}_score_grid"] = f"{value:.5f}"
        for f, s in zip(self.config.features, np.mean([p.steps for p in parents], axis=0), strict=True):
            row[f"step_{f}_grid"] = f"{s:.4g}"
        return row


def comparison(ref: ScenarioRef, rulebase: Rulebase, window: str, seeds: tuple[int, ...] = ()
               ) -> list[dict[str, Any]]:
    """Rows (window, rule, failure rate by count and by area, batch AWRT) of :data:`COMPARED` and the
    learned rulebase, means over the request draws of ``seeds`` (empty: the table's)."""
    rows = []
    for name in (*COMPARED, "learned"):
        count, area = (algorithm_objectives(ref, name, f, seeds) if name != "learned" else
                       rulebase_objectives(ref, rulebase, f, seeds) for f in get_args(Failure))
        rows.append({"window": window, "scenario": ref.spec, "rule": name,
                     "failure_rate": round(float(count[0]), 5), "area_failure_rate": round(float(area[0]), 5),
                     "batch_awrt": round(float(count[1]), 2)})
    return rows


def write_results(config: AdmissionConfig, optimizer: AdmissionES, state: EvolutionState, out: Path,
                  plots: Plots | str | None = STANDARD_PLOTS) -> dict[str, Any]:
    """The rulebase JSON, the comparison table and (with ``plots``) the plots."""
    params, score = optimizer.best(state)
    rulebase = to_rulebase(params, config.features).with_provenance(
        decision="admission", trained_on=config.scenario, kind="efs-admission", optimizer=config.label,
        generations=config.generations, seed=config.seed, fitness_score=round(score, 6),
        failure=config.failure, augment=config.augment, request_seeds=list(config.request_seeds))
    path = rulebase.save(out / RULEBASE_FILE)
    rows = comparison(config.ref, rulebase, "train", tuple(config.request_seeds))
    if config.test:
        rows += comparison(ScenarioRef(config.test, config.lrms), rulebase, "test")
    rundir.write_rows(out / "summary", rows)
    if (plots := resolve_plots(plots)) is not None:
        plots.convergence_plot(out / "convergence.png", rundir.csv_rows(out / rundir.GENERATIONS_CSV))
        key = "failure_rate" if config.failure == "requests" else "area_failure_rate"
        for window in dict.fromkeys(r["window"] for r in rows):
            mine = [r for r in rows if r["window"] == window]
            plots.reservation_front_plot(out / f"admission_{window}.png", {},
                                         {r["rule"]: [r[key], r["batch_awrt"]] for r in mine})
    return {"finished": True, "rulebase": str(path), "summary": rows, "evaluations": state.evaluations}


ADMISSION = RunKind("admission", AdmissionConfig, AdmissionES, write_results)


def run_admission(config: AdmissionConfig, out: Path, evaluator: Evaluator, *, progress: bool = True,
                  stop_after: int | None = None,
                  plots: Plots | str | None = STANDARD_PLOTS) -> dict[str, Any]:
    """Start an admission-rulebase run in ``out``; see :func:`~evogrid.optimize.loop.run_loop`."""
    config.ref.scenario().refuse_strategy("train --policy admission")
    return new_run(ADMISSION, config, out, evaluator, lambda: {"kind": "efs-admission"},
                   progress=progress, stop_after=stop_after, plots=plots)


def resume_admission(out: Path, evaluator: Evaluator, *, progress: bool = True, stop_after: int | None = None,
                     plots: Plots | str | None = STANDARD_PLOTS) -> dict[str, Any]:
    """Continue the admission-rulebase run in ``out`` from its last checkpoint."""
    return resume_run(ADMISSION, out, evaluator, progress=progress, stop_after=stop_after, plots=plots)
