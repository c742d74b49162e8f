"""The dissertation's learned-policy experiments on its own sites (Lepping 2011, chapters 12-13).

Run: ``.venv/bin/python experiments/dissertation_grids.py [train|report|all] [--seeds N]
[--windows lepping|days] [--only SETS] [--workers N]``

Windows: the dissertation's cuts (default; ``lepping:NAME-5`` for training,
``lepping:NAME-6`` for the unseen months, Tables 7.1 and 7.3) or 30-day months
(``--windows days``: ``NAME@0-5`` and ``NAME@5-11``, run directories in
``runs/experiments/dissertation_days``).

``train`` (resumable: finished runs are skipped, unfinished ones continue from
their last checkpoint; a progress bar counts runs)
leaves run directories in ``runs/experiments/dissertation/``:

- ``coevolution/seed*``: co-evolution of ``CTC-5+SDSC03-5+SDSC05-5`` (``--windows days``: ``CTC@0-5+...``;
  FCFS, 13 + 91,
  150 generations), tested on the following six months with FCFS and EASY. Every
  run keeps the archive of its best pairing by worst relative AWRT, so one run
  gives both results: the published choice (the final generation's pairing with
  the smallest AWRT sum, written to ``published_pick/``) and the archive's pick
  (the run directory itself);
- ``pairwise/K_vs_L/seed*``: EFS of K's rulebase against an AWF partner L on
  ``K-5+L-5``, for every ordered pair of KTH, CTC and SDSC05 (Table 12.1);
- ``coevolution4/seed*`` (CTC + SDSC03 + SDSC05 + SDSC00, the dissertation's 13.2.2, Figs. 13.3
  and 13.4), ``coevolution5/seed*`` (KTH + CTC + SDSC00 + SDSC03 + SDSC05, Fig. 13.5) and
  ``ea_vs_coea_{coevolution,joint}/seed*`` (KTH + CTC + SDSC05, 6 seeds each, the
  dissertation's EA-vs-COEA comparison): trained last; ``report`` lists them once
  every seed of a set has finished.

``report`` writes ``experiments/results/dissertation_lepping/`` (with ``--windows days``:
``experiments/results/dissertation/``; JSON and markdown: per
seed, mean, standard deviation and range, next to the dissertation's values),
applies each seed's pairwise pool to the unseen months (KTH + CTC + SDSC05 with
the AWRT location policy, FCFS and EASY; and SDSC00 as a site nobody was trained
against, with CTC + SDSC05: it runs AWF, or uses the rulebases of the nearest trained
site size, KTH's), puts each pair's two rulebases against each other and beside AWF
(Figs. 12.5, 12.6, 12.8) and the pool on four sites with SDSC00 unknown (Fig. 12.9),
applies each co-evolved KTH + CTC + SDSC05 seed with SDSC00 in KTH's place (Table
13.2's COEA row), and ships the best rulebases to ``trained_rulebases/``.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import shutil
import statistics
from dataclasses import replace
from pathlib import Path

from rich.progress import Progress
from train_policies import apply_pool, ship_rulebase

from evogrid.optimize import Evaluator, TrainConfig, checkpoint, resume_training, run_training
from evogrid.optimize.coevolution import CoEvolution
from evogrid.optimize.training import write_results
from evogrid.plots import decision_surface, improvement_plot
from evogrid.policy.rulebase import Rulebase
from evogrid.policy.strategies import AcceptWhenFit, FuzzyPolicy, pool_for_sites, simulate
from evogrid.sim.scenario import Scenario

ROOT = Path(__file__).resolve().parents[1]
RUNS = ROOT / "runs" / "experiments" / "dissertation"
#: Where ``report`` writes, by ``--windows``.
RESULTS = {"lepping": ROOT / "experiments" / "results" / "dissertation_lepping",
           "days": ROOT / "experiments" / "results" / "dissertation"}
SHIPPED = ROOT / "trained_rulebases"
IMAGES = ROOT / "docs" / "img"
COEVOLVED = ("CTC", "SDSC03", "SDSC05")
PAIRWISE = ("KTH", "CTC", "SDSC05")
UNKNOWN_GRID = ("SDSC00", "CTC", "SDSC05")  # SDSC00 (128 processors): nobody was trained against it
FOUR_SITES = ("KTH", "CTC", "SDSC05", "SDSC00")  # Fig. 12.9: the pairwise pool and one unknown site
#: 13.2.2: the 3-site grid "mit SDSC00 als zusätzlichem kleinen Partner" (SDSC00 as an extra small partner).
FOUR_COEVOLVED = ("CTC", "SDSC03", "SDSC05", "SDSC00")
FIVE_SITES = ("KTH", "CTC", "SDSC00", "SDSC03", "SDSC05")
EA_SEEDS = 6  # the dissertation's EA-vs-COEA comparison: 6 runs each
PUBLISHED_PICK = "published_pick"
TEST_LRMS = ("fcfs", "easy")
#: Lepping 2011, Table 12.1: AWRT change (%) against local FCFS on the 5-month windows,
#: (trained site, AWF partner).
DISSERTATION_PAIRWISE = {
    ("KTH", "CTC"): (86.47, -9.74), ("CTC", "KTH"): (5.44, 87.12),
    ("KTH", "SDSC05"): (87.84, -3.29), ("SDSC05", "KTH"): (3.78, 85.55),
    ("CTC", "SDSC05"): (20.55, -0.16), ("SDSC05", "CTC"): (12.31, 1.43),
}
#: Lepping 2011, Table 13.2 (test cuts, FCFS): SDSC00, unknown and running AWF, in place of KTH, with
#: the rulebases of the pairwise pool ("EA", Fig. 12.7(b)) or of the co-evolved KTH + CTC + SDSC05 (%).
DISSERTATION_UNKNOWN = {"SDSC00": 78.03, "CTC": 10.02, "SDSC05": 17.95}
DISSERTATION_UNKNOWN_COEA = {"SDSC00": 85.54, "CTC": 7.59, "SDSC05": 10.82}


#: "lepping": the dissertation's cuts (``lepping:NAME-5`` / ``lepping:NAME-6``, Tables 7.1 and 7.3);
#: "days": 30-day months (``NAME@0-5`` / ``NAME@5-11``). Set by ``--windows``.
WINDOWS = {"style": "lepping"}


def train_window(sites) -> str:
    if WINDOWS["style"] == "lepping":
        return "+".join(f"lepping:{s}-5" for s in sites)
    return "+".join(f"{s}@0-5" for s in sites)


def test_window(sites) -> str:
    if WINDOWS["style"] == "lepping":
        return "+".join(f"lepping:{s}-6" for s in sites)
    return "+".join(f"{s}@5-11" for s in sites)


def coevolution_config(seed: int) -> TrainConfig:
    return TrainConfig(train_window(COEVOLVED), kind="coevolution", seed=seed, test=test_window(COEVOLVED),
                       pick="worst-relative", archive=True)


def pairwise_config(k: str, l: str, seed: int) -> TrainConfig:
    return TrainConfig(train_window((k, l)), site=0, seed=seed, test=test_window((k, l)))


def grid_config(sites: tuple[str, ...], seed: int, kind: str = "coevolution") -> TrainConfig:
    """Co-evolution (or the joint ES) of ``sites`` with the default pick."""
    return TrainConfig(train_window(sites), kind=kind, seed=seed, test=test_window(sites))


def runs(seeds: int, runs_dir: Path) -> list[tuple[TrainConfig, Path]]:
    """Every training run, co-evolution first (the longest and most important); then the pairwise
    pool, the 4- and 5-site co-evolutions and the EA-vs-COEA comparison (``EA_SEEDS`` seeds each)."""
    out = [(coevolution_config(s), runs_dir / "coevolution" / f"seed{s}") for s in range(1, seeds + 1)]
    out += [(pairwise_config(k, l, s), runs_dir / "pairwise" / f"{k}_vs_{l}" / f"seed{s}")
            for s in range(1, seeds + 1) for k, l in itertools.permutations(PAIRWISE, 2)]
    out += [(grid_config(FOUR_COEVOLVED, s), runs_dir / "coevolution4" / f"seed{s}")
            for s in range(1, seeds + 1)]
    out += [(grid_config(FIVE_SITES, s), runs_dir / "coevolution5" / f"seed{s}") for s in range(1, seeds + 1)]
    out += [(grid_config(PAIRWISE, s, kind), runs_dir / f"ea_vs_coea_{kind}" / f"seed{s}")
            for s in range(1, EA_SEEDS + 1) for kind in ("coevolution", "joint")]
    return out


def published_pick(config: TrainConfig, run: Path, evaluator: Evaluator) -> None:
    """The published result of a finished co-evolution run: its final pairing with the smallest sum."""
    out = run / PUBLISHED_PICK
    if (out / "summary.json").exists():
        return
    published = replace(config, pick="sum", archive=False)
    optimizer = CoEvolution(published, evaluator)
    state = optimizer.from_data(checkpoint.load(run, optimizer.checkpoint_kind))
    out.mkdir(exist_ok=True)
    shutil.copy(run / "generations.csv", out / "generations.csv")
    write_results(published, state, out, optimizer.best(state))


def train(seeds: int, runs_dir: Path, sets: tuple[str, ...] = (), workers: int = 2) -> None:
    """Every run (or those of ``sets``: first path parts such as ``coevolution``, ``pairwise``)."""
    todo = [(c, out) for c, out in runs(seeds, runs_dir)
            if not sets or out.relative_to(runs_dir).parts[0] in sets]
    with Evaluator("loky", workers) as evaluator, Progress() as bar:
        task = bar.add_task("training runs", total=len(todo))
        for config, out in todo:
            if not (out / "summary.json").exists():
                bar.console.print(f"training {out.relative_to(runs_dir)}")
                if checkpoint.exists(out):  # an unfinished run of an earlier call: continue it
                    resume_training(out, evaluator, progress=False)
                else:
                    shutil.rmtree(out, ignore_errors=True)
                    run_training(config, out, evaluator, progress=False)
            if config.kind == "coevolution":
                published_pick(config, out, evaluator)
            bar.advance(task)


def _summary(run: Path) -> list[dict]:
    return json.loads((run / "summary.json").read_text())


def site_name(name: str) -> str:
    """``CTC@5-11``, ``CTC@0-5``, ``lepping:CTC-6`` (a file stem: ``lepping_CTC-6``) -> ``CTC``."""
    name = name.removeprefix("lepping:").removeprefix("lepping_")
    return name.split("@")[0] if "@" in name else name.rsplit("-", 1)[0]


def _spread(values: list[float]) -> dict:
    return {"per_seed": [round(v, 2) for v in values], "mean_pct": round(statistics.fmean(values), 2),
            "std_pct": round(statistics.stdev(values), 2) if len(values) > 1 else 0.0,
            "min_pct": round(min(values), 2), "max_pct": round(max(values), 2)}


def _by_seed(summaries: list[list[dict]]) -> list[dict]:
    """Per (window, LRMS, site) the improvement of every seed and their spread."""
    rows = []
    for i, first in enumerate(summaries[0]):
        values = [s[i]["improvement_pct"] for s in summaries]
        rows.append({"window": first["window"], "lrms": first["lrms"], "site": site_name(first["site"]),
                     **_spread(values)})
    return rows


def _cell(row: dict) -> str:
    return f"{row['mean_pct']:+.1f} ± {row['std_pct']:.1f}"


def report_coevolution(seeds: int, runs_dir: Path) -> tuple[dict, list[str]]:
    """Both picks of every seed, train and test; migration matrices of the shipped grid."""
    runs = [runs_dir / "coevolution" / f"seed{s}" for s in range(1, seeds + 1)]
    out = {"archive_worst_relative": _by_seed([_summary(r) for r in runs]),
           "published_sum": _by_seed([_summary(r / PUBLISHED_PICK) for r in runs])}
    md = ["## Co-evolution, CTC + SDSC03 + SDSC05 (trained on 5 months, FCFS, 150 generations)", "",
          "AWRT change against local scheduling with the same LRMS (%, positive = better), "
          f"seeds 1..{seeds}. Published pick: the final generation's pairing with the smallest AWRT "
          "sum. Archive pick: the pairing of any generation with the smallest worst relative AWRT.", "",
          "| pick | window | LRMS | site | " + " | ".join(f"seed {s}" for s in range(1, seeds + 1))
          + " | mean ± sd |", "|" + "---|" * (seeds + 5)]
    for pick, rows in out.items():
        for r in rows:
            md.append(f"| {pick} | {r['window']} | {r['lrms']} | {r['site']} | "
                      + " | ".join(f"{v:+.1f}" for v in r["per_seed"]) + f" | {_cell(r)} |")
    every = {pick: [all(r["per_seed"][i] > 0 for r in rows if r["window"] == "test" and r["lrms"] == "fcfs")
                    for i in range(seeds)] for pick, rows in out.items()}
    out["seeds_improving_every_site_test_fcfs"] = {p: sum(v) for p, v in every.items()}
    md += ["", "Seeds whose pick improves every site on the unseen months (FCFS): "
           + ", ".join(f"{p} {n} of {seeds}" for p, n in out["seeds_improving_every_site_test_fcfs"].items()),
           ""]
    best = ship_coevolved(runs)
    out["shipped_seed"] = best.name
    out["migration_train"] = migration(Scenario.from_spec(train_window(COEVOLVED), lrms="fcfs"), best)
    m = out["migration_train"]
    md += [f"Migration on the training windows, shipped grid ({best.name}; row: submitted at, column: "
           "ran at; M_n by jobs / M_SA by area, %):", "",
           "| from \\ to | " + " | ".join(COEVOLVED) + " |", "|" + "---|" * (len(COEVOLVED) + 1)]
    for i, site in enumerate(COEVOLVED):
        md.append(f"| {site} | " + " | ".join(f"{100 * m['migration_n'][i][j]:.1f} / "
                                               f"{100 * m['migration_sa'][i][j]:.1f}"
                                               for j in range(len(COEVOLVED))) + " |")
    improvement_plot(IMAGES / "coevolution_ctc_sdsc03_sdsc05.png",
                     [{**r, "improvement_pct": r["mean_pct"]} for r in out["archive_worst_relative"]])
    return out, md + [""]


def _grid_table(title: str, note: str, picks: dict[str, list[Path]], seeds: int,
                reference: str = "") -> tuple[dict, list[str]]:
    """Per pick (a label -> its seeds' run directories): every seed's change per site, mean ± sd.

    A pick with fewer than ``seeds`` finished runs is listed as unfinished, without numbers.
    """
    out: dict = {}
    md = [title, "", note, ""]
    head = "| pick | window | LRMS | site | " + " | ".join(f"seed {s}" for s in range(1, seeds + 1))
    md += [head + " | mean ± sd |" + (" dissertation |" if reference else ""),
           "|" + "---|" * (seeds + 5 + bool(reference))]
    for pick, runs in picks.items():
        finished = [r for r in runs if (r / "summary.json").exists()]
        if len(finished) < seeds:
            md.append(f"| {pick} | {len(finished)} of {seeds} seeds finished: not reported yet |")
            continue
        out[pick] = rows = _by_seed([_summary(r) for r in finished])
        for r in rows:
            theirs = f" {reference if r['window'] == 'train' else '-'} |" if reference else ""
            md.append(f"| {pick} | {r['window']} | {r['lrms']} | {r['site']} | "
                      + " | ".join(f"{v:+.1f}" for v in r["per_seed"]) + f" | {_cell(r)} |" + theirs)
    return out, md + [""]


def report_four_sites(seeds: int, runs_dir: Path) -> tuple[dict, list[str]]:
    """The 4-site co-evolution of 13.2.2, both picks (the dissertation, Fig. 13.3: "große
    Verbesserungen für alle Sites", large gains at every site, without numbers in the text)."""
    out, md = _coevolved_grid(seeds, runs_dir, "coevolution4", FOUR_COEVOLVED, "large gains",
                              IMAGES / "dissertation_fig_13_3.png")
    if "archive_worst_relative" in out:
        train = [r for r in out["archive_worst_relative"] if r["window"] == "train"]
        best = max(range(seeds), key=lambda i: min(r["per_seed"][i] for r in train))
        drawn = surfaces(runs_dir / "coevolution4" / f"seed{best + 1}", FOUR_COEVOLVED,
                         "dissertation_fig_13_4")
        md += [f"Fig. 13.4: the decision surfaces of seed {best + 1} (the largest least training gain), "
               f"with the decisions of the unseen months: {', '.join(p.name for p in drawn)}.", ""]
        runs = [runs_dir / "coevolution4" / f"seed{s}" for s in range(1, seeds + 1)]
        out["sdsc00_exchange"] = counts = [exchanged(run, "SDSC00") for run in runs]
        md += ["SDSC00's exchange (the dissertation: \"SDSC00 nur neun Jobs von anderen Sites akzeptiert, "
               "dafür aber über 10.000 Jobs zu anderen Sites migriert\"), archive pick, FCFS, per seed: jobs "
               "it took from the others / of its own jobs that ran elsewhere:", "",
               "| window | " + " | ".join(f"seed {s}" for s in range(1, seeds + 1)) + " |",
               "|" + "---|" * (seeds + 1)]
        for window in ("train", "test"):
            md.append(f"| {window} | " + " | ".join(f"{c[window]['taken']:,} / {c[window]['sent']:,}"
                                                    for c in counts) + " |")
        md.append("")
    return out, md


def exchanged(run: Path, site: str) -> dict[str, dict[str, int]]:
    """Per window (the run's per-job files: training, and the unseen months with the training LRMS),
    the jobs ``site`` took from other sites and those of its own that ran elsewhere."""
    out = {}
    for window in ("train", "test"):
        taken = sent = 0
        with open(run / f"jobs_{window}.csv", newline="") as f:
            for row in csv.DictReader(f):
                home, ran = site_name(row["origin_site"]), site_name(row["site"])
                taken += ran == site and home != site
                sent += home == site and ran != site
        out[window] = {"taken": taken, "sent": sent}
    return out


def surfaces(run: Path, sites: tuple[str, ...], stem: str) -> list[Path]:
    """Each site's co-evolved rulebase over NWP and NJP, with the points where it decided on the
    unseen months (FCFS) marked, as the dissertation's Fig. 13.4 draws them."""
    scenario = Scenario.from_spec(test_window(sites), lrms="fcfs")
    rulebases = run_rulebases(run, scenario)
    result = simulate(scenario, FuzzyPolicy(rulebases, location="awrt"), record_decisions=True)
    decisions = result.schedule.decisions
    names = [site_name(w.name) for w in scenario.workloads]
    return [decision_surface(rb, IMAGES / f"{stem}_{names[k].lower()}.png",
                             visited=decisions.x[decisions.site == k],
                             title=f"{names[k]}: accept (green) / decline (red)")
            for k, rb in sorted(rulebases.items())]


def report_five_sites(seeds: int, runs_dir: Path) -> tuple[dict, list[str]]:
    """The 5-site co-evolution, both picks (the dissertation: every site +15 to +90 % on training)."""
    return _coevolved_grid(seeds, runs_dir, "coevolution5", FIVE_SITES, "+15 to +90",
                           IMAGES / "dissertation_fig_13_5.png")


def _coevolved_grid(seeds: int, runs_dir: Path, name: str, sites: tuple[str, ...], reference: str,
                    image: Path) -> tuple[dict, list[str]]:
    """A co-evolved grid's table (both picks) and, once every seed has finished, its training and
    test changes per site as the dissertation's figure (the seeds' medians, each seed drawn)."""
    runs = [runs_dir / name / f"seed{s}" for s in range(1, seeds + 1)]
    out, md = _grid_table(
        f"## Co-evolution, {' + '.join(sites)} (5 months, FCFS, 150 generations)",
        "AWRT change against local scheduling with the same LRMS (%). Picks as above.",
        {"archive_worst_relative": runs, "published_sum": [r / PUBLISHED_PICK for r in runs]}, seeds,
        reference=reference)
    if "archive_worst_relative" in out:
        improvement_plot(image, [{**r, "improvement_pct": r["mean_pct"]}
                                 for r in out["archive_worst_relative"]])
    return out, md


def report_ea_vs_coea(seeds: int, runs_dir: Path) -> tuple[dict, list[str]]:
    """Co-evolution against one ES over all sites' rulebases (the joint ES), KTH + CTC + SDSC05; then
    Table 13.2's COEA row: the co-evolved rulebases with SDSC00 in place of KTH."""
    out, md = _grid_table(
        f"## EA against co-evolution, {' + '.join(PAIRWISE)} (5 months, FCFS, {EA_SEEDS} seeds each)",
        "AWRT change against local scheduling with the same LRMS (%). coevolution: one ES per site "
        "(default pick); joint: one ES over all sites' rulebases together.",
        {kind: [runs_dir / f"ea_vs_coea_{kind}" / f"seed{s}" for s in range(1, EA_SEEDS + 1)]
         for kind in ("coevolution", "joint")}, EA_SEEDS)
    runs = [runs_dir / "ea_vs_coea_coevolution" / f"seed{s}" for s in range(1, EA_SEEDS + 1)]
    if not all((r / "summary.json").exists() for r in runs):
        return out, md
    out["unknown_site_coea"] = rows = []
    md += [f"### Table 13.2, COEA: {' + '.join(UNKNOWN_GRID)}, SDSC00 unknown (AWF), the others' "
           "co-evolved rulebases (unseen months, AWRT location policy)", "",
           "| LRMS | site | " + " | ".join(f"seed {s}" for s in range(1, EA_SEEDS + 1))
           + " | mean ± sd | dissertation |", "|" + "---|" * (EA_SEEDS + 4)]
    for lrms in TEST_LRMS:
        per_seed = [apply_coevolved_unknown(run, lrms) for run in runs]
        for i, first in enumerate(per_seed[0]):
            theirs = DISSERTATION_UNKNOWN_COEA[first["site"]] if lrms == "fcfs" else None
            rows.append({"lrms": lrms, "site": first["site"], "dissertation_pct": theirs,
                         **_spread([p[i]["awrt_pct"] for p in per_seed])})
            md.append(f"| {lrms} | {first['site']} | " + " | ".join(f"{v:+.1f}" for v in rows[-1]["per_seed"])
                      + f" | {_cell(rows[-1])} | {'-' if theirs is None else f'{theirs:+.2f}'} |")
    return out, md + [""]


def apply_coevolved_unknown(run: Path, lrms: str) -> list[dict]:
    """A co-evolved KTH + CTC + SDSC05 run's CTC and SDSC05 rulebases on the unseen months of the grid
    where SDSC00, unknown, takes KTH's place and runs AWF (the dissertation's 13.2.5, Table 13.2)."""
    scenario = Scenario.from_spec(test_window(UNKNOWN_GRID), lrms=lrms)
    return _changes(scenario, FuzzyPolicy(run_rulebases(run, scenario), location="awrt"))


def pairwise_rulebase(runs_dir: Path, k: str, l: str, seed: int) -> Rulebase:
    """Site k's rulebase trained against an AWF partner l, seed ``seed``."""
    return Rulebase.load(next((runs_dir / "pairwise" / f"{k}_vs_{l}" / f"seed{seed}" / "rulebases")
                              .glob("*.json")))


def run_rulebases(run: Path, scenario: Scenario) -> dict[int, Rulebase]:
    """A co-evolution run's rulebases by site index in ``scenario`` (sites of the run it has not: none)."""
    names = [site_name(w.name) for w in scenario.workloads]
    found = [Rulebase.load(f) for f in sorted((run / "rulebases").glob("*.json"))]
    return {names.index(site): rb for rb in found if (site := site_name(rb.provenance["site"])) in names}


def migration(scenario: Scenario, run: Path) -> dict:
    policy = FuzzyPolicy(run_rulebases(run, scenario), location="awrt")
    d = simulate(scenario, policy).to_dict()
    return {"migration_n": d["migration_n"], "migration_sa": d["migration_sa"]}


def ship_coevolved(runs: list[Path]) -> Path:
    """Ship the seed whose archive pick has the smallest worst relative AWRT on the training windows."""
    def worst(run: Path) -> float:
        return max(r["policy_awrt"] / r["local_awrt"] for r in _summary(run) if r["window"] == "train")

    best = min(runs, key=worst)
    target = SHIPPED / "coevolved" / "_".join(s.lower() for s in COEVOLVED)
    shutil.rmtree(target, ignore_errors=True)
    for f in sorted((best / "rulebases").glob("*.json")):
        ship_rulebase(f, best, target / f"{site_name(f.stem).lower()}.json")
    return best


def report_pairwise(seeds: int, runs_dir: Path) -> tuple[list[dict], list[str]]:
    """Table 12.1: the trained site and its AWF partner, ours (mean of seeds) next to the dissertation's."""
    rows = []
    md = ["## Pairwise EFS, the dissertation's Table 12.1 (5 months, FCFS, partner AWF)", "",
          "| trained vs partner | trained: ours | theirs | diff | partner: ours | theirs | diff "
          "| test FCFS trained / partner | test EASY trained / partner |", "|" + "---|" * 9]
    for k, l in itertools.permutations(PAIRWISE, 2):
        runs = [runs_dir / "pairwise" / f"{k}_vs_{l}" / f"seed{s}" for s in range(1, seeds + 1)]
        by = {(r["window"], r["lrms"], r["site"]): r for r in _by_seed([_summary(r) for r in runs])}
        theirs = DISSERTATION_PAIRWISE[k, l]
        train = [by["train", "fcfs", k], by["train", "fcfs", l]]
        rows.append({"pair": f"{k} vs {l}", "dissertation_pct": theirs,
                     **{f"{w}_{lrms}_{site}": v for (w, lrms, site), v in by.items()}})
        cells = []
        for ours, ref in zip(train, theirs, strict=True):
            cells += [_cell(ours), f"{ref:+.2f}", f"{ours['mean_pct'] - ref:+.1f}"]
        tests = [f"{_cell(by['test', lrms, k])} / {_cell(by['test', lrms, l])}" for lrms in TEST_LRMS]
        md.append(f"| {k} vs {l} | " + " | ".join(cells + tests) + " |")
        rows[-1]["trained_within_10_points"] = abs(train[0]["mean_pct"] - theirs[0]) <= 10
        ship_pairwise(k, l, runs)
    return rows, md + [""]


def ship_pairwise(k: str, l: str, runs: list[Path]) -> None:
    """The seed with the lowest training AWRT of the trained site."""
    found = [(Rulebase.load(f).provenance["fitness_awrt"], f, run)
             for run in runs for f in (run / "rulebases").glob("*.json")]
    _, file, run = min(found)
    ship_rulebase(file, run, SHIPPED / "pairwise" / f"{k.lower()}_vs_{l.lower()}.json")


def report_pool(seeds: int, runs_dir: Path) -> tuple[list[dict], list[str]]:
    """Each seed's pairwise pool on the unseen months, the known grid and one with an unknown site."""
    pools = [[pairwise_rulebase(runs_dir, k, l, s) for k, l in itertools.permutations(PAIRWISE, 2)]
             for s in range(1, seeds + 1)]
    rows = []
    md = ["## The pairwise pool on the unseen months (AWRT location policy)", "",
          "| grid | LRMS | site | learned | " + " | ".join(f"seed {s}" for s in range(1, seeds + 1))
          + " | mean ± sd | dissertation |", "|" + "---|" * (seeds + 6)]
    cases = [(PAIRWISE, "others"), (UNKNOWN_GRID, "others"), (UNKNOWN_GRID, "nearest")]
    for (grid, unknown), lrms in itertools.product(cases, TEST_LRMS):
        per_seed = [apply_pool(pool, test_window(grid), lrms, unknown_sites=unknown) for pool in pools]
        for i, first in enumerate(per_seed[0]):
            site = site_name(first["site"])
            learned = first["learned"] if site in PAIRWISE else f"{first['learned']} ({unknown})"
            row = {"grid": "+".join(grid), "lrms": lrms, "site": site, "learned": learned,
                   **_spread([p[i]["improvement_pct"] for p in per_seed])}
            theirs = DISSERTATION_UNKNOWN.get(site) if grid == UNKNOWN_GRID and lrms == "fcfs" else None
            row["dissertation_pct"] = theirs
            rows.append(row)
            md.append(f"| {row['grid']} | {lrms} | {site} | {learned} | "
                      + " | ".join(f"{v:+.1f}" for v in row["per_seed"])
                      + f" | {_cell(row)} | {'-' if theirs is None else f'{theirs:+.2f}'} |")
    return rows, md + [""]


def _changes(scenario: Scenario, policy) -> list[dict]:
    """Per site: AWRT change and SA change against local scheduling (%, the dissertation's figures)."""
    return [{"site": site_name(r["site"]), "awrt_pct": r["delta_awrt_pct"], "sa_pct": 100 * (r["dsa"] - 1)}
            for r in simulate(scenario, policy).metrics()]


def report_pairs(seeds: int, runs_dir: Path) -> tuple[list[dict], list[str]]:
    """Figs. 12.5, 12.6 and 12.8: each pair's two rulebases (each trained against the other site with
    an AWF partner) used against each other on the unseen months, under FCFS and EASY, next to AWF at
    both sites; and Fig. 12.9: the pairwise pool on four sites, SDSC00 unknown (AWF)."""
    rows: list[dict] = []
    md = ["## Figs. 12.5, 12.6, 12.8: each pair's rulebases against each other, unseen months", "",
          "Change against local scheduling with the same LRMS (%; AWRT: positive = better; SA: the "
          "area run at the site over the area submitted there, minus 100 %). RB: both sites use the "
          f"rulebase trained against the other (mean ± sd over seeds 1..{seeds}, then each seed); AWF: "
          "both sites accept when it fits (no seeds).", "",
          "| pair | LRMS | site | RB: AWRT | RB: AWRT per seed | RB: SA | AWF: AWRT | AWF: SA "
          "| RB - AWF (AWRT points) |", "|" + "---|" * 9]
    for (k, l), lrms in itertools.product(itertools.combinations(PAIRWISE, 2), TEST_LRMS):
        scenario = Scenario.from_spec(test_window((k, l)), lrms=lrms)
        learned = [_changes(scenario, FuzzyPolicy({0: pairwise_rulebase(runs_dir, k, l, s),
                                                   1: pairwise_rulebase(runs_dir, l, k, s)}))
                   for s in range(1, seeds + 1)]
        awf = _changes(scenario, AcceptWhenFit())
        for i, site in enumerate((k, l)):
            awrt = _spread([run[i]["awrt_pct"] for run in learned])
            sa = _spread([run[i]["sa_pct"] for run in learned])
            rows.append({"pair": f"{k}+{l}", "lrms": lrms, "site": site, "rb_awrt": awrt, "rb_sa": sa,
                         "awf_awrt_pct": round(awf[i]["awrt_pct"], 2),
                         "awf_sa_pct": round(awf[i]["sa_pct"], 2)})
            per_seed = " / ".join(f"{v:+.1f}" for v in awrt["per_seed"])
            md.append(f"| {k} + {l} | {lrms} | {site} | {_cell(awrt)} | {per_seed} | {_cell(sa)} | "
                      f"{awf[i]['awrt_pct']:+.1f} | {awf[i]['sa_pct']:+.1f} | "
                      f"{awrt['mean_pct'] - awf[i]['awrt_pct']:+.1f} |")
    improvement_plot(IMAGES / "pairs_unseen.png",
                     [{"window": policy, "lrms": r["lrms"], "site": f"{r['site']} ({r['pair']})",
                       "improvement_pct": value, "std_pct": spread}
                      for r in rows for policy, value, spread in
                      (("RB", r["rb_awrt"]["mean_pct"], r["rb_awrt"]["std_pct"]),
                       ("AWF", r["awf_awrt_pct"], 0.0))])
    pools = [[pairwise_rulebase(runs_dir, k, l, s) for k, l in itertools.permutations(PAIRWISE, 2)]
             for s in range(1, seeds + 1)]
    md += ["", f"## Fig. 12.9: the pairwise pool on {' + '.join(FOUR_SITES)}, SDSC00 unknown (AWF), "
           "unseen months (AWRT location policy)", "",
           "| LRMS | site | AWRT | SA | dissertation |", "|---|---|---|---|---|"]
    for lrms in TEST_LRMS:
        scenario = Scenario.from_spec(test_window(FOUR_SITES), lrms=lrms)
        sizes = [w.machine_procs for w in scenario.workloads]
        runs = [_changes(scenario, FuzzyPolicy(pool_for_sites(pool, sizes), location="awrt"))
                for pool in pools]
        for i, site in enumerate(FOUR_SITES):
            awrt = _spread([run[i]["awrt_pct"] for run in runs])
            sa = _spread([run[i]["sa_pct"] for run in runs])
            rows.append({"grid": "+".join(FOUR_SITES), "lrms": lrms, "site": site, "awrt": awrt, "sa": sa})
            theirs = "every site AWRT >= +10 %" if lrms == "fcfs" else "-"
            per_seed = " / ".join(f"{v:+.1f}" for v in awrt["per_seed"])
            md.append(f"| {lrms} | {site} | {_cell(awrt)} ({per_seed}) | {_cell(sa)} | {theirs} |")
    return rows, md + [""]


def report(seeds: int, runs_dir: Path, parts: tuple[str, ...] = ()) -> None:
    """Write the results of every part (or of ``parts``) to ``RESULTS[windows]``."""
    out = RESULTS[WINDOWS["style"]]
    out.mkdir(parents=True, exist_ok=True)
    windows = "the dissertation's cuts" if WINDOWS["style"] == "lepping" else "30-day months"
    results, md = {}, ["# The dissertation's grids: learned policies (generated by "
                       f"`experiments/dissertation_grids.py report`; windows: {windows})", ""]
    for name, part in (("coevolution", report_coevolution), ("pairwise", report_pairwise),
                       ("pool", report_pool), ("pairs", report_pairs),
                       ("coevolution4", report_four_sites), ("coevolution5", report_five_sites),
                       ("ea_vs_coea", report_ea_vs_coea)):
        if parts and name not in parts:
            continue
        results[name], lines = part(seeds, runs_dir)
        md += lines
        print("\n".join(lines), flush=True)
    if parts and (out / "results.json").exists():  # keep the parts not reported this time
        results = {**json.loads((out / "results.json").read_text()), **results}
        md = _merge_sections((out / "results.md").read_text().split("\n"), md)
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    (out / "results.md").write_text("\n".join(md))


def _merge_sections(old: list[str], new: list[str]) -> list[str]:
    """``old`` markdown with each ``## `` section of ``new`` in place of the one with the same heading
    (appended where there is none); the title is ``new``'s."""
    def sections(lines: list[str]) -> tuple[list[str], dict[str, list[str]]]:
        head, found, current = [], {}, None
        for line in lines:
            if line.startswith("## "):
                current = found[line] = [line]
            elif current is None:
                head.append(line)
            else:
                current.append(line)
        return head, found

    _, merged = sections(old)
    head, fresh = sections(new)
    merged.update(fresh)
    return head + [line for section in merged.values() for line in section]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("phase", choices=["train", "report", "all"], nargs="?", default="all")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--runs", type=Path, help="where the run directories go (default: "
                        "runs/experiments/dissertation, with --windows days .../dissertation_days)")
    parser.add_argument("--windows", choices=["lepping", "days"], default="lepping",
                        help="the dissertation's cuts (default) or 30-day months")
    parser.add_argument("--only", default="", help="train (report) only these sets (parts), comma-separated: "
                        "coevolution, pairwise, coevolution4, coevolution5, ea_vs_coea_coevolution, "
                        "ea_vs_coea_joint (report: coevolution, pairwise, pool, pairs, coevolution4, "
                        "coevolution5, ea_vs_coea)")
    parser.add_argument("--workers", type=int, default=2, help="loky worker processes")
    args = parser.parse_args()
    WINDOWS["style"] = args.windows
    if args.runs is None:
        args.runs = RUNS if args.windows == "lepping" else RUNS.with_name("dissertation_days")
    only = tuple(s for s in args.only.split(",") if s)
    if args.phase in ("train", "all"):
        train(args.seeds, args.runs, only, args.workers)
    if args.phase in ("report", "all"):
        report(args.seeds, args.runs, only)


if __name__ == "__main__":
    main()
