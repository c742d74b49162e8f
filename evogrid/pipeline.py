"""Whole pipelines over run directories, for the CLI's ``demo`` and ``plot`` commands and for Python.

:func:`demo` is the main job on the bundled logs in a few minutes; it yields
what it has done step by step (:class:`Line`, :class:`MetricsTable`,
:class:`SummaryTable`) for the caller to show. :func:`redraw` redraws a
finished run's plots, after finding out which kind of run a directory holds.
Both take the plots as an argument (``evogrid.plots``, as the CLI passes).

The heavy modules (the optimisers, the simulator) are imported when a
function runs, so importing this module is cheap.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evogrid.errors import ScenarioError

if TYPE_CHECKING:
    from evogrid.optimize.evaluator import Evaluator
    from evogrid.optimize.loop import Plots
    from evogrid.sim.scenario import Scenario

DEMO_TRAIN = "KTH@0-5+SDSC03@0-5"
DEMO_TEST = "KTH@5-11+SDSC03@5-11"
DEMO_GENERATIONS = 60
#: The demo's other parts: every LRMS alone on these, the exchange strategies on a grid, a Pareto front.
DEMO_LOCAL = ("KTH", "SDSC03@0-11", "KTH@0-5+SDSC03@0-5")
DEMO_STRATEGIES = "KTH+SDSC03@0-11"
DEMO_PARETO = "KTH@0-5+HPC2N@0-5"


@dataclass(frozen=True)
class Line:
    """A line of text to show."""

    text: str


@dataclass(frozen=True)
class MetricsTable:
    """Per-site metrics rows (``ScheduleResult.metrics()``) under a title."""

    title: str
    rows: list[dict[str, Any]]


@dataclass(frozen=True)
class SummaryTable:
    """A training run's summary rows (learned policy against local scheduling)."""

    rows: list[dict[str, Any]]


DemoStep = Line | MetricsTable | SummaryTable


def demo(out: Path, evaluator: Evaluator, *, generations: int = DEMO_GENERATIONS,
         plots: Plots | None = None) -> Iterator[DemoStep]:
    """The main job on the bundled logs (``evogrid demo``), writing into ``out``:

    1. EFS: KTH's rulebase trained on KTH@0-5 + SDSC03@0-5 (FCFS, SDSC03 runs
       AWF; 13 + 91 for ``generations``), then tested on the unseen months
       KTH@5-11 + SDSC03@5-11 with FCFS and EASY (``train/``);
    2. every LRMS on KTH and SDSC03 alone (``metrics.json``/``.csv``);
    3. KTH + SDSC03@0-11 with EASY and the exchange strategies local, AWF,
       EASY-JS and AA: deltas and migrations (``strategies.json``/``.csv``);
    4. a short NSGA-II Pareto run on KTH@0-5 + HPC2N@0-5 (``pareto/``).
    """
    from evogrid.optimize.config import ParetoConfig, TrainConfig
    from evogrid.optimize.pareto import run_pareto
    from evogrid.optimize.training import run_training
    from evogrid.policy import strategies as st
    from evogrid.sim.scenario import Scenario
    from evogrid.sim.schedule import warm_up

    out.mkdir(parents=True, exist_ok=True)
    for sub in ("train", "pareto"):
        shutil.rmtree(out / sub, ignore_errors=True)  # a demo run starts afresh
    config = TrainConfig(DEMO_TRAIN, site=0, generations=generations, test=DEMO_TEST)
    yield Line(f"EFS: training KTH's rulebase on {DEMO_TRAIN} ({config.optimizer_label}, "
               f"{generations} generations, {evaluator.n_workers} workers)")
    t0 = time.perf_counter()
    result = run_training(config, out / "train", evaluator, plots=plots)
    yield SummaryTable(result["summary"])
    yield Line(f"trained in {time.perf_counter() - t0:.0f} s ({result['evaluations']:,} simulations); "
               f"wrote {result['rulebases'][0]} and {out / 'train'}/*.png")

    all_rows = []
    for spec in DEMO_LOCAL:
        for lrms in ("fcfs", "easy", "list"):
            scenario = Scenario.from_spec(spec, lrms=lrms)
            warm_up((lrms,))  # the time shown is the simulation's, not the first call's compilation
            t0 = time.perf_counter()
            rows = scenario.simulate_local().metrics()
            elapsed = time.perf_counter() - t0
            yield MetricsTable(f"{scenario.name} / {lrms} ({elapsed * 1e3:.1f} ms)", rows)
            all_rows += [{"scenario": scenario.name, **r} for r in rows]
    yield _write_rows(out / "metrics", all_rows)

    strategy_rows = []
    scenario = Scenario.from_spec(DEMO_STRATEGIES, lrms="easy")
    for strategy in (st.Local(), st.AcceptWhenFit(), st.CentralPool(), st.ActiveRequest()):
        res = st.simulate(scenario, strategy)
        label = st.strategy_label(res.schedule)
        yield MetricsTable(f"{scenario.name}: {label}", res.metrics())
        strategy_rows += [{"strategy": label, **r} for r in res.metrics()]
    yield _write_rows(out / "strategies", strategy_rows)

    pc = ParetoConfig(DEMO_PARETO, pop_size=30, generations=25, n_changes=2000)
    front = run_pareto(pc, out / "pareto", evaluator, plots=plots)
    yield Line(f"NSGA-II on {pc.scenario} ({pc.pop_size} x {pc.generations}):"
               f" {len(front['front'])} front points, hypervolume {front['hypervolume']:.4g}; "
               f"wrote {out / 'pareto' / 'pareto.png'}")


def _write_rows(stem: Path, rows: list[dict]) -> Line:
    from evogrid.optimize.rundir import write_rows

    write_rows(stem, rows)
    return Line(f"wrote {stem}.json and {stem}.csv")


def redraw(run_dir: Path, plots: Plots, *, others: Sequence[Path] = (),
           output: Path | None = None) -> list[Path]:
    """Redraw a finished run's plots: a training run's convergence, improvement and decision surfaces
    (in ``run_dir``), or a Pareto run's front together with the fronts of ``others`` (in ``output``,
    default ``run_dir/pareto.png``). Returns the files written."""
    from evogrid.optimize.rundir import finished_kind

    if finished_kind(run_dir) == "training":
        from evogrid.optimize.training import SUMMARY, draw_training_plots
        from evogrid.policy.rulebase import Rulebase

        files = sorted((run_dir / "rulebases").glob("*.json"))
        surfaces = [(f.stem, Rulebase.load(f), f.stem) for f in files]
        summary = json.loads((run_dir / f"{SUMMARY}.json").read_text())
        return draw_training_plots(plots, run_dir, summary, surfaces)
    first = json.loads((run_dir / "front.json").read_text()) if (run_dir / "front.json").exists() else {}
    if first.get("mode") == "reservation":
        fronts = {first["label"]: first["front"]}
        for d in others:
            data = json.loads((d / "front.json").read_text())
            fronts[f"{data['label']} ({d.name})"] = data["front"]
        path = output or run_dir / "pareto.png"
        return [plots.reservation_front_plot(path, fronts, first["reference_points"])]
    fronts, points, names = {}, {}, []
    for d in [run_dir, *others]:
        try:
            data = json.loads((d / "front.json").read_text())
        except FileNotFoundError:
            raise ScenarioError(f"{d}: no front.json or summary.json (not a finished run)") from None
        names = names or data["sites"]
        label = data.get("label", f"NSGA-II {data['mode']}")
        fronts[f"{label}, HV {data['hypervolume']:.3g}"] = data["front"]
        points = points or data["reference_points"]
    return [plots.pareto_plot(output or run_dir / "pareto.png", names, fronts, points)]


#: The algorithms ``evogrid reserve --algorithm all`` compares (Meltzer's five).
MELTZER_ALGORITHMS = ("trivial", "cpu-count", "backlog", "backfill", "weighted")


def reservation_study(scenario: Scenario, algorithms: Sequence[str], out: Path | None = None,
                      plots: Any = None, gantt: tuple[int, tuple[float, float] | None] | None = None,
                      **overrides: Any) -> dict[str, Any]:
    """Run the scenario's reservation requests under each admission algorithm (same requests, same
    batch jobs); with ``out``, write ``summary.json``/``.csv`` (one row per algorithm),
    ``sites.json``/``.csv``, ``bookings_<algorithm>.csv`` and, with ``plots``, ``summary.png``
    (``plots.reservation_summary_plot``); with ``gantt = (site, hours)`` also a Gantt plot per
    algorithm (``plots.gantt_plot``). ``overrides``: fields of the scenario's
    ``[reservations]`` table (evogrid.sim.scenario.ReservationsConfig).

    Returns ``{"scenario", "requests", "dropped", "algorithms": [summary rows], "sites": [rows]}``.
    """
    import numpy as np

    from evogrid.jobs_file import reservation_occupied, write_jobs
    from evogrid.optimize.rundir import write_rows
    from evogrid.sim.booking import ALGORITHMS, reservation_setup, simulate_reservations
    from evogrid.sim.metrics import reservation_metrics, site_reservation_metrics

    scenario.refuse_strategy("evogrid reserve")
    summary, site_rows, written = [], [], []
    workloads, requests, base = reservation_setup(scenario, **overrides)
    for algorithm in algorithms:
        t0 = time.perf_counter()
        schedule, bookings = simulate_reservations(workloads, scenario.lrms, requests,
                                                   replace(base, algorithm=algorithm))
        elapsed = time.perf_counter() - t0
        batch = schedule.metrics()
        summary.append({
            "algorithm": algorithm, "information": ALGORITHMS[algorithm].information,
            **reservation_metrics(schedule, requests, bookings),
            "batch_awrt_mean": float(np.mean([m["awrt"] for m in batch])),
            "batch_max_wait": max(m["max_wait"] for m in batch),
            "batch_mean_xf": float(np.mean([m["mean_xf"] for m in batch])),
            "seconds": elapsed,
        })
        for m, extra in zip(batch, site_reservation_metrics(schedule, requests, bookings), strict=True):
            site_rows.append({"algorithm": algorithm, **m, **extra})
        if out is not None and requests.n_requests:
            parts = -np.sort(-requests.parts, axis=1)
            write_rows(out / f"bookings_{algorithm}", [
                {"request": r, "submit": int(requests.submit[r]), "earliest": int(requests.earliest_start[r]),
                 "deadline": int(requests.deadline[r]), "duration": int(requests.duration[r]),
                 "parts": " ".join(str(p) for p in parts[r] if p > 0), "start": int(bookings.start[r]),
                 "sites": " ".join(str(k) for k in bookings.sites[r] if k >= 0),
                 "procs": " ".join(str(p) for p in bookings.procs[r] if p > 0),
                 "length": int(bookings.length[r]),
                 "messages": int(bookings.messages[r]), "status_queries": int(bookings.status_queries[r]),
                 "cost": float(bookings.cost[r])}
                for r in range(requests.n_requests)])
        if out is not None:
            write_jobs(out / f"jobs_{algorithm}.csv", schedule,
                           reservation_occupied(bookings, requests, len(workloads)))
        if out is not None and gantt is not None and plots is not None:
            site, hours = gantt
            if not 0 <= site < len(workloads):
                raise ScenarioError(f"--gantt: site {site} is not one of the {len(workloads)} sites")
            written.append(str(plots.gantt_plot(out / f"gantt_{algorithm}_site{site}.png", schedule,
                                                requests, bookings, site, hours)))
    result = {"scenario": scenario.name, "lrms": list(scenario.lrms), "requests": requests.name,
              "dropped": {w.name: w.dropped for w in workloads}, "algorithms": summary, "sites": site_rows,
              "plots": written}
    if out is not None:
        write_rows(out / "summary", summary)
        write_rows(out / "sites", site_rows)
        if plots is not None:
            written.append(str(plots.reservation_summary_plot(out / "summary.png", summary)))
    return result
