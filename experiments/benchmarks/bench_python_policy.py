"""What a policy written in Python costs per decision (docs/python_policies.md).

Run: ``.venv/bin/python experiments/benchmarks/bench_python_policy.py``

KTH@0-5 + SDSC03@0-5 under FCFS, and the 5-site grid of bench_grid.py, each with
AWF at every site (fixed location order) and with AWF plus the least-load
location policy, compiled and as Python classes (evogrid.policy.python_examples;
the schedules are checked to be identical). And Meltzer's 4-site reservation
scenario (experiments/configs/meltzer4.toml) with a Python admission policy
that admits every part against the compiled ``cpu-count`` (the bookings are
checked to be identical): the loop pauses once per request and the policy
answers for every part, site and candidate start, so its cost is given per
request and per answer.
Per decision: (Python run - compiled run - the policies' own time) /
decisions, where the policies' own time is the same calls made again from
a plain Python loop over the recorded questions, with a view of the final
state (target: <= 20 us). Times are the best of 5 warm runs.
"""

from __future__ import annotations

import argparse
import os
import platform
from dataclasses import replace
from pathlib import Path

import numpy as np
from bench_foundation import best_of, report

from evogrid.policy.python_examples import AcceptWhenFitPolicy, LeastLoadPolicy
from evogrid.policy.strategies import PythonPolicy
from evogrid.sim import grid
from evogrid.sim.booking import reservation_setup, simulate_reservations
from evogrid.sim.core import HOME
from evogrid.sim.python_policy import AdmissionPolicy, GridView, LocationPolicy, TransferPolicy
from evogrid.sim.queue_index import SPAN
from evogrid.sim.reserving import no_requests
from evogrid.sim.scenario import Scenario
from evogrid.sim.schedule import Exchange, GridJobs, simulate_grid
from evogrid.workload import load_window

GRIDS = {2: ("KTH@0-5", "SDSC03@0-5"), 5: ("KTH@0-5", "SDSC03@0-5", "HPC2N@0-5", "THUNDER@0-5", "ATLAS@0-5")}
REPEATS = 5


class Recorded(TransferPolicy, LocationPolicy):
    """Wraps a policy and records the questions it answers, to time its calls alone later."""

    def __init__(self, policy) -> None:
        self.policy, self.calls = policy, []

    def accepts(self, view, site, partner):
        self.calls.append(("accepts", view.job, (site, partner)))
        return self.policy.accepts(view, site, partner)

    def order(self, view, site, candidates):
        self.calls.append(("order", view.job, (site, candidates)))
        return self.policy.order(view, site, candidates)

    def replay(self, view: GridView) -> None:
        for name, job, args in self.calls:
            view.job = job
            getattr(self.policy, name)(view, *args)


def final_view(jobs: GridJobs, exchange: Exchange) -> GridView:
    """A view of a new run's arrays, as the policies read them (their values do not matter here)."""
    stop = (jobs.packed[HOME], np.zeros(jobs.n_sites))
    state, _, _ = grid.grid_setup(jobs.packed, jobs.machine_procs, np.zeros(jobs.n_sites, dtype=np.int64),
                                  exchange.arrays(jobs), 0, stop, no_requests(jobs.n_sites), SPAN)
    return GridView(jobs.packed, state, jobs.site_arrays.speed)


def case(label: str, jobs: GridJobs, compiled: Exchange, transfer: TransferPolicy,
         location: LocationPolicy | None = None) -> None:
    python = PythonPolicy(transfer, location=location or compiled.location).exchange(jobs)
    a = simulate_grid(jobs, "fcfs", compiled)
    b = simulate_grid(jobs, "fcfs", python)
    assert np.array_equal(a.start, b.start) and np.array_equal(a.site, b.site), label
    t_compiled = best_of(lambda: simulate_grid(jobs, "fcfs", compiled), REPEATS)
    t_python = best_of(lambda: simulate_grid(jobs, "fcfs", python), REPEATS)
    recorded = [Recorded(transfer), *([Recorded(location)] if location else [])]
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


class AdmitAll(AdmissionPolicy):
    """Every part is admitted: the bookings of Meltzer's Algorithm 2 (``cpu-count``)."""

    def admits(self, view, site, procs, start, duration):
        return True


class RecordedAdmission(AdmissionPolicy):
    """Wraps an admission policy and records its questions, to time its calls alone later."""

    def __init__(self, policy: AdmissionPolicy) -> None:
        self.policy, self.calls = policy, []

    def admits(self, view, site, procs, start, duration):
        self.calls.append((site, procs, start, duration))
        return self.policy.admits(view, site, procs, start, duration)

    def replay(self, view: GridView | None) -> None:
        for question in self.calls:
            self.policy.admits(view, *question)


def admission_case() -> None:
    scenario = Scenario.from_spec(str(Path(__file__).resolve().parents[2] / "experiments" / "configs"
                                      / "meltzer4.toml"))
    workloads, requests, rules = reservation_setup(scenario)
    compiled = replace(rules, algorithm="cpu-count")
    python = replace(rules, algorithm="python", policy=AdmitAll())
    a = simulate_reservations(workloads, scenario.lrms, requests, compiled)[1]
    b = simulate_reservations(workloads, scenario.lrms, requests, python)[1]
    assert np.array_equal(a.start, b.start) and np.array_equal(a.sites, b.sites)
    t_compiled = best_of(lambda: simulate_reservations(workloads, scenario.lrms, requests, compiled), REPEATS)
    t_python = best_of(lambda: simulate_reservations(workloads, scenario.lrms, requests, python), REPEATS)
    recorded = RecordedAdmission(AdmitAll())
    simulate_reservations(workloads, scenario.lrms, requests, replace(python, policy=recorded))
    answers, n = len(recorded.calls), requests.n_requests
    own = best_of(lambda: recorded.replay(None), REPEATS)  # AdmitAll reads no view
    label = f"meltzer4 rw1 admission ({n:,} requests, {answers:,} answers)"
    report(f"{label}: compiled cpu-count", t_compiled * 1e3, "ms", "-")
    report(f"{label}: Python", t_python * 1e3, "ms", "-")
    report(f"{label}: per request, loop", (t_python - t_compiled - own) / n * 1e6, "us", "-")
    report(f"{label}: per answer, loop", (t_python - t_compiled - own) / answers * 1e6, "us", "<= 20 us")


def main() -> None:
    print(f"# evogrid Python-policy benchmarks on {platform.node()} ({os.cpu_count()} cores)")
    for k, windows in GRIDS.items():
        jobs = GridJobs.merge([load_window(w) for w in windows])
        case(f"{k} sites, AWF", jobs, Exchange("awf", transfer=("awf",) * k), AcceptWhenFitPolicy())
        case(f"{k} sites, AWF + least load", jobs,
             Exchange("awf", transfer=("awf",) * k, location="least-load"), AcceptWhenFitPolicy(),
             LeastLoadPolicy())
    admission_case()


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()  # --help; no options
    main()
