"""The dissertation's central pool and active request (Tables 8.2, 8.3, 9.2, 9.3 and 10.1, Figs.
8.2-8.7, 9.3, 9.4, 11.3 and 11.4) side by side, on its own cuts of the logs, with both pool arrival rules
(docs/results.md, "Tables 8.2, 8.3, 9.2, 9.3 and 10.1").

Run: ``.venv/bin/python experiments/dissertation_pool.py [--tables 8.2,8.2-8.5,8.3,...]``
(about 2 minutes; ``--tables``: only these, of TABLES below; 9.2 prints Tables 9.2 and 9.3
together; the figures' plots go to ``experiments/results/dissertation_pool/``)

Each site is the dissertation's cut of its log (evogrid.workload.dissertation). Per algorithm
(FCFS-JS, EASY-JS, LIST-JS), scenario and site: AWRT, U, C_max, SA, Delta AWRT (against the same
LRMS locally), Delta_b AWRT (against local EASY, the dissertation's "best local algorithm") and the
share of its jobs that
ran at home (M_n's diagonal); ours with arrivals ``first`` (the published rule, the default) and
``queued`` (evogrid's variant), theirs as published. The active request with both of its rules
(Tables 9.2, 9.3 and 10.1; and Fig. 11.4, scenario 9 under EASY and FCFS, against AWF):
``queue`` (the published one, the default), ``start`` and ``fits`` (evogrid's); the pool's arrival rules
``first`` (published), ``queued`` and ``first-pool`` (evogrid's). Where the printed table has a
typo, the value used is stated in PUBLISHED's comments.
"""

import argparse
from pathlib import Path

import numpy as np

import evogrid as eg
from evogrid.plots import grouped_bars_plot, quantile_box_plot
from evogrid.sim.metrics import awrt_per_site, moved_share_by_width, queue_length_over_time
from evogrid.sim.scenario import Scenario
from evogrid.workload.dissertation import dissertation_cut

SCENARIOS = {1: (("KTH", 11), ("SDSC00", 11)), 2: (("LANL96", 24), ("SDSC03", 24)),
             3: (("LANL96", 24), ("SDSC00", 24))}
#: Table 8.2: per LRMS, per scenario, per site: (AWRT s, U %, C_max s, SA, Delta AWRT %, Delta_b AWRT %,
#: M_n diagonal %). Typos of the printed table read as: FCFS-JS scenario 1 AWRT "12.8043,42" =
#: 128,043.42 and C_max "2.957.587" (site 2) kept as printed; scenario 3 AWRT "14277,15" = 14,277.15,
#: SA "449.8547.287" = 4,498,547,287; FCFS-JS scenario 2 Delta "100,00" kept as printed (its AWRT
#: gives -173 %); LIST-JS scenario 2 prints SDSC03's SA "49.172.388.088" for LANL96 too, kept as
#: printed (its own U and C_max give about 4.05e10).
PUBLISHED = {
    "fcfs": {1: ((128_043.42, 70.12, 29_571_802, 2_073_589_120, 69.38, -70.37, 82.86),
                 (139_380.14, 72.94, 2_957_587, 2_724_164_663, 47.72, -89.36, 86.05)),
             2: ((33_487.04, 64.59, 62_440_050, 41_300_491_136, 100.00, -201.55, 88.69),
                 (67_584.37, 65.44, 64_151_102, 48_359_131_320, 59.33, 4.51, 90.49)),
             3: ((14_277.15, 58.91, 62_303_391, 37_584_312_832, -16.40, -28.56, 97.35),
                 (40_764.89, 55.57, 63_638_145, 4_498_547_287, 98.17, 63.62, 84.59))},
    "easy": {1: ((66_115.56, 68.95, 29_363_626, 2_024_644_907, 12.03, 12.03, 79.63),
                 (59_015.97, 74.80, 29_364_791, 2_773_108_876, 19.82, 19.82, 84.96)),
             2: ((13_579.91, 63.20, 62_303_135, 40_318_878_368, -22.28, -22.28, 88.69),
                 (54_019.88, 67.24, 63_694_187, 49_340_744_088, 23.67, 23.67, 90.01)),
             3: ((12_583.95, 58.33, 62_292_428, 37_204_951_541, -13.32, -13.32, 97.21),
                 (41_441.88, 60.28, 63_618_367, 4_877_908_578, 63.01, 63.01, 82.99))},
    "list": {1: ((61_016.52, 68.98, 29_363_626, 2_025_505_127, 24.16, 18.82, 77.77),
                 (58_354.18, 74.84, 29_339_969, 2_772_248_656, 21.70, 20.72, 80.39)),
             2: ((13_509.25, 63.45, 62_317_990, 49_172_388_088, -15.93, -21.65, 83.20),
                 (51_150.19, 67.01, 63_694_095, 49_172_388_088, 29.17, 27.73, 88.65)),
             3: ((13_001.56, 59.11, 62_303_391, 37_711_932_960, -11.52, -17.08, 96.62),
                 (38_655.67, 54.04, 63_588_898, 4_370_927_159, 66.75, 65.50, 85.12))},
}
#: Table 8.3 (LIST-JS, three sites, against local EASY): scenario -> per site (cut, AWRT s,
#: Delta AWRT % against local EASY, M_n diagonal %).
TABLE_8_3 = {
    5: ((("KTH", 11), 53_667.36, 28.59, 73.93), (("CTC", 11), 53_030.53, -0.17, 87.74),
        (("SDSC00", 11), 42_517.13, 42.24, 78.61)),
    7: ((("KTH", 11), 52_272.68, 30.45, 80.30), (("SDSC00", 11), 40_556.50, 44.90, 80.51),
        (("SDSC05", 11), 54_048.42, 1.65, 93.81)),
}
#: Table 9.2 (active request, EASY, three sites): scenario -> per site (cut, AWRT s, Delta AWRT % against
#: local EASY, M_n diagonal %); Table 9.3: per site (mean, sd, max of the moves per job).
TABLE_9_2 = {
    5: ((("KTH", 11), 56_098.42, 25.36, 72.72), (("CTC", 11), 50_453.40, 4.69, 87.53),
        (("SDSC00", 11), 45_128.33, 38.69, 75.59)),
    8: ((("KTH", 11), 53_168.72, 29.26, 77.14), (("SDSC03", 11), 42_486.89, 16.32, 83.71),
        (("SDSC05", 11), 49_091.71, 10.67, 86.13)),
}
TABLE_9_3 = {5: ((0.78, 2.45, 59), (0.82, 3.27, 73), (0.71, 2.47, 80)),
             8: ((0.52, 2.13, 85), (0.66, 2.75, 96), (0.97, 3.93, 112)),
             9: ((0.51, 2.07, 88), (0.57, 2.48, 75), (0.48, 2.00, 97), (0.83, 2.94, 68), (1.25, 4.58, 112))}
#: Scenario 9 (Table 9.1): all five logs; chapter 9 gives its moves (Table 9.3), its AWRT only as a figure.
SCENARIO_9 = (("KTH", 11), ("CTC", 11), ("SDSC00", 11), ("SDSC03", 11), ("SDSC05", 11))
#: The active request's rules and the pool's arrival rules: the published one first.
TAKE_RULES = ("queue", "start", "fits")
ARRIVAL_RULES = ("first", "queued", "first-pool")
#: Table 10.1 (EASY at both sites): setup -> (cuts, pool AWRT per site, active request AWRT per site), s.
TABLE_10_1 = {
    "I": ((("KTH", 11), ("SDSC00", 11)), (63_011.46, 58_772.48), (61_448.95, 57_918.61)),
    "II": ((("KTH", 11), ("CTC", 11)), (58_056.65, 51_742.31), (55_462.28, 51_347.65)),
    "III": ((("KTH", 11), ("SDSC03", 11)), (58_497.60, 50_809.59), (55_527.87, 50_601.24)),
    "IV": ((("SDSC03", 11), ("SDSC05", 11)), (43_731.50, 48_628.57), (44_264.10, 46_498.92)),
}


def cut_scenario(name: str, cuts, lrms: str) -> Scenario:
    """A scenario of the dissertation's cuts ``(log, months)``, one site each, all with ``lrms``."""
    return Scenario(name, tuple(dissertation_cut(*c) for c in cuts), (lrms,) * len(cuts))


def ours(scenario: Scenario, arrivals: str) -> list[tuple[float, ...]]:
    """Per site: the quantities of PUBLISHED, for the pool with ``arrivals``."""
    return ours_of(eg.simulate(scenario, eg.CentralPool(arrivals=arrivals)))


def ours_of(result: eg.Result) -> list[tuple[float, ...]]:
    """Per site of a simulated grid: the quantities of PUBLISHED."""
    summary = result.to_dict()
    m_n = summary["migration_n"]
    rows = []
    for k, (row, best) in enumerate(zip(summary["sites"], summary["delta_b"]["sites"], strict=True)):
        rows.append((row["awrt"], 100 * row["utilization"], row["makespan"], row["sa"],
                     row["delta_awrt_pct"], best["delta_awrt_pct"], 100 * m_n[k][k]))
    return rows


def row_cells(mine: tuple[float, ...], theirs: tuple[float, ...]) -> str:
    """One table row's values, ours / theirs."""
    awrt = f"{mine[0]:,.0f} / {theirs[0]:,.0f} ({100 * (mine[0] / theirs[0] - 1):+.1f} %)"
    return " | ".join([awrt, f"{mine[1]:.2f} / {theirs[1]:.2f}", f"{mine[2]:,} / {theirs[2]:,}",
                       f"{mine[3]:.4g} / {theirs[3]:.4g}", f"{mine[4]:+.2f} / {theirs[4]:+.2f}",
                       f"{mine[5]:+.2f} / {theirs[5]:+.2f}", f"{mine[6]:.2f} / {theirs[6]:.2f}"])


def table_8_2() -> None:
    """Table 8.2: the central pool on the three scenarios, each arrival rule."""
    for arrivals in ARRIVAL_RULES:
        print(f"\nTable 8.2, arrivals {arrivals}: ours / theirs\n")
        print("| pool | scenario | site | AWRT (s) | U (%) | C_max (s) | SA | Delta AWRT (%) | "
              "Delta_b AWRT (%) | jobs at home (%) |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for lrms, scenarios in PUBLISHED.items():
            for number, published in scenarios.items():
                cuts = SCENARIOS[number]
                scenario = cut_scenario(f"8.2 scenario {number}", cuts, lrms)
                mine = ours(scenario, arrivals)
                for (name, months), site, theirs in zip(cuts, mine, published, strict=True):
                    print(f"| {lrms.upper()}-JS | {number} | {name}-{months} | {row_cells(site, theirs)} |")


def table_8_3() -> None:
    """Table 8.3: LIST-JS on three sites, against local EASY."""
    print("\nTable 8.3, LIST-JS on three sites, against local EASY: ours / theirs\n")
    print("| scenario | site | arrivals | AWRT (s) | Delta AWRT vs local EASY (%) | jobs at home (%) |")
    print("|---|---|---|---|---|---|")
    for number, sites in TABLE_8_3.items():
        scenario = cut_scenario(f"8.3 scenario {number}", [cut for cut, *_ in sites], "list")
        for arrivals in ARRIVAL_RULES:
            mine_all = ours(scenario, arrivals)
            for ((name, months), awrt, delta, home), mine in zip(sites, mine_all, strict=True):
                print(f"| {number} | {name}-{months} | {arrivals} | {mine[0]:,.0f} / {awrt:,.0f} "
                      f"({100 * (mine[0] / awrt - 1):+.1f} %) | {mine[5]:+.2f} / {delta:+.2f} | "
                      f"{mine[6]:.2f} / {home:.2f} |")


def tables_9_2_and_9_3() -> None:
    """Tables 9.2 and 9.3: the active request (EASY), each rule, with the moves per job."""
    print("\nTables 9.2 and 9.3, the active request (EASY): ours / theirs\n")
    print("| rule | scenario | site | AWRT (s) | Delta AWRT vs local EASY (%) | jobs at home (%) | "
          "moves per job: mean, sd, max |")
    print("|---|---|---|---|---|---|---|")
    for take in TAKE_RULES:
        for number, moves_published in TABLE_9_3.items():
            sites = TABLE_9_2.get(number, tuple((cut, None, None, None) for cut in SCENARIO_9))
            scenario = cut_scenario(f"9.2 scenario {number}", [cut for cut, *_ in sites], "easy")
            result = eg.simulate(scenario, eg.ActiveRequest(take=take))
            jobs, moves = result.schedule.jobs, result.schedule.moves
            rows = zip(sites, ours_of(result), strict=True)
            for k, (((name, months), awrt, delta, home), mine) in enumerate(rows):
                mean, sd, top = moves_published[k]
                own = moves[jobs.origin == k]
                cells = ([f"{mine[0]:,.0f} / {awrt:,.0f} ({100 * (mine[0] / awrt - 1):+.1f} %)",
                          f"{mine[4]:+.2f} / {delta:+.2f}", f"{mine[6]:.2f} / {home:.2f}"] if awrt else
                         [f"{mine[0]:,.0f} / -", f"{mine[4]:+.2f} / -", f"{mine[6]:.2f} / -"])
                print(f"| {take} | {number} | {name}-{months} | {' | '.join(cells)} | "
                      f"{own.mean():.2f}, {own.std():.2f}, {own.max()} / {mean:.2f}, {sd:.2f}, {top} |")


def table_10_1() -> None:
    """Table 10.1: the pool and the active request with EASY at both sites."""
    print("\nTable 10.1 (EASY at both sites): AWRT ours / theirs (s)\n")
    print("| setup | sites | " + " | ".join(f"pool, arrivals {rule}" for rule in ARRIVAL_RULES) + " | "
          + " | ".join(f"active request, {take}" for take in TAKE_RULES) + " |")
    print("|---|---|" + "---|" * (len(ARRIVAL_RULES) + len(TAKE_RULES)))
    for setup, (cuts, pool, active) in TABLE_10_1.items():
        scenario = cut_scenario(f"10.1 {setup}", cuts, "easy")
        runs = [*((eg.CentralPool(arrivals=rule), pool) for rule in ARRIVAL_RULES),
                *((eg.ActiveRequest(take=take), active) for take in TAKE_RULES)]
        row = []
        for strategy, published in runs:
            metrics = eg.simulate(scenario, strategy).metrics()
            row.append(" / ".join(f"{m['awrt']:,.0f} ({100 * (m['awrt'] / p - 1):+.1f} %)"
                                  for m, p in zip(metrics, published, strict=True)))
        sites = " + ".join(f"{n}-{m}" for n, m in cuts)
        print(f"| {setup} | {sites} | {' | '.join(row)} |")
    print("\nTable 10.1 with AWRT per executing site (the jobs each site ran, as a partition of "
          "chapter 10 is simulated site by site): ours / theirs (s)\n")
    readings = (("pool, arrivals first", eg.CentralPool(arrivals="first"), 1),
                ("pool, arrivals queued", eg.CentralPool(arrivals="queued"), 1),
                ("active request, queue", eg.ActiveRequest(), 2))
    print("| setup | sites | " + " | ".join(name for name, _, _ in readings) + " |")
    print("|---|---|" + "---|" * len(readings))
    for setup, published in TABLE_10_1.items():
        cuts = published[0]
        scenario = cut_scenario(f"10.1 {setup}", cuts, "easy")
        row = []
        for _, strategy, column in readings:
            schedule = eg.simulate(scenario, strategy).schedule
            # per executing site: each job counts where it ran, not where it was submitted
            executed = awrt_per_site(schedule.jobs, schedule.start, schedule.run_time, by=schedule.site)
            row.append(" / ".join(f"{a:,.0f} ({100 * (a / p - 1):+.1f} %)"
                                  for a, p in zip(executed, published[column], strict=True)))
        print(f"| {setup} | {' + '.join(f'{n}-{m}' for n, m in cuts)} | {' | '.join(row)} |")


def figure_11_4() -> None:
    """Fig. 11.4: scenario 9, AWF against the active request, EASY and FCFS."""
    print("\nFig. 11.4: scenario 9, Delta AWRT against the same LRMS locally (%); the figure's bars are "
          "not printed as numbers, its text says that under FCFS KTH and SDSC00 gain over 80 %, AA "
          "stays good and AWF clearly worsens the large sites\n")
    names = " | ".join(f"{n}-{m}" for n, m in SCENARIO_9)
    print(f"| LRMS | strategy | {names} | moves per job: mean, max |")
    print("|---|---|" + "---|" * (len(SCENARIO_9) + 1))
    for lrms in ("easy", "fcfs"):
        scenario = cut_scenario(f"11.4 {lrms}", SCENARIO_9, lrms)
        for strategy in (eg.AcceptWhenFit(), eg.ActiveRequest()):
            result = eg.simulate(scenario, strategy)
            deltas = " | ".join(f"{row['delta_awrt_pct']:+.1f}" for row in result.to_dict()["sites"])
            moves = result.schedule.moves
            print(f"| {lrms.upper()} | {strategy.label} | {deltas} | {moves.mean():.2f}, {moves.max()} |")


def sa_change(schedule) -> np.ndarray:
    """Per site, the change (%) of its squashed area against its own jobs' (Delta SA)."""
    jobs = schedule.jobs
    area = schedule.run_time.astype(float) * jobs.procs
    own = np.bincount(jobs.origin, weights=area, minlength=jobs.n_sites)
    return 100 * (np.bincount(schedule.site, weights=area, minlength=jobs.n_sites) / own - 1)


def figure_9_3() -> None:
    """Fig. 9.3: the active request (published rule) on scenario 9 under EASY: Delta AWRT and SA."""
    result = eg.simulate(cut_scenario("9.3", SCENARIO_9, "easy"), eg.ActiveRequest())
    print("\nFig. 9.3: scenario 9, the active request, EASY: Delta AWRT / Delta SA against local EASY (%)\n")
    print("| " + " | ".join(f"{n}-{m}" for n, m in SCENARIO_9) + " |")
    print("|" + "---|" * len(SCENARIO_9))
    pairs = zip(result.against_local(), sa_change(result.schedule), strict=True)
    print("| " + " | ".join(f"{row['delta_awrt_pct']:+.1f} / {sa:+.1f}" for row, sa in pairs) + " |")


def figure_11_3() -> None:
    """Fig. 11.3: AWF (fixed order) against the active request on scenarios 5 and 8 under EASY."""
    print("\nFig. 11.3: Delta AWRT against local EASY (%), AWF / active request\n")
    print("| scenario | site | AWF | active request |")
    print("|---|---|---|---|")
    for number in (5, 8):
        cuts = tuple(c for c, *_ in TABLE_9_2[number])
        scenario = cut_scenario(f"11.3 scenario {number}", cuts, "easy")
        awf, aa = (eg.simulate(scenario, s).against_local() for s in (eg.AcceptWhenFit(), eg.ActiveRequest()))
        for (name, months), a, b in zip(cuts, awf, aa, strict=True):
            print(f"| {number} | {name}-{months} | {a['delta_awrt_pct']:+.1f} | {b['delta_awrt_pct']:+.1f} |")


#: Table 8.1's three-site scenarios, as Figs. 8.2-8.5 draw them: scenario -> cuts. Table 8.3 (and the
#: text before Fig. 8.6) label as scenario 5 the sites Table 8.1 gives scenario 6; these follow
#: Table 8.1.
SCENARIOS_8_1 = {6: (("KTH", 11), ("CTC", 11), ("SDSC00", 11)),
                 4: (("LANL96", 13), ("SDSC03", 13), ("SDSC05", 13)),
                 5: (("KTH", 11), ("SDSC00", 11), ("LANL96", 11)),
                 7: (("KTH", 11), ("SDSC00", 11), ("SDSC05", 11)),
                 8: (("KTH", 11), ("SDSC03", 11), ("SDSC05", 11))}


def figures_8_2_to_8_5() -> None:
    """Figs. 8.2-8.5: Delta_b AWRT (against local EASY) and Delta_b SA (the change of each site's
    squashed area against its own jobs') on the three-site scenarios 6, 4 and 5 for the three pools
    (published arrivals), and on scenarios 7 and 8 for LIST-JS."""
    print("\nFigs. 8.2-8.5: Delta_b AWRT against local EASY and Delta_b SA (%), three sites\n")
    print("| figure | scenario | pool | site | Delta_b AWRT (%) | Delta_b SA (%) |")
    print("|---|---|---|---|---|---|")
    panels = {}
    for figure, number, pools in (("8.2", 6, ("fcfs", "easy", "list")), ("8.3", 4, ("fcfs", "easy", "list")),
                                  ("8.4", 5, ("fcfs", "easy", "list")), ("8.5", 7, ("list",)),
                                  ("8.5", 8, ("list",))):
        cuts = SCENARIOS_8_1[number]
        sites = [f"{n}-{m}" for n, m in cuts]
        awrt = np.empty((len(pools), len(cuts)))
        for p, lrms in enumerate(pools):
            scenario = cut_scenario(f"8.1 scenario {number}", cuts, lrms)
            result = eg.simulate(scenario, eg.CentralPool())
            pairs = zip(result.against_local(), sa_change(result.schedule), strict=True)
            for k, (row, sa) in enumerate(pairs):
                awrt[p, k] = row["delta_awrt_pct"]
                print(f"| {figure} | {number} | {lrms.upper()}-JS | {sites[k]} | {awrt[p, k]:+.1f} | "
                      f"{sa:+.1f} |")
        panels[f"Fig. {figure}, scenario {number}"] = ([f"{lrms.upper()}-JS" for lrms in pools], sites, awrt)
    print(grouped_bars_plot(FIGURES / "fig_8_2_to_8_5.png", panels, "Delta_b AWRT (%)"))

#: Width classes of Figs. 8.6 and 9.4, m_j from each edge to the next minus one (ours: the text does
#: not give the figures' classes): powers of two.
WIDTH_EDGES = (1, 2, 3, 5, 9, 17, 33, 65, 129, 257, 513, 1025, 2049)
WIDTH_LABELS = [f"{lo}" if hi - lo == 1 else f"{lo}-{hi - 1}"
                for lo, hi in zip(WIDTH_EDGES, WIDTH_EDGES[1:], strict=False)]
FIGURES = Path(__file__).with_name("results") / "dissertation_pool"
MOVED_AXES = ("moved (% of the class)", "processors requested (m_j)", (0, 100))


def moved_by_width(title: str, cuts: tuple, lrms: str, strategy) -> tuple[str, tuple]:
    """Print one scenario's shares of moved jobs by width class (its markdown table); returns the
    figure's panel."""
    scenario = cut_scenario(title, cuts, lrms)
    shares = moved_share_by_width(eg.simulate(scenario, strategy).schedule, WIDTH_EDGES)
    sites = [f"{n}-{m}" for n, m in cuts]
    print(f"\n{title}: jobs moved, % of the site's own jobs of the class (-: none submitted)\n")
    print("| site | " + " | ".join(WIDTH_LABELS) + " |")
    print("|---|" + "---|" * len(WIDTH_LABELS))
    for site, row in zip(sites, shares, strict=True):
        print(f"| {site} | " + " | ".join("-" if v != v else f"{v:.0f}" for v in row) + " |")
    return title, (sites, WIDTH_LABELS, shares)


def figure_8_6() -> None:
    """Fig. 8.6: LIST-JS (published arrivals) on scenarios 5 and 7: moved jobs by width."""
    panels = dict(moved_by_width(f"Fig. 8.6, scenario {n}, LIST-JS", tuple(c for c, *_ in TABLE_8_3[n]),
                                 "list", eg.CentralPool()) for n in (5, 7))
    print(f"\n{grouped_bars_plot(FIGURES / 'fig_8_6.png', panels, *MOVED_AXES)}")


def figure_9_4() -> None:
    """Fig. 9.4: the active request (published rule, EASY) on scenarios 5 and 8: moved jobs by width."""
    panels = dict(moved_by_width(f"Fig. 9.4, scenario {n}, active request",
                                 tuple(c for c, *_ in TABLE_9_2[n]), "easy", eg.ActiveRequest())
                  for n in (5, 8))
    print(f"\n{grouped_bars_plot(FIGURES / 'fig_9_4.png', panels, *MOVED_AXES)}")


def figure_8_7() -> None:
    """Fig. 8.7: the pool's length (its waiting jobs at each instant jobs enter or leave it) on the
    two-site scenarios 1-3, per pool algorithm (published arrivals): quantiles 5, 25, 50, 75, 95 %."""
    print("\nFig. 8.7: the pool's length (jobs) at each instant jobs enter or leave it, "
          "quantiles 5 / 25 / 50 / 75 / 95 %, and the mean\n")
    print("| pool | scenario | sites | 5 % | 25 % | median | 75 % | 95 % | mean |")
    print("|---|---|---|---|---|---|---|---|---|")
    groups, medians = {}, {}
    for lrms in ("fcfs", "easy", "list"):
        label = f"{lrms.upper()}-JS"
        groups[label] = []
        for number, cuts in SCENARIOS.items():
            scenario = cut_scenario(f"8.7 scenario {number}", cuts, lrms)
            schedule = eg.simulate(scenario, eg.CentralPool()).schedule
            _, length = queue_length_over_time(schedule, waited_only=True)
            groups[label].append(length)
            q = np.percentile(length, (5, 25, 50, 75, 95))
            medians[label, number] = q[2]
            sites = " + ".join(f"{n}-{m}" for n, m in cuts)
            print(f"| {label} | {number} | {sites} | " + " | ".join(f"{v:,.0f}" for v in q)
                  + f" | {length.mean():,.1f} |")
    longest = [n for n in SCENARIOS if max(("FCFS-JS", "EASY-JS", "LIST-JS"),
                                           key=lambda a: medians[a, n]) == "FCFS-JS"]
    print(f"\nFCFS-JS has the longest pool (median) in scenarios {longest} of {list(SCENARIOS)} (the "
          "dissertation: under FCFS-JS comparatively many jobs gather in the pool)")
    members = [" / ".join(f"{n}-{m}" for n, m in cuts) for cuts in SCENARIOS.values()]
    print(quantile_box_plot(FIGURES / "fig_8_7.png", groups, members, "jobs in the pool",
                            "Fig. 8.7: the pool's length, whiskers at 5 and 95 %"))

#: The tables by the number ``--tables`` takes, in the dissertation's order.
TABLES = {"8.2": table_8_2, "8.2-8.5": figures_8_2_to_8_5, "8.3": table_8_3, "8.6": figure_8_6,
          "8.7": figure_8_7, "9.2": tables_9_2_and_9_3, "9.3": figure_9_3, "9.4": figure_9_4,
          "10.1": table_10_1, "11.3": figure_11_3, "11.4": figure_11_4}


def main(tables: list[str]) -> None:
    """Print ``tables`` (keys of :data:`TABLES`) in markdown."""
    for key in tables:
        TABLES[key]()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default=",".join(TABLES),
                        help=f"comma-separated, of {', '.join(TABLES)} (default: all)")
    chosen = parser.parse_args().tables.split(",")
    if unknown := [t for t in chosen if t not in TABLES]:
        parser.error(f"--tables: unknown {', '.join(unknown)}; expected some of {', '.join(TABLES)}")
    main(chosen)
