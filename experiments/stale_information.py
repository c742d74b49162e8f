"""Brokers on stale information, handing jobs over at once or holding them: the broker heuristics with
the sites' state published every 0, 30, 300 and 3,600 s (Beichter's MDS refreshed every 30 s), each
with hand-over ``interactive`` (a job is routed at its arrival) and ``when-room`` (Beichter's proposal
in 8.1.6: held at the grid while no site has room for it); then MCT, Min-Min, Max-Min and Beichter's
new policy in batches of 60 and 600 s and of 10 and 100 jobs (his batch mode, 5.3.2) on exact
information.

Run: ``.venv/bin/python experiments/stale_information.py`` (deterministic, about three minutes).

Two grids, EASY at every site, every site a broker (each job goes to the first site in the location
policy's order, its origin included):

- ``KTH@0-5+CTC@0-5+SDSC05@0-5``, the grid of docs/grid.md's table of Beichter's policies;
- ``experiments/configs/speeds421.toml``: KTH, SDSC03 and HPC2N at speeds 4:2:1, Beichter's setting.

For each location policy, refresh interval and hand-over it writes the AWRT change against local scheduling
per site and the mean wait per site to ``experiments/results/stale_information/results.md`` (and
``.json``), and draws the per-site AWRT change to ``docs/img/stale_information.png``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from evogrid.files import atomic_write_bytes
from evogrid.plots import grouped_bars_plot
from evogrid.policy.strategies import Broker, Held, Stale, simulate
from evogrid.sim.scenario import Scenario

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "experiments" / "results" / "stale_information"
IMAGE = ROOT / "docs" / "img" / "stale_information.png"
GRIDS = {"KTH + CTC + SDSC05 (0-5)": "KTH@0-5+CTC@0-5+SDSC05@0-5",
         "speeds 4:2:1 (KTH, SDSC03, HPC2N; 5 months)": str(ROOT / "experiments/configs/speeds421.toml")}
LOCATIONS = ("beichter-old", "beichter-new", "least-load", "olb", "mct")
REFRESH_S = (0, 30, 300, 3600)
HANDOVERS = ("interactive", "when-room")
BATCH_LOCATIONS = ("mct", "min-min", "max-min", "beichter-new")
#: His batches: "eine bestimmte Anzahl oder alternativ eine bestimmte Zeit lang" (a number of jobs, or
#: a time): label -> (batch_s, batch_jobs).
BATCHES = {"batch 60 s": (60, 0), "batch 600 s": (600, 0), "batch 10 jobs": (0, 10),
           "batch 100 jobs": (0, 100)}


def measure(scenario: Scenario, location: str, refresh_s: int, handover: str, batch_s: int = 0,
            batch_jobs: int = 0) -> dict:
    """Per site: the AWRT change against local scheduling (%) and the mean wait (s)."""
    broker = (Broker(location) if handover == "interactive"
              else Held(Broker(location), handover, batch_s, batch_jobs))
    res = simulate(scenario, Stale(broker, refresh_s) if refresh_s else broker)
    rows = res.metrics()
    return {"awrt_change_pct": [row["delta_awrt_pct"] for row in rows],
            "mean_wait_s": [row["mean_wait"] for row in rows],
            "moved": int((res.schedule.site != res.schedule.jobs.origin).sum())}


def main() -> None:
    out: dict = {}
    md = ["# Brokers on stale information", "",
          "Command: `.venv/bin/python experiments/stale_information.py` (deterministic). EASY, every "
          "site a broker; AWRT change against local scheduling per site (%), then mean wait per site "
          "(s), then jobs moved, for the sites' state published every `refresh` s (0: as it is), "
          "each job handed over at its arrival (`interactive`) or held at the grid while no site has "
          "room for it (`when-room`).", ""]
    panels = {}
    for title, spec in GRIDS.items():
        scenario = Scenario.from_spec(spec, lrms="easy")
        names = [w.name for w in scenario.workloads]
        md += [f"## {title}", "", "| location | refresh (s) | hand-over | "
               + " | ".join(f"AWRT {n}" for n in names) + " | " + " | ".join(f"wait {n}" for n in names)
               + " | moved |", "|" + "---|" * (2 * len(names) + 4)]
        grid = out[title] = {}
        for location in LOCATIONS:
            for refresh in REFRESH_S:
                for handover in HANDOVERS:
                    m = measure(scenario, location, refresh, handover)
                    grid[f"{location}/{refresh}/{handover}"] = m
                    md.append(f"| {location} | {refresh:,} | {handover} | "
                              + " | ".join(f"{v:+.2f} %" for v in m["awrt_change_pct"]) + " | "
                              + " | ".join(f"{v:,.0f}" for v in m["mean_wait_s"]) + f" | {m['moved']:,} |")
        md += ["", f"### Batches (refresh 0 s, {title})", "", "| location | hand-over | "
               + " | ".join(f"AWRT {n}" for n in names) + " | " + " | ".join(f"wait {n}" for n in names)
               + " | moved |", "|" + "---|" * (2 * len(names) + 3)]
        for location in BATCH_LOCATIONS:
            for label, (batch_s, batch_jobs) in {"interactive": (0, 0), **BATCHES}.items():
                handover = "batch" if batch_s or batch_jobs else "interactive"
                m = grid.get(f"{location}/0/{label}") or measure(scenario, location, 0, handover, batch_s,
                                                                 batch_jobs)
                grid[f"{location}/0/{label}"] = m
                md.append(f"| {location} | {label} | "
                          + " | ".join(f"{v:+.2f} %" for v in m["awrt_change_pct"]) + " | "
                          + " | ".join(f"{v:,.0f}" for v in m["mean_wait_s"]) + f" | {m['moved']:,} |")
        md.append("")
        series = [(r, h) for h in HANDOVERS for r in REFRESH_S]
        values = np.array([[np.mean(grid[f"{loc}/{r}/{h}"]["awrt_change_pct"]) for loc in LOCATIONS]
                           for r, h in series])
        panels[title] = ([f"refresh {r:,} s, {h}" for r, h in series], list(LOCATIONS), values)
    RESULTS.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(RESULTS / "results.md", "\n".join(md).encode())
    atomic_write_bytes(RESULTS / "results.json", json.dumps(out, indent=1).encode())
    grouped_bars_plot(IMAGE, panels, "mean AWRT change against local (%)", "location policy (brokers)")
    print("\n".join(md))


if __name__ == "__main__":
    main()
