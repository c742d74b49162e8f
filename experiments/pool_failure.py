"""Why a seed's pairwise pool fails on the unseen cuts (docs/results.md, "The pairwise pool on the
unseen cuts"): per site, where its jobs ran, what it took from whom and how long that waited; the
queue (NWP) at which each site decided with each partner on the test cuts against the NWP its rulebase
saw in training (against an AWF partner); and the rulebase's answer over NWP.

Run after ``python experiments/dissertation_grids.py train --only pairwise --seeds N --workers 1``:
``python experiments/pool_failure.py SEED [SEED ...] [--runs DIR] [--sites KTH,SDSC05]`` (seconds;
``--sites``: a grid of some of the pairwise sites, such as one pair whose two rulebases face each
other, Figs. 12.5 and 12.6).
"""

from __future__ import annotations

import argparse
import itertools
from pathlib import Path

import numpy as np
from dissertation_grids import PAIRWISE, RUNS, test_window

from evogrid.policy.rulebase import Rulebase
from evogrid.policy.strategies import FuzzyPolicy, Local, pool_for_sites, simulate
from evogrid.sim.scenario import Scenario

HOUR = 3600
NWP_GRID = (0, 1, 2, 4, 6, 8, 10, 12, 15, 20, 40)


def rulebase(runs: Path, k: str, l: str, seed: int) -> Rulebase:
    found = (runs / "pairwise" / f"{k}_vs_{l}" / f"seed{seed}" / "rulebases").glob("*.json")
    return Rulebase.load(next(found))


def report(runs: Path, seed: int, sites: tuple[str, ...] = PAIRWISE) -> None:
    scenario = Scenario.from_spec(test_window(sites), lrms="fcfs")
    pool = [rulebase(runs, k, l, seed) for k, l in itertools.permutations(sites, 2)]
    rulebases = pool_for_sites(pool, [w.machine_procs for w in scenario.workloads])
    res = simulate(scenario, FuzzyPolicy(rulebases, location="awrt" if len(sites) > 2 else "fixed"),
                   record_decisions=True)
    local = simulate(scenario, Local()).schedule
    sch, jobs, d = res.schedule, res.schedule.jobs, res.schedule.decisions
    wait, area = (sch.start - jobs.submit) / HOUR, jobs.procs * jobs.run_time
    deltas = ", ".join(f"{r['site']} {r['delta_awrt_pct']:+.1f} %" for r in res.metrics())
    print(f"\n## seed {seed}: {deltas}")
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
            if l == k or not sel.any():
                continue
            rb = rulebase(runs, name, other, seed)
            training = Scenario.from_spec(f"lepping:{name}-5+lepping:{other}-5", lrms="fcfs")
            trained = simulate(training, FuzzyPolicy({0: [rb]}, location="fixed"), record_decisions=True)
            seen = trained.schedule.decisions.x[trained.schedule.decisions.site == 0, 0]
            nwp = d.x[sel, 0]
            print(f"  - with {other}: {sel.sum()} decisions, accept {np.mean(d.y[sel] > 0):.2f}, NWP mean "
                  f"{nwp.mean():.2f} max {nwp.max():.2f}; in training NWP max {seen.max():.2f}")
            for njp in (0.02, 0.1, 0.2, 0.5):
                answers = "".join("+" if rb.accepts(np.array([[nwp, njp]]))[0] else "." for nwp in NWP_GRID)
                print(f"    - NJP {njp}: accepts at NWP {', '.join(map(str, NWP_GRID))}: {answers}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("seeds", type=int, nargs="+")
    parser.add_argument("--runs", type=Path, default=RUNS, help="the run directories (default: %(default)s)")
    parser.add_argument("--sites", default=",".join(PAIRWISE), help="the grid (default: %(default)s)")
    args = parser.parse_args()
    for s in args.seeds:
        report(args.runs, s, tuple(args.sites.split(",")))
