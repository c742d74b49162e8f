"""The ``evogrid`` command line.

User mistakes (bad files, unknown names, empty windows) end with one line on
stderr, ``evogrid: error: ...``, and exit code 2; never a traceback.
"""

from __future__ import annotations

import csv
import json
import sys
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from evogrid import __version__
from evogrid.errors import EvogridError
from evogrid.sim.metrics import grid_utilization
from evogrid.sim.scenario import Scenario
from evogrid.workload.cache import cached_parse
from evogrid.workload.model import SECONDS_PER_DAY
from evogrid.workload.preprocess import Preprocessing, load_swf
from evogrid.workload.traces import BUNDLED, resolve_trace, traces_dir

app = typer.Typer(
    help="evogrid: simulate federated compute sites on SWF logs and learn job-exchange policies.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
traces_app = typer.Typer(help="Bundled workload logs: list them, show their facts.", no_args_is_help=True)
app.add_typer(traces_app, name="traces")
# Pipes and CI logs get a wide console: rich would cut tables at 80 columns.
console = Console() if sys.stdout.isatty() else Console(width=140)

LRMS_HELP = "Local scheduler at every site: fcfs, easy (EASY backfilling) or list (first fit)."


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", help="Print the version and exit.")] = False,
) -> None:
    if version:
        typer.echo(f"evogrid {__version__}")
        raise typer.Exit()


@traces_app.command("list")
def traces_list() -> None:
    """List the bundled logs with their short names and files."""
    table = Table(title=f"Bundled traces ({traces_dir()})")
    for col in ("name", "file", "present"):
        table.add_column(col)
    for name, file in BUNDLED.items():
        table.add_row(name, file, "yes" if (traces_dir() / file).is_file() else "MISSING")
    console.print(table)


@traces_app.command("info")
def traces_info(
    name: Annotated[str, typer.Argument(help="Short name (KTH, SDSC03, ...) or path to an SWF file.")],
    procs: Annotated[int | None, typer.Option(help="Machine size if the header lacks MaxProcs.")] = None,
    lenient: Annotated[bool, typer.Option(help="Skip and count malformed lines.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """Header facts, jobs kept and dropped per reason, and the time span of a log."""
    path = resolve_trace(name)
    w = load_swf(path, Preprocessing(machine_procs=procs), name=name, lenient=lenient)
    header = cached_parse(path, lenient=lenient).header
    info = {
        "name": name,
        "file": str(path),
        "computer": header.get("Computer", ""),
        "installation": header.get("Installation", ""),
        "max_procs": header.get("MaxProcs"),
        "max_nodes": header.get("MaxNodes"),
        "machine_procs": w.machine_procs,
        "jobs_kept": w.n_jobs,
        "dropped": w.dropped,
        "span_days": round(w.span_seconds / SECONDS_PER_DAY, 2),
        "months_30d": round(w.span_seconds / (30 * SECONDS_PER_DAY), 2),
    }
    if as_json:
        typer.echo(json.dumps(info, indent=2))
        return
    table = Table(title=f"{name}: {path.name}", show_header=False)
    for key, value in info.items():
        table.add_row(key, str(value))
    console.print(table)


def _metrics_table(title: str, rows: list[dict]) -> Table:
    table = Table(title=title)
    for col in ("site", "m", "lrms", "jobs", "AWRT (s)", "U (%)", "C_max (s)", "wait (s)", "BSLD"):
        table.add_column(col, justify="right")
    for r in rows:
        table.add_row(
            r["site"], str(r["machine_procs"]), r["lrms"], f"{r['jobs_submitted']:,}",
            f"{r['awrt']:,.2f}", f"{100 * r['utilization']:.2f}", f"{r['makespan']:,}",
            f"{r['mean_wait']:,.0f}", f"{r['mean_bsld']:.2f}",
        )
    return table


@app.command()
def simulate(
    scenario: Annotated[
        str, typer.Argument(help="Inline scenario (KTH-11, KTH-5+SDSC03-5, KTH@5-) or a .toml file.")
    ],
    lrms: Annotated[str | None, typer.Option(help=LRMS_HELP)] = None,
    procs: Annotated[int | None, typer.Option(help="Override every site's machine size.")] = None,
    lenient: Annotated[bool, typer.Option(help="Skip and count malformed SWF lines.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    out: Annotated[Path | None, typer.Option(help="Also write the JSON result to this file.")] = None,
) -> None:
    """Simulate a scenario without job exchange and print per-site metrics."""
    sc = Scenario.from_spec(scenario, lrms=lrms, procs=procs, lenient=lenient)
    t0 = time.perf_counter()
    schedule = sc.simulate_local()
    elapsed = time.perf_counter() - t0
    rows = schedule.metrics()
    result = {
        "scenario": sc.name,
        "strategy": "local",
        "sites": rows,
        "dropped": {w.name: w.dropped for w in sc.workloads},
        "grid_utilization": grid_utilization(schedule),
        "seconds": elapsed,
        "evogrid": __version__,
    }
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=2))
    if as_json:
        typer.echo(json.dumps(result, indent=2))
        return
    console.print(_metrics_table(f"{sc.name}: local scheduling ({elapsed * 1e3:.1f} ms)", rows))
    for w in sc.workloads:
        if w.dropped:
            drops = ", ".join(f"{k}={v:,}" for k, v in w.dropped.items())
            console.print(f"[dim]{w.name}: dropped {drops}[/dim]")


@app.command()
def demo(
    out: Annotated[Path, typer.Option(help="Run directory for the results.")] = Path("runs/demo"),
) -> None:
    """The main job on the bundled logs: every LRMS on KTH and SDSC03, metrics and files."""
    out.mkdir(parents=True, exist_ok=True)
    all_rows = []
    for spec in ("KTH", "SDSC03-11", "KTH-5+SDSC03-5"):
        for lrms in ("fcfs", "easy", "list"):
            sc = Scenario.from_spec(spec, lrms=lrms)
            t0 = time.perf_counter()
            rows = sc.simulate_local().metrics()
            elapsed = time.perf_counter() - t0
            console.print(_metrics_table(f"{sc.name} / {lrms} ({elapsed * 1e3:.1f} ms)", rows))
            all_rows += [{"scenario": sc.name, **r} for r in rows]
    (out / "metrics.json").write_text(json.dumps(all_rows, indent=2))
    with (out / "metrics.csv").open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(all_rows[0]))
        writer.writeheader()
        writer.writerows(all_rows)
    console.print(f"wrote {out / 'metrics.json'} and {out / 'metrics.csv'}")


def main(argv: list[str] | None = None) -> None:
    """Console entry point: runs the app, turning user errors into one line and exit 2."""
    try:
        app(args=argv, standalone_mode=True)
    except EvogridError as exc:
        print(f"evogrid: error: {exc}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
