"""The ``evogrid`` command line.

User mistakes (bad files, unknown names, empty windows, options out of their
range, unwritable paths) end with one line on stderr, ``evogrid: error: ...``,
and exit code 2; never a traceback (``EVOGRID_DEBUG=1`` shows one for every
error). Every numeric option declares its range: 0 is a value, never "the
default". SIGINT and SIGTERM stop a run's workers and say how to continue it
(docs/cli.md).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from evogrid import __version__
from evogrid.errors import EvogridError, ScenarioError
from evogrid.files import write_json
from evogrid.pipeline import DEMO_GENERATIONS
from evogrid.policy.registry import (
    ACTIVE_TAKE,
    HANDOVER,
    LOCATIONS,
    OUTSIDE_RANGE,
    POOL_ARRIVALS,
    REFUSALS,
    SLOT_RULES,
    STRATEGIES,
    TRANSFERS,
    features_for,
    plain_transfers,
)
from evogrid.sim.requests import REGISTRY as REQUEST_KINDS

if TYPE_CHECKING:
    from evogrid.policy.rulebase import Rulebase
    from evogrid.sim.scenario import Scenario

# numpy, numba, pydantic and the optimisers load inside the commands that need them:
# ``evogrid --help`` and the light commands stay fast.

# Typer may bring its own copy of click (typer._click) or use the click package: its errors and
# parameter sources come from whichever it uses.
_click_errors = importlib.import_module(typer.BadParameter.__module__)
_click_core = importlib.import_module(typer.BadParameter.__module__.rpartition(".")[0] + ".core")

app = typer.Typer(
    help="evogrid: simulate federated compute sites on SWF logs and learn job-exchange policies.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # click's plain help: rendering it with rich took a third of --help's time
)
traces_app = typer.Typer(help="Bundled workload logs: list them, show their facts.", no_args_is_help=True)
app.add_typer(traces_app, name="traces")
# Pipes and CI logs get a console as wide as any table (rich would otherwise cut tables at 80
# columns and shorten their headers); a terminal keeps its width, and headers fold, never shorten.
console = Console() if sys.stdout.isatty() else Console(width=100_000)

LRMS_HELP = (
    "Local scheduler at every site: fcfs, easy (EASY backfilling), list (first fit), conservative "
    "(conservative backfilling: every waiting job holds a reservation), sjf or easy-sjf (FCFS or EASY "
    "over a queue in order of estimates)."
)


def _nonzero_workers(value: int) -> int:
    if value == 0:
        raise typer.BadParameter("0 workers: give a count >= 1, or a negative count as in joblib "
                                 "(-1: all cores, -2: all but one)")
    return value


# Options shared by the optimisation commands (train, coevolve, pareto).
SeedOption = Annotated[int, typer.Option(min=0, help="Seed of the whole run (>= 0).")]
WorkersOption = Annotated[int, typer.Option(
    callback=_nonzero_workers,
    help="Parallel workers: a count >= 1, or negative as in joblib (-1: all cores, -2: all but one).")]
BackendOption = Annotated[str, typer.Option(
    help="serial, loky (processes on this machine), dask or ray (a cluster: pip install "
         "'evogrid[distributed]' or 'evogrid[ray]').")]
SchedulerOption = Annotated[str | None, typer.Option(
    help="With dask or ray, the address of a running cluster: a dask scheduler (tcp://host:8786) or a "
         "Ray cluster (ray://host:10001, or auto); default: a local cluster on 127.0.0.1.")]
ResumeOption = Annotated[Path | None, typer.Option(help="Continue the run in this directory.")]
ScenarioArgument = Annotated[str | None, typer.Argument(
    help="Inline scenario (KTH@0-5+SDSC03@0-5) or a .toml file; omit with --resume.")]


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"evogrid {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option(
        "--version", is_eager=True, callback=_print_version, help="Print the version and exit.")] = False,
) -> None:
    pass  # --version is handled by its eager callback


@traces_app.command("list")
def traces_list() -> None:
    """List the bundled logs with their short names and files."""
    from evogrid.workload.traces import ALIASES, BUNDLED, DEFAULT_PROCS, traces_dir

    table = Table(title=f"Bundled traces ({traces_dir()})")
    for col in ("name", "aliases", "file", "m (procs)", "present"):
        table.add_column(col)
    for name, file in BUNDLED.items():
        aliases = ", ".join(a for a, target in ALIASES.items() if target == name)
        procs = f"{DEFAULT_PROCS[name]} (not the header's)" if name in DEFAULT_PROCS else "header"
        table.add_row(name, aliases, file, procs, "yes" if (traces_dir() / file).is_file() else "MISSING")
    console.print(table)


@traces_app.command("info")
def traces_info(
    name: Annotated[str, typer.Argument(
        help="Short name (KTH, SDSC03, ...) or path to an SWF file or a Batsim JSON workload.")],
    procs: Annotated[int | None, typer.Option(
        min=1, help="Machine size (processors) if the header lacks MaxProcs.")] = None,
    lenient: Annotated[bool, typer.Option(help="Skip and count malformed lines.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """Header facts, jobs kept and dropped per reason, and the time span of a log."""
    from evogrid.workload.model import SECONDS_PER_DAY
    from evogrid.workload.preprocess import Preprocessing, load_swf, parse_log
    from evogrid.workload.traces import default_options, resolve_trace

    path = resolve_trace(name)
    w = load_swf(path, default_options(name, Preprocessing(machine_procs=procs)), name=name, lenient=lenient)
    header = parse_log(path, lenient=lenient).header
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
        table.add_row(key, _plain(value))
    console.print(table)


@traces_app.command("generate")
def traces_generate(
    out: Annotated[Path, typer.Argument(help="The SWF file to write.")],
    jobs: Annotated[int, typer.Option("--jobs", min=1, help="Number of jobs.")] = 10_000,
    procs: Annotated[int, typer.Option(min=1, help="Machine size (processors); the published parameters "
                                              "are for 128, other sizes shift the job sizes.")] = 128,
    seed: Annotated[int, typer.Option(min=0, help="Random seed.")] = 0,
    max_estimate: Annotated[int | None, typer.Option(
        min=3600, help="Largest estimate users may give (s); default: the longest run time rounded up "
                       "to whole hours.")] = None,
    estimates: Annotated[bool, typer.Option(
        help="Tsafrir 2005 estimates in field 9; --no-estimates leaves -1 (estimate = run time).")] = True,
    force: Annotated[bool, typer.Option(help="Overwrite OUT if it exists.")] = False,
) -> None:
    """Write a model workload: Lublin-Feitelson 1999 jobs with Tsafrir 2005 estimates, as SWF.

    The file runs wherever a log does: evogrid simulate OUT.swf+KTH@0-5, evogrid train A.swf+B.swf.
    """
    from evogrid.workload.generate import write_model_log

    if max_estimate is not None and not estimates:
        raise typer.BadParameter("--max-estimate needs estimates; drop --no-estimates",
                                 param_hint="'--max-estimate'")
    if out.exists() and not force:
        raise EvogridError(f"{out} exists; give --force to overwrite it")
    log = write_model_log(out, jobs, procs, seed=seed, max_estimate=max_estimate, estimates=estimates)
    cut = f", {log.cut} run times cut to the maximum estimate" if log.cut else ""
    upto = f", estimates up to {log.max_estimate} s" if estimates else ""
    typer.echo(f"wrote {log.path}: {log.n_jobs} jobs over {log.span_days:.1f} days, offered load "
               f"{log.offered_load:.3f}{upto}{cut}")


def _plain(value: Any) -> str:
    """A value as people read it: counts by name, "-" for what the log does not say."""
    if value is None or value == "":
        return "-"
    if isinstance(value, dict):
        return ", ".join(f"{k} {v:,}" for k, v in value.items()) or "none"
    return f"{value:,}" if isinstance(value, int) else str(value)


def _metrics_table(title: str, rows: list[dict]) -> Table:
    table = Table(title=title)
    deltas = "delta_awrt_pct" in rows[0] and any(r["delta_awrt_pct"] != 0 for r in rows)
    best = deltas and "delta_b_awrt_pct" in rows[0]
    refused = any(r.get("jobs_refused", 0) for r in rows)
    cols = ["site", "m", "lrms", "jobs", "AWRT (s)", "U (%)", "C_max (s)", "wait (s)", "BSLD", "dSA"]
    cols += ["refused"] if refused else []
    cols += ["dAWRT (%)", "dU (pts)"] if deltas else []
    cols += ["dAWRT_b (%, vs EASY)"] if best else []
    for col in cols:
        table.add_column(col, justify="right")
    for r in rows:
        cells = [
            r["site"], str(r["machine_procs"]), r["lrms"], f"{r['jobs_submitted']:,}",
            f"{r['awrt']:,.2f}", f"{100 * r['utilization']:.2f}", f"{r['makespan']:,}",
            f"{r['mean_wait']:,.0f}", f"{r['mean_bsld']:.2f}", f"{r['dsa']:.3f}",
        ]
        if refused:
            cells += [f"{r['jobs_refused']:,}"]
        if deltas:
            cells += [f"{r['delta_awrt_pct']:+.2f}", f"{r['delta_utilization_points']:+.2f}"]
        if best:
            cells += [f"{r['delta_b_awrt_pct']:+.2f}"]
        table.add_row(*cells)
    return table


def _matrix_table(title: str, names: list[str], matrix: list[list[float]]) -> Table:
    table = Table(title=title)
    table.add_column("submitted at \\ ran at")
    for name in names:
        table.add_column(name, justify="right")
    for name, row in zip(names, matrix, strict=True):
        table.add_row(name, *(f"{100 * v:.2f} %" for v in row))
    return table


def _parse_rulebase_args(specs: list[str], scenario: Scenario) -> dict[int, list[Rulebase]]:
    """``--rulebase`` arguments (see :class:`~evogrid.policy.config.RulebaseSpec`) -> rulebases per site."""
    from evogrid.policy.config import RulebaseSpec, load_rulebases

    return load_rulebases([RulebaseSpec.parse(spec) for spec in specs], scenario)


def _pair_options(given: list[str] | None, option: str, form: str) -> dict[str, str] | None:
    """``--option KEY=VALUE`` options as a mapping (None: not given); the strategy configuration
    validates the keys and values. ``form`` shows the expected form in the error."""
    if not given:
        return None
    pairs = [text.partition("=") for text in given]
    for text, (_, sep, _) in zip(given, pairs, strict=True):
        if not sep:
            raise ScenarioError(f"{option} {text}: expected {form}")
    return {key: value for key, _, value in pairs}


@app.command("simulate")
def simulate_cmd(
    scenario: Annotated[
        str, typer.Argument(help="Inline scenario (KTH-11+SDSC03-11: the dissertation's cuts; "
                                 "KTH@0-5+HPC2N@0-5: 30-day months 0-5; KTH@5-: month 5 to the end) "
                                 "or a .toml file.")
    ],
    strategy: Annotated[str | None, typer.Option(
        help=f"How sites exchange jobs: {STRATEGIES.help()}. Default: rulebase when --rulebase is given, "
             "else the scenario file's strategy table, else local.")] = None,
    rulebase: Annotated[list[str] | None, typer.Option(
        help="Rulebase JSON for --strategy rulebase: FILE for every site, or SITE=FILE (SITE = index "
             "or window name), or a directory holding a pool (every site gets the rulebases "
             "trained for its size). Several files for one site form a pool: each partner gets the "
             "one trained against the nearest partner size.")] = None,
    others: Annotated[str | None, typer.Option(
        help=f"Policy of sites without a rulebase (default awf): {TRANSFERS.help(plain_transfers())}.")
    ] = None,
    location: Annotated[str | None, typer.Option(
        help=f"Order in which partners are asked (default {LOCATIONS.default.name}): {LOCATIONS.help()}.")
    ] = None,
    seed: Annotated[int | None, typer.Option(
        min=0, help="Seed of the random location policy (default 0).")] = None,
    pool_arrivals: Annotated[str | None, typer.Option(
        help=f"With --strategy pool, how a new job meets the pool (default {POOL_ARRIVALS.default.name}): "
             f"{POOL_ARRIVALS.help()}.")] = None,
    active_take: Annotated[str | None, typer.Option(
        help=f"With --strategy aa, what a site does with the jobs it takes (default "
             f"{ACTIVE_TAKE.default.name}): {ACTIVE_TAKE.help()}.")] = None,
    outside_range: Annotated[str | None, typer.Option(
        help=f"With rulebases, what a decision whose features leave a rulebase's ranges does (default "
             f"{OUTSIDE_RANGE.default.name}): {OUTSIDE_RANGE.help()}.")] = None,
    job_locations: Annotated[list[str] | None, typer.Option(
        help="NAME=SHARE: that share of the jobs (drawn with --seed) uses location policy NAME instead of "
             "--location, as Beichter's jobs name theirs; repeat for several.")] = None,
    handover: Annotated[str | None, typer.Option(
        help=f"With brokers, when they hand a job over (default {HANDOVER.default.name}): "
             f"{HANDOVER.help()}.")] = None,
    batch_s: Annotated[int | None, typer.Option(
        min=1, help="With --handover batch, the batch interval in seconds.")] = None,
    batch_jobs: Annotated[int | None, typer.Option(
        min=1, help="With --handover batch, instead of --batch-s: the batch's size in jobs (the last, "
                    "smaller batch goes at the last submission).")] = None,
    grid_cap: Annotated[list[str] | None, typer.Option(
        help="SITE=PROCESSORS (SITE = index or window name): the most processors the jobs of other "
             "sites may hold at that site at once, waiting or running (the grid's share of it); "
             "repeat for several.")] = None,
    grid_slots: Annotated[list[str] | None, typer.Option(
        help="SITE=SLOTS: the slots LoadLeveler gives the grid's jobs at that site (Beichter's maxslots): "
             "the processors jobs from other sites may hold running there (see --slot-rule); "
             "--location beichter-old and beichter-new read them (free slots fall when such a job starts "
             "there, not when it joins the queue); repeat for several.")] = None,
    grid_maxjobs: Annotated[list[str] | None, typer.Option(
        help="SITE=JOBS: how many jobs the grid's user may run at that site at once (Beichter's maxjobs; "
             "see --slot-rule), which --location beichter-new reads; repeat for several.")] = None,
    slot_rule: Annotated[str | None, typer.Option(help=f"With --grid-slots or --grid-maxjobs, what they do "
                                                       f"(default {SLOT_RULES.default.name}): "
                                                       f"{SLOT_RULES.help()}.")] = None,
    refusals: Annotated[str | None, typer.Option(
        help=f"With brokers, what they do with a job their location policy hands to no site (default "
             f"{REFUSALS.default.name}): {REFUSALS.help()}.")] = None,
    refresh_s: Annotated[int | None, typer.Option(
        min=0, help="Seconds between the information service's publications of the sites' state: "
                    "the location policy ranks sites as last published (Beichter's MDS: 30). "
                    "Default 0: as they are.")] = None,
    lrms: Annotated[str | None, typer.Option(help=LRMS_HELP)] = None,
    procs: Annotated[int | None, typer.Option(min=1, help="Override every site's machine size.")] = None,
    lenient: Annotated[bool, typer.Option(help="Skip and count malformed SWF lines.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
    out: Annotated[Path | None, typer.Option(help="Also write the JSON result to this file.")] = None,
    jobs: Annotated[Path | None, typer.Option(
        help="Also write the schedule, one row per job, to this CSV file (Parquet if it ends in "
             ".parquet): Batsim's out_jobs.csv columns (evalys reads it) and evogrid's (origin and "
             "executing site, moves; docs/jobs_file.md).")] = None,
    swf_out: Annotated[Path | None, typer.Option(
        help="Also write each site's executed schedule as an SWF file into this directory: the jobs "
             "that ran there with their waits, executed run times and origin sites "
             "(docs/jobs_file.md).")] = None,
) -> None:
    """Simulate a scenario with an exchange strategy: per-site metrics, deltas vs local, migrations.

    A scenario file with a [reservations] table also runs its requests (sites without exchange; its
    admission algorithm; evogrid reserve compares algorithms)."""
    from evogrid.policy.config import RulebaseSpec, build_strategy, strategy_config, trained_elsewhere
    from evogrid.policy.strategies import simulate, strategy_label
    from evogrid.sim.scenario import Scenario

    loaded = Scenario.from_spec(scenario, lrms=lrms, procs=procs, lenient=lenient)  # `scenario`: the spec
    # Command-line options override the scenario file's [strategy] table.
    base = strategy_config(loaded)
    name = strategy or ("rulebase" if rulebase else base.name)
    if pool_arrivals is not None and name != "pool":
        raise ScenarioError(f"--pool-arrivals applies to --strategy pool only, not {name}")
    if active_take is not None and name != "aa":
        raise ScenarioError(f"--active-take applies to --strategy aa only, not {name}")
    config = base.with_options(name=name, others=others, location=location, seed=seed,
                               pool_arrivals=pool_arrivals, active_take=active_take, refresh_s=refresh_s,
                               handover=handover, batch_s=batch_s, batch_jobs=batch_jobs,
                               refusals=refusals, slot_rule=slot_rule, outside_range=outside_range,
                               job_locations=_pair_options(job_locations, "--job-locations",
                                                           "NAME=SHARE, e.g. mct=0.3"),
                               grid_cap=_pair_options(grid_cap, "--grid-cap", "SITE=PROCESSORS, e.g. 0=64"),
                               grid_slots=_pair_options(grid_slots, "--grid-slots", "SITE=SLOTS, e.g. 1=50"),
                               grid_maxjobs=_pair_options(grid_maxjobs, "--grid-maxjobs",
                                                          "SITE=JOBS, e.g. 1=5"))
    specs = [RulebaseSpec.parse(spec) for spec in rulebase] if rulebase else None
    chosen = build_strategy(config, loaded, specs)
    for note in trained_elsewhere(chosen, loaded, config):
        print(f"evogrid: note: {note}", file=sys.stderr)
    t0 = time.perf_counter()
    res = simulate(loaded, chosen)
    elapsed = time.perf_counter() - t0
    result = {
        **res.to_dict(),
        "dropped": {w.name: w.dropped for w in loaded.workloads},
        "seconds": elapsed,
        "evogrid": __version__,
    }
    if out is not None:
        write_json(out, result)
    if jobs is not None:
        from evogrid.jobs_file import write_jobs

        write_jobs(jobs, res.schedule)
    if swf_out is not None:
        from evogrid.jobs_file import write_swf

        write_swf(swf_out, res.schedule, note=f"scenario {loaded.name}, {strategy_label(res.schedule)}")
    if as_json:
        typer.echo(json.dumps(result, indent=2))
        return
    label = strategy_label(res.schedule)
    rows = [{**r, "delta_b_awrt_pct": b["delta_awrt_pct"]}
            for r, b in zip(res.metrics(), result["delta_b"]["sites"], strict=True)]
    console.print(_metrics_table(f"{loaded.name}: {label} ({elapsed * 1e3:.1f} ms incl. local baseline)",
                                 rows))
    names = [w.name for w in loaded.workloads]
    if len(names) > 1 and res.schedule.strategy != "local":
        console.print(_matrix_table("M_n: share of jobs", names, result["migration_n"]))
        console.print(_matrix_table("M_SA: share of squashed area", names, result["migration_sa"]))
        mv = result["moves"]
        console.print(f"moves per job: mean {mv['mean']:.4f}, std {mv['std']:.4f}, max {mv['max']}; "
                      f"{mv['jobs_moved']:,} jobs moved")
    if "reservations" in result:
        r = result["reservations"]
        console.print(f"reservations ({loaded.reservations.algorithm}): {r['requests']:,} requests, "
                      f"failure rate {100 * r['failure_rate']:.1f} % (by area "
                      f"{100 * r['area_failure_rate']:.1f} %), {r['messages_per_request']:.1f} messages per "
                      "request; the deltas are against the same batch jobs scheduled locally without "
                      "requests")
    for w in loaded.workloads:
        if w.dropped:
            drops = ", ".join(f"{k}={v:,}" for k, v in w.dropped.items())
            console.print(f"[dim]{w.name}: dropped {drops}[/dim]")


@app.command()
def reserve(
    scenario: Annotated[str, typer.Argument(
        help="Inline scenario (SDSC03@d14-28+SDSC03@d28-42, day windows) or a .toml file whose "
             "[reservations] table sets the requests, algorithm and tariffs.")],
    algorithm: Annotated[list[str] | None, typer.Option(
        help="Admission algorithm, repeatable, or 'all' for Meltzer's five: trivial (1, yes/no "
             "answers: restrictive), cpu-count (2), backlog (3), backfill (4), weighted (5, cost "
             "and start); 2-5 read the sites' profiles (information-rich). first-fit: one-site "
             "requests (book-ahead) at the exact earliest fit. Default: the scenario's, else "
             "backfill. probe: Röblitz et al.'s probe/reserve of one-part (book-ahead) requests at "
             "their site or every site (durations scaled by site speed), plain or elastic "
             "([reservations] elastic = [low, high]). collective: Cankar's placement "
             "of collective requests ([reservations] collective_sites = N; the other algorithms "
             "place the same requests as fixed parts).")] = None,
    workload: Annotated[str | None, typer.Option(
        help="Request kind (the requests made from the sites' jobs): "
             + "; ".join(f"{k.name}: {k.help}" for k in REQUEST_KINDS.values()) + ".")] = None,
    source: Annotated[int | None, typer.Option(
        min=0, help="Index of the site whose jobs become requests.")] = None,
    seed: Annotated[int | None, typer.Option(
        min=0, help="Seed of the requests and of the site orders.")] = None,
    cost_weight: Annotated[float | None, typer.Option(
        min=0, help="Algorithm 5's k (weight of the cost).")] = None,
    start_weight: Annotated[float | None, typer.Option(
        min=0, help="Algorithm 5's s (weight of the start).")] = None,
    lrms: Annotated[str | None, typer.Option(help=LRMS_HELP)] = None,
    out: Annotated[Path | None, typer.Option(
        help="Run directory: summary, per-site and per-request CSV/JSON, per-job CSV for evalys "
             "(docs/jobs_file.md), a summary plot, Gantt plots.")] = None,
    gantt: Annotated[int | None, typer.Option(
        min=0, help="With --out: draw this site's Gantt chart (site index).")] = None,
    hours: Annotated[str | None, typer.Option(help="Gantt time range in hours, FROM:TO.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
) -> None:
    """Book reservation requests (advance and co-reservations) next to the batch jobs and compare
    admission algorithms: failure rate, relative start, cost, messages, unfairness, batch waits."""
    from evogrid.pipeline import MELTZER_ALGORITHMS, reservation_study
    from evogrid.sim.scenario import Scenario

    loaded = Scenario.from_spec(scenario, lrms=lrms)
    chosen = list(algorithm or [loaded.reservations.algorithm if loaded.reservations else "backfill"])
    if chosen == ["all"]:
        chosen = list(MELTZER_ALGORITHMS)
    span = None
    if hours is not None:
        try:
            lo, hi = (float(x) for x in hours.split(":"))
        except ValueError:
            raise ScenarioError(f"--hours {hours!r}: expected FROM:TO in hours, e.g. 48:96") from None
        if not 0 <= lo < hi < float("inf"):
            raise ScenarioError(f"--hours {hours}: expected 0 <= FROM < TO (hours)")
        span = (lo, hi)
    if (gantt is not None or hours is not None) and (out is None or gantt is None):
        raise ScenarioError("--gantt SITE draws into the run directory --out, and --hours sets its range: "
                            "give --out and --gantt")
    result = reservation_study(loaded, chosen, out, _plots() if out is not None else None,
                               None if gantt is None else (gantt, span), workload=workload, source=source,
                               seed=seed, cost_weight=cost_weight, start_weight=start_weight)
    if as_json:
        typer.echo(json.dumps(result, indent=2))
        return
    table = Table(title=f"{loaded.name} ({', '.join(sorted(set(loaded.lrms)))}): {result['requests']}")
    columns = (("algorithm", "{}"), ("information", "{}"), ("requests", "{:,}"), ("failure_rate", "{:.3f}"),
               ("mean_relative_start", "{:.3f}"), ("mean_cost", "{:,.0f}"), ("mean_relative_cost", "{:.3f}"),
               ("messages_per_request", "{:.2f}"), ("unfairness", "{:.3f}"), ("batch_awrt_mean", "{:,.0f}"),
               ("batch_max_wait", "{:,.0f}"), ("seconds", "{:.3f}"))
    for name, _ in columns:
        table.add_column(name.replace("_", " "), justify="left" if name in ("algorithm", "information")
                         else "right")
    for row in result["algorithms"]:
        table.add_row(*(fmt.format(row[name]) for name, fmt in columns))
    console.print(table)
    for name, dropped in result["dropped"].items():
        if dropped:
            console.print(f"[dim]{name}: " + ", ".join(f"{k}={v:,}" for k, v in dropped.items()) + "[/dim]")
    if out is not None:
        console.print(f"wrote {out}/summary.csv, sites.csv, bookings_*.csv" +
                      "".join(f", {p}" for p in result["plots"]))


@app.command()
def show(
    rulebase: Annotated[Path, typer.Argument(help="A rulebase JSON file.")],
    scenario: Annotated[str | None, typer.Option(
        help="Also simulate this scenario with the rulebase at --site (others AWF) and overlay the "
             "feature points its decisions visited.")] = None,
    site: Annotated[int, typer.Option(min=0, help="Site index that uses the rulebase in --scenario.")] = 0,
    lrms: Annotated[str | None, typer.Option(help=LRMS_HELP)] = None,
    plot: Annotated[Path | None, typer.Option(
        help="Where to write the decision-surface PNG (default: runs/show/<rulebase name>.png; never "
             "next to the rulebase, which may sit in a curated directory).")] = None,
) -> None:
    """Print a rulebase's rules and write its decision-surface plot (accept/decline over the features)."""
    from evogrid.plots import decision_surface
    from evogrid.policy.rulebase import Rulebase
    from evogrid.policy.strategies import FuzzyPolicy, simulate
    from evogrid.sim.scenario import Scenario

    rb = Rulebase.load(rulebase)
    table = Table(title=f"{rulebase}: {rb.n_rules} rules over {', '.join(rb.features)}")
    table.add_column("rule", justify="right")
    for f in rb.features:
        table.add_column(f"{f} centre", justify="right")
        table.add_column(f"{f} width", justify="right")
    table.add_column("then", justify="center")
    for i in range(rb.n_rules):
        cells = [f"{v:.4g}" for pair in zip(rb.centers[i], rb.widths[i], strict=True) for v in pair]
        table.add_row(str(i), *cells, "accept" if rb.consequents[i] > 0 else "decline")
    console.print(table)
    for key, value in rb.provenance.items():
        console.print(f"[dim]{key}: {value}[/dim]")
    visited = None
    title = None
    if scenario is not None:
        loaded = Scenario.from_spec(scenario, lrms=lrms)
        loaded.refuse_reservations("evogrid show")
        if not 0 <= site < len(loaded.workloads):
            raise ScenarioError(f"--site {site}: the scenario has {len(loaded.workloads)} sites")
        res = simulate(loaded, FuzzyPolicy({site: rb}), record_decisions=True)
        log = res.schedule.decisions
        visited = log.x[log.site == site][:, : len(rb.features)]
        title = f"{loaded.name}: decisions of {loaded.workloads[site].name}"
        console.print(_metrics_table(f"{loaded.name}: rulebase at {loaded.workloads[site].name}, others AWF",
                                     res.metrics()))
    path = decision_surface(rb, plot or Path("runs") / "show" / f"{rulebase.stem}.png", visited=visited,
                            title=title)
    console.print(f"wrote {path}")


def _evaluator(backend: str, workers: int, scheduler: str | None):
    from evogrid.optimize.evaluator import Evaluator

    return Evaluator(backend, workers, scheduler)


def _plots():
    """The plots the optimisation commands draw: passed into the package, which imports no plotting."""
    from evogrid import plots

    return plots


@app.command()
def pareto(
    ctx: typer.Context,
    scenario: ScenarioArgument = None,
    mode: Annotated[str, typer.Option(
        help="partition: NSGA-II over job-to-site assignments, the offline bound (docs/pareto.md); "
             "policy: NSGA-II over every site's rulebase, the front of online policies; "
             "ranking: NSGA-II over every site's TSK ranking rulebase (a grid of brokers, "
             "docs/grid.md), per-site AWRT and the load imbalance; "
             "reservation: NSGA-II over a reservation admission rule's parameters, reservation "
             "failure rate against batch AWRT, for the scenario's [reservations] table "
             "(docs/reservations.md).")] = "partition",
    lrms: Annotated[str | None, typer.Option(
        help=LRMS_HELP + " Default: easy; reservation mode: the scenario's.")] = None,
    pop_size: Annotated[int | None, typer.Option(
        min=2, help="Population size (default 70; reservation mode 40).")] = None,
    generations: Annotated[int | None, typer.Option(
        min=1, help="Generations (default 200; reservation mode 40).")] = None,
    seed: SeedOption = 1,
    n_changes: Annotated[int, typer.Option(
        min=0, help="partition: random gene changes per initial individual (the first stays local).")
    ] = 5000,
    seed_strategies: Annotated[bool, typer.Option(
        help="partition: also start from where AWF, the pool and AA ran the jobs (an evogrid addition).")
    ] = False,
    n_rules: Annotated[int, typer.Option(min=1, help="policy and ranking: rules per site.")] = 10,
    objectives: Annotated[str, typer.Option(
        help="reservation: mean (failure rate, batch AWRT mean over the sites) or per-site (failure "
             "rate and every site's batch AWRT).")] = "mean",
    rulebase: Annotated[list[str] | None, typer.Option(
        help="Also plot the point of these rulebases (FILE or SITE=FILE, as for simulate).")] = None,
    workers: WorkersOption = 1,
    backend: BackendOption = "loky",
    scheduler: SchedulerOption = None,
    out: Annotated[Path | None, typer.Option(
        help="Run directory (default runs/pareto-<mode>-<seed>).")] = None,
    resume: ResumeOption = None,
) -> None:
    """Pareto front of per-site AWRT with NSGA-II; writes CSV per generation, checkpoints, front, plot."""
    from evogrid.optimize.config import ParetoConfig
    from evogrid.optimize.pareto import resume_pareto, run_pareto
    from evogrid.optimize.reservation_front import (
        ReservationFrontConfig,
        resume_reservation_front,
        run_reservation_front,
    )
    from evogrid.optimize.rundir import resumable_config

    _check_resume(ctx)
    if resume is None and scenario is None:
        raise ScenarioError("give a SCENARIO, or --resume RUN_DIR")
    if objectives != "mean" and mode != "reservation":
        raise ScenarioError(f"--objectives {objectives}: only --mode reservation takes it")
    sizes = _given(dict(lrms=lrms, pop_size=pop_size, generations=generations))
    run_dir = resume or out or Path("runs") / f"pareto-{mode}-{seed}"
    if resume is not None:
        resumer = (resume_reservation_front if resumable_config(resume).get("mode") == "reservation"
                   else resume_pareto)

        def run(evaluator: Any) -> dict:
            return resumer(resume, evaluator, plots=_plots())
    elif mode == "reservation":
        reservation_config = ReservationFrontConfig(scenario, seed=seed, objectives=objectives, **sizes)

        def run(evaluator: Any) -> dict:
            return run_reservation_front(reservation_config, run_dir, evaluator, plots=_plots())
    else:
        config = ParetoConfig(scenario, mode=mode, seed=seed, n_changes=n_changes, n_rules=n_rules,
                              seed_strategies=seed_strategies, **sizes)
        rbs = _parse_rulebase_args(rulebase or [], config.ref.scenario())

        def run(evaluator: Any) -> dict:
            return run_pareto(config, run_dir, evaluator,
                              rulebases={k: v[0] for k, v in rbs.items()} or None, plots=_plots())
    with _interruptible(run_dir), _evaluator(backend, workers, scheduler) as evaluator:
        result = run(evaluator)
    _front_table(result)
    console.print(f"wrote {run_dir}/front.json, front.csv, generations.csv, pareto.png")


#: Front rows a table shows at most (front.csv holds every point).
FRONT_ROWS = 10


def _front_table(result: dict) -> None:
    """The reference points and up to FRONT_ROWS front points, evenly spaced along the front."""
    front = result["front"]
    names = result.get("objectives") or [f"AWRT {n} (s)" for n in result["sites"]]
    every = max(1, -(-len(front) // FRONT_ROWS))  # ceil: never more than FRONT_ROWS rows
    shown = list(range(0, len(front), every))
    count = f"{len(front)} points" + (f" ({len(shown)} shown, evenly spaced; all in front.csv)"
                                      if len(shown) < len(front) else "")
    table = Table(title=f"{result['scenario']}: NSGA-II {result['mode']} front, {count}, "
                        f"hypervolume {result['hypervolume']:.4g}")
    table.add_column("point")
    for n in names:
        table.add_column(n, justify="right")

    def cell(i: int, value: float) -> str:  # AWRT in whole seconds; rates and imbalance as fractions
        fraction = result["mode"] == "reservation" or "AWRT" not in names[i]
        return f"{value:,.3f}" if fraction else f"{value:,.0f}"

    for label, p in result["reference_points"].items():
        table.add_row(label, *(cell(i, v) for i, v in enumerate(p)))
    for i in shown:
        table.add_row(f"front {i}", *(cell(j, v) for j, v in enumerate(front[i])))
    console.print(table)
    if not front:
        console.print(f"empty front: {result.get('empty_reason', 'no feasible point was found')}")


GenerationsOption = Annotated[int, typer.Option(min=1, help="Generations.")]
MuOption = Annotated[int, typer.Option("--mu", min=1, help="Parents per species.")]
LambdaOption = Annotated[int, typer.Option("--lambda", min=1, help="Offspring per species and generation.")]
RulesOption = Annotated[int, typer.Option("--rules", min=1, help="Rules per rulebase.")]
StepDrawOption = Annotated[str, typer.Option(
    help="How a child's step sizes mutate: per-feature (default: one two-point factor per feature's "
         "step) or one (the dissertation's Eq. 3.3: one factor for all steps).")]
TestOption = Annotated[str | None, typer.Option(
    help="Unseen scenario (same sites, later months, e.g. KTH@5-11+SDSC03@5-11) to test the result "
         "on, with FCFS and EASY.")]
FeatureOption = Annotated[list[str] | None, typer.Option(
    "--feature", help="Rulebase input, repeatable (default NWP and NJP); registered: "
    f"{', '.join(features_for('transfer'))} (docs/grid.md).")]
TrainOutOption = Annotated[Path | None, typer.Option(help="Run directory (default runs/<kind>-<seed>).")]


def _given(args: dict[str, Any]) -> dict[str, Any]:
    """The options a user gave (None: not given, so the configuration's default holds)."""
    return {key: value for key, value in args.items() if value is not None}


#: What still applies with --resume: how to evaluate, not what to compute.
RESUME_OPTIONS = frozenset({"resume", "workers", "backend", "scheduler"})


def _check_resume(ctx: typer.Context) -> None:
    """With --resume the run directory's config.toml holds every setting: a SCENARIO or another
    setting given as well is an error, never silently ignored."""
    if ctx.params.get("resume") is None:
        return
    for param in ctx.command.params:
        if param.name not in RESUME_OPTIONS and \
                ctx.get_parameter_source(param.name) is _click_core.ParameterSource.COMMANDLINE:
            label = param.opts[0] if param.param_type_name == "option" else param.name.upper()
            raise ScenarioError(f"{label} does not go with --resume: the run directory's config.toml "
                                "holds the run's settings")


def _start_or_resume(start: Any, resume_run: Any, make_config: Any, config_args: dict, out: Path | None,
                     resume: Path | None, evaluator_args: tuple) -> tuple[dict, Path]:
    """``(result, run directory)`` of a new run (``start(config, out, evaluator)``) or a resumed one."""
    if resume is None and config_args["scenario"] is None:
        raise ScenarioError("give a SCENARIO, or --resume RUN_DIR")
    config = None if resume is not None else make_config(config_args)
    run_dir = resume or out or Path("runs") / f"{config.kind}-{config.seed}"
    with _interruptible(run_dir), _evaluator(*evaluator_args) as evaluator:
        if resume is not None:
            return resume_run(resume, evaluator, plots=_plots()), resume
        return start(config, run_dir, evaluator, plots=_plots()), run_dir


@contextlib.contextmanager
def _interruptible(run_dir: Path) -> Iterator[None]:
    """Turn SIGINT or SIGTERM during a run into "stopped after generation N; continue with --resume"
    and exit 130 (SIGINT) or 143 (SIGTERM); the evaluator's ``with`` block has stopped its workers."""
    try:
        yield
    except KeyboardInterrupt:
        from evogrid.optimize import checkpoint

        if checkpoint.exists(run_dir):
            print(f"evogrid: stopped after generation {checkpoint.saved_generation(run_dir)}; "
                  f"continue with --resume {run_dir}", file=sys.stderr)
        else:
            print("evogrid: stopped before the first generation was saved; nothing to resume",
                  file=sys.stderr)
        raise typer.Exit(128 + _SIGNAL_RECEIVED.get("signal", signal.SIGINT)) from None


def _train(config_args: dict, out: Path | None, resume: Path | None, workers: int, backend: str,
           scheduler: str | None) -> None:
    """Start or resume a training run and print its summary."""
    from evogrid.optimize.config import TrainConfig
    from evogrid.optimize.training import resume_training, run_training

    result, run_dir = _start_or_resume(run_training, resume_training, lambda a: TrainConfig(**_given(a)),
                                       config_args, out, resume, (backend, workers, scheduler))
    _summary_table(result["summary"])
    console.print(f"{result['evaluations']:,} simulations ({result['cut_off']:,} stopped early); wrote "
                  f"{run_dir}: rulebases/, summary.csv, generations.csv, convergence.png, improvement.png")


def _summary_table(rows: list[dict]) -> None:
    table = Table(title="learned policy against local scheduling (AWRT, s)")
    for col in ("window", "lrms", "site", "learned", "local", "policy", "improvement"):
        table.add_column(col, justify="right" if col in ("local", "policy", "improvement") else "left")
    for r in rows:
        table.add_row(r["window"], r["lrms"], r["site"], "yes" if r["learned"] else "-",
                      f"{r['local_awrt']:,.0f}", f"{r['policy_awrt']:,.0f}", f"{r['improvement_pct']:+.1f} %")
    console.print(table)


def _train_admission(config_args: dict, out: Path | None, resume: Path | None, workers: int, backend: str,
                     scheduler: str | None) -> None:
    """Start or resume an admission-rulebase run and print its comparison table."""
    from evogrid.optimize.admission import AdmissionConfig, resume_admission, run_admission

    result, run_dir = _start_or_resume(
        run_admission, resume_admission,
        lambda a: AdmissionConfig(**_given(a)),
        config_args, out, resume, (backend, workers, scheduler))
    table = Table(title="learned admission rulebase against Meltzer's algorithms")
    for col in ("window", "rule", "failure rate", "by area", "batch AWRT (s)"):
        table.add_column(col, justify="left" if col in ("window", "rule") else "right")
    for r in result["summary"]:
        table.add_row(r["window"], r["rule"], f"{r['failure_rate']:.3f}", f"{r['area_failure_rate']:.3f}",
                      f"{r['batch_awrt']:,.0f}")
    console.print(table)
    console.print(f"{result['evaluations']:,} simulations; wrote {run_dir}: {result['rulebase']}, "
                  "summary.csv, generations.csv, convergence.png, admission_*.png")


@app.command()
def train(
    ctx: typer.Context,
    scenario: ScenarioArgument = None,
    policy: Annotated[str, typer.Option(
        help="transfer: a site's job-exchange rulebase (EFS, the dissertation's); ranking: a site's "
             "TSK ranking rulebase, every site a broker that sends each job to the site it scores "
             "highest (docs/grid.md; untrained sites keep their jobs); admission: one TSK "
             "admission rulebase every site uses for reservation requests, against Meltzer's "
             "Algorithms 2-4, for a scenario with a [reservations] table (docs/reservations.md).")
    ] = "transfer",
    site: Annotated[int, typer.Option(min=0, help="Index of the site whose rulebase is trained.")] = 0,
    others: Annotated[str, typer.Option(help="Fixed policy of the other sites: awf or local.")] = "awf",
    optimizer: Annotated[str, typer.Option(
        help="es: (mu + lambda)-ES with self-adaptive step sizes (docs/training.md); "
             "cma: DEAP's CMA-ES.")] = "es",
    lrms: Annotated[str | None, typer.Option(
        help=LRMS_HELP + " Training default: fcfs; admission: the scenario's.")] = None,
    generations: Annotated[int | None, typer.Option(
        min=1, help="Generations (default 150; admission 40).")] = None,
    mu: Annotated[int | None, typer.Option("--mu", min=1, help="Parents (default 13; admission 5).")] = None,
    lambda_: Annotated[int | None, typer.Option(
        "--lambda", min=1, help="Offspring per generation (default 91; admission 35).")] = None,
    rules: RulesOption = 10,
    feature: Annotated[list[str] | None, typer.Option(
        "--feature", help="Rulebase input, repeatable. transfer (default NWP and NJP): "
        f"{', '.join(features_for('transfer'))}; ranking (default LOAD_AFTER, NWP, SPEED, NJP): "
        f"{', '.join(features_for('ranking'))}; admission (default LEAD, BEFORE_NEXT, RESERVED): "
        f"{', '.join(features_for('admission'))} (docs/grid.md, docs/reservations.md).")] = None,
    failure: Annotated[str | None, typer.Option(
        help="admission: what the failure rate counts, requests (default, Meltzer's) or area "
             "(processor-seconds: refusing the large requests does not pay).")] = None,
    step_draw: StepDrawOption = "per-feature",
    test: TestOption = None,
    seed: SeedOption = 1,
    workers: WorkersOption = 2,
    backend: BackendOption = "loky",
    scheduler: SchedulerOption = None,
    out: TrainOutOption = None,
    resume: ResumeOption = None,
) -> None:
    """EFS: evolve one site's fuzzy rulebase against partners with a fixed policy (docs/training.md),
    or with --policy admission a reservation admission rulebase (docs/reservations.md).

    Fitness is the site's AWRT in the training scenario (admission: the
    larger of failure rate and batch AWRT relative to Meltzer's Algorithm 3).
    Writes a run directory with config.toml, generations.csv, checkpoints
    (--resume), the rulebase JSON with provenance, a train/test summary and plots.
    A scenario file's [strategy] table: transfer and ranking training replace
    its policy and keep its grid conditions (slots, maxjobs, caps, refresh_s,
    holding queue).
    """
    from evogrid.optimize.rundir import resumable_config

    _check_resume(ctx)
    if policy not in ("transfer", "ranking", "admission"):
        raise ScenarioError(f"--policy {policy}: expected transfer, ranking or admission")
    resumed = resume is not None and resumable_config(resume).get("policy") == "admission"
    if policy == "admission" or resumed:
        _train_admission(dict(scenario=scenario, lrms=lrms, generations=generations, mu=mu, lambda_=lambda_,
                              n_rules=rules, features=feature, failure=failure, test=test, seed=seed,
                              step_draw=step_draw),
                         out, resume, workers, backend, scheduler)
        return
    _train(dict(scenario=scenario, kind="efs", site=site, others=others, optimizer=optimizer,
                lrms=lrms, generations=generations, mu=mu, lambda_=lambda_,
                n_rules=rules, test=test, seed=seed, features=feature or [],
                decision=policy, step_draw=step_draw),
           out, resume, workers, backend, scheduler)


@app.command()
def coevolve(
    ctx: typer.Context,
    scenario: ScenarioArgument = None,
    lrms: Annotated[str, typer.Option(help=LRMS_HELP + " Training default: fcfs.")] = "fcfs",
    location: Annotated[str, typer.Option(
        help="Location policy with 3+ sites: awrt (default), fixed or random.")] = "awrt",
    fitness: Annotated[str, typer.Option(
        help="A member's fitness: own (its site's AWRT, published) or shared (the pairing's "
             "worst AWRT / local AWRT).")] = "own",
    pick: Annotated[str, typer.Option(
        help="Result pairing: worst-relative (default: smallest max over sites of AWRT / local AWRT), "
             "sum (smallest AWRT sum, the published choice) or sum-improving (smallest AWRT sum of "
             "the pairings that make no site worse than local).")] = "worst-relative",
    archive: Annotated[bool, typer.Option(
        help="Pick the result among the pairings of every generation (default), not only the "
             "last (--no-archive, the published choice).")] = True,
    joint: Annotated[bool, typer.Option(
        help="Instead of co-evolution, one ES over all sites' rulebases at once (evogrid's joint "
             "baseline; the dissertation's EA is the pairwise pool); its fitness is --pick's "
             "score.")] = False,
    policy: Annotated[str, typer.Option(
        help="transfer: the sites' job-exchange rulebases; ranking: their TSK ranking rulebases, "
             "every site a broker (docs/grid.md).")] = "transfer",
    generations: GenerationsOption = 150,
    mu: MuOption = 13,
    lambda_: LambdaOption = 91,
    rules: RulesOption = 10,
    feature: FeatureOption = None,
    step_draw: StepDrawOption = "per-feature",
    test: TestOption = None,
    seed: SeedOption = 1,
    workers: WorkersOption = 2,
    backend: BackendOption = "loky",
    scheduler: SchedulerOption = None,
    out: TrainOutOption = None,
    resume: ResumeOption = None,
) -> None:
    """Competitive co-evolution: every site's rulebase at once, one species per site (docs/training.md).

    Pairings are formed rank by rank each generation; each member's fitness
    is its own site's AWRT. The result is the pairing of any generation
    that is best for the site gaining least; --pick sum --no-archive gives
    the published choice (the final pairing with the smallest AWRT sum).
    A scenario file's [strategy] table: training replaces its policy and keeps
    its grid conditions (slots, maxjobs, caps, refresh_s, holding queue).
    """
    _check_resume(ctx)
    _train(dict(scenario=scenario, kind="joint" if joint else "coevolution", lrms=lrms, location=location,
                fitness=fitness, pick=pick, archive=archive,
                generations=generations, mu=mu, lambda_=lambda_, n_rules=rules, test=test, seed=seed,
                features=feature or [], decision=policy, step_draw=step_draw),
           out, resume, workers, backend, scheduler)


@app.command()
def export(
    run_dir: Annotated[Path, typer.Argument(help="A finished train or coevolve run directory.")],
    to: Annotated[Path | None, typer.Option(
        help="Copy the rulebases into this directory (e.g. trained_rulebases/), named "
             "<prefix><file>.")] = None,
    prefix: Annotated[str, typer.Option(
        help="Prefix for the copied file names (a name part: no '/' and no '..').")] = "",
    force: Annotated[bool, typer.Option(help="Overwrite files that exist in --to.")] = False,
) -> None:
    """List (and copy) a run's learned rulebases, validating each against the schema.

    Copies never overwrite an existing file unless --force is given, and stay inside --to.
    """
    from evogrid.policy.rulebase import Rulebase

    files = sorted((run_dir / "rulebases").glob("*.json"))
    if not files:
        raise ScenarioError(f"{run_dir}: no rulebases/*.json (not a finished training run)")
    if "/" in prefix or "\\" in prefix or ".." in prefix:
        raise ScenarioError(f"--prefix {prefix!r}: a file name part, without '/', '\\' or '..'")
    if to is not None:
        if to.exists() and not to.is_dir():
            raise ScenarioError(f"--to {to}: exists and is not a directory")
        targets = [to / f"{prefix}{file.name}" for file in files]
        if not force and (existing := [t for t in targets if t.exists()]):
            raise ScenarioError(f"--to {to}: {existing[0].name} exists ({len(existing)} of the "
                                f"{len(targets)} files would be overwritten); give --force to overwrite")
    for file in files:
        rb = Rulebase.load(file)
        p = rb.provenance
        line = (f"{file}: {rb.n_rules} rules over {', '.join(rb.features)}; site {p.get('site')}, "
                f"partner {p.get('partner')}, training AWRT {p.get('fitness_awrt')}")
        if to is not None:
            target = rb.with_provenance(run=str(run_dir)).save(to / f"{prefix}{file.name}")
            line += f" -> {target}"
        console.print(line)


@app.command()
def plot(
    run_dir: Annotated[Path, typer.Argument(help="A Pareto or training run directory.")],
    with_: Annotated[list[Path] | None, typer.Option(
        "--with", help="Pareto: other run directories whose fronts to draw too.")] = None,
    output: Annotated[Path | None, typer.Option(help="Pareto: PNG path (RUN_DIR/pareto.png).")] = None,
) -> None:
    """Redraw a run's plots: a Pareto run's front (optionally with other runs' fronts, e.g. offline
    and online together), or a training run's convergence, improvement and decision surfaces."""
    from evogrid.pipeline import redraw

    paths = redraw(run_dir, _plots(), others=with_ or [], output=output)
    console.print("wrote " + ", ".join(str(p) for p in paths))


@app.command()
def demo(
    out: Annotated[Path, typer.Option(help="Run directory for the results.")] = Path("runs/demo"),
    generations: Annotated[int, typer.Option(
        min=1, help="Generations of the EFS training.")] = DEMO_GENERATIONS,
    workers: WorkersOption = 2,
) -> None:
    """The main job on the bundled logs, in a few minutes.

    1. EFS: KTH's rulebase trained on KTH@0-5 + SDSC03@0-5 (FCFS, SDSC03 runs
       AWF; 13 + 91 for 60 generations), then tested on the unseen months
       KTH@5-11 + SDSC03@5-11 with FCFS and EASY (train/: rulebase JSON,
       summary table, convergence, improvement and decision-surface plots);
    2. every LRMS on KTH and SDSC03 alone (metrics.json/csv);
    3. KTH + SDSC03@0-11 with EASY and the exchange strategies local, AWF,
       EASY-JS and AA: deltas and migrations (strategies.json/csv);
    4. a short NSGA-II Pareto run on KTH@0-5 + HPC2N@0-5 (pareto/, with plot).
    """
    from evogrid.pipeline import MetricsTable, SummaryTable
    from evogrid.pipeline import demo as run_demo

    with _evaluator("loky", workers, None) as evaluator:
        for step in run_demo(out, evaluator, generations=generations, plots=_plots()):
            if isinstance(step, MetricsTable):
                console.print(_metrics_table(step.title, step.rows))
            elif isinstance(step, SummaryTable):
                _summary_table(step.rows)
            else:
                console.print(step.text)


#: The signal that stopped the command (SIGTERM and SIGINT are raised as KeyboardInterrupt).
_SIGNAL_RECEIVED: dict[str, int] = {}


def _on_signal(signum: int, frame: object) -> None:
    _SIGNAL_RECEIVED["signal"] = signum
    raise KeyboardInterrupt


def _error_line(exc: BaseException) -> str | None:
    """The one line a user error gets, or None for a bug (which keeps its traceback)."""
    if isinstance(exc, EvogridError):
        return str(exc)
    if isinstance(exc, _click_errors.UsageError) and exc.ctx is not None:
        return f"{exc.format_message()} (see '{exc.ctx.command_path} --help')"
    if isinstance(exc, _click_errors.ClickException):
        return exc.format_message()
    if isinstance(exc, OSError):  # unwritable, missing or impossible paths, a full disk
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror or exc}"
    return None


#: click >= 8.2 raises this for a bare group (older versions print the help themselves).
_NO_ARGS_IS_HELP = getattr(_click_errors, "NoArgsIsHelpError", ())


def main(argv: list[str] | None = None) -> None:
    """Console entry point: runs the app; a user error ends as one line on stderr and exit 2
    (``EVOGRID_DEBUG=1``: with its traceback), SIGINT/SIGTERM as exit 130/143."""
    signal.signal(signal.SIGTERM, _on_signal)
    # Also SIGINT: a process started in the background by a non-interactive shell inherits SIGINT
    # ignored, and Python then installs no KeyboardInterrupt handler (a kill -INT did nothing).
    signal.signal(signal.SIGINT, _on_signal)
    try:
        code = app(args=argv, prog_name="evogrid", standalone_mode=False)
    except _NO_ARGS_IS_HELP as exc:  # bare `evogrid` or a bare group: its help
        exc.show()
        code = exc.exit_code
    except (KeyboardInterrupt, typer.Abort):
        print("evogrid: interrupted", file=sys.stderr)
        code = 128 + _SIGNAL_RECEIVED.get("signal", signal.SIGINT)
    except Exception as exc:
        line = _error_line(exc)
        if line is None or os.environ.get("EVOGRID_DEBUG") == "1":
            raise
        print("evogrid: error: " + " ".join(line.split()), file=sys.stderr)
        code = 2
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
