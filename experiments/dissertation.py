"""Every experiment of Lepping's dissertation that evogrid reproduces, in the dissertation's order, by one
command.

Run: ``.venv/bin/python experiments/dissertation.py [--quick] [--seeds N] [--workers N] [--out DIR]
[--redo]``

Steps, each a script of ``experiments/`` run in a subprocess, in the order of the dissertation's
chapters; each step's markdown goes to ``DIR/<step>.md``, and all of them, in order, to
``DIR/report.md``:

- ``part2``: Tables 7.1-7.3 on the dissertation's cuts of the logs (``dissertation_windows.py``);
- ``part3``: Tables 8.2, 8.3, 9.2, 9.3, 10.1 and Figs. 8.2-8.7, 9.3, 9.4, 11.3 and 11.4, the central
  pool and the active request (``dissertation_pool.py``);
- ``part3-fronts``: Figs. 10.3 and 10.4, NSGA-II's fronts for Table 10.1's setups, ``--seeds`` seeds
  each (``dissertation_fronts.py``; its run directories in ``runs/experiments/dissertation_fronts/``);
- ``part4-train``: the learned policies of chapters 12 and 13, ``--seeds`` seeds of each set
  (``dissertation_grids.py train``; its run directories in ``runs/experiments/dissertation/``);
- ``part4-report``: their tables and plots (``dissertation_grids.py report``; also
  ``experiments/results/dissertation_lepping/``).

Resumable: a step that exited 0 leaves its ``.md`` (written atomically) and is skipped when the
command runs again (``--redo``: run every step again); an interrupted ``part4-train`` goes on from
its runs' checkpoints. While it runs, ``DIR`` is locked: a second run there is refused with one line
naming the holder's PID (exit 2). A failing step stops the run (exit 1) and its log stays in
``DIR/<step>.log``.

``--quick``: KTH's rows of Part II and Table 10.1 of Part III, about 10 s warm; no training.
``tests/test_dissertation_driver.py`` runs it.

Expected wall time of the full run on 2 cores, from its parts' measured times (docs/results.md):
Part II about 30 s, Part III about 2 minutes, its fronts about 22 minutes per seed on 2 workers (1.9
hours for 5 seeds), the training about 3 hours with one worker per run
(the 3-site co-evolution 45 minutes for 5 seeds, the 30 pairwise EFS runs 2 minutes each, the EA
comparison's 6 seeds 10-15 minutes each, the 5-site co-evolution), about half that with
``--workers 2``; the report a few minutes.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from evogrid.errors import EvogridError
from evogrid.files import atomic_write_bytes
from evogrid.optimize.rundir import locked
from evogrid.progress import progress_report

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "runs" / "experiments" / "dissertation_all"


def steps(quick: bool, seeds: int, workers: int) -> list[tuple[str, str, list[str]]]:
    """``(name, title, command)`` of every step, in the dissertation's order."""
    python = sys.executable
    if quick:
        return [("part2", "Part II: single sites (KTH only)",
                 [python, str(HERE / "dissertation_windows.py"), "--logs", "KTH"]),
                ("part3", "Part III: Table 10.1, the pool and the active request",
                 [python, str(HERE / "dissertation_pool.py"), "--tables", "10.1"])]
    grids = [python, str(HERE / "dissertation_grids.py")]
    budget = ["--seeds", str(seeds), "--workers", str(workers)]
    return [("part2", "Part II: single sites, Tables 7.1-7.3",
             [python, str(HERE / "dissertation_windows.py")]),
            ("part3", "Part III: the central pool and the active request, Tables 8.2-10.1, Figs. 8.2-11.4",
             [python, str(HERE / "dissertation_pool.py")]),
            ("part3-fronts", "Part III: NSGA-II fronts of Table 10.1's setups, Figs. 10.3 and 10.4",
             [python, str(HERE / "dissertation_fronts.py"), "all", *budget]),
            ("part4-train", "Part IV: training (run directories in runs/experiments/dissertation/)",
             [*grids, "train", *budget]),
            ("part4-report", "Part IV: learned policies, chapters 12 and 13",
             [*grids, "report", "--seeds", str(seeds)])]


def run(out: Path, quick: bool, seeds: int, workers: int, redo: bool) -> int:
    """Run the steps not done yet into ``out``; 0 when all are done, 1 when one failed."""
    todo = steps(quick, seeds, workers)
    with locked(out), progress_report(True, "dissertation", len(todo), 0, unit="step") as show:
        for done, (name, title, command) in enumerate(todo):
            result = out / f"{name}.md"
            if result.exists() and not redo:
                print(f"{name}: done before, kept ({result})", file=sys.stderr)
                continue
            print(f"{name}: running", file=sys.stderr, flush=True)
            show(done)
            started = time.perf_counter()
            with open(out / f"{name}.log", "w") as log:
                finished = subprocess.run(command, cwd=HERE, stdout=subprocess.PIPE, stderr=log, text=True)
            if finished.returncode != 0:
                print(f"{name} failed (exit {finished.returncode}); its errors: {out / f'{name}.log'}",
                      file=sys.stderr)
                return 1
            shown = " ".join(Path(c).name if c.endswith(".py") else c for c in command[1:])
            text = (f"## {title}\n\n`{shown}`, {time.perf_counter() - started:.0f} s\n\n"
                    f"{finished.stdout.strip()}\n")
            atomic_write_bytes(result, text.encode())
        show(len(todo))
        report = "\n".join((out / f"{name}.md").read_text() for name, _, _ in todo)
        atomic_write_bytes(out / "report.md", f"# Lepping's dissertation, reproduced\n\n{report}".encode())
    print(f"report: {out / 'report.md'}", file=sys.stderr)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="KTH's rows of Part II and Table 10.1 only")
    parser.add_argument("--seeds", type=int, default=5, help="seeds of every training set (default 5)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes of the training (default 2)")
    parser.add_argument("--out", type=Path, help=f"run directory (default {OUT.relative_to(HERE.parent)}, "
                                                 "with --quick its quick/ subdirectory)")
    parser.add_argument("--redo", action="store_true", help="run every step again")
    args = parser.parse_args()
    for option, value in (("--seeds", args.seeds), ("--workers", args.workers)):
        if value < 1:
            parser.error(f"{option} {value}: at least 1")
    out = args.out or (OUT / "quick" if args.quick else OUT)
    try:
        return run(out, args.quick, args.seeds, args.workers, args.redo)
    except EvogridError as exc:
        print(f"dissertation.py: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
