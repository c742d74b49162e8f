"""Why a seed's pairwise pool fails on the unseen cuts (docs/results.md, "The pairwise pool on the
unseen cuts"): per site, where its jobs ran, what it took from whom and how long that waited; the
queue (NWP) at which each site decided with each partner on the test cuts against the NWP its rulebase
saw in training (against an AWF partner); and the rulebase's answer over NWP.

Run after ``python experiments/dissertation_grids.py train --only pairwise --seeds N --workers 1``:
``python experiments/pool_failure.py SEED [SEED ...] [--runs DIR] [--sites KTH,SDSC05]`` (seconds;
``--sites``: a grid of some of the pairwise sites, such as one pair whose two rulebases face each
other, Figs. 12.5 and 12.6). ``--coevolved RUN ...``: a co-evolution run's rulebases instead (one per
site, for every partner; a site without one runs AWF), such as Table 13.2's grid with SDSC00 unknown:
``--sites SDSC00,CTC,SDSC05 --coevolved DIR/ea_vs_coea_coevolution/seed3``.

``--guard``: instead, each grid's AWRT change against local FCFS per site with the rules answering
everywhere (the dissertation), with the guard at the rulebases' declared ranges (``outside_range =
"awf"``: beyond NWP 10 a decision is AWF's), and with the guard at the NWP range each rulebase saw in
its training, or at every feature's (docs/training.md, "Beyond the trained range"). ``--coevolved``
then also takes a directory of shipped rulebases (``trained_rulebases/coevolved/ctc_sdsc03_sdsc05``).
"""

from __future__ import annotations

import argparse
import functools
import itertools
from pathlib import Path

import numpy as np
from dissertation_grids import PAIRWISE, RUNS, pairwise_rulebase, run_rulebases, site_name, test_window

from evogrid.policy.rulebase import Rulebase
from evogrid.policy.strategies import FuzzyPolicy, Local, pool_for_sites, simulate
from evogrid.sim.scenario import Scenario

HOUR = 3600
NWP_GRID = (0, 1, 2, 4, 6, 8, 10, 12, 15, 20, 40)


def training_nwp(training: Scenario, policy: FuzzyPolicy) -> dict[str, np.ndarray]:
    """Per site, the NWP at every decision it made on the training windows under ``policy``."""
    return {site: x[:, 0] for site, x in training_points(training, policy).items()}


def training_points(training: Scenario, policy: FuzzyPolicy) -> dict[str, np.ndarray]:
    """Per site, the features (NWP, NJP: the pool's) at every decision it made on the training
    windows under ``policy``."""
    d = simulate(training, policy, record_decisions=True).schedule.decisions
    return {site_name(w.name): d.x[d.site == k, :2] for k, w in enumerate(training.workloads)}


def report(runs: Path, seed: int, sites: tuple[str, ...] = PAIRWISE) -> None:
    """Seed ``seed``'s pairwise rulebases on ``sites`` (each trained against an AWF partner); a site
    nobody was trained for runs AWF, and the others use with it the rulebase trained against the
    partner nearest its size (``pool_for_sites``)."""
    scenario = Scenario.from_spec(test_window(sites), lrms="fcfs")
    size = {site_name(w.name): w.machine_procs for w in scenario.workloads}
    trained = [s for s in sites if s in PAIRWISE]
    pool = [pairwise_rulebase(runs, k, l, seed) for k, l in itertools.permutations(trained, 2)]
    policy = FuzzyPolicy(pool_for_sites(pool, list(size.values())),
                         location="awrt" if len(sites) > 2 else "fixed")

    def partner(k: str, l: str) -> str:
        return min((s for s in trained if s != k), key=lambda s: abs(size[s] - size[l]))

    @functools.cache
    def seen(k: str, l: str) -> np.ndarray:  # one training run per pair, however many partners map to it
        training = Scenario.from_spec(f"lepping:{k}-5+lepping:{l}-5", lrms="fcfs")
        return training_nwp(training, FuzzyPolicy({0: [pairwise_rulebase(runs, k, l, seed)]}))[k]

    describe(f"seed {seed}", scenario, policy,
             lambda k, l: pairwise_rulebase(runs, k, partner(k, l), seed) if k in trained else None,
             lambda k, l: seen(k, partner(k, l)))


def report_coevolved(run: Path, sites: tuple[str, ...]) -> None:
    """A co-evolution run's rulebases (one per site, for every partner) on ``sites``' unseen months;
    sites it has no rulebase for run AWF. Training NWP: on the run's own training grid."""
    scenario = Scenario.from_spec(test_window(sites), lrms="fcfs")
    rulebases = run_rulebases(run, scenario)
    trained_on = next(iter(rulebases.values())).provenance["trained_on"]
    training = Scenario.from_spec(trained_on, lrms="fcfs")
    seen = training_nwp(training, FuzzyPolicy(run_rulebases(run, training), location="awrt"))
    by_name = {site_name(scenario.workloads[k].name): rb for k, rb in rulebases.items()}
    describe(str(run), scenario, FuzzyPolicy(rulebases, location="awrt"), lambda k, l: by_name.get(k),
             lambda k, l: seen[k])


def narrowed(rb: Rulebase, seen: np.ndarray, every_feature: bool = False) -> Rulebase:
    """``rb`` with its NWP range narrowed to the NWP its training showed it (``seen``: the (NWP, NJP)
    of its decisions there), from 0; ``every_feature``: every range to the least and largest value
    seen, as ``Rulebase.with_trained_ranges`` does for rulebases that record them."""
    if tuple(rb.features) != ("NWP", "NJP"):
        raise ValueError(f"expected a rulebase over NWP and NJP, not {rb.features}")
    if every_feature:
        ranges = np.stack([seen.min(axis=0), seen.max(axis=0)], axis=1)
    else:
        ranges = rb.ranges.copy()
        ranges[0] = (min(0.0, seen[:, 0].min()), seen[:, 0].max())
    return Rulebase(rb.features, ranges, rb.centers, rb.widths, rb.consequents, rb.provenance)


def guard_rows(title: str, scenario: Scenario, policies: dict[str, FuzzyPolicy]) -> None:
    """One line per policy: the AWRT change against local per site."""
    print(f"\n## {title}\n")
    names = [site_name(w.name) for w in scenario.workloads]
    print("| rules beyond the ranges | " + " | ".join(names) + " |\n|" + "---|" * (len(names) + 1))
    for label, policy in policies.items():
        rows = simulate(scenario, policy).metrics()
        print(f"| {label} | " + " | ".join(f"{r['delta_awrt_pct']:+.1f} %" for r in rows) + " |")


def guard_pairwise(runs: Path, seed: int, sites: tuple[str, ...]) -> None:
    """Seed ``seed``'s pairwise pool on ``sites``' unseen cuts, without and with the guard."""
    scenario = Scenario.from_spec(test_window(sites), lrms="fcfs")
    sizes = [w.machine_procs for w in scenario.workloads]
    trained = [s for s in sites if s in PAIRWISE]
    pairs = list(itertools.permutations(trained, 2))
    pool = [pairwise_rulebase(runs, k, l, seed) for k, l in pairs]
    seen = [training_points(Scenario.from_spec(f"lepping:{k}-5+lepping:{l}-5", lrms="fcfs"),
                            FuzzyPolicy({0: [rb]}))[k] for (k, l), rb in zip(pairs, pool, strict=True)]
    tight = [narrowed(rb, x) for rb, x in zip(pool, seen, strict=True)]
    every = [narrowed(rb, x, every_feature=True) for rb, x in zip(pool, seen, strict=True)]
    location = "awrt" if len(sites) > 2 else "fixed"
    guard_rows(f"seed {seed}, {' + '.join(sites)}, unseen cuts, FCFS", scenario, {
        "rules (the dissertation)": FuzzyPolicy(pool_for_sites(pool, sizes), location=location),
        "AWF beyond the declared ranges": FuzzyPolicy(pool_for_sites(pool, sizes), location=location,
                                                      outside_range="awf"),
        "AWF beyond the NWP seen in training": FuzzyPolicy(pool_for_sites(tight, sizes), location=location,
                                                           outside_range="awf"),
        "AWF beyond every feature seen in training": FuzzyPolicy(pool_for_sites(every, sizes),
                                                                 location=location, outside_range="awf")})


def guard_coevolved(run: Path, sites: tuple[str, ...]) -> None:
    """A co-evolution run's (or a shipped directory's) rulebases on ``sites``' unseen months, without
    and with the guard; training NWP on the grid they were trained on."""
    scenario = Scenario.from_spec(test_window(sites), lrms="fcfs")
    folder = run / "rulebases" if (run / "rulebases").is_dir() else run
    found = [Rulebase.load(f) for f in sorted(folder.glob("*.json"))]
    training = Scenario.from_spec(found[0].provenance["trained_on"], lrms="fcfs")
    names = [site_name(w.name) for w in training.workloads]
    by_training = {names.index(site_name(rb.provenance["site"])): rb for rb in found}
    seen = training_points(training, FuzzyPolicy(by_training, location="awrt"))
    here = [site_name(w.name) for w in scenario.workloads]
    by_site = {here.index(site_name(rb.provenance["site"])): rb for rb in found
               if site_name(rb.provenance["site"]) in here}
    tight = {k: narrowed(rb, seen[here[k]]) for k, rb in by_site.items()}
    every = {k: narrowed(rb, seen[here[k]], every_feature=True) for k, rb in by_site.items()}
    guard_rows(f"{run.parent.name}/{run.name}, {' + '.join(sites)}, unseen months, FCFS", scenario, {
        "rules (the dissertation)": FuzzyPolicy(by_site, location="awrt"),
        "AWF beyond the declared ranges": FuzzyPolicy(by_site, location="awrt", outside_range="awf"),
        "AWF beyond the NWP seen in training": FuzzyPolicy(tight, location="awrt", outside_range="awf"),
        "AWF beyond every feature seen in training": FuzzyPolicy(every, location="awrt",
                                                                 outside_range="awf")})


def describe(title: str, scenario: Scenario, policy: FuzzyPolicy, rulebase_of, training_nwp) -> None:
    """Per site: where its jobs ran, what it took from whom and how long that waited, and with each
    partner the NWP at its decisions against the NWP it saw in training (``training_nwp(site,
    partner)``) and the answer of its rulebase (``rulebase_of(site, partner)``) over NWP."""
    sites = [site_name(w.name) for w in scenario.workloads]
    res = simulate(scenario, policy, record_decisions=True)
    local = simulate(scenario, Local()).schedule
    sch, jobs, d = res.schedule, res.schedule.jobs, res.schedule.decisions
    wait, area = (sch.start - jobs.submit) / HOUR, jobs.procs * jobs.run_time
    deltas = ", ".join(f"{r['site']} {r['delta_awrt_pct']:+.1f} %" for r in res.metrics())
    print(f"\n## {title}: {deltas}")
    for k, name in enumerate(sites):
        here, mine = sch.site == k, jobs.origin == k
        own_local = ((local.start - local.jobs.submit) / HOUR)[local.jobs.origin == k]
        away = 100 * area[mine & ~here].sum() / area[mine].sum()
        print(f"- {name}: own area run elsewhere {away:.1f} %; own jobs' mean wait {wait[mine].mean():.2f} h "
              f"(local {own_local.mean():.2f} h)")
        for l, other in enumerate(sites):
            took = here & (jobs.origin == l)
            if l != k and took.any():
                print(f"  - took {took.sum()} of {other}'s jobs: mean width {jobs.procs[took].mean():.1f}, "
                      f"mean wait here {wait[took].mean():.1f} h")
        months = jobs.submit[here] // (30 * 24 * HOUR)
        print("  - mean wait of the jobs run here by 30-day month (h): "
              + " ".join(f"{wait[here][months == m].mean():.1f}" for m in range(months.max() + 1)))
        for l, other in enumerate(sites):
            sel = (d.site == k) & (d.partner == l)
            if l == k or not sel.any() or (rb := rulebase_of(name, other)) is None:
                continue
            seen, nwp = training_nwp(name, other), d.x[sel, 0]
            print(f"  - with {other}: {sel.sum()} decisions, accept {np.mean(d.y[sel] > 0):.2f}, NWP mean "
                  f"{nwp.mean():.2f} max {nwp.max():.2f}; in training NWP max {seen.max():.2f}")
            for njp in (0.02, 0.1, 0.2, 0.5):
                answers = "".join("+" if rb.accepts(np.array([[x, njp]]))[0] else "." for x in NWP_GRID)
                print(f"    - NJP {njp}: accepts at NWP {', '.join(map(str, NWP_GRID))}: {answers}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("seeds", type=int, nargs="*", help="pairwise seeds")
    parser.add_argument("--runs", type=Path, default=RUNS, help="the run directories (default: %(default)s)")
    parser.add_argument("--sites", default=",".join(PAIRWISE), help="the grid (default: %(default)s)")
    parser.add_argument("--coevolved", type=Path, nargs="*", default=[],
                        help="co-evolution run directories to look at instead (their rulebases on --sites)")
    parser.add_argument("--guard", action="store_true",
                        help="compare the rules beyond their ranges with the guard (module docstring)")
    args = parser.parse_args()
    if args.guard:
        for s in args.seeds:
            guard_pairwise(args.runs, s, tuple(args.sites.split(",")))
        for run in args.coevolved:
            guard_coevolved(run, tuple(args.sites.split(",")))
        raise SystemExit(0)
    for s in args.seeds:
        report(args.runs, s, tuple(args.sites.split(",")))
    for run in args.coevolved:
        report_coevolved(run, tuple(args.sites.split(",")))
