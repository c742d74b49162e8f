"""The central pool's two arrival rules against the dissertation's EASY-JS and LIST-JS numbers, on
its own cuts of the logs (docs/results.md, "Which pool arrival rule").

Run: ``.venv/bin/python experiments/pool_arrival_rules.py`` (a few seconds)

Table 8.2's scenarios 1-3 (two sites each) and Table 10.1's scenario III (KTH + SDSC03-11), each site
the dissertation's cut of its log (evogrid.workload.dissertation); per site our AWRT and its
difference to the published one, with arrivals ``first`` (the published rule read literally) and
``queued`` (evogrid's default).
"""

import evogrid as eg
from evogrid.sim.scenario import Scenario
from evogrid.workload.dissertation import dissertation_cut

#: scenario -> (site 1 cut, site 2 cut, {LRMS: published AWRT of site 1 and site 2, s})
PUBLISHED = {
    "8.2 scenario 1": (("KTH", 11), ("SDSC00", 11),
                       {"easy": (66_115.56, 59_015.97), "list": (61_016.52, 58_354.18)}),
    "8.2 scenario 2": (("LANL96", 24), ("SDSC03", 24),
                       {"easy": (13_579.91, 54_019.88), "list": (13_509.25, 51_150.19)}),
    "8.2 scenario 3": (("LANL96", 24), ("SDSC00", 24),
                       {"easy": (12_583.95, 41_441.88), "list": (13_001.56, 38_655.67)}),
    "10.1 III": (("KTH", 11), ("SDSC03", 11), {"easy": (58_497.60, 50_809.59)}),
}


def main() -> None:
    print("| table, scenario | sites | pool | published AWRT (s) | arrivals first | arrivals queued |")
    print("|---|---|---|---|---|---|")
    for label, (a, b, rows) in PUBLISHED.items():
        workloads = (dissertation_cut(*a), dissertation_cut(*b))
        for lrms, published in rows.items():
            scenario = Scenario(label, workloads, (lrms, lrms))
            cells = []
            for arrivals in ("first", "queued"):
                metrics = eg.simulate(scenario, eg.CentralPool(arrivals=arrivals)).metrics()
                cells.append(" / ".join(f"{m['awrt']:,.0f} ({100 * (m['awrt'] / p - 1):+.1f} %)"
                                        for m, p in zip(metrics, published, strict=True)))
            sites = f"{a[0]}-{a[1]} + {b[0]}-{b[1]}"
            print(f"| {label} | {sites} | {lrms.upper()}-JS | {published[0]:,.0f} / {published[1]:,.0f} | "
                  f"{cells[0]} | {cells[1]} |")


if __name__ == "__main__":
    main()
