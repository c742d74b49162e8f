"""Per-site AWRT of the exchange strategies on a two-site grid (docs/results.md).

Run: ``.venv/bin/python experiments/grid_baselines.py [SCENARIO]`` (default
``KTH+SDSC03@0-11``). Local, AWF, EASY-JS and AA run with EASY at both sites,
LIST-JS with LIST; every delta is against local EASY (and LIST-JS also
against local LIST). The pools run twice: with queued arrivals (evogrid's variant)
and with the literal rule (new jobs first), see docs/grid.md. Where the
dissertation reports EASY-JS for the scenario, a table compares both pool
variants with it. Prints a markdown section and writes it, with the full
JSON results, to ``experiments/results/``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from evogrid.policy.strategies import AcceptWhenFit, ActiveRequest, CentralPool, Local, simulate
from evogrid.sim.metrics import improvements, migration_matrices, move_stats
from evogrid.sim.scenario import Scenario

OUT = Path(__file__).with_name("results")

QUEUED, FIRST = "EASY-JS (queued arrivals)", "EASY-JS (arrivals first)"
RUNS = (
    ("local (EASY)", "easy", Local()),
    ("AWF", "easy", AcceptWhenFit()),
    (QUEUED, "easy", CentralPool("queued")),
    (FIRST, "easy", CentralPool("first")),
    ("LIST-JS (queued arrivals)", "list", CentralPool("queued")),
    ("LIST-JS (arrivals first)", "list", CentralPool("first")),
    ("AA", "easy", ActiveRequest()),
)

#: The dissertation's per-site AWRT (s) of EASY-JS (Lepping 2011, Table 10.1 III)
#: and of local EASY (Table 7.3), by scenario.
DISSERTATION = {
    "KTH+SDSC03@0-11": {"EASY-JS": (58_497.60, 50_809.59), "local": (75_157.63, 50_772.48)},
}


def dissertation_table(spec: str, names: list[str], results: dict) -> list[str]:
    """Markdown rows: each EASY-JS variant's AWRT (s) and delta vs local against the dissertation's."""
    ref = DISSERTATION.get(spec)
    if ref is None:
        return []
    lines = ["", "EASY-JS against the dissertation (Table 10.1 III; delta: AWRT improvement over "
             "local EASY, each against its own local):\n"]
    header = " | ".join(f"AWRT {n} ours (s) | dissertation (s) | difference | delta ours / dissertation"
                        for n in names)
    lines.append(f"| pool variant | {header} |")
    lines.append("|---" * (1 + 4 * len(names)) + "|")
    for label in (QUEUED, FIRST):
        cells = []
        for k, row in enumerate(results[label]["sites"]):
            theirs, theirs_local = ref["EASY-JS"][k], ref["local"][k]
            cells.append(f"{row['awrt']:,.0f} | {theirs:,.2f} | {100 * (row['awrt'] / theirs - 1):+.1f} % | "
                         f"{row['delta_awrt_pct']:+.1f} / {100 * (1 - theirs / theirs_local):+.1f} %")
        lines.append(f"| {label} | {' | '.join(cells)} |")
    return lines


def main(spec: str = "KTH+SDSC03@0-11") -> str:
    """Simulate every strategy of RUNS on ``spec``; returns the markdown also written to OUT."""
    base_easy = None
    lines = [f"### {spec}, EASY locally\n"]
    results = {}
    names: list[str] = []
    matrices = []
    for label, lrms, strategy in RUNS:
        scenario = Scenario.from_spec(spec, lrms=lrms)
        names = [w.name for w in scenario.workloads]
        t0 = time.perf_counter()
        res = simulate(scenario, strategy)
        seconds = time.perf_counter() - t0
        rows = res.schedule.metrics()
        if base_easy is None:
            base_easy = rows
            header = " | ".join(f"AWRT {n} (s) | delta {n}" for n in names)
            lines.append(f"| strategy | {header} | jobs moved | moves per job mean / max |")
            lines.append("|---" * (3 + 2 * len(names)) + "|")
        deltas = improvements(base_easy, rows)
        cells = " | ".join(f"{r['awrt']:,.0f} | {d['delta_awrt_pct']:+.1f} %"
                           for r, d in zip(rows, deltas, strict=True))
        mv = move_stats(res.schedule)
        lines.append(f"| {label} | {cells} | {mv['jobs_moved']:,} | {mv['mean']:.3f} / {mv['max']} |")
        m_n, m_sa = migration_matrices(res.schedule)
        matrices.append((label, m_n, m_sa))
        results[label] = {**res.to_dict(), "seconds": seconds,
                          "delta_vs_local_easy": deltas}
        if lrms == "list":
            own = improvements(res.baseline.metrics(), rows)
            results[label]["delta_vs_local_list"] = own
            note = ", ".join(f"{n} {d['delta_awrt_pct']:+.1f} %" for n, d in zip(names, own, strict=True))
            lines.append(f"| (the row above vs local LIST: {note}) |" + " |" * (2 + 2 * len(names)))
    lines.append("")
    lines.append("Migration matrices (row: submitted at, column: ran at; M_n by jobs / M_SA by area):\n")
    lines.append("| strategy | " + " | ".join(f"{a} -> {b}" for a in names for b in names) + " |")
    lines.append("|---" * (1 + len(names) ** 2) + "|")
    for label, m_n, m_sa in matrices[1:]:
        cells = " | ".join(f"{100 * m_n[i, j]:.1f} / {100 * m_sa[i, j]:.1f} %"
                           for i in range(len(names)) for j in range(len(names)))
        lines.append(f"| {label} | {cells} |")
    lines += dissertation_table(spec, names, results)
    text = "\n".join(lines) + "\n"
    OUT.mkdir(exist_ok=True)
    stem = spec.replace("+", "_").replace("@", "at")
    (OUT / f"grid_baselines_{stem}.md").write_text(text)
    (OUT / f"grid_baselines_{stem}.json").write_text(json.dumps(results, indent=2))
    print(text)
    return text


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario", nargs="?", default="KTH+SDSC03@0-11",
                        help="two-site scenario (default: %(default)s)")
    main(parser.parse_args().scenario)
