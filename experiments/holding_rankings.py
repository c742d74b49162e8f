"""Beichter's policies, MCT and the shipped learned rankings on the 4:2:1 grid, each handing jobs over
at once (``interactive``) and holding them while no site has room (``when-room``, his proposal in
8.1.6).

Run: ``.venv/bin/python experiments/holding_rankings.py`` (deterministic, about a minute).

The grid is ``experiments/configs/speeds421.toml`` (training months) and ``speeds421_test.toml``
(the six months after, unseen), EASY at every site, every site a broker. The learned rankings are
the shipped ones (``trained_rulebases/ranking/speeds421/``, co-evolved with hand-over
``interactive``: docs/results.md, Heterogeneous sites). Prints a markdown table of the per-site
AWRT and its mean over the sites, and writes it to
``experiments/results/matchmaking/holding_rankings.md``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from evogrid.files import atomic_write_bytes
from evogrid.policy.rulebase import Rulebase
from evogrid.policy.strategies import Broker, Held, simulate
from evogrid.sim.scenario import Scenario

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "trained_rulebases" / "ranking" / "speeds421"
GRIDS = {"training months": "experiments/configs/speeds421.toml",
         "unseen months": "experiments/configs/speeds421_test.toml"}
OUT = ROOT / "experiments" / "results" / "matchmaking" / "holding_rankings.md"


def main() -> None:
    train_names = [w.name for w in Scenario.from_spec(str(ROOT / GRIDS["training months"])).workloads]
    rankings = {k: Rulebase.load(SHIPPED / f"{name}.json") for k, name in enumerate(train_names)}
    policies = {"beichter-old": Broker("beichter-old"), "beichter-new": Broker("beichter-new"),
                "mct": Broker("mct"), "learned ranking (shipped)": Broker("rank", rankings, label="learned")}
    lines = ["# Holding jobs on the 4:2:1 grid", "",
             "Command: `.venv/bin/python experiments/holding_rankings.py` (deterministic). EASY, every "
             "site a broker; AWRT (s) per site and its mean over the sites.", ""]
    for title, spec in GRIDS.items():
        scenario = Scenario.from_spec(str(ROOT / spec), lrms="easy")
        names = [w.name for w in scenario.workloads]
        lines += [f"## {title}", "", "| policy | hand-over | " + " | ".join(names) + " | mean |",
                  "|" + "---|" * (len(names) + 3)]
        for label, broker in policies.items():
            for handover in ("interactive", "when-room"):
                strategy = broker if handover == "interactive" else Held(broker, handover)
                awrt = [row["awrt"] for row in simulate(scenario, strategy).metrics()]
                lines.append(f"| {label} | {handover} | " + " | ".join(f"{a:,.0f}" for a in awrt)
                             + f" | {np.mean(awrt):,.0f} |")
        lines.append("")
    atomic_write_bytes(OUT, "\n".join(lines).encode())  # (it makes the directory)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
