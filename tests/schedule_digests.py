"""Digests of the schedules the simulator gives on the bundled logs, for refactoring safely.

Every bundled log's first three months under every LRMS alone, and grids of
neighbouring logs under every LRMS with every exchange strategy (AWF with each
location policy, the shipped rulebases, the pool with both arrival rules,
active request), and the first grid alone and under AWF for the LRMS whose grids
run the mixed loops. Sites taking reservations: three sites' first month with
requests made from the first one's jobs, under every admission algorithm and
every LRMS. A digest hashes each job's start time, site and move count (and
each request's start, sites, processors and messages).

``tests/test_schedule_digests.py`` compares against ``tests/data/schedule_digests.json``;
rewrite that file only when a change of behaviour is intended::

    .venv/bin/python tests/schedule_digests.py --write
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
from conftest import MIXED_LOOP_LRMS

from evogrid.policy.rulebase import Rulebase
from evogrid.policy.strategies import AcceptWhenFit, ActiveRequest, CentralPool, FuzzyPolicy, pool_for_sites
from evogrid.sim.booking import Bookings, reservation_setup, simulate_reservations
from evogrid.sim.scenario import Scenario, ScenarioConfig
from evogrid.sim.schedule import GridJobs, Schedule, simulate_grid, simulate_local
from evogrid.workload.traces import BUNDLED, load_window

REPO = Path(__file__).resolve().parents[1]
STORED = REPO / "tests" / "data" / "schedule_digests.json"
LRMS = ("fcfs", "easy", "list")
GRIDS = (("KTH", "SDSC03"), ("KTH", "CTC", "SDSC05"), ("SDSC00", "HPC2N", "LANL96"))


def digest(schedule: Schedule, bookings: Bookings | None = None) -> str:
    h = hashlib.sha256()
    arrays = [schedule.start, schedule.site, schedule.moves]
    if bookings is not None:
        arrays += [bookings.start, bookings.sites, bookings.procs, bookings.messages]
    for array in arrays:
        h.update(np.ascontiguousarray(array, dtype=np.int64).tobytes())
    return h.hexdigest()[:16]


#: Reservation cases: (request workload, its algorithms, extra [reservations] fields).
#: The readings of Meltzer's algorithms and the probe's settings evogrid had before the sources'
#: listings and parameters were read (the cases keep their digests under them; docs/reservations.md).
EARLIER = {"variant_order": "by-start", "backlog_rule": "every-held", "backfill_until": "head-fit",
           "tariffs": "peak", "success_hours": 6.0, "threshold": 0.5, "load_rule": "backlog",
           "probe_slots": "earliest", "meltzer_draw": "independent", "status_queue": "none",
           "meltzer_templates": "taken", "request_at": "before-start"}
MELTZER = ("trivial", "cpu-count", "backlog", "backfill", "weighted")
#: (workload, algorithms, settings named in the case, settings not named)
RESERVATION_CASES = (
    ("rw1", MELTZER, {}, EARLIER),
    ("rw1", MELTZER, {"readings": "meltzer"}, {"meltzer_draw": "independent", "status_queue": "none",
                                              "meltzer_templates": "taken"}),
    ("rw1", ("backfill", "weighted"), {"readings": "meltzer", "backfill_until": "next-event"},
     {"meltzer_draw": "independent", "status_queue": "none", "meltzer_templates": "taken"}),
    ("rw1", MELTZER, {"readings": "meltzer", "meltzer_draw": "shared"},
     {"status_queue": "none", "meltzer_templates": "taken"}),
    ("rw1", MELTZER, {"readings": "meltzer", "meltzer_draw": "shared", "status_queue": "head"},
     {"meltzer_templates": "taken"}),
    ("rw1", MELTZER, {"readings": "meltzer", "meltzer_draw": "shared", "status_queue": "head",
                      "meltzer_templates": "kept"}, {}),
    ("book-ahead", ("first-fit", "probe"), {"book_ahead_hours": 2.0}, EARLIER),
    ("book-ahead", ("probe",), {"book_ahead_hours": 2.0, "elastic": (0.5, 2.0)}, EARLIER),
    ("book-ahead", ("probe",), {"book_ahead_hours": 2.0, "elastic": (0.5, 2.0), "readings": "roblitz"},
     {"probe_slots": "earliest", "load_rule": "workload-end-estimated"}),
    ("book-ahead", ("probe",), {"book_ahead_hours": 2.0, "elastic": (0.5, 2.0), "readings": "roblitz",
                                "probe_slots": "cover"}, {"load_rule": "workload-end-estimated"}),
    ("book-ahead", ("probe",), {"book_ahead_hours": 2.0, "elastic": (0.5, 2.0), "readings": "roblitz",
                                "probe_slots": "cover", "load_rule": "workload-end"}, {}),
    ("rw1", ("collective",), {"collective_sites": 2}, EARLIER),
)
RESERVATION_LRMS = ("fcfs", "easy", "list", "conservative")


def reservation_digests() -> dict[str, str]:
    """Case name -> digest of the reservation cases (RESERVATION_CASES)."""
    out: dict[str, str] = {}
    sites = [{"window": f"{name}@0-1"} for name in ("KTH", "SDSC03", "CTC")]
    for workload, algorithms, extra, unnamed in RESERVATION_CASES:
        for lrms in RESERVATION_LRMS:
            settings = {k: v for k, v in extra.items() if k != "readings"}
            config = ScenarioConfig(lrms=lrms, sites=sites,
                                    reservations={"workload": workload, "seed": 1, **settings, **unnamed})
            scenario = Scenario.from_config(config)
            label = "+".join(s["window"] for s in sites) + f" {lrms} {workload}" + "".join(
                f" {k}={v}" for k, v in extra.items())
            for algorithm in algorithms:
                workloads, requests, rules = reservation_setup(scenario, algorithm=algorithm)
                schedule, bookings = simulate_reservations(workloads, lrms, requests, rules)
                out[f"{label} {algorithm}"] = digest(schedule, bookings)
    return out


def _pool() -> list[Rulebase]:
    return [Rulebase.load(p) for p in sorted((REPO / "trained_rulebases" / "pairwise").glob("*.json"))]


def digests() -> dict[str, str]:
    """Case name -> digest, for every case (about 10 s once compiled)."""
    out: dict[str, str] = {}
    windows = {name: load_window(f"{name}@0-3") for name in BUNDLED}
    for name, w in windows.items():
        for lrms in LRMS:
            out[f"{name}@0-3 {lrms} local"] = digest(simulate_local([w], lrms))
    pool = _pool()
    for sites in GRIDS:
        jobs = GridJobs.merge([windows[s] for s in sites])
        grid = "+".join(f"{s}@0-3" for s in sites)
        rulebases = pool_for_sites(pool, jobs.machine_procs, unknown_sites="nearest")
        fuzzy = FuzzyPolicy(rulebases, location="awrt")
        strategies = {
            **{f"awf-{loc}": AcceptWhenFit(location=loc, seed=3) for loc in ("fixed", "random", "awrt")},
            "rulebase": fuzzy,
            "pool-first": CentralPool("first"),
            "pool-queued": CentralPool("queued"),
        }
        for lrms in (*LRMS, ("easy", "fcfs", "list")[: len(sites)]):
            label = lrms if isinstance(lrms, str) else "/".join(lrms)
            out[f"{grid} {label} local"] = digest(simulate_local(jobs, lrms))
            for key, strategy in strategies.items():
                out[f"{grid} {label} {key}"] = digest(simulate_grid(jobs, lrms, strategy.exchange(jobs)))
        starting = ActiveRequest("start").exchange(jobs)
        out[f"{grid} easy aa-start"] = digest(simulate_grid(jobs, "easy", starting))
        for lrms in ("easy", "fcfs"):
            out[f"{grid} {lrms} aa"] = digest(simulate_grid(jobs, lrms, ActiveRequest().exchange(jobs)))
    return out | shared_loop_digests(windows) | reservation_digests()


def shared_loop_digests(windows: dict) -> dict[str, str]:
    """Case name -> digest: the first grid alone and under AWF, for each LRMS whose grids run the
    mixed loops in the tests (tests/conftest.py; written with the variable unset, in their own loops)."""
    out: dict[str, str] = {}
    jobs = GridJobs.merge([windows[s] for s in GRIDS[0]])
    grid = "+".join(f"{s}@0-3" for s in GRIDS[0])
    for lrms in MIXED_LOOP_LRMS:
        out[f"{grid} {lrms} local"] = digest(simulate_local(jobs, lrms))
        out[f"{grid} {lrms} awf-fixed"] = digest(simulate_grid(jobs, lrms, AcceptWhenFit().exchange(jobs)))
    return out


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit(__doc__)
    STORED.parent.mkdir(exist_ok=True)
    STORED.write_text(json.dumps(digests(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {STORED}")
