"""The one run loop of every optimiser, the plots passed in, light imports, and the run-directory pipeline."""

import ast
import csv
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from evogrid.errors import EvogridError
from evogrid.optimize import (
    Evaluator,
    ParetoConfig,
    TrainConfig,
    checkpoint,
    run_pareto,
    run_training,
    rundir,
)
from evogrid.optimize.loop import Optimizer, run_loop
from evogrid.optimize.pareto import NSGA2Front
from evogrid.optimize.training import make_algorithm
from evogrid.pipeline import redraw

REPO = Path(__file__).resolve().parents[1]
TINY = "KTH@0-1+SDSC03@0-1"


@dataclass
class Walk:
    """A toy optimiser's state: a random walk."""

    generation: int
    position: float
    rng: np.random.Generator


class RandomWalk:
    """A toy optimiser (no simulation): every generation adds a normal step."""

    label = "walk"
    checkpoint_kind = "Walk"

    def to_data(self, state: Walk) -> dict:
        return {"generation": state.generation, "position": state.position, "rng": state.rng}

    def from_data(self, data: dict) -> Walk:
        return Walk(**data)

    def start(self) -> Walk:
        return Walk(0, 0.0, np.random.default_rng(7))

    def step(self, state: Walk) -> Walk:
        return Walk(state.generation + 1, state.position + state.rng.normal(), state.rng)

    def best(self, state: Walk) -> float:
        return state.position

    def generation(self, state: Walk) -> int:
        return state.generation

    def row(self, state: Walk) -> dict:
        return {"generation": state.generation, "position": f"{state.position:.12g}"}


def _rows(out: Path) -> list[dict]:
    rows = rundir.csv_rows(out / "generations.csv")
    for r in rows:
        assert float(r.pop("wall_seconds")) >= 0
    return rows


def _walk(out: Path, **kw) -> dict:
    optimizer = RandomWalk()
    if not kw.get("resume"):
        rundir.start_run(out, {"seed": 7})
    return run_loop(optimizer, out, 6, lambda s: {"finished": True, "best": optimizer.best(s)},
                    progress=False, **kw)


def test_run_loop_records_checkpoints_stops_and_resumes_exactly(tmp_path):
    assert isinstance(RandomWalk(), Optimizer)
    straight = _walk(tmp_path / "straight")
    assert straight["finished"]
    assert [int(r["generation"]) for r in _rows(tmp_path / "straight")] == list(range(7))
    assert checkpoint.load(tmp_path / "straight", "Walk")["generation"] == 6

    killed = tmp_path / "killed"
    assert _walk(killed, stop_after=2) == {"finished": False, "generation": 2}
    assert _walk(killed, resume=True, stop_after=1) == {"finished": False, "generation": 3}
    # a kill between a row and its checkpoint leaves one row too many: resume drops it
    extra = {"generation": 4, "position": "junk", "wall_seconds": "1"}
    rundir.append_csv_row(killed / "generations.csv", extra)
    assert _walk(killed, resume=True) == straight
    assert _rows(killed) == _rows(tmp_path / "straight")

    with pytest.raises(EvogridError, match="already holds a run"):
        _walk(tmp_path / "straight")
    with pytest.raises(EvogridError, match="no checkpoint"):
        _walk(tmp_path / "nothing", resume=True)


def test_every_optimizer_follows_the_protocol():
    with Evaluator("serial") as ev:
        kinds = (("efs", "es"), ("efs", "cma"), ("coevolution", "es"), ("joint", "es"))
        optimizers = [make_algorithm(TrainConfig(TINY, kind=kind, optimizer=opt), ev) for kind, opt in kinds]
        optimizers += [NSGA2Front(ParetoConfig(TINY, mode=mode), ev) for mode in ("partition", "policy")]
    labels = [o.label for o in optimizers]
    assert labels == ["EFS es(13+91)", "EFS cma-es(91)", "co-evolution", "joint ES", "NSGA-II partition",
                      "NSGA-II policy"]
    assert all(isinstance(o, Optimizer) for o in optimizers)


class RecordingPlots:
    """Plots that only note what they were asked to draw (and write a stub file)."""

    def __init__(self):
        self.drawn = []

    def _draw(self, name, path):
        Path(path).write_bytes(b"stub")
        self.drawn.append((name, Path(path).name))
        return Path(path)

    def convergence_plot(self, path, rows):
        assert rows and "generation" in rows[0]
        return self._draw("convergence", path)

    def improvement_plot(self, path, rows):
        assert rows and "improvement_pct" in rows[0]
        return self._draw("improvement", path)

    def decision_surface(self, rb, path, *, visited=None, title=None):
        assert rb.n_rules == 3 and title
        return self._draw("surface", path)

    def pareto_plot(self, path, site_names, fronts, points):
        assert site_names == ["KTH@0-1", "SDSC03@0-1"] and "local" in points and fronts
        return self._draw("pareto", path)


def test_plots_are_passed_in_and_redrawn_by_run_kind(tmp_path):
    plots = RecordingPlots()
    train = TrainConfig(TINY, mu=2, lambda_=2, generations=1, n_rules=3)
    front = ParetoConfig(TINY, pop_size=4, generations=1, n_changes=20)
    with Evaluator("serial") as ev:
        run_training(train, tmp_path / "bare", ev, progress=False, plots=None)
        run_training(train, tmp_path / "train", ev, progress=False, plots=plots)
        run_pareto(front, tmp_path / "pareto", ev, progress=False, plots=plots)
    assert not list((tmp_path / "bare").glob("*.png"))
    surface = "surface_KTH@0-1_vs_SDSC03@0-1.png"
    assert plots.drawn == [("convergence", "convergence.png"), ("improvement", "improvement.png"),
                           ("surface", surface), ("pareto", "pareto.png")]

    assert rundir.finished_kind(tmp_path / "train") == "training"
    assert rundir.finished_kind(tmp_path / "pareto") == "pareto"
    assert rundir.finished_kind(tmp_path) is None
    again = RecordingPlots()
    paths = redraw(tmp_path / "train", again)
    paths += redraw(tmp_path / "pareto", again, others=[tmp_path / "pareto"], output=tmp_path / "both.png")
    assert [p.name for p in paths] == ["convergence.png", "improvement.png", surface, "both.png"]
    with pytest.raises(EvogridError, match="not a finished run"):
        redraw(tmp_path, again)
    summary = json.loads((tmp_path / "bare" / "summary.json").read_text())
    assert [r["site"] for r in summary] == ["KTH@0-1", "SDSC03@0-1"]
    with (tmp_path / "pareto" / "generations.csv").open() as fh:
        assert [r["generation"] for r in csv.DictReader(fh)] == ["1"]


def test_optimize_imports_no_plotting_and_its_light_modules_neither_deap_nor_pymoo():
    for path in (REPO / "evogrid" / "optimize").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or "", *(f"{node.module}.{a.name}" for a in node.names)]
            else:
                continue
            assert not [n for n in names if n.startswith(("matplotlib", "evogrid.plots"))], (path, names)
    code = ("import sys; from evogrid.optimize import Evaluator, ParetoConfig, TrainConfig; "
            "import evogrid.optimize.loop, evogrid.optimize.rundir, evogrid.pipeline; "
            "heavy = [m for m in ('deap', 'pymoo', 'matplotlib') if m in sys.modules]; "
            "from evogrid.optimize import run_pareto, run_training; "
            "print(heavy, 'matplotlib' in sys.modules, callable(run_training) and callable(run_pareto))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(REPO)}).stdout
    assert out.split() == ["[]", "False", "True"]
