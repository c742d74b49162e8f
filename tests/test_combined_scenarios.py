"""Exchange, reservations, speeds and requirements in one run: the grid loop compiled for reservations.

On random grids (2-3 sites, random speeds, attributes and requirements), random transfer policies
(local, AWF, brokers) and location policies (Beichter's with LoadLeveler's slots in half of their
cases), a cap per site on the grid's share of it in a third of the cases where jobs move (its
jobs from elsewhere never exceed it), random requests (booked at one site or placed by the
grid) under every admission algorithm for them, and a random LRMS per site: the schedule (start,
site, run time of every job) and every booking (start, sites, messages, cost, Meltzer's
Filterungsgrad and span) are the pure-Python reference's (reference_sim.simulate_reference with a
Desk), every invariant holds (each job once, never before its submission, capacity with the held
reservations, FCFS order, requirements, speeds; accepted requests in their window, parts on
distinct sites at one start), and without requests the run is the grid loop's own schedule.
"""

import numpy as np
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from invariants import check_schedule
from reference_sim import Policy, simulate_reference
from test_core_vs_reference import workloads
from test_grid_vs_reference import _reference_jobs
from test_matchmaking_vs_reference import _assert_running_foreign_within, heterogeneous
from test_reservation_loop import (
    LRMS,
    MELTZER,
    _check_capacity_with_reservations,
    check_bookings,
    reference_requests,
    requests,
    site_orders,
)

from evogrid.sim.booking import ReservationRules, simulate_reservations
from evogrid.sim.schedule import Exchange, GridJobs, simulate_grid
from evogrid.workload.reservations import Reservations

BEICHTER = ["beichter-old", "beichter-new"]
SCORING = ["least-load", "olb", "met", "mct", *BEICHTER]


@st.composite
def combined(draw):
    K = draw(st.integers(2, 3))
    sites = [draw(workloads(max_jobs=12)) for _ in range(K)]
    fixed = draw(st.integers(0, 3)) == 0
    algorithm = draw(st.sampled_from(["first-fit", "probe", *MELTZER] if fixed else ["probe", *MELTZER]))
    parts = 1 if algorithm == "probe" else K  # the probe places one-part requests
    req = draw(requests([w.machine_procs for w in sites], max_parts=parts, fixed=fixed))
    transfer = tuple(draw(st.sampled_from(["local", "awf", "broker"])) for _ in range(K))
    location = draw(st.sampled_from(SCORING if "broker" in transfer else ["fixed", *SCORING]))
    refresh = draw(st.one_of(st.just(0), st.integers(1, 40)))  # stale information in about half the cases
    # In a third of the cases where jobs move, a cap per site on the grid's share of it (its own count,
    # beside the reservations); with Beichter's policies, the grid's slots in half of theirs.
    moving = set(transfer) != {"local"}
    caps = () if not moving or draw(st.integers(0, 2)) else tuple(
        draw(st.one_of(st.none(), st.integers(0, w.machine_procs))) for w in sites)
    slots = () if not moving or location not in BEICHTER or draw(st.booleans()) else tuple(
        draw(st.one_of(st.none(), st.integers(1, 2 * w.machine_procs))) for w in sites)
    # LoadLeveler's enforcement of the slots does not run beside reservations: his policies read them.
    exchange = Exchange("mixed", transfer=transfer, location=location, refresh_s=refresh, grid_cap=caps,
                        grid_slots=slots, slot_rule="read" if slots else "enforced")
    return sites, draw(heterogeneous(K)), req, exchange, \
        ReservationRules(algorithm, minsize=draw(st.integers(1, 8)), windows=draw(st.integers(1, 4)),
                         seed=draw(st.integers(0, 3)))


@settings(max_examples=1000, deadline=None, suppress_health_check=list(HealthCheck))
@given(combined(), st.lists(st.sampled_from(LRMS), min_size=3, max_size=3))
def test_exchange_with_reservations_equals_reference(case, lrms_drawn):
    sites, heterogeneity, req, exchange, rules = case
    K = len(sites)
    lrms = lrms_drawn[:K]
    schedule, bookings = simulate_reservations(sites, lrms, req, rules, exchange, heterogeneity)
    check_schedule(schedule, may_refuse=exchange.may_refuse)
    _check_capacity_with_reservations(schedule, req, bookings)
    jobs = schedule.jobs
    speed, tags, hard, preferred = (tuple(a.tolist()) for a in jobs.site_arrays)
    policy = Policy("exchange", exchange.transfer, exchange.location, speed=speed, tags=tags, hard=hard,
                    preferred=preferred, refresh=exchange.refresh_s, grid_cap=exchange.grid_cap,
                    grid_slots=exchange.grid_slots, slot_rule=exchange.slot_rule)
    reqs, ref_rules = reference_requests(sites, req, rules, site_orders(K, req.n_requests, rules.seed))
    machine_procs = [w.machine_procs for w in sites]
    start, where, run_time, booked = simulate_reference(_reference_jobs(jobs), machine_procs, lrms, policy,
                                                        requests=reqs, rules=ref_rules)
    assert schedule.start.tolist() == start
    assert schedule.site.tolist() == where
    assert schedule.run_time.tolist() == run_time
    check_bookings(bookings, booked, req, rules, K)
    moved = schedule.site != jobs.origin
    event(f"requests accepted: {min(int(bookings.accepted.sum()), 3)}+")
    event(f"a job moved to a site that took a reservation: "
          f"{bool(np.isin(schedule.site[moved], bookings.sites[bookings.accepted]).any())}")
    event(f"a moved job's run time scaled: {bool((moved & (schedule.run_time != jobs.run_time)).any())}")
    event(f"grid caps: {any(c is not None for c in exchange.grid_cap)}; "
          f"grid slots: {any(c is not None for c in exchange.grid_slots)}")
    for k, cap in enumerate(exchange.grid_cap):
        if cap is not None:
            _assert_running_foreign_within(schedule, k, cap)
    none = Reservations("none", *(np.zeros(0, dtype=np.int64) for _ in range(4)), np.zeros((0, 1), np.int64))
    alone, _ = simulate_reservations(sites, lrms, none, rules, exchange=exchange, sites=heterogeneity)
    plain = simulate_grid(GridJobs.merge(sites, heterogeneity), lrms, exchange)
    for name in ("start", "site", "moves", "run_time"):
        assert np.array_equal(getattr(alone, name), getattr(plain, name)), name
