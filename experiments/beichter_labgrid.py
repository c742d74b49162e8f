"""Beichter's three-hour and one-hour LabGrid runs (his 8.1.5), rebuilt: his old and new policy on three
LoadLeveler clusters whose own users hold some of the processors, with the grid's slots as his
policies read them and LoadLeveler enforces them.

Run: ``.venv/bin/python experiments/beichter_labgrid.py [--seeds 5]`` (seeded, about a minute).

What he gives (quoted in docs/grid.md, "His three-hour runs, rebuilt"): three clusters with speeds
B : A : C = 4 : 2 : 1, one-processor jobs handed to the grid scheduler at a constant rate, run
times mostly 150-300 s on B, the clusters' own users holding about 40 % of the processors (in his
one-hour runs), an
information service refreshed every 30 s, and at cluster B 50 slots for the grid's class (his
example in 7.1.1). What he does not give and this script assumes (each a constant below): the
clusters' processors (LoadLeveler's starters), A's and C's slots, the local users' jobs and the
rate (from his counts: about 98 jobs an hour, one every 36 s).

The model, in evogrid's terms: site G is the grid scheduler's client (1 processor, a broker, where
every grid job is submitted; its jobs prefer the clusters, so it is chosen for none), A, B and C
keep their users' jobs (transfer ``local``) and take the grid's jobs; the grid's jobs run ``p * s_G
/ s_l`` there (G has C's speed, so ``p`` is the time on C). Jobs are submitted from 0 to 5 hours;
his metrics count the grid's jobs submitted in hours 1-4 ("ein Zeitraum ..., wo ... vor und nach
dem Zeitraum mit einer konstanten Rate Jobs an den Grid-Scheduler übergeben werden").

The learned ranking: for each of the seeds, G's TSK ranking rulebase trained by the (mu + lambda)-ES
(``evogrid train --policy ranking``'s EFS: G's AWRT, FCFS, 40 generations) on the model's jobs of
workload seed ``100 + seed`` (written as SWF files and a scenario file into
``runs/experiments/beichter_labgrid/``; finished runs are kept and reused), then tested on the
unseen workload seeds like the heuristics: every (training seed, test seed) pair. It trains twice:
in the exact grid (exact information, no limits), and in the clusters' conditions (the scenario
file's ``[strategy]`` table: information refreshed every 30 s, the slots and maxjobs enforced),
which training keeps. MCT and the learned rankings read no slots; each is tested with the
clusters' LoadLeveler enforcing them (it starts no grid job over a cluster's slots), MCT also
without. The third setting adds his 7.1.1 example's limit at B: five of the grid's jobs at once
(maxjobs, which LoadLeveler enforces under every policy and his new policy reads).

Prints markdown tables (mean and range over seeds) and writes them to
``experiments/results/matchmaking/beichter_labgrid.md``.
"""

from __future__ import annotations

import argparse
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from evogrid.files import atomic_write_bytes
from evogrid.optimize import Evaluator, TrainConfig, run_training
from evogrid.policy.rulebase import Rulebase
from evogrid.policy.strategies import Broker
from evogrid.sim.schedule import Exchange, GridJobs, simulate_grid
from evogrid.sim.sites import Requirement, Sites
from evogrid.workload.model import Workload

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "experiments" / "results" / "matchmaking" / "beichter_labgrid.md"
RUNS = ROOT / "runs" / "experiments" / "beichter_labgrid"
GENERATIONS = 40
TRAINING_SEED_OFFSET = 100  #: the learned ranking of seed s trains on the jobs of workload seed 100 + s
TRANSFER = ("broker", "local", "local", "local")  #: G routes the grid's jobs; the clusters keep theirs

HOUR_S = 3600
SPAN_S = 5 * HOUR_S  #: jobs are submitted from 0 to 5 h ...
WINDOW_S = (1 * HOUR_S, 4 * HOUR_S)  #: ... and measured in hours 1-4, his three hours
GAP_S = 36  #: one grid job every 36 s: his 294 / 297 jobs in three hours, about 98 an hour
B_TIME_S = (150, 300)  #: run time on B, uniform (his: 91-94 % of the jobs took 150-300 s on B)
SPEED = {"A": 2.0, "B": 4.0, "C": 1.0}  #: "auf dem Cluster B viermal schneller ... als auf dem Cluster C
#: und doppelt so schnell wie auf dem Cluster A"
LOCAL_LOAD = 0.4  #: "die Auslastung durch lokale Benutzer der Ressourcen konstant bei ca. 40%"
LOCAL_MEAN_S = 1200  #: the local users' mean run time (exponential; assumed)
REFRESH_S = 30  #: "das MDS nur alle 30 Sekunden aktualisiert wird"


@dataclass(frozen=True)
class Clusters:
    """An assumption on the clusters: processors (starters), the grid's slots and the grid user's
    maxjobs per cluster (none where not given)."""

    label: str
    procs: dict[str, int]
    slots: dict[str, int]
    maxjobs: dict[str, int] = field(default_factory=dict)

    def limits(self) -> tuple[tuple[int | None, ...], tuple[int | None, ...]]:
        """``(grid_slots, grid_maxjobs)`` per site, the client G first (none there)."""
        return ((None, *(self.slots.get(n) for n in SPEED)),
                (None, *(self.maxjobs.get(n) for n in SPEED)) if self.maxjobs else ())


SETTINGS = [
    Clusters("16 processors each; slots A 8, B 50, C 8", {"A": 16, "B": 16, "C": 16},
             {"A": 8, "B": 50, "C": 8}),
    Clusters("8 processors each; slots A 8, B 50, C 8", {"A": 8, "B": 8, "C": 8},
             {"A": 8, "B": 50, "C": 8}),
    # His 7.1.1 example: B at 45 of 50 free slots, five of the grid's jobs running there.
    Clusters("16 processors each; slots A 8, B 50, C 8; maxjobs B 5", {"A": 16, "B": 16, "C": 16},
             {"A": 8, "B": 50, "C": 8}, {"B": 5}),
]
@dataclass(frozen=True)
class Heuristic:
    """A column of the table: the client's location policy, with the clusters' slots for the grid
    (LoadLeveler enforces them, and his policies read them) or without (the slots are the clusters'
    processors)."""

    label: str
    location: str
    slotted: bool = False


POLICIES = [Heuristic("old (3.4)", "beichter-old", slotted=True),
            Heuristic("new (7.1.2)", "beichter-new", slotted=True),
            Heuristic("old, slots = processors", "beichter-old"), Heuristic("MCT", "mct"),
            Heuristic("MCT, slots enforced", "mct", slotted=True)]
#: The learned rankings, tested with the slots enforced: trained in the exact grid (False), in the
#: clusters' conditions (True).
LEARNED = {False: "learned (exact grid), slots enforced", True: "learned in the clusters' limits"}


def _workload(name: str, procs: int, submit: np.ndarray, run_time: np.ndarray) -> Workload:
    n = submit.shape[0]
    ones = np.ones(n, dtype=np.int64)
    return Workload(name, procs, submit.astype(np.int64), run_time.astype(np.int64), ones,
                    run_time.astype(np.int64), np.arange(1, n + 1, dtype=np.int64), -ones)


@dataclass(frozen=True)
class Runs:
    """His test runs: the grid's jobs submitted every ``gap_s`` from ``first_s`` to ``last_s``, run
    ``run_factor`` times B_TIME_S on B, beside local users holding ``local_load`` of the processors
    from 0 to SPAN_S."""

    label: str
    first_s: int
    last_s: int
    gap_s: int
    run_factor: int
    local_load: float


THREE_HOURS = Runs("three hours", 0, SPAN_S, GAP_S, 1, LOCAL_LOAD)
#: His one-hour runs (8.1.5): "eine Stunde lang sequentiell Jobs" handed over, long jobs "fünfmal länger
#: als die kurzen", short ones "keine künstliche Verzögerung", long ones "eine Verzögerung von 30
#: Sekunden". Ours: the gaps from his counts (413 and 348 short jobs in the hour, 105 long ones), short
#: jobs as in the three-hour runs, local users at 40 % (his short runs) and 55 % (his long ones: 33-77 %);
#: the hour after one hour of local load alone; tables of the first two cluster settings.
ONE_HOUR = (Runs("one hour, short jobs", HOUR_S, 2 * HOUR_S, 9, 1, 0.40),
            Runs("one hour, long jobs", HOUR_S, 2 * HOUR_S, 34, 5, 0.55))


def grid_jobs(clusters: Clusters, seed: int, runs: Runs = THREE_HOURS) -> GridJobs:
    """Site 0 is the grid's client; sites 1-3 are A, B and C with their own users' jobs."""
    rng = np.random.default_rng(seed)
    submit = np.arange(runs.first_s, runs.last_s, runs.gap_s)
    on_b = rng.integers(B_TIME_S[0], B_TIME_S[1] + 1, submit.shape[0]) * runs.run_factor
    on_c = on_b * SPEED["B"] / SPEED["C"]
    workloads = [_workload("G", 1, submit, on_c)]
    for name in SPEED:
        m = clusters.procs[name]
        gap = LOCAL_MEAN_S / (runs.local_load * m)  # Poisson arrivals at the local users' load
        arrivals = np.floor(np.cumsum(rng.exponential(gap, int(3 * SPAN_S / gap))))
        arrivals = arrivals[arrivals < SPAN_S]
        run = np.maximum(1, np.round(rng.exponential(LOCAL_MEAN_S, arrivals.shape[0])))
        workloads.append(_workload(name, m, arrivals, run))
    speeds = (SPEED["C"], *SPEED.values())
    attributes = ({}, *({"cluster": "yes"} for _ in SPEED))
    prefer = Requirement("cluster", "yes", share=1.0, kind="preferred")
    return GridJobs.merge(workloads, Sites(speeds, attributes, (prefer,)))


def metrics(jobs: GridJobs, schedule) -> dict[str, float]:
    """His 8.1.2-8.1.3 metrics over the grid's jobs submitted in the window (SubmitStartTime: the
    submission; CLDispatchTime: the start; CLEndTime: the end; no hand-over time here). Jobs the
    broker refused (his full queues) never ran: counted, and left out of the rest."""
    submit = jobs.submit
    window = (jobs.origin == 0) & (submit >= WINDOW_S[0]) & (submit < WINDOW_S[1])
    mine = window & schedule.ran
    start, run = schedule.start[mine], schedule.run_time[mine]
    end = start + run
    response = end - submit[mine]
    where = schedule.site[mine]
    row = {f"jobs {name}": float(np.mean(where == k)) for k, name in enumerate(SPEED, 1)}
    row["jobs at G"] = float(np.sum(where == 0))
    row["jobs refused"] = float(np.sum(window & schedule.refused))
    row["performance (jobs/h)"] = mine.sum() / ((end.max() - submit[mine].min()) / HOUR_S)
    row["avgResponseTime (s)"] = float(response.mean())
    row["avgQueueTime (s)"] = float((start - submit[mine]).mean())
    row["maxQueueTime (s)"] = float((start - submit[mine]).max())
    row["avgRunTime (s)"] = float(run.mean())
    row["efficiency"] = float(run.mean() / response.mean())
    grid = (jobs.origin == 0) & schedule.ran  # not only the window's: what LoadLeveler would have seen
    for k, name in enumerate(SPEED, 1):
        at = grid & (schedule.site == k)
        row[f"most grid jobs at once at {name}"] = float(_peak(schedule.start[at], schedule.end[at]))
    return row


def one_hour_metrics(jobs: GridJobs, schedule, clusters: Clusters) -> dict[str, float]:
    """His one-hour tables: per cluster the grid's jobs and its mean load as the grid scheduler saw it,
    ``1 - minFree / minMax`` with ``minFree = min(free processors, free slots)`` of ``minMax = min(m,
    maxslots)`` (his 7.1.2; no maxjobs in these settings), over the time from the first grid job's
    submission to the last one's end; and the grid's jobs' mean response time and that span."""
    grid = (jobs.origin == 0) & schedule.ran
    first, last = int(jobs.submit[grid].min()), int(schedule.end[grid].max())
    row = {"span (s)": float(last - first),
           "mean response (s)": float((schedule.end[grid] - jobs.submit[grid]).mean())}
    for k, name in enumerate(SPEED, 1):
        here = (schedule.site == k) & schedule.ran
        m, slots = clusters.procs[name], clusters.slots[name]
        # The processors in use and the grid's jobs running, step by step (ends before starts).
        times = np.concatenate([schedule.end[here], schedule.start[here]])
        order = np.lexsort((np.repeat([0, 1], here.sum()), times))
        procs = np.concatenate([-jobs.procs[here], jobs.procs[here]])[order]
        ours = grid[here].astype(np.int64)
        mine = np.concatenate([-ours, ours])[order]
        at = np.clip(times[order], first, last)
        free = np.minimum(m - np.cumsum(procs), slots - np.cumsum(mine))
        held = (1 - np.maximum(free, 0) / min(m, slots))[:-1] * np.diff(at)  # until the next step
        row[f"jobs {name}"] = float(((schedule.site == k) & grid).sum())
        row[f"load {name}"] = float(held.sum()) / (last - first)
    return row


#: His one-hour tables (8.1.5): load (jobs) per cluster A / B / C, old and new policy.
HIS_ONE_HOUR = {
    "one hour, short jobs": ("60 % (95) / 98 % (281) / 69 % (37)", "73 % (106) / 77 % (203) / 85 % (39)"),
    "one hour, long jobs": ("18 % (11) / 96 % (88) / 41 % (6)", "72 % (36) / 65 % (56) / 80 % (13)"),
}


def one_hour_lines(seeds: range) -> list[str]:
    """Markdown: his one-hour runs rebuilt, old against new, per cluster setting and job length."""
    lines = ["## His one-hour runs", "",
             "Load (grid jobs) per cluster A / B / C, as the grid scheduler saw it; the grid's jobs' mean "
             "response time, and the span from the first one's submission to the last one's end; mean "
             "over the seeds.",
             "",
             "| clusters | jobs | policy | ours: load (jobs) A / B / C | his | mean response (s) "
             "| span (s) |",
             "|---|---|---|---|---|---|---|"]
    for clusters in SETTINGS[:2]:
        slots = (None, *clusters.slots.values())
        for runs in ONE_HOUR:
            for policy, his in zip(("beichter-old", "beichter-new"), HIS_ONE_HOUR[runs.label], strict=True):
                rows = []
                for seed in seeds:
                    jobs = grid_jobs(clusters, seed, runs)
                    exchange = Exchange(policy, transfer=TRANSFER, location=policy, refresh_s=REFRESH_S,
                                        grid_slots=slots)
                    rows.append(one_hour_metrics(jobs, simulate_grid(jobs, "fcfs", exchange), clusters))
                mean = {key: float(np.mean([r[key] for r in rows])) for key in rows[0]}
                cells = " / ".join(f"{100 * mean[f'load {n}']:.0f} % ({mean[f'jobs {n}']:.0f})"
                                   for n in SPEED)
                lines.append(f"| {clusters.label} | {runs.label} | {policy} | {cells} | {his} | "
                             f"{mean['mean response (s)']:,.0f} | {mean['span (s)']:,.0f} |")
    return lines + [""]


def _peak(start: np.ndarray, end: np.ndarray) -> int:
    """The most of the one-processor jobs ``[start, end)`` that run at once (ends before starts)."""
    times = np.concatenate([start, end])
    delta = np.concatenate([np.ones_like(start), -np.ones_like(end)])
    return int(np.cumsum(delta[np.lexsort((delta, times))]).max(initial=0))


def write_scenario(clusters: Clusters, seed: int, directory: Path, limited: bool) -> Path:
    """The model's jobs of ``seed`` as SWF files and a scenario file that reads them (for training);
    ``limited``: with the clusters' conditions (refresh, slots, maxjobs) in its ``[strategy]`` table."""
    jobs = grid_jobs(clusters, seed)
    directory.mkdir(parents=True, exist_ok=True)
    lines = [f'name = "labgrid-{seed}"', 'lrms = "fcfs"', ""]
    for k, w in enumerate(jobs.workloads):
        path = directory / f"{w.name}.swf"
        rows = [f"{i + 1} {t} -1 {r} 1 -1 -1 1 {r} -1 1 -1 -1 -1 -1 -1 -1 -1"
                for i, (t, r) in enumerate(zip(w.submit.tolist(), w.run_time.tolist(), strict=True))]
        header = ["; Version: 2.2", f"; MaxProcs: {w.machine_procs}"]
        atomic_write_bytes(path, "\n".join([*header, *rows, ""]).encode())
        lines += ["[[sites]]", f'window = "{path.name}"', f"procs = {w.machine_procs}",
                  f"speed = {jobs.sites.speed[k]}"]
        lines += [f"attributes = {{ {a} = \"{v}\" }}" for a, v in jobs.sites.attributes[k].items()] + [""]
    lines += ["[[requirements]]", 'attribute = "cluster"', 'value = "yes"', "share = 1.0",
              'kind = "preferred"', ""]
    if limited:
        def table(values: dict[str, int]) -> str:
            return "{ " + ", ".join(f'"{n}.swf" = {v}' for n, v in values.items()) + " }"

        lines += ["[strategy]", f"refresh_s = {REFRESH_S}", f"grid_slots = {table(clusters.slots)}"]
        lines += [f"grid_maxjobs = {table(clusters.maxjobs)}"] if clusters.maxjobs else []
    path = directory / "scenario.toml"
    atomic_write_bytes(path, "\n".join(lines).encode())
    return path


def learned_ranking(clusters: Clusters, seed: int, setting: int, limited: bool,
                    evaluator: Evaluator) -> Rulebase:
    """G's ranking rulebase trained on workload seed ``TRAINING_SEED_OFFSET + seed`` (reused if done),
    in the exact grid or (``limited``) in the clusters' conditions."""
    where = RUNS / f"setting{setting}" / ("limited" if limited else "exact")
    out = where / f"seed{seed}"
    files = sorted((out / "rulebases").glob("*.json"))
    if not (out / "summary.json").exists() or not files:
        scenario = write_scenario(clusters, TRAINING_SEED_OFFSET + seed, where / f"jobs{seed}", limited)
        if out.exists():  # an unfinished run of an earlier call: start it afresh
            shutil.rmtree(out)
        config = TrainConfig(str(scenario), kind="efs", site=0, lrms="fcfs", decision="ranking",
                             generations=GENERATIONS, seed=seed)
        run_training(config, out, evaluator, progress=False, plots=None)
        files = sorted((out / "rulebases").glob("*.json"))
    return Rulebase.load(files[0])


Rows = dict[str, list[dict[str, float]]]  #: column label -> one row of metrics per run


def run(clusters: Clusters, seeds: range, learned: dict[bool, list[Rulebase]]) -> Rows:
    out: Rows = {h.label: [] for h in POLICIES} | {v: [] for v in LEARNED.values()}
    slots, maxjobs = clusters.limits()
    for seed in seeds:
        jobs = grid_jobs(clusters, seed)
        for h in POLICIES:
            exchange = Exchange(h.label, transfer=TRANSFER, location=h.location, refresh_s=REFRESH_S,
                                grid_slots=slots if h.slotted else (), grid_maxjobs=maxjobs)
            out[h.label].append(metrics(jobs, simulate_grid(jobs, "fcfs", exchange)))
        for limited, rulebases in learned.items():
            for rulebase in rulebases:
                ranked = Broker("rank", {0: rulebase}).exchange(jobs)
                exchange = replace(ranked, transfer=TRANSFER, refresh_s=REFRESH_S, grid_slots=slots,
                                   grid_maxjobs=maxjobs)
                out[LEARNED[limited]].append(metrics(jobs, simulate_grid(jobs, "fcfs", exchange)))
    return out


HIS = {"jobs A": ("10 %", "28 %"), "jobs B": ("86 %", "68 %"), "jobs C": ("4 %", "4 %"),
       "jobs at G": ("-", "-"), "jobs refused": ("-", "-"), "performance (jobs/h)": ("90", "96"),
       "avgResponseTime (s)": ("659", "413"), "avgQueueTime (s)": ("373", "40"),
       "maxQueueTime (s)": ("758", "371"), "avgRunTime (s)": ("280", "367"),
       "efficiency": ("42.5 %", "88.9 %"), "most grid jobs at once at A": ("-", "-"),
       "most grid jobs at once at B": ("-", "-"), "most grid jobs at once at C": ("-", "-")}


def _fmt(name: str, values: list[float]) -> str:
    mean, low, high = np.mean(values), np.min(values), np.max(values)
    if name.startswith("jobs ") and name not in ("jobs at G", "jobs refused"):
        return f"{100 * mean:.0f} % ({100 * low:.0f}-{100 * high:.0f})"
    if name == "efficiency":
        return f"{100 * mean:.1f} % ({100 * low:.1f}-{100 * high:.1f})"
    if name.startswith("most "):
        return f"{high:.0f}"
    return f"{mean:,.0f} ({low:,.0f}-{high:,.0f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5, help="workload seeds 1..N (N >= 1)")
    n_seeds = parser.parse_args().seeds
    if n_seeds < 1:
        parser.error(f"--seeds {n_seeds}: expected 1 or more")
    seeds = range(1, n_seeds + 1)
    lines = ["# Beichter's three-hour and one-hour runs, rebuilt", "",
             f"Command: `.venv/bin/python experiments/beichter_labgrid.py --seeds {len(seeds)}`. FCFS at "
             f"every cluster, information refreshed every {REFRESH_S} s; the grid's jobs submitted from 1 h "
             f"to 4 h; mean over seeds {seeds.start}-{seeds.stop - 1} (range; efficiency: the mean of each "
             "seed's avgRunTime / avgResponseTime; the most grid jobs at once: over every seed and the "
             "whole run).", ""]
    for setting, clusters in enumerate(SETTINGS):
        with Evaluator("serial", 1) as evaluator:
            learned = {limited: [learned_ranking(clusters, seed, setting, limited, evaluator)
                                 for seed in seeds] for limited in LEARNED}
        results = run(clusters, seeds, learned)
        labels = list(results)
        lines += [f"## {clusters.label}", "", "| metric | " + " | ".join(labels) + " | his old | his new |",
                  "|" + "---|" * (len(labels) + 3)]
        for name in HIS:
            cells = [_fmt(name, [r[name] for r in results[label]]) for label in labels]
            lines.append(f"| {name} | " + " | ".join(cells) + f" | {HIS[name][0]} | {HIS[name][1]} |")
        old, new = (results[h.label] for h in POLICIES[:2])
        wins = sum(n["avgResponseTime (s)"] < o["avgResponseTime (s)"] for o, n in zip(old, new, strict=True))
        lines += ["", f"The new policy's avgResponseTime is below the old one's in {wins} of "
                      f"{len(seeds)} seeds."]
        response = {label: np.array([r["avgResponseTime (s)"] for r in rows])
                    for label, rows in results.items()}
        for ours in LEARNED.values():
            mine = response[ours].reshape(len(seeds), len(seeds))  # test seed x training seed
            for label in [*labels[:2], "MCT, slots enforced", *(v for v in LEARNED.values() if v != ours)]:
                # A heuristic's run per test seed; the other learned ranking's per pair.
                theirs = response[label].reshape(len(seeds), -1)
                below = int((mine < theirs).sum())
                lines.append(f"{ours}: avgResponseTime below {label}'s in {below} of "
                             f"{mine.size} (test seed, training seed) pairs.")
        lines.append("")
    lines += one_hour_lines(seeds)
    atomic_write_bytes(OUT, "\n".join(lines).encode())  # (it makes the directory)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
