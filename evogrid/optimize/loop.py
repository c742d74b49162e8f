"""One run loop for every optimiser: EFS, CMA-ES, co-evolution, the joint ES and both Pareto modes.

An optimiser (:class:`Optimizer`) holds what stays fixed during a run (the
configuration, the evaluator) and advances a *state*, everything a
generation changes, one generation at a time: :meth:`~Optimizer.start`
evaluates the initial population, :meth:`~Optimizer.step` runs one more
generation, :meth:`~Optimizer.best` is the result. The states are
per-algorithm (:class:`~evogrid.optimize.es.EvolutionState` and its
subclasses, :class:`~evogrid.optimize.pareto.ParetoState`) and hold every
random generator the algorithm draws from; :meth:`~Optimizer.to_data` turns a
state into plain data, which is the whole checkpoint (evogrid.optimize.checkpoint:
no pickle), and :meth:`~Optimizer.from_data` turns it back.

:func:`run_loop` drives any optimiser in a run directory
(:mod:`evogrid.optimize.rundir`; :func:`new_run` and :func:`resume_run`
prepare it or read it back, holding the directory's lock): after every generation one row of
``generations.csv`` (the optimiser's :meth:`~Optimizer.row` and the wall
time) and then the checkpoint (atomic); ``resume=True`` continues from the
checkpoint, first dropping CSV rows written after it, and ends with exactly
the result of an uninterrupted run.

Plots are not this package's business: the run functions take a ``plots``
object (anything with the functions of :class:`Plots`, e.g. the module
``evogrid.plots``, which the CLI passes in) or None for no plots.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, runtime_checkable

from evogrid.errors import EvogridError
from evogrid.optimize import checkpoint, rundir
from evogrid.progress import progress_report

if TYPE_CHECKING:
    from evogrid.optimize.evaluator import Evaluator

S = TypeVar("S")
C = TypeVar("C")
GENERATIONS_CSV = rundir.GENERATIONS_CSV


@runtime_checkable
class Optimizer(Protocol[S]):
    """One generation at a time over a state ``S``, checkpointed as plain data.

    Attributes:
        label: what the run is, for the progress bar.
        checkpoint_kind: the name its checkpoints carry (evogrid.optimize.checkpoint); a checkpoint
            of another kind is refused.
    """

    label: str
    checkpoint_kind: str

    def to_data(self, state: S) -> Any:
        """``state`` as plain data: JSON values, numpy arrays, tuples and numpy generators only."""
        ...

    def from_data(self, data: Any) -> S:
        """The state :meth:`to_data` gave."""
        ...

    def start(self) -> S:
        """A new state with the initial population evaluated."""
        ...

    def step(self, state: S) -> S:
        """Advance ``state`` by one generation (in place, or a new state) and return it."""
        ...

    def best(self, state: S) -> Any:
        """The run's result so far."""
        ...

    def generation(self, state: S) -> int:
        """Generations ``state`` has done (the row's ``generation`` in generations.csv)."""
        ...

    def row(self, state: S) -> dict[str, Any]:
        """The generations.csv row of ``state`` (the loop appends ``wall_seconds``)."""
        ...


class Plots(Protocol):
    """The plots a run writes at its end (docs/training.md, docs/pareto.md): what ``evogrid.plots`` has."""

    def convergence_plot(self, path: str | Path, rows: list[dict[str, str]]) -> Path: ...

    def improvement_plot(self, path: str | Path, rows: list[dict]) -> Path: ...

    def decision_surface(self, rb: Any, path: str | Path, *, visited: Any = None,
                         title: str | None = None) -> Path: ...

    def pareto_plot(self, path: str | Path, site_names: list[str], fronts: dict[str, Any],
                    points: dict[str, list[float]]) -> Path: ...


#: The default of the run functions' ``plots``: the module holding the standard plots, imported only
#: when a run that was given no ``plots`` ends (the CLI passes the module itself; None: no plots).
STANDARD_PLOTS = "evogrid.plots"


def resolve_plots(plots: Plots | str | None) -> Plots | None:
    """``plots`` as an object: a module name is imported."""
    return importlib.import_module(plots) if isinstance(plots, str) else plots


def run_loop(optimizer: Optimizer[S], out: Path, generations: int, finish: Callable[[S], dict[str, Any]],
             *, resume: bool = False, progress: bool = True, stop_after: int | None = None) -> dict[str, Any]:
    """Run ``optimizer`` in the run directory ``out`` until its state has done ``generations``,
    then return ``finish(state)``.

    A new run (``resume=False``; ``out`` prepared by :func:`~evogrid.optimize.rundir.start_run`)
    starts from :meth:`Optimizer.start`, a resumed one from the checkpoint. With ``stop_after``,
    return ``{"finished": False, "generation": g}`` once the state has done ``stop_after`` more
    generations than when called (a new run counts from 0), as if killed there.
    """
    csv_path = out / GENERATIONS_CSV
    state: S | None = None
    done, seconds_before = 0, 0.0
    if resume:
        state = optimizer.from_data(checkpoint.load(out, optimizer.checkpoint_kind))
        done = optimizer.generation(state)
        rundir.truncate_csv(csv_path, done)
        seconds_before = rundir.recorded_seconds(csv_path, done)
    stop_at = done + stop_after if stop_after is not None else None
    started = time.perf_counter()

    def record(state: S) -> S:
        wall = seconds_before + time.perf_counter() - started
        rundir.append_csv_row(csv_path, {**optimizer.row(state), "wall_seconds": f"{wall:.2f}"})
        checkpoint.save(out, optimizer.checkpoint_kind, optimizer.to_data(state), optimizer.generation(state))
        return state

    with progress_report(progress, optimizer.label, generations, done) as show:
        if state is None:
            state = record(optimizer.start())
        while (generation := optimizer.generation(state)) < generations:
            show(generation)
            if stop_at is not None and generation >= stop_at:
                return {"finished": False, "generation": generation}
            state = record(optimizer.step(state))
        show(optimizer.generation(state))
    return finish(state)




@dataclass(frozen=True)
class RunKind(Generic[C]):
    """What :func:`new_run` and :func:`resume_run` need to know of a kind of run.

    Attributes:
        name: ``training``, ``admission`` or ``pareto``: what ``run.json`` says a directory holds,
            so that resuming it with another command is a clear error.
        config: the configuration class (``config.toml`` holds its fields).
        optimizer: the optimiser for a configuration and an evaluator.
        finish: ``finish(config, optimizer, final state, run directory, plots)`` writes the
            results and returns the run's summary.
    """

    name: str
    config: Callable[..., C]
    optimizer: Callable[[C, Evaluator], Optimizer[Any]]
    finish: Callable[[C, Any, Any, Path, Plots | None], dict[str, Any]]


#: run.json's ``kind`` entry -> the RunKind name that resumes it, and the command that does.
RECORDED_KINDS = {"efs": "training", "coevolution": "training", "joint": "training",
                  "efs-admission": "admission", "pareto": "pareto"}
RESUME_COMMANDS = {"training": "evogrid train", "admission": "evogrid train", "pareto": "evogrid pareto"}


def new_run(kind: RunKind[C], config: C, out: Path, evaluator: Evaluator,
            record: Callable[[], dict[str, Any]], *, progress: bool = True, stop_after: int | None = None,
            plots: Plots | str | None = STANDARD_PLOTS) -> dict[str, Any]:
    """Start a run of ``config`` in ``out`` (which must not hold one), holding its lock throughout:
    ``config.toml``, then ``run.json`` (the run record with the entries ``record()`` gives), then
    :func:`run_loop`."""
    with rundir.locked(out):
        rundir.start_run(out, asdict(config))
        rundir.write_json(out / "run.json", rundir.run_record(
            config.seed, **record(), backend=evaluator.backend, workers=evaluator.n_workers))
        return _run(kind, config, out, evaluator, False, progress, stop_after, plots)


def resume_run(kind: RunKind[Any], out: Path, evaluator: Evaluator, *, progress: bool = True,
               stop_after: int | None = None, plots: Plots | str | None = STANDARD_PLOTS) -> dict[str, Any]:
    """Continue the run in ``out`` from its last checkpoint, with the configuration of its config.toml,
    holding the directory's lock throughout."""
    if not out.is_dir():
        raise EvogridError(f"{out}: no such run directory")
    with rundir.locked(out):
        return _run(kind, resumed_config(kind, out), out, evaluator, True, progress, stop_after, plots)


def resumed_config(kind: RunKind[C], out: Path) -> C:
    """The configuration in ``out/config.toml``, checked to be of ``kind``. Raises EvogridError."""
    settings = rundir.resumable_config(out)
    found = RECORDED_KINDS.get(rundir.run_record_kind(out) or "")
    if found is not None and found != kind.name:
        raise EvogridError(f"{out} holds a {found} run, not a {kind.name} run; continue it with "
                           f"{RESUME_COMMANDS[found]} --resume {out}")
    try:
        return kind.config(**settings)
    except EvogridError as exc:  # a setting out of range, unknown, or missing
        raise EvogridError(f"{out / 'config.toml'}: {exc}") from None


def _run(kind: RunKind[C], config: C, out: Path, evaluator: Evaluator, resume: bool, progress: bool,
         stop_after: int | None, plots: Plots | str | None) -> dict[str, Any]:
    optimizer = kind.optimizer(config, evaluator)
    return run_loop(optimizer, out, config.generations,
                    lambda state: kind.finish(config, optimizer, state, out, resolve_plots(plots)),
                    resume=resume, progress=progress, stop_after=stop_after)
