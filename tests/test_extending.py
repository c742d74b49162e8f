"""The checklists of docs/architecture.md hold: an LRMS, a location policy, a transfer policy and a
reservation admission algorithm can be added from outside the package.

A toy LRMS ("short": behind a blocked head, only jobs estimated to run at
most an hour start), a toy location policy ("shortest-queue": the partner
with the fewest waiting jobs first) and a toy transfer policy ("narrow": keep
or take only jobs of at most 4 processors that fit) are registered from this
file, and two toy admission algorithms ("on-time": a one-site request at its
earliest start or not at all, a placement of its own; "backlog-weighted":
Meltzer's Algorithm 3's admission with Algorithm 5's pick, flags over his
variant tree), each with its compiled code and its reference-simulator twin, and the
compiled core must agree with the twins: the LRMS alone and at a site that
takes reservations, the location and transfer policies on a grid of such
sites.
It runs in a fresh process with its own numba cache: registering changes
the compiled loops, which a process that already simulated cannot take in.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

TOY = r'''
import json, sys
import numpy as np
from numba import njit
from evogrid.sim import lrms

@njit(inline="always")
def short_rule(t, need, estimate, T, extra):
    return (lrms.START if estimate <= 3600 else lrms.SKIP), extra

lrms.register(lrms.Lrms("short", len(lrms.REGISTRY), "behind the head, only jobs of at most an hour",
                        short_rule))

from evogrid.sim import codes, core, locations
from evogrid.sim.registry import LOCATIONS, TRANSFERS, Location

@njit(inline="always")
def shortest_queue_key(k, l, job, t, jobs, state, policy, work):
    return float(core.waiting_jobs(state.sc, l)), 0.0  # not Q_TAIL - Q_HEAD: an indexed queue keeps holes

free = max(codes.L_PYTHON, *(e.code for e in LOCATIONS.values())) + 1  # the next code no one has
locations.register(Location("shortest-queue", free, "the partner with the fewest waiting jobs first",
                            key="__main__:shortest_queue_key", index_aware=True))

@njit(inline="always")
def raw_queue_key(k, l, job, t, jobs, state, policy, work):
    return float(state.sc[l, core.Q_TAIL] - state.sc[l, core.Q_HEAD]), 0.0  # holes too: not index_aware

locations.register(Location("raw-queue", free + 1, "the partner with the fewest queue positions first",
                            key="__main__:raw_queue_key"))

from evogrid.sim import transfers
from evogrid.sim.registry import Transfer

@njit(inline="always")
def narrow_accepts(s, job, partner, jobs, sc, policy, work, log):
    return np.int64(jobs[core.PROCS, job] <= min(4, sc[s, core.FREE]))

free = max(codes.T_PYTHON, *(e.code for e in TRANSFERS.values())) + 1
transfers.register(Transfer("narrow", free, "keep or take only jobs of at most 4 processors that fit",
                            accepts="__main__:narrow_accepts"))

from evogrid.sim import features
from evogrid.sim.registry import Feature

@njit(inline="always")
def wide_value(k, job, jobs, sc):
    return 1.0 if jobs[core.PROCS, job] > 4 else 0.0

features.register(Feature("WIDE", max(e.code for e in features.FEATURES.values()) + 1, (0.0, 1.0),
                          "1 for a job of more than 4 processors", value="__main__:wide_value",
                          index_aware=True))

from evogrid.sim import admission
from evogrid.sim.core import M_PROCS, hold, site_profile
from evogrid.sim.profile import fit_from
from evogrid.sim.reserving import R_DEADLINE, R_DURATION, R_EARLIEST, R_SITE

@njit
def on_time_place(r, t, book, rules, jobs, state, booked):
    requests, parts = book[0], book[1]
    k, need, d = requests[R_SITE, r], parts[0, r], requests[R_DURATION, r]
    s = max(t, requests[R_EARLIEST, r])
    if need > state.sc[k, M_PROCS] or s + d > requests[R_DEADLINE, r]:
        return
    if fit_from(state.profile, site_profile(k, t, jobs, state), need, d, s) != s:
        return
    booked.accepted[r], booked.sites[0, r], booked.messages[r] = s, k, 1
    booked.procs[0, r], booked.length[r] = need, d
    hold(k, s, s + d, need, state)

admission.register(admission.Algorithm("on-time", len(admission.REGISTRY), "site-side",
                                       "a one-site request at its earliest start or not at all",
                                       place=on_time_place))
admission.register(admission.Algorithm("backlog-weighted", len(admission.REGISTRY), "information-rich",
                                       "Meltzer 3's admission, Meltzer 5's pick", start_rule="backlog",
                                       pick="weighted"))

import reference_sim
from reference_sim import Job, Request, Rules, reference_start_times, simulate_reserved_reference

def admit_on_time(desk, r, t):
    req = desk.requests[r]
    k, need, s = req.site, req.parts[0], max(t, req.earliest)
    m = desk.sites[k].m
    if need <= m and s + req.duration <= req.deadline \
            and reference_sim.earliest_start(m, s, need, req.duration, desk.busy(k, t)) == s:
        desk.booked[r] = (s, (k,), 1, None)
        desk.held[k].append([s, s + req.duration, need, False])

reference_sim.Desk.admit_on_time = admit_on_time
reference_sim.Desk.PLACEMENTS["on-time"] = "admit_on_time"
reference_sim.BEHIND_HEAD["short"] = lambda t, job: job.estimate <= 3600
reference_sim.LOCATION_KEYS["shortest-queue"] = lambda sites, jobs, l, k, job, t: (len(sites[l].queue), 0.0)
reference_sim.TRANSFER_DECISIONS["narrow"] = lambda sites, jobs, s, job, partner: (
    jobs[job].procs <= min(4, sites[s].free))
reference_sim.FEATURE_VALUES["WIDE"] = lambda sites, jobs, s, job: 1.0 if jobs[job].procs > 4 else 0.0
from reference_sim import Policy, simulate_reference
from evogrid.sim.schedule import Exchange

from evogrid.sim.booking import ReservationRules, simulate_reservations
from test_reservation_loop import _run_against_reference
from evogrid.sim.schedule import simulate_local
from evogrid.workload.model import Workload
from evogrid.workload.reservations import Reservations

out = []
for seed in range(20):
    rng = np.random.default_rng(seed)
    n, m = 40, 16
    submit = np.sort(rng.integers(0, 20_000, n))
    procs = rng.integers(1, m + 1, n)
    run = rng.integers(1, 8_000, n)
    est = run + rng.integers(0, 4_000, n)
    w = Workload("toy", m, submit, run, procs, est, np.arange(n), np.full(n, -1))
    start = simulate_local([w], "short").start.tolist()
    want = reference_start_times(submit.tolist(), run.tolist(), procs.tolist(), est.tolist(), m, "short")
    fcfs = reference_start_times(submit.tolist(), run.tolist(), procs.tolist(), est.tolist(), m, "fcfs")
    R = 6
    submit_r = np.sort(rng.integers(0, 20_000, R))
    earliest = submit_r + rng.integers(0, 3_000, R)
    duration = rng.integers(600, 5_000, R)
    deadline = earliest + duration + rng.integers(0, 20_000, R)
    parts = rng.integers(1, m + 1, (R, 1))
    req = Reservations("toy", submit_r, earliest, deadline, duration, parts, np.full(R, -1),
                       np.zeros(R, dtype=np.int64))
    held, booked = simulate_reservations([w], "short", req, ReservationRules("first-fit"))
    jobs = [Job(*row, 0) for row in zip(submit.tolist(), run.tolist(), procs.tolist(), est.tolist())]
    reqs = [Request(int(submit_r[r]), int(earliest[r]), int(deadline[r]), int(duration[r]),
                    (int(parts[r, 0]),), 0, (0,), {int(parts[r, 0]): int(duration[r])}, ())
            for r in range(R)]
    ref_start, ref_booked = simulate_reserved_reference(jobs, [m], ["short"], reqs, Rules("first-fit"))
    # The toy admission algorithms: a placement of its own, and flags over Meltzer's variant tree.
    # On the toy LRMS throughout: one compiled loop for sites that hold reservations, not two.
    on_time, on_time_booked = simulate_reservations([w], "short", req, ReservationRules("on-time"))
    on_time_ref = simulate_reserved_reference(jobs, [m], ["short"], reqs, Rules("on-time"))
    grid_req = Reservations("toy", submit_r, earliest, deadline, duration,
                            np.concatenate([parts // 2 + 1, rng.integers(0, m // 2, (R, 1))], axis=1),
                            np.full(R, -1), np.full(R, -1))
    sites3 = [Workload(f"toy{i}", m, np.sort(rng.integers(0, 20_000, n)), run, procs, run, np.arange(n),
                       np.full(n, -1)) for i in range(3)]
    toy_rules = ReservationRules("backlog-weighted", seed=seed)
    weighted = _run_against_reference(sites3, "short", grid_req, toy_rules)[1]
    backlog = simulate_reservations(sites3, "short", grid_req, ReservationRules("backlog", seed=seed))[1]
    # The toy location policy on three sites that take no requests (the loop compiled for them above).
    ws = [Workload(f"toy{i}", m, np.sort(rng.integers(0, 20_000, n)), run, procs, est, np.arange(n),
                   np.full(n, -1)) for i in range(3)]
    none = Reservations("none", *(np.zeros(0, dtype=np.int64),) * 4, np.zeros((0, 1), dtype=np.int64),
                        np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    routed = {}
    for where, transfer in (("shortest-queue", "awf"), ("fixed", "awf"), ("fixed", "narrow")):
        grid, _ = simulate_reservations(ws, "short", none, ReservationRules("first-fit"),
                                        Exchange("toy", transfer=(transfer,) * 3, location=where))
        routed[where, transfer] = grid.site.tolist()
        g = grid.jobs  # in arrival order, as the reference takes them
        ref_jobs = [Job(*map(int, row)) for row in zip(g.submit, g.run_time, g.procs, g.estimate, g.origin)]
        ref = simulate_reference(ref_jobs, [m] * 3, ["short"] * 3,
                                 Policy("exchange", (transfer,) * 3, where))
        routed[where, transfer, "equal"] = grid.start.tolist() == ref[0] and grid.site.tolist() == ref[1]
    # The toy feature: every site's rulebase with each partner reads WIDE and UTIL: keep or take
    # every narrow job, and a wide one only while under half busy (so wide jobs move to idle sites).
    from evogrid.policy.rulebase import Rulebase
    from evogrid.sim.tsk import TSKStack
    rb = Rulebase.from_arrays([[0.0, 0.5], [1.0, 1.0], [1.0, 0.0]], [[0.3, 2.0], [0.3, 0.3], [0.3, 0.3]],
                              [1.0, -1.0, 1.0], ("WIDE", "UTIL"))
    rulebase_of = np.array([[-1 if k == l else 0 for l in range(3)] for k in range(3)], dtype=np.int64)
    ruled = Exchange("toy", transfer=("rulebase",) * 3, location="fixed",
                     rulebases=TSKStack.stack([rb.arrays()]), rulebase_of=rulebase_of)
    grid, _ = simulate_reservations(ws, "short", none, ReservationRules("first-fit"), ruled)
    g = grid.jobs
    ref_jobs = [Job(*map(int, row)) for row in zip(g.submit, g.run_time, g.procs, g.estimate, g.origin)]
    rules = list(zip(rb.centers.tolist(), rb.widths.tolist(), rb.consequents.tolist(), strict=True))
    ref = simulate_reference(ref_jobs, [m] * 3, ["short"] * 3,
                             Policy("exchange", ("rulebase",) * 3, "fixed",
                                    rulebases={(k, l): (rb.features, rules)
                                               for k in range(3) for l in range(3) if k != l}))
    feature_equal = grid.start.tolist() == ref[0] and grid.site.tolist() == ref[1]
    # Which runs may keep a queue index: not one with a registered component that does not say it
    # reads indexed queues right (raw-queue reads Q_TAIL - Q_HEAD; narrow says nothing).
    from evogrid.sim import grid as grid_loop, queue_index
    from evogrid.sim.schedule import GridJobs
    gj = GridJobs.merge(ws)
    lrms_codes = np.full(3, lrms.REGISTRY["easy"].code, dtype=np.int64)
    kept = {}
    exchanges = {where: Exchange("toy", transfer=("awf",) * 3, location=where)
                 for where in ("shortest-queue", "raw-queue")}
    exchanges["narrow"] = Exchange("toy", transfer=("narrow",) * 3, location="fixed")
    exchanges["WIDE"] = ruled
    for label, exchange in exchanges.items():
        setup = exchange.arrays(gj).setup
        spans = grid_loop._queue_index(n * 3, lrms_codes, setup, 0, 1, False)[queue_index.SPAN_ON, :3, 0]
        kept[label] = bool((spans == 1).all())  # else EMPTY: no queue is ever that long
    out.append({"equal": start == want, "feature_equal": feature_equal, "index_kept": kept,
                "feature_acted": grid.site.tolist() != g.origin.tolist(),
                "differs_from_fcfs": start != fcfs,
                "location_equal": all(v for k, v in routed.items() if k[-1] == "equal"),
                "location_acted": routed["shortest-queue", "awf"] != routed["fixed", "awf"],
                "transfer_acted": routed["fixed", "narrow"] != routed["fixed", "awf"],
                "reserved_equal": held.start.tolist() == ref_start
                and booked.start.tolist() == [b[0] for b in ref_booked],
                "reservations_acted": held.start.tolist() != start,
                "on_time_equal": on_time.start.tolist() == on_time_ref[0]
                and on_time_booked.start.tolist() == [b[0] for b in on_time_ref[1]],
                "on_time_acted": on_time_booked.start.tolist() != booked.start.tolist(),
                "weighted_acted": weighted.sites.tolist() != backlog.sites.tolist()
                or weighted.start.tolist() != backlog.start.tolist()})
print(json.dumps(out))
'''


@pytest.mark.xdist_group("compile")
def test_a_toy_lrms_registered_from_a_test_file_runs_and_matches_its_twin(tmp_path):
    script = tmp_path / "toy_lrms.py"
    script.write_text(TOY)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"),
               PYTHONPATH=os.pathsep.join([str(TESTS), str(TESTS.parent), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    cases = json.loads(done.stdout.strip().splitlines()[-1])
    assert all(c["equal"] for c in cases), cases
    assert any(c["differs_from_fcfs"] for c in cases)  # the toy rule really acted
    assert all(c["reserved_equal"] for c in cases), cases
    assert any(c["reservations_acted"] for c in cases)
    assert all(c["location_equal"] for c in cases), cases  # a toy location policy, compiled and its twin
    assert any(c["location_acted"] for c in cases)
    assert any(c["transfer_acted"] for c in cases)  # and a toy transfer policy
    assert all(c["feature_equal"] for c in cases), cases  # a toy feature read by rulebases, and its twin
    # A registered component keeps the queue index only if it says it reads holes right.
    assert cases[0]["index_kept"] == {"shortest-queue": True, "raw-queue": False, "narrow": False,
                                      "WIDE": True}
    assert any(c["feature_acted"] for c in cases)
    # Toy admission algorithms: their own placement (against its twin), and flags over Meltzer's tree
    # (against the twin's tree, which reads the flags: _run_against_reference raised otherwise).
    assert all(c["on_time_equal"] for c in cases), cases
    assert any(c["on_time_acted"] for c in cases)
    assert any(c["weighted_acted"] for c in cases)


def test_registering_after_a_simulation_is_refused():
    from evogrid.sim import lrms
    from evogrid.sim.schedule import warm_up

    warm_up(("fcfs",))
    with pytest.raises(RuntimeError, match="before the first simulation"):
        lrms.register(lrms.Lrms("late", len(lrms.REGISTRY), "too late", None))
    assert "late" not in lrms.REGISTRY


def test_a_request_kind_registered_from_a_test_file_makes_a_scenarios_requests(tmp_path):
    """A toy request kind ("every-nth": every n-th job of the source site, a one-part request at its
    own submission with an hour of slack) with a setting of its own, named by a scenario file: the
    requests are the jobs it chose, those jobs leave the batch workload (counted), the grid books
    them, and a bad setting is one line naming it. Request kinds are not compiled, so this runs in
    the test's own process."""
    from dataclasses import replace

    import numpy as np
    from pydantic import BaseModel, ConfigDict, Field

    import evogrid as eg
    from evogrid.errors import ScenarioError
    from evogrid.sim import requests as request_kinds
    from evogrid.sim.booking import reservation_setup
    from evogrid.workload.reservations import Reservations

    class Options(BaseModel):
        model_config = ConfigDict(extra="forbid")
        every: int = Field(ge=1)

    def make(workloads, config, options):
        workloads = list(workloads)
        w = workloads[config.source]
        chosen = np.arange(w.n_jobs) % options.every == options.every - 1
        idx = np.flatnonzero(chosen)
        submit = w.submit[idx].astype(np.int64)
        run = np.maximum(1, w.run_time[idx].astype(np.int64))
        rest = w.select(~chosen)
        workloads[config.source] = replace(rest, dropped={**rest.dropped, "became_reservation": idx.size})
        return workloads, Reservations("every-nth", submit, submit.copy(), submit + run + 3600, run,
                                       w.procs[idx].astype(np.int64)[:, None], idx.astype(np.int64),
                                       np.full(idx.size, config.source, dtype=np.int64))

    request_kinds.register(request_kinds.RequestKind("every-nth", "every n-th job, at once", make, Options))
    try:
        path = tmp_path / "toy.toml"
        path.write_text('lrms = "easy"\n[[sites]]\nwindow = "SDSC03@d14-28"\n[reservations]\n'
                        'workload = "every-nth"\nalgorithm = "first-fit"\noptions = { every = 7 }\n')
        scenario = eg.Scenario.from_spec(str(path))
        whole = scenario.workloads[0]
        workloads, requests, _ = reservation_setup(scenario)
        assert requests.source_job.tolist() == list(range(6, whole.n_jobs, 7))
        assert workloads[0].n_jobs == whole.n_jobs - requests.n_requests
        assert workloads[0].dropped["became_reservation"] == requests.n_requests
        result = eg.simulate(scenario)
        accepted = result.bookings.start >= 0
        assert 0 < accepted.sum() <= requests.n_requests
        assert (result.bookings.start[accepted] >= requests.earliest_start[accepted]).all()
        for bad, field in (("{ every = 0 }", "every"), ("{ every = 7, each = 1 }", "each")):
            path.write_text(path.read_text().replace(path.read_text().splitlines()[-1], f"options = {bad}"))
            with pytest.raises(ScenarioError, match=rf"^\[reservations\] options: .*{field}") as err:
                reservation_setup(eg.Scenario.from_spec(str(path)))
            assert "\n" not in str(err.value)
    finally:
        request_kinds.REGISTRY.unregister("every-nth")
    with pytest.raises(ScenarioError, match="unknown request kind 'every-nth'"):
        eg.Scenario.from_spec(str(path))
