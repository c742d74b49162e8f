"""Policies written as Python classes: the compiled loop pauses for them and gives the schedule the
compiled twin gives."""

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from invariants import check_schedule
from test_grid_vs_reference import grids, random_exchange

from evogrid.errors import ScenarioError
from evogrid.policy.python_examples import AcceptWhenFitPolicy as Awf
from evogrid.policy.python_examples import LeastLoadPolicy as LeastLoad
from evogrid.policy.python_examples import ShortestFirstOrder as ShortestFirst
from evogrid.policy.strategies import AcceptWhenFit, Broker, PythonPolicy
from evogrid.sim import queue_index
from evogrid.sim.python_policy import LocationPolicy, TransferPolicy
from evogrid.sim.schedule import Exchange, GridJobs, simulate_grid, simulate_local
from evogrid.sim.sites import Sites
from evogrid.workload import synthetic_workload

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))


class KeepOwn(TransferPolicy):
    def accepts(self, view, site, partner):
        return site == view.origin[view.job]


class Fixed(LocationPolicy):
    def order(self, view, site, candidates):
        return candidates


class Olb(LocationPolicy):
    def order(self, view, site, candidates):
        return sorted(candidates, key=lambda s: (-view.free[s], view.n_waiting(s)))


TWINS_T = {"awf": Awf, "local": KeepOwn}
TWINS_L = {"fixed": Fixed, "least-load": LeastLoad, "olb": Olb}


def _same(a, b):
    assert np.array_equal(a.start, b.start)
    assert np.array_equal(a.site, b.site)
    assert np.array_equal(a.moves, b.moves)


@SETTINGS
@given(sites=grids(), data=st.data())
def test_python_twins_give_the_compiled_schedule(sites, data):
    """Random grids, LRMS, transfer policies per site (some sites' rulebases decide before a Python
    decision of the same arrival) and location policies: swapping any compiled AWF, local, fixed,
    least-load or OLB decision for its Python twin changes nothing, rulebase decisions included; the
    Python run's EASY and LIST queues indexed from a span of 1 or 4 positions on in two thirds of the
    cases, so that its policies read queues with holes."""
    K = len(sites)
    lrms = data.draw(st.sampled_from(["fcfs", "easy", "list", "conservative"]))
    transfer = tuple(data.draw(st.sampled_from(["awf", "local", "rulebase"])) for _ in range(K))
    location = data.draw(st.sampled_from(["fixed", "random", "awrt", "least-load", "olb", "min-min",
                                          "max-min"]))
    compiled, *_ = random_exchange(data, transfer, location)
    python_sites = data.draw(st.sets(st.sampled_from([k for k in range(K) if transfer[k] != "rulebase"]
                                                     or [None])))
    swapped = tuple(TWINS_T[t]() if k in python_sites else t for k, t in enumerate(transfer))
    swap_location = location in TWINS_L and data.draw(st.booleans())
    python = Exchange("python", transfer=swapped,
                      location=TWINS_L[location]() if swap_location else location,
                      seed=compiled.seed, rulebases=compiled.rulebases, rulebase_of=compiled.rulebase_of)
    jobs = GridJobs.merge(sites)
    a = simulate_grid(jobs, lrms, compiled, record_decisions=True)
    b = simulate_grid(jobs, lrms, python, record_decisions=True,
                      index_span=data.draw(st.sampled_from([1, 4, queue_index.SPAN])))
    _same(a, b)
    for field in ("site", "partner", "x", "y"):
        assert np.array_equal(getattr(a.decisions, field), getattr(b.decisions, field))
    check_schedule(b)


@SETTINGS
@given(sites=grids(), data=st.data())
def test_python_broker_location_gives_the_compiled_schedule(sites, data):
    lrms = data.draw(st.sampled_from(["fcfs", "easy"]))
    jobs = GridJobs.merge(sites)
    a = simulate_grid(jobs, lrms, Broker(location="least-load").exchange(jobs))
    b = simulate_grid(jobs, lrms, Broker(location=LeastLoad()).exchange(jobs))
    _same(a, b)


@SETTINGS
@given(sites=grids(), data=st.data())
def test_a_python_location_policy_with_stale_information_gives_the_compiled_schedule(sites, data):
    """With the information service refreshing every 1-40 s, a Python OLB or least-load twin (as
    brokers, or as AWF's location order) reads the sites as last published, as the compiled
    policies do: the same schedule. The exact view (refresh 0) tells apart from it on the same
    grids in some cases, so the test reads the published view, not the live one."""
    lrms = data.draw(st.sampled_from(["fcfs", "easy", "list"]))
    location = data.draw(st.sampled_from(["olb", "least-load"]))
    refresh = data.draw(st.integers(1, 40))
    jobs = GridJobs.merge(sites)
    transfer = ("broker",) * len(sites) if data.draw(st.booleans()) else ("awf",) * len(sites)
    compiled = Exchange("c", transfer=transfer, location=location, refresh_s=refresh)
    python = replace(compiled, location=TWINS_L[location]())
    a, b = simulate_grid(jobs, lrms, compiled), simulate_grid(jobs, lrms, python)
    _same(a, b)
    check_schedule(b)


def test_a_published_view_has_no_queue_contents():
    """Under stale information a location policy's view is the published one: counters and running
    jobs, no queue contents (one clear error); the exact view has them."""

    class Peeks(LocationPolicy):
        def order(self, view, site, candidates):
            view.waiting(site)
            return candidates

    jobs = GridJobs.merge([synthetic_workload(30, 4, seed=1), synthetic_workload(30, 4, seed=2)])
    brokers = Exchange("x", transfer=("broker", "broker"), location=Peeks())
    with pytest.raises(ScenarioError, match="not their queues"):
        simulate_grid(jobs, "easy", replace(brokers, refresh_s=30))
    check_schedule(simulate_grid(jobs, "easy", brokers))  # the exact view has them


@SETTINGS
@given(sites=grids(), data=st.data())
def test_a_python_sjf_queue_order_gives_the_compiled_sjf(sites, data):
    """A Python queue order keyed by estimate under FCFS / EASY = the compiled sjf / easy-sjf, alone
    (no exchange) and with Python AWF; and with no exchange, the local loop's schedule."""
    lrms, compiled_lrms = data.draw(st.sampled_from([("fcfs", "sjf"), ("easy", "easy-sjf")]))
    K = len(sites)
    jobs = GridJobs.merge(sites)
    alone = simulate_grid(jobs, lrms, PythonPolicy(others="local", order=ShortestFirst()).exchange(jobs))
    _same(simulate_local(jobs, compiled_lrms), alone)
    exchanged = simulate_grid(jobs, lrms, PythonPolicy(Awf(), order=ShortestFirst()).exchange(jobs))
    compiled = simulate_grid(jobs, compiled_lrms, Exchange("awf", transfer=("awf",) * K))
    _same(compiled, exchanged)
    check_schedule(compiled)


def test_a_python_queue_order_is_refused_by_the_active_request():
    from evogrid.workload.synthetic import synthetic_workload

    jobs = GridJobs.merge([synthetic_workload(20, 8, seed=1), synthetic_workload(20, 8, seed=2)])
    with pytest.raises(ScenarioError, match="does not work with the active request"):
        simulate_grid(jobs, "easy", Exchange("x", scheme="active", order=ShortestFirst()))


def test_a_python_policy_sees_speeds_and_scaled_estimates():
    """On heterogeneous sites the view holds the speeds, and a moved job's estimate at its new site."""
    from evogrid.workload.synthetic import synthetic_workload

    seen = []

    class Fastest(LocationPolicy):
        def order(self, view, site, candidates):
            seen.append(view.speed.copy())
            return sorted(candidates, key=lambda s: -view.speed[s])

    sites = [synthetic_workload(300, machine_procs=m, seed=s) for s, m in ((1, 32), (2, 64))]
    jobs = GridJobs.merge(sites, Sites(speed=(1.0, 2.0)))
    a = simulate_grid(jobs, "easy", Exchange("met", transfer=("broker",) * 2, location="met"))
    b = simulate_grid(jobs, "easy", Exchange("py", transfer=("broker",) * 2, location=Fastest()))
    _same(a, b)
    assert np.array_equal(a.run_time, b.run_time)
    assert seen and all(list(s) == [1.0, 2.0] for s in seen)


def test_the_view_is_read_only():
    from evogrid.workload.synthetic import synthetic_workload

    class Vandal(TransferPolicy):
        def accepts(self, view, site, partner):
            view.free[site] = 0
            return True

    sites = [synthetic_workload(20, machine_procs=8, seed=s) for s in (1, 2)]
    with pytest.raises(ValueError, match="read-only"):
        simulate_grid(GridJobs.merge(sites), "fcfs", PythonPolicy(Vandal()).exchange(GridJobs.merge(sites)))


def test_a_location_answer_must_be_a_permutation_of_the_candidates():
    from evogrid.workload.synthetic import synthetic_workload

    class Drops(LocationPolicy):
        def order(self, view, site, candidates):
            return candidates[:-1]

    sites = [synthetic_workload(20, machine_procs=8, seed=s) for s in (1, 2)]
    jobs = GridJobs.merge(sites)
    with pytest.raises(ScenarioError, match=r"Drops.order must return a permutation of the candidates \[1\]"):
        simulate_grid(jobs, "fcfs", PythonPolicy(Awf(), location=Drops()).exchange(jobs))


def test_python_policy_strategy_mixes_python_and_named_sites():
    """Site 0 in Python, the rest by name; the label names the classes."""
    from evogrid.workload.synthetic import synthetic_workload

    sites = [synthetic_workload(400, machine_procs=m, seed=s) for s, m in ((1, 16), (2, 32), (3, 8))]
    jobs = GridJobs.merge(sites)
    mixed = PythonPolicy({0: Awf(), 2: "local"}, location=LeastLoad()).exchange(jobs)
    assert mixed.label == "AcceptWhenFitPolicy+LeastLoadPolicy"
    names = [type(t).__name__ if not isinstance(t, str) else t for t in mixed.transfer]
    assert names == ["AcceptWhenFitPolicy", "awf", "local"]
    same = Exchange("c", transfer=("awf", "awf", "local"), location="least-load")
    _same(simulate_grid(jobs, "easy", same), simulate_grid(jobs, "easy", mixed))
    assert not np.array_equal(simulate_grid(jobs, "easy", AcceptWhenFit().exchange(jobs)).site,
                              simulate_grid(jobs, "easy", mixed).site)
    with pytest.raises(ScenarioError, match="transfer policy for site 5, but the scenario has 3 sites"):
        PythonPolicy({5: Awf()}).exchange(jobs)


def test_the_tutorial_runs():
    """docs/python_policies.md's code blocks, in order, as a reader would paste them."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "python_policies.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) == 4
    namespace: dict = {}
    exec(compile("\n".join(blocks), "python_policies.md", "exec"), namespace)  # noqa: S102
    assert namespace["result"].metrics()[0]["awrt"] > 0
    assert namespace["alone"].schedule.start.tolist() != namespace["with_awf"].schedule.start.tolist()
    booked = namespace["booked"].bookings
    assert (booked.start >= 0).any() and (booked.start < 0).any()  # the admission policy admitted and refused


def test_python_policies_see_the_waiting_jobs_of_an_indexed_queue():
    """An indexed queue keeps the positions of started jobs as holes; a Python policy's view shows
    the waiting jobs only, the same ones as without the index."""
    class Recording(LocationPolicy):
        def __init__(self):
            self.seen = []

        def order(self, view, site, candidates):
            for s in candidates:
                self.seen.append((view.job, s, view.n_waiting(s), tuple(view.waiting(s).tolist())))
            return candidates

    sites = [synthetic_workload(300, 16, load=2.0, seed=seed) for seed in (3, 4)]
    jobs = GridJobs.merge([replace(w, name=f"s{i}") for i, w in enumerate(sites)])
    runs = []
    for index_span in (10**9, 1):
        recording = Recording()
        schedule = simulate_grid(jobs, "easy", PythonPolicy(Awf(), location=recording).exchange(jobs),
                                 index_span=index_span)
        runs.append((schedule, recording.seen))
    (plain, seen_plain), (indexed, seen_indexed) = runs
    _same(plain, indexed)
    assert seen_plain == seen_indexed
    assert max(n for _, _, n, _ in seen_indexed) > 20
    assert all(n == len(waiting) for _, _, n, waiting in seen_indexed)
