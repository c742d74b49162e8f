"""What a policy written in Python costs per decision (docs/python_policies.md).

Run: ``.venv/bin/python experiments/benchmarks/bench_python_policy.py``

KTH-5 + SDSC03-5 under FCFS, and the 5-site grid of bench_grid.py, each with
AWF at every site (fixed location order) and with AWF plus the least-load
location policy, compiled and as Python classes (the classes of
tests/test_python_policy.py; the schedules are checked to be identical).
Per decision: (Python run - compiled run - the policies' own time) /
decisions, where the policies' own time is the same calls made again from
a plain Python loop over the recorded questions, with a view of the final
state (target: <= 20 us). Times are the best of 5 warm runs.
"""

from __future__ import annotations

import os
import platform

import numpy as np
from bench_foundation import best_of, report

from evogrid.policy.strategies import PythonPolicy
from evogrid.sim import grid
from evogrid.sim.python_policy import GridView, LocationPolicy, TransferPolicy
from evogrid.sim.schedule import Exchange, GridJobs, simulate_grid
from evogrid.workload import load_window

GRIDS = {2: ("KTH-5", "SDSC03-5"), 5: ("KTH-5", "SDSC03-5", "HPC2N-5", "THUNDER-5", "ATLAS-5")}
REPEATS = 5


class Awf(TransferPolicy):
    def accepts(self, view, site, partner):
        return view.procs[view.job] <= view.free[site]


class LeastLoad(LocationPolicy):
    def order(self, view, site, candidates):
        need = view.procs[view.job]

        def key(s):
            m = view.machine_procs[s]
            return 1.0 - (view.free[s] - need) / m, (view.n_waiting(s) + 1) / (m * 5.0)

        return sorted(candidates, key=key)


class RecordedTransfer(TransferPolicy):
    """A transfer policy that records every question it answers, to time its calls alone later."""

    def __init__(self, policy: TransferPolicy) -> None:
        self.policy, self.calls = policy, []

    def accepts(self, view, site, partner):
        self.calls.append((view.job, site, partner))
        return self.policy.accepts(view, site, partner)

    def replay(self, view: GridView) -> None:
        for job, site, partner in self.calls:
            view.job = job
            self.policy.accepts(view, site, partner)


class RecordedLocation(LocationPolicy):
    def __init__(self, policy: LocationPolicy) -> None:
        self.policy, self.calls = policy, []

    def order(self, view, site, candidates):
        self.calls.append((view.job, site, candidates))
        return self.policy.order(view, site, candidates)

    def replay(self, view: GridView) -> None:
        for job, site, candidates in self.calls:
            view.job = job
            self.policy.order(view, site, candidates)


def final_view(jobs: GridJobs, exchange: Exchange) -> GridView:
    """A view of a new run's arrays, as the policies read them (their values do not matter here)."""
    state, _, _ = grid.grid_setup(jobs.packed, jobs.machine_procs, np.zeros(jobs.n_sites, dtype=np.int64),
                                  exchange.arrays(jobs), 0)
    return GridView(jobs.packed, state, jobs.site_arrays[0])


def case(label: str, jobs: GridJobs, compiled: Exchange, transfer: TransferPolicy,
         location: LocationPolicy | None = None) -> None:
    python = PythonPolicy(transfer, location=location or compiled.location).exchange(jobs)
    a = simulate_grid(jobs, "fcfs", compiled)
    b = simulate_grid(jobs, "fcfs", python)
    assert np.array_equal(a.start, b.start) and np.array_equal(a.site, b.site), label
    t_compiled = best_of(lambda: simulate_grid(jobs, "fcfs", compiled), REPEATS)
    t_python = best_of(lambda: simulate_grid(jobs, "fcfs", python), REPEATS)
    recorded = [RecordedTransfer(transfer), *([RecordedLocation(location)] if location else [])]
    simulate_grid(jobs, "fcfs", PythonPolicy(recorded[0], location=recorded[-1] if location
                                             else compiled.location).exchange(jobs))
    decisions = sum(len(r.calls) for r in recorded)
    view = final_view(jobs, python)
    own = best_of(lambda: [r.replay(view) for r in recorded], REPEATS)
    report(f"{label}: compiled ({len(jobs.submit):,} jobs)", t_compiled * 1e3, "ms", "-")
    report(f"{label}: Python ({decisions:,} decisions)", t_python * 1e3, "ms", "-")
    report(f"{label}: per Python decision, loop", (t_python - t_compiled - own) / decisions * 1e6, "us",
           "<= 20 us")
    report(f"{label}: per Python decision, policy", own / decisions * 1e6, "us", "-")


def main() -> None:
    print(f"# evogrid Python-policy benchmarks on {platform.node()} ({os.cpu_count()} cores)")
    for k, windows in GRIDS.items():
        jobs = GridJobs.merge([load_window(w) for w in windows])
        case(f"{k} sites, AWF", jobs, Exchange("awf", transfer=("awf",) * k), Awf())
        case(f"{k} sites, AWF + least load", jobs,
             Exchange("awf", transfer=("awf",) * k, location="least-load"), Awf(), LeastLoad())


if __name__ == "__main__":
    main()
