"""Heterogeneous sites, matchmaking, brokers and the new location policies against the reference."""

from dataclasses import replace

import numpy as np
import pytest
from draws import int_list
from evalys.jobset import JobSet
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from invariants import check_schedule, peak_in_use
from reference_sim import Policy
from test_grid_vs_reference import _reference, arr, grids, random_exchange

from evogrid.errors import ScenarioError
from evogrid.jobs_file import jobs_table, write_jobs, write_swf
from evogrid.policy.rulebase import Rulebase
from evogrid.sim import queue_index
from evogrid.sim.booking import ReservationRules, reservation_setup, simulate_reservations
from evogrid.sim.metrics import site_reservation_metrics, utilization_until
from evogrid.sim.python_policy import LocationPolicy
from evogrid.sim.registry import LOCATIONS
from evogrid.sim.scenario import Scenario
from evogrid.sim.schedule import Exchange, GridJobs, simulate_grid, simulate_local
from evogrid.sim.sites import Requirement, Sites
from evogrid.sim.tsk import TSKStack
from evogrid.workload.model import Workload
from evogrid.workload.reservations import Reservations

SETTINGS = settings(max_examples=1000, deadline=None, suppress_health_check=list(HealthCheck))
ATTRIBUTES = [("arch", "x86"), ("arch", "arm"), ("mem", "high"), ("lic", "matlab")]


@st.composite
def heterogeneous(draw, K):
    speeds = tuple(draw(st.sampled_from([0.5, 1.0, 1.5, 2.0, 4.0])) for _ in range(K))
    attributes = tuple(dict(draw(st.lists(st.sampled_from(ATTRIBUTES), max_size=3, unique_by=lambda a: a[0])))
                       for _ in range(K))
    held = sorted({a for attrs in attributes for a in attrs.items()})
    requirements = tuple(
        Requirement(a, v, draw(st.floats(0.0, 1.0)), draw(st.sampled_from(["hard", "preferred"])),
                    draw(st.integers(0, 99)))
        for a, v in (draw(st.lists(st.sampled_from(held), max_size=3)) if held else []))
    return Sites(speeds, attributes, requirements)


@SETTINGS
@given(grids(), st.data())
def test_brokers_matchmaking_and_speeds_equal_reference(sites, data):
    """Random speeds, attributes and requirements; random transfer policies (broker among them) and
    any location policy but the seeded shuffle; ranking rulebases at every site for ``rank``; an
    information service refreshed every 1-40 s in about half the cases (0: exact); EASY and LIST
    queues indexed from a span of 1 or 4 positions on in two thirds of the cases (the keys, the
    brokers and the published state count the jobs of queues with holes); in half the cases with a
    broker, brokers that hold jobs: while no site has room (hand-over ``when-room``, location
    policies that route jobs one by one) or in batches of 1-30 s (``batch``); in a third of the
    cases, a cap per site on the processors other sites' jobs hold there (none, or 0 to half the
    site's size), which the jobs from elsewhere never exceed; in another third, the grid's slots
    LoadLeveler enforces (none, or 1 to m), which the jobs from elsewhere running there never
    exceed either."""
    K = len(sites)
    jobs = GridJobs.merge(sites, data.draw(heterogeneous(K)))
    lrms = [data.draw(st.sampled_from(["fcfs", "easy", "list", "conservative"])) for _ in sites]
    transfer = tuple(data.draw(st.sampled_from(["local", "awf", "rulebase", "broker"])) for _ in sites)
    scoring = LOCATIONS.names(ranks_every_site=True)
    locations = scoring if "broker" in transfer else ("fixed", "awrt", *scoring)
    location = data.draw(st.sampled_from(locations))
    exchange, ref_rbs, ref_bounds = random_exchange(data, transfer, location)
    refresh = data.draw(st.one_of(st.just(0), st.integers(1, 40)))
    # A location policy per job (Beichter's POLICY tag) in about a third of the cases.
    per_job = [n for n in locations if n not in ("min-min", "max-min", "rank")]
    others = st.lists(st.sampled_from(per_job), min_size=1, max_size=3, unique=True)
    shares = () if LOCATIONS[location].batch or data.draw(st.integers(0, 2)) else tuple(
        (name, 0.3) for name in data.draw(others))
    holds = "broker" in transfer and data.draw(st.booleans())
    handover = "interactive"
    if holds:
        kinds = ["batch"] if LOCATIONS[location].batch else ["when-room", "batch"]
        handover = data.draw(st.sampled_from(kinds))
    batch_s = data.draw(st.integers(1, 30)) if handover == "batch" else 0
    caps = () if set(transfer) == {"local"} or data.draw(st.integers(0, 2)) else tuple(
        data.draw(st.one_of(st.none(), st.integers(0, max(1, w.machine_procs // 2)))) for w in sites)
    slots, maxjobs = _loadleveler_limits(data, sites, 1, 3) \
        if set(transfer) != {"local"} and not data.draw(st.integers(0, 2)) else ((), ())
    exchange = replace(exchange, refresh_s=refresh, job_locations=shares, handover=handover, batch_s=batch_s,
                       grid_cap=caps, grid_slots=slots, grid_maxjobs=maxjobs)
    index_span = data.draw(st.sampled_from([1, 4, queue_index.SPAN]))
    schedule = simulate_grid(jobs, lrms, exchange, index_span=index_span)
    check_schedule(schedule, joined_in_submit_order=not holds, may_refuse=exchange.may_refuse,
                   limited=_limited(slots, maxjobs))
    speed, tags, hard, preferred = (a.tolist() for a in jobs.site_arrays)
    policy = Policy("exchange", transfer, location, ref_rbs, speed=tuple(speed), tags=tuple(tags),
                    hard=tuple(hard), preferred=tuple(preferred), refresh=refresh, bounds=ref_bounds,
                    job_location=_job_location_names(exchange, jobs), handover=handover, batch_s=batch_s,
                    grid_cap=caps, grid_slots=slots, grid_maxjobs=maxjobs)
    start, where, run_time = _reference(sites, jobs, lrms, policy)
    assert schedule.start.tolist() == start
    assert schedule.site.tolist() == where
    assert schedule.run_time.tolist() == run_time
    moved = schedule.site != jobs.origin
    rescaled = moved & (schedule.run_time != jobs.run_time)
    event(f"location {location}")
    event(f"stale information: {refresh > 0}")
    event(f"hand-over: {handover}")
    event(f"grid caps: {any(cap is not None for cap in caps)}")
    if caps:  # did a cap turn a job away?
        uncapped = simulate_grid(jobs, lrms, replace(exchange, grid_cap=()), index_span=index_span)
        event(f"the caps changed the schedule: {uncapped.site.tolist() != where}")
    for k, cap in enumerate(caps + slots):
        if cap is not None:
            _assert_running_foreign_within(schedule, k % K, cap)
    _assert_within_maxjobs(schedule, maxjobs)
    if any(_limited(slots, maxjobs)):  # did LoadLeveler's limits hold a job back?
        free = simulate_grid(jobs, lrms, replace(exchange, grid_slots=(), grid_maxjobs=()),
                             index_span=index_span)
        event(f"the enforced slots and maxjobs changed the schedule: {free.start.tolist() != start}")
    if holds:  # did holding change anything?
        routed = simulate_grid(jobs, lrms, replace(exchange, handover="interactive", batch_s=0),
                               index_span=index_span)
        changed = routed.start.tolist() != start or routed.site.tolist() != where
        event(f"{handover} changed the schedule: {changed}")
    event(f"a location policy per job: {bool(shares)}")
    event(f"jobs moved between sites of different speed: {bool(rescaled.any())}")
    event(f"a job with a hard requirement moved: {bool((moved & (np.asarray(hard) > 0)).any())}")
    event(f"jobs submitted at one instant: {bool((np.diff(jobs.submit) == 0).any())}")


@st.composite
def crowded_grids(draw):
    """Two or three sites of 1-2 processors with 15-30 jobs each in 30 s: queues reach Beichter's
    cap of 5 m waiting jobs everywhere, where brokers refuse."""
    sites = []
    for _ in range(draw(st.integers(2, 3))):
        m, n = draw(st.integers(1, 2)), draw(st.integers(15, 30))
        run_time = arr(draw(int_list(n, 1, 20)))
        sites.append(Workload(f"s{m}", m, arr(sorted(draw(int_list(n, 0, 30)))), run_time,
                              arr(draw(int_list(n, 1, m))), run_time + arr(draw(int_list(n, 0, 10))),
                              np.arange(n, dtype=np.int64), np.zeros(n, dtype=np.int64)))
    return sites


@SETTINGS
@given(st.one_of(grids(), crowded_grids()), st.data())
def test_beichters_policies_equal_reference(sites, data):
    """Beichter's old and new policies (his 3.4 and 7.1.2) as the location order of a random transfer
    policy per site (broker, AWF or local) on 1,000 random grids, a random LRMS per site: the schedule
    is the reference's (reference_sim.beichter_key). Half the grids have sites of 1-12 processors
    with up to 14 jobs each, the other half are crowded (:func:`crowded_grids`), so queues reach his
    cap of 5 m waiting jobs. In half the cases
    where some site does not keep its jobs, the grid's LoadLeveler slots per site (none, or 1 to 3 m:
    his ``maxslots``, free when no job from elsewhere runs there), enforced by LoadLeveler (except at
    sites of any LRMS) or only read by his policies, drawn; in half of all cases an
    information service refreshed every 1-40 s (the free slots as last published)."""
    _beichter_case(sites, data, ("broker", "awf", "local"))


@SETTINGS
@given(crowded_grids(), st.data())
def test_beichters_refusals_equal_reference(sites, data):
    """Brokers at every site of 1,000 crowded grids, refusing the jobs Beichter's policies hand to no
    site (``refusals`` refuse or keep, drawn; the rest as above): the schedule and the refused jobs
    (start -1) are the reference's; a refused job stays at its origin and never moved
    (check_schedule). A broker refuses jobs in about a fifth of the cases."""
    _beichter_case(sites, data, ("broker",))


def _beichter_case(sites, data, transfers):
    """One random case of the two tests above: a location policy of Beichter's, a transfer policy of
    ``transfers`` per site, and the rest drawn; the compiled loop against the reference."""
    location = data.draw(st.sampled_from(["beichter-old", "beichter-new"]))
    transfer = tuple(data.draw(st.sampled_from(transfers)) for _ in sites)
    lrms = [data.draw(st.sampled_from(["fcfs", "easy", "list", "conservative"])) for _ in sites]
    handover = "interactive"
    if "broker" in transfer:
        handover = data.draw(st.sampled_from(["interactive", "when-room"]))
    slot_rule = data.draw(st.sampled_from(["enforced", "read"]))
    slots, maxjobs = _loadleveler_limits(data, sites, 3, 3) \
        if set(transfer) != {"local"} and data.draw(st.booleans()) else ((), ())
    if slot_rule == "read" and location == "beichter-old":
        maxjobs = ()  # his old policy reads no maxjobs: given only to be read, they are an error
    refresh = data.draw(st.one_of(st.just(0), st.integers(1, 40)))
    jobs = GridJobs.merge(sites)
    refusals = data.draw(st.sampled_from(["refuse", "keep"])) if "broker" in transfer else "refuse"
    exchange = Exchange(location, transfer=transfer, location=location, handover=handover, grid_slots=slots,
                        grid_maxjobs=maxjobs, refresh_s=refresh, refusals=refusals,
                        slot_rule=slot_rule if slots or maxjobs else "enforced")
    enforced = exchange.slot_rule == "enforced"
    schedule = simulate_grid(jobs, lrms, exchange)
    check_schedule(schedule, joined_in_submit_order=handover == "interactive", may_refuse=exchange.may_refuse,
                   limited=_limited(slots, maxjobs) if enforced else ())
    policy = Policy("exchange", transfer, location, handover=handover, grid_slots=slots, grid_maxjobs=maxjobs,
                    refresh=refresh, refusals=refusals, slot_rule=exchange.slot_rule)
    start, where = _reference(sites, jobs, lrms, policy)
    assert schedule.start.tolist() == start
    assert schedule.site.tolist() == where
    event(f"{location}: a broker refused a job: {bool(schedule.refused.any())}")
    if location == "beichter-new" and refresh == 0 and handover == "interactive":
        _check_refused_at_full_queues(schedule, slots, enforced)
    if any(_limited(slots, maxjobs)):
        unlimited = replace(exchange, grid_slots=(), grid_maxjobs=(), slot_rule="enforced")
        without = simulate_grid(jobs, lrms, unlimited)
        event(f"{location}: the slots and maxjobs ({exchange.slot_rule}) changed the schedule: "
              f"{without.site.tolist() != where}")
        if enforced:
            for k, cap in enumerate(slots):
                if cap is not None:
                    _assert_running_foreign_within(schedule, k, cap)
            _assert_within_maxjobs(schedule, maxjobs)
    submit = jobs.submit
    full = any(((schedule.site == k) & (submit <= t) & (schedule.start > t)).sum() >= 5 * w.machine_procs
               for t in submit.tolist() for k, w in enumerate(sites))
    event(f"{location}: some queue reached 5 m jobs: {full}")
    event(f"{location}: hand-over {handover}")
    event(f"{location}: a job moved: {bool((schedule.site != jobs.origin).any())}")


def _loadleveler_limits(data, sites, slots_per_m, most_jobs):
    """LoadLeveler's limits for the grid per site, drawn: ``(slots, maxjobs)``, each () or per site
    None or 1 to ``slots_per_m`` m slots, and None or 1 to ``most_jobs`` jobs (under every LRMS,
    conservative backfilling included)."""
    slots = () if data.draw(st.booleans()) else tuple(
        data.draw(st.one_of(st.none(), st.integers(1, slots_per_m * w.machine_procs))) for w in sites)
    maxjobs = () if data.draw(st.booleans()) else tuple(
        data.draw(st.one_of(st.none(), st.integers(1, most_jobs))) for _ in sites)
    return slots, maxjobs


def _limited(slots, maxjobs):
    """Per site: does a limit of LoadLeveler's hold there (``slots`` or ``maxjobs``)?"""
    n = max(len(slots), len(maxjobs))
    return tuple((slots and slots[k] is not None) or (maxjobs and maxjobs[k] is not None) for k in range(n))


def _assert_within_maxjobs(schedule, maxjobs):
    """The jobs of other sites running at a site never number more than its ``maxjobs``."""
    jobs = schedule.jobs
    for k, most in enumerate(maxjobs):
        if most is not None:
            mine = (schedule.site == k) & (jobs.origin != k)
            one_each = np.ones(mine.sum(), dtype=np.int64)
            assert peak_in_use(schedule.start[mine], schedule.end[mine], one_each) <= most, k


def _check_refused_at_full_queues(schedule, slots, enforced):
    """His new policy refuses a job only when every site it may use holds at least its cap of
    waiting jobs (5 slots, or 5 m without slots): counted from the schedule at the job's arrival
    (jobs arrive in index order). Where LoadLeveler ``enforced`` the slots, a site whose slots are
    fewer than the job's processors is not among the others' sites."""
    jobs, refused = schedule.jobs, schedule.refused
    index = np.arange(len(jobs.submit))
    for j in np.flatnonzero(refused):
        t, need = jobs.submit[j], jobs.procs[j]
        for k, m in enumerate(jobs.machine_procs.tolist()):
            narrow = m < need or (enforced and slots and slots[k] is not None and slots[k] < need)
            if k != jobs.origin[j] and narrow:
                continue  # too narrow for the job: not among its sites
            cap = 5 * (slots[k] if slots and slots[k] is not None else m)
            waiting = (schedule.site == k) & ~refused & (index < j) & (schedule.start > t)
            assert waiting.sum() >= cap, (j, k, int(waiting.sum()), cap)


def _beichter_schedule(location, sizes, home_jobs, broker_jobs, refusals="refuse"):
    """The schedule of a grid whose last site is a broker, the others keeping their jobs: site 0
    (``sizes[0]`` processors) keeps its ``home_jobs`` one-processor jobs submitted at 0; the last
    site's ``broker_jobs`` one-processor jobs arrive at 0, 1, 2, ... s and go where ``location``
    says."""
    long = 10_000
    workloads = [Workload("a", sizes[0], arr([0] * home_jobs), arr([long] * home_jobs), arr([1] * home_jobs),
                          arr([long] * home_jobs), arr(range(1, home_jobs + 1)), arr([0] * home_jobs))]
    workloads += [Workload(f"s{k}", m, arr([]), arr([]), arr([]), arr([]), arr([]), arr([]))
                  for k, m in enumerate(sizes[1:-1], 1)]
    n = broker_jobs
    workloads.append(Workload("b", sizes[-1], arr(range(n)), arr([long] * n), arr([1] * n), arr([long] * n),
                              arr(range(1, n + 1)), arr([0] * n)))
    transfer = ("local",) * (len(sizes) - 1) + ("broker",)
    exchange = Exchange(location, transfer=transfer, location=location, refusals=refusals)
    schedule = simulate_grid(GridJobs.merge(workloads), "fcfs", exchange)
    check_schedule(schedule, may_refuse=exchange.may_refuse)
    return schedule


def _beichter_sites(location, sizes, home_jobs, broker_jobs, refusals="refuse"):
    """Where the broker's jobs of :func:`_beichter_schedule` ran (-1: refused)."""
    schedule = _beichter_schedule(location, sizes, home_jobs, broker_jobs, refusals)
    mine = schedule.jobs.origin == len(sizes) - 1
    return np.where(schedule.refused, -1, schedule.site)[mine].tolist()


@pytest.mark.parametrize("location", ["beichter-old", "beichter-new"])
def test_beichters_worked_example_and_queue_cap(location):
    """His 7.1.2 example: A (100 processors) runs 51 jobs and B (2) one; the old policy sends the next
    job to B (50 % busy against A's 51 %), the new one to A (52 % after the job against B's 100 %).
    Then two busy one-processor sites: the broker's jobs (from site 1) join the shorter queue, ties at
    home, up to his cap of 5 m = 5 waiting jobs; once both queues hold 5, he refuses the next jobs
    (they never run; -1), which evogrid's ``keep`` leaves at their origin instead."""
    first, second = _beichter_sites(location, (100, 2), 51, 2)
    assert first == 1 and second == (1 if location == "beichter-old" else 0)
    assert _beichter_sites(location, (1, 1), 1, 14) == [1, 1] + [0, 1] * 4 + [0] + [-1] * 3
    assert _beichter_sites(location, (1, 1), 1, 14, "keep") == [1, 1] + [0, 1] * 5 + [1, 1]


def test_refused_jobs_are_counted_and_written_as_rejected(tmp_path):
    """The three jobs refused above: the metrics count them at their origin and leave them out of
    every other value (AWRT over the 11 that ran, computed here by hand); the jobs file writes them
    as Batsim writes rejected jobs, and evalys reads it; the SWF of their origin counts them in its
    header and lists only the jobs that ran there. ``refusals keep`` where nothing refuses is one
    clear error."""
    schedule = _beichter_schedule("beichter-new", (1, 1), 1, 14)
    jobs, refused = schedule.jobs, schedule.refused
    assert refused.sum() == 3 and (schedule.start[refused] == -1).all()
    rows = schedule.metrics()
    assert [r["jobs_refused"] for r in rows] == [0, 3]
    assert sum(r["jobs_executed"] for r in rows) == 15 - 3
    ran = (jobs.origin == 1) & ~refused
    area = jobs.run_time[ran] * jobs.procs[ran]
    response = schedule.start[ran] + jobs.run_time[ran] - jobs.submit[ran]
    assert rows[1]["awrt"] == pytest.approx((area * response).sum() / area.sum())
    assert rows[1]["mean_wait"] == pytest.approx((schedule.start[ran] - jobs.submit[ran]).mean())
    table = jobs_table(schedule)
    rejected = [i for i, state in enumerate(table["final_state"]) if state == "REJECTED"]
    assert rejected == np.flatnonzero(refused).tolist()
    assert all(table["success"][i] == 0 and table["starting_time"][i] is None
               and table["allocated_resources"][i] == "" for i in rejected)
    path = write_jobs(tmp_path / "jobs.csv", schedule)
    frame = JobSet.from_csv(str(path)).df
    assert frame["starting_time"].isna().sum() == 3 and (frame["final_state"] == "REJECTED").sum() == 3
    swf = write_swf(tmp_path / "swf", schedule)[1].read_text().splitlines()
    assert "; Note: 3 jobs submitted here were refused by the grid's broker and never ran; they are not " \
           "listed" in swf
    assert len([line for line in swf if not line.startswith(";")]) == rows[1]["jobs_executed"]
    # With a reservation at the broker's site too: the reservation measures leave the refused out.
    one = np.array([1], dtype=np.int64)
    request = Reservations("one", 0 * one, 0 * one, 300_000 * one, 1_000 * one, one[:, None],
                           site=one.copy())
    exchange = Exchange("x", transfer=("local", "broker"), location="beichter-new")
    booked_schedule, bookings = simulate_reservations(list(jobs.workloads), "fcfs", request,
                                                      ReservationRules("first-fit"), exchange)
    assert booked_schedule.refused.sum() == 3 and bookings.accepted.all()
    assert all(row["utilization_with_reservations"] <= 1.0
               for row in site_reservation_metrics(booked_schedule, request, bookings))
    until = utilization_until(booked_schedule, 50_000.0, request, bookings)
    assert all(row["utilization"] <= 1.0 for row in until)
    with pytest.raises(ScenarioError, match="refusals 'keep' applies to brokers with a location policy "
                                            "that refuses \\(beichter-old, beichter-new\\)"):
        simulate_grid(jobs, "fcfs", Exchange("x", transfer=("local", "broker"), location="mct",
                                             refusals="keep"))


@pytest.mark.parametrize("location", ["beichter-old", "beichter-new"])
def test_slots_that_stay_free_while_the_users_hold_the_processors(location):
    """His 7.1.1 flaw: site 1 (4 processors) gives the grid 50 slots, but its own 4-processor job holds
    every processor for 1,000 s. The broker at site 0 (8 processors, idle) routes five 1-processor
    jobs. The old policy sees site 1's slots all free (free slots fall only when a job from
    elsewhere starts) and the larger site on the tie, so all five queue there and start from 1,000 s;
    the new one reads ``min(free processors, free slots) = 0`` and keeps them at home. Without the
    slots both keep them home."""
    a = Workload("a", 8, arr([10, 11, 12, 13, 14]), arr([100] * 5), arr([1] * 5), arr([100] * 5),
                 arr(range(1, 6)), arr([0] * 5))
    b = Workload("b", 4, arr([0]), arr([1000]), arr([4]), arr([1000]), arr([1]), arr([0]))
    jobs = GridJobs.merge([a, b])

    def run(slots):
        schedule = simulate_grid(jobs, "fcfs", Exchange(location, transfer=("broker", "local"),
                                                        location=location, grid_slots=slots))
        check_schedule(schedule)
        return schedule.site.tolist()[1:], schedule.start.tolist()[1:]

    home = ([0] * 5, [10, 11, 12, 13, 14])
    assert run(()) == home
    assert run((None, 50)) == (([1] * 5, [1000] * 4 + [1100]) if location == "beichter-old" else home)
    for slots, message in [((None, 0), "site 1: 0, expected whole slots >= 1"), ((4,), "1 values for 2")]:
        with pytest.raises(ScenarioError, match=message):
            simulate_grid(jobs, "fcfs", Exchange(location, transfer=("broker", "local"), location=location,
                                                 grid_slots=slots))
    with pytest.raises(ScenarioError, match="beichter-old, beichter-new only, not mct"):
        simulate_grid(jobs, "fcfs", Exchange("x", transfer=("broker", "local"), location="mct",
                                             grid_slots=(None, 50), slot_rule="read"))


@pytest.mark.parametrize("lrms", ["fcfs", "easy", "conservative"])
def test_no_lrms_backfills_a_grid_job_over_the_slots(lrms):
    """Site 1 (4 processors, 1 slot for the grid) runs its own 2-processor job and a grid job; its
    own 4-processor job waits for both (to 101 s), and its own long 1-processor job behind it would
    delay it. A second grid job would fit the free processor and end long before (4-14 s), so EASY
    and conservative backfilling would start it (they do without the slot); the slot hides it
    (conservative: it reserves nothing either, while the long job behind the head reserves), and it
    starts with the long job after the wide one (151 s)."""
    a = Workload("a", 1, arr([0, 1, 4]), arr([1000, 100, 10]), arr([1, 1, 1]), arr([1000, 100, 10]),
                 arr([1, 2, 3]), arr([0] * 3))
    b = Workload("b", 4, arr([0, 2, 3]), arr([100, 50, 1000]), arr([2, 4, 1]), arr([100, 50, 1000]),
                 arr([1, 2, 3]), arr([0] * 3))
    jobs = GridJobs.merge([a, b])
    awf = Exchange("x", transfer=("awf", "awf"))
    schedule = simulate_grid(jobs, lrms, replace(awf, grid_slots=(None, 1)))
    check_schedule(schedule, limited=_limited((None, 1), ()))
    # merged by submission: a's long job, b's 2-processor job, the grid job, b's wide job, b's long
    # job, the second grid job
    assert schedule.site.tolist() == [0, 1, 1, 1, 1, 1]
    assert schedule.start.tolist() == [0, 0, 1, 101, 151, 151]
    backfilled = 151 if lrms == "fcfs" else 4  # without the slot
    assert simulate_grid(jobs, lrms, awf).start.tolist() == [0, 0, 1, 101, 151, backfilled]


def test_conservative_reserves_the_grid_jobs_its_pass_saw():
    """Conservative backfilling at a site with 4 slots, in one pass (at 10 s, when a job ends): the
    wide own job H blocks the head (20 s); the grid job K (4 processors) is seen, and reserves beside
    it (20 s); the grid job G starts (10 s) and leaves the slots 2, hiding K from then on; the own
    job X would fit the free processor now, but K's reservation holds the rest, so X waits (70 s).
    Placing the reservations later, when X comes (as conservative backfilling does lazily where
    nothing hides), would hide K and start X at 10 s, delaying K to 100 s."""
    # a (4 processors, speed 1): its two grid jobs go to b, the faster (MET), at half their run time
    a = Workload("a", 4, arr([2, 3]), arr([100, 10]), arr([4, 2]), arr([100, 10]), arr([1, 2]), arr([0, 0]))
    # b (8 processors, speed 2): R1 (5, to 20 s) and R2 (3, to 10 s) fill it; then H and X queue
    b = Workload("b", 8, arr([0, 0, 1, 4]), arr([20, 10, 100, 90]), arr([5, 3, 4, 1]),
                 arr([20, 10, 100, 90]), arr([1, 2, 3, 4]), arr([0] * 4))
    jobs = GridJobs.merge([a, b], Sites((1.0, 2.0), ({}, {}), ()))
    schedule = simulate_grid(jobs, "conservative", Exchange("x", transfer=("broker", "local"), location="met",
                                                            grid_slots=(None, 4)))
    check_schedule(schedule, limited=_limited((None, 4), ()))
    # merged by submission: R1, R2, H, K, G, X
    assert schedule.site.tolist() == [1] * 6
    assert schedule.start.tolist() == [0, 0, 20, 20, 10, 70]
    start, where, _ = _reference([a, b], jobs, ["conservative"] * 2,
                                 Policy("exchange", ("broker", "local"), "met", speed=(1.0, 2.0),
                                        grid_slots=(None, 4)))
    assert (start, where) == (schedule.start.tolist(), schedule.site.tolist())  # the twin agrees


def test_loadleveler_starts_no_grid_job_over_the_slots():
    """Beichter's clusters: LoadLeveler starts no job of the grid's class over its slots. The broker
    at site 0 (4 processors) sends four 1-processor jobs (0-3 s) to site 1 (8 processors, the most
    free by OLB, which reads no slots). With 2 slots there, two run and two wait, passed over by
    FCFS, until one ends (100 and 101 s), while site 1's own job at 5 s starts at once; the
    3-processor job at 4 s is wider than the slots and stays home. With 3 slots it goes to site 1,
    and waits there until the grid's jobs hold no slot (200 s). Errors: one line each."""
    a = Workload("a", 4, arr([0, 1, 2, 3, 4]), arr([100] * 5), arr([1, 1, 1, 1, 3]), arr([100] * 5),
                 arr(range(1, 6)), arr([0] * 5))
    b = Workload("b", 8, arr([5]), arr([100]), arr([1]), arr([100]), arr([1]), arr([0]))
    jobs = GridJobs.merge([a, b])
    broker = Exchange("x", transfer=("broker", "local"), location="olb")

    def run(slots, lrms="fcfs"):
        schedule = simulate_grid(jobs, lrms, replace(broker, grid_slots=slots))
        check_schedule(schedule, limited=_limited(slots, ()))
        return schedule.site.tolist(), schedule.start.tolist()

    assert run(()) == ([1, 1, 1, 1, 0, 1], [0, 1, 2, 3, 4, 5])
    assert run((None, 2)) == ([1, 1, 1, 1, 0, 1], [0, 1, 100, 101, 4, 5])
    assert run((None, 3)) == ([1, 1, 1, 1, 1, 1], [0, 1, 2, 100, 200, 5])
    assert run((None, 2), "easy") == run((None, 2))
    for change, message in [
        (dict(grid_slots=(None, 2), slot_rule="read"), "slot_rule 'read' are read by the location policies "
                                                       "beichter-old, beichter-new only, not olb"),
        (dict(slot_rule="read"), "slot_rule 'read' applies to grid_slots and grid_maxjobs, and none"),
    ]:
        with pytest.raises(ScenarioError, match=message):
            simulate_grid(jobs, "fcfs", replace(broker, **change))
    assert run((None, 2), ["fcfs", "conservative"]) == run((None, 2))  # conservative passes over them too
    assert run((None, 2), ["conservative", "fcfs"]) == run((None, 2))  # a site without slots may plan
    none = Reservations("none", *(np.zeros(0, dtype=np.int64) for _ in range(4)), np.zeros((0, 1), np.int64))
    with pytest.raises(ScenarioError, match="slot_rule 'enforced' do not run with reservation requests"):
        simulate_reservations([a, b], "fcfs", none, exchange=replace(broker, grid_slots=(None, 2)))


def test_his_example_of_the_old_policys_flaw_with_loadlevelers_maxjobs():
    """His 7.1.1 (Abbildung 21): cluster B gives the grid 50 slots, but its user may run 5 jobs (maxjobs,
    enforced; ours: he names starters and maxjobs as the limits, docs/grid.md), while A and C take 2
    each. The old policy reads only the slots: after ten jobs A and C hold one each and B eight, five
    running (his 45/50 at B), and B keeps taking jobs until its queue passes 2 maxslots (his code's
    check ``jobwait > 2*maxslots``: 98 more, where his text counts 97), then A and C alternate. The new
    policy reads ``minFree = min(freestarter, freeslots, maxjobs - running)``: B takes its five, A and C
    two each, and the queues fill by ``(jobwait + 1) / (5 minMax)``."""
    n, long = 120, 100_000
    broker = Workload("G", 1, arr(range(n)), arr([long] * n), arr([1] * n), arr([long] * n),
                      arr(range(1, n + 1)), arr([0] * n))
    clusters = [Workload(name, m, arr([10**7]), arr([1]), arr([1]), arr([1]), arr([1]), arr([0]))
                for name, m in (("A", 2), ("B", 64), ("C", 2))]
    prefer = Requirement("cluster", "yes", share=1.0, kind="preferred")
    jobs = GridJobs.merge([broker, *clusters],
                          Sites((1.0,) * 4, ({}, *({"cluster": "yes"} for _ in clusters)), (prefer,)))

    def sites(location):
        exchange = Exchange(location, transfer=("broker", "local", "local", "local"), location=location,
                            grid_slots=(None, None, 50, None), grid_maxjobs=(None, None, 5, None))
        schedule = simulate_grid(jobs, "fcfs", exchange)
        check_schedule(schedule, limited=(False, False, True, False))
        _assert_within_maxjobs(schedule, (None, None, 5, None))
        return schedule.site.tolist()[:n]

    old = sites("beichter-old")
    assert old[:10] == [2, 1, 3] + [2] * 7
    assert old[10:108] == [2] * 98 and old[108:] == [1, 3] * 6
    new = sites("beichter-new")
    assert sorted(new[:9]) == [1, 1, 2, 2, 2, 2, 2, 3, 3]  # room: B five (its maxjobs), A and C two
    assert [new.count(k) for k in (1, 2, 3)] == [12, 96, 12]


def test_beichters_old_policy_skips_a_host_that_looks_broken():
    """His 3.4 code skips a site with room for the job when its queue holds more than twice its size
    and more than a tenth of it plus two slots stand free ("something wrong with host"). Site 0 (10
    processors) runs a 6-processor job and holds ``waiting`` 5-processor jobs it cannot start (4
    free); the broker at site 1 (10 processors, 9 busy) routes a 2-processor job: with 21 waiting
    the old policy skips site 0 and queues the job at home, with 20 it sends it to site 0; the new
    policy, which ranks only empty queues first, keeps it at home either way."""
    def route(location, waiting):
        n = waiting + 1
        a = Workload("a", 10, arr([0] * n), arr([10_000] * n), arr([6] + [5] * waiting), arr([10_000] * n),
                     arr(range(1, n + 1)), arr([0] * n))
        b = Workload("b", 10, arr([0, 1]), arr([10_000, 100]), arr([9, 2]), arr([10_000, 100]), arr([1, 2]),
                     arr([0, 0]))
        schedule = simulate_grid(GridJobs.merge([a, b]), "fcfs",
                                 Exchange(location, transfer=("local", "broker"), location=location))
        check_schedule(schedule)
        return schedule.site[-1]

    assert route("beichter-old", 21) == 1 and route("beichter-old", 20) == 0
    assert route("beichter-new", 21) == 1 and route("beichter-new", 20) == 1


def _two_sites(speed):
    """Site 0 (4 processors, speed ``speed[0]``) gets two 4-processor jobs at once; site 1 (4
    processors) is idle."""
    a = Workload("a", 4, arr([0, 0]), arr([100, 100]), arr([4, 4]), arr([100, 100]), arr([1, 2]), arr([0, 0]))
    b = Workload("b", 4, arr([500]), arr([1]), arr([1]), arr([1]), arr([1]), arr([0]))
    return GridJobs.merge([a, b], Sites(speed=speed))


def test_a_job_moved_to_a_slower_site_takes_longer():
    """MCT sends the second job to idle site 1 if it ends there before it would behind the first at
    home (at 200 s): at 1/1.5 of the speed (150 s) it goes; at half speed (ends at 200 s: a tie
    keeps it home) and a third it stays."""
    for speed, site, run in [((2.0, 1.0), 0, 100), ((1.5, 1.0), 1, 150), ((3.0, 1.0), 0, 100)]:
        jobs = _two_sites(speed)
        schedule = simulate_grid(jobs, "fcfs", Exchange("mct", transfer=("broker",) * 2, location="mct"))
        check_schedule(schedule)
        assert schedule.site[1] == site and schedule.run_time[1] == run


def test_default_sites_are_bit_identical_and_bad_input_is_one_line():
    a = _two_sites(())
    b = _two_sites((1.0, 1.0))
    for loc in ("least-load", "olb"):
        ex = Exchange(loc, transfer=("awf",) * 2, location=loc)
        assert simulate_grid(a, "easy", ex).start.tolist() == simulate_grid(b, "easy", ex).start.tolist()
    assert simulate_local(_two_sites((4.0, 1.0)), "fcfs").end.tolist() == [100, 200, 501]
    with pytest.raises(ScenarioError, match="^a broker needs a location policy that ranks every site"):
        simulate_grid(a, "fcfs", Exchange("x", transfer=("broker",) * 2, location="fixed"))
    with pytest.raises(ScenarioError, match="exchange scheme only"):
        simulate_grid(_two_sites((2.0, 1.0)), "fcfs", Exchange("pool", scheme="pool"))
    with pytest.raises(ScenarioError, match="^requirement arch=x86: no site has it"):
        Sites(attributes=({"arch": "arm"}, {}), requirements=(Requirement("arch", "x86", 0.5),))
    with pytest.raises(ScenarioError, match="speeds must be positive"):
        Sites(speed=(1.0, 0.0))
    with pytest.raises(ScenarioError, match="ranking rulebase at every site"):
        simulate_grid(a, "fcfs", Exchange("x", transfer=("broker",) * 2, location="rank",
                                          rulebases=TSKStack.stack([Rulebase.constant(True).arrays()])))


def _assert_running_foreign_within(schedule, k: int, cap: int) -> None:
    """The jobs of other sites running at site k never hold more than ``cap`` processors (the cap
    counts their waiting jobs too, which the schedule does not show)."""
    jobs = schedule.jobs
    mine = (schedule.site == k) & (jobs.origin != k)
    assert peak_in_use(schedule.start[mine], schedule.end[mine], jobs.procs[mine]) <= cap, \
        f"site {k}: other sites' jobs over its cap {cap}"


def _job_location_names(exchange: Exchange, jobs: GridJobs) -> tuple:
    """Each job's location policy by name, as the compiled loop draws them (empty: none per job)."""
    if not exchange.job_locations:
        return ()
    names = {e.code: e.name for e in LOCATIONS.values()}
    return tuple(names[c] for c in exchange.arrays(jobs).job_location.tolist())


def _site(name, submit, run_time):
    """A site of 4 processors whose one-processor jobs run (and are estimated) ``run_time`` s."""
    n = len(submit)
    one = np.ones(n, dtype=np.int64)
    return Workload(name, 4, np.asarray(submit, dtype=np.int64), run_time * one, one, run_time * one,
                    np.arange(n), 0 * one)


def test_stale_information_sends_a_burst_to_the_site_that_looked_best():
    """Beichter's herd (his 8.1.5: "das MDS nur alle 30 Sekunden aktualisiert wird, und somit ist der
    Cluster A oder C für diese Zeitspanne die optimale Ressource", the MDS is refreshed only every
    30 s, so cluster A or C is the best resource for that span): three one-processor jobs of an hour
    submitted at site 0 at 30-32 s, brokers ranking by OLB (the most free processors; site 1's one
    job comes much later). Seen as they are, the second job goes to site 1, which then has more
    free processors; seen as published at time 30 (every event before it) or 0, both sites look
    empty, and ties keep all three at home."""
    sites = [_site("s0", [30, 31, 32], 3600), _site("s1", [100_000], 1)]
    where = {}
    for refresh in (0, 30, 100):
        schedule = simulate_grid(sites, "fcfs", Exchange("olb", transfer=("broker",) * 2, location="olb",
                                                         refresh_s=refresh))
        where[refresh] = schedule.site.tolist()
        start, ref_where = _reference(sites, GridJobs.merge(sites), ["fcfs"] * 2,
                                      Policy("exchange", ("broker",) * 2, "olb", refresh=refresh))
        assert (schedule.start.tolist(), where[refresh]) == (start, ref_where)
    assert where[0] == [0, 1, 0, 1]
    assert where[30] == where[100] == [0, 0, 0, 1]


@pytest.mark.parametrize("exchange", [Exchange("x", scheme="pool", refresh_s=30),
                                      Exchange("x", transfer=("broker",) * 2, location="olb", refresh_s=-1),
                                      Exchange("x", transfer=("broker",) * 2, location="olb", refresh_s=2.5)])
def test_a_refresh_interval_where_it_cannot_apply_is_one_clear_error(exchange):
    with pytest.raises(ScenarioError, match="refresh_s"):
        simulate_grid([_site("s0", [0], 1), _site("s1", [0], 1)], "fcfs", exchange)


@SETTINGS
@given(grids(), st.data())
def test_brokers_holding_jobs_equal_reference(sites, data):
    """Brokers that hold jobs on 1,000 random grids, a broker at every site or some, a random LRMS
    per site, stale information in half the cases: the schedule is the reference's. Half the cases
    hand over ``when-room`` (Beichter's proposal in 8.1.6; any location policy that routes jobs one
    by one): held jobs go in order once a site has room, each to its location policy's first site,
    whose pass follows; with a refresh interval they are judged again at the first publication
    after jobs ended. The other half in ``batch`` (his 5.3.2; Min-Min and Max-Min too, every 1-30
    s, or in half of them batches of 1-8 jobs): all held jobs go at the batch's instant, one by one."""
    K = len(sites)
    transfer = tuple(data.draw(st.sampled_from(["broker", "broker", "awf", "local"])) for _ in sites)
    if "broker" not in transfer:
        transfer = ("broker",) + transfer[1:]
    lrms = [data.draw(st.sampled_from(["fcfs", "easy", "list", "conservative"])) for _ in sites]
    handover = data.draw(st.sampled_from(["when-room", "batch"]))
    batch_s = batch_jobs = 0
    if handover == "batch" and data.draw(st.booleans()):
        batch_jobs = data.draw(st.integers(1, 8))
    elif handover == "batch":
        batch_s = data.draw(st.integers(1, 30))
    usable = [n for n in LOCATIONS.names(ranks_every_site=True)
              if n != "rank" and (handover == "batch" or not LOCATIONS[n].batch)]
    location = data.draw(st.sampled_from(usable))
    refresh = data.draw(st.one_of(st.just(0), st.integers(1, 40)))
    jobs = GridJobs.merge(sites)
    exchange = Exchange("hold", transfer=transfer, location=location, refresh_s=refresh, handover=handover,
                        batch_s=batch_s, batch_jobs=batch_jobs)
    schedule = simulate_grid(jobs, lrms, exchange)
    check_schedule(schedule, joined_in_submit_order=False, may_refuse=exchange.may_refuse)
    start, where = _reference(sites, jobs, lrms, Policy("exchange", transfer, location, refresh=refresh,
                                                        handover=handover, batch_s=batch_s,
                                                        batch_jobs=batch_jobs))
    assert schedule.start.tolist() == start
    assert schedule.site.tolist() == where
    routed = simulate_grid(jobs, lrms, replace(exchange, handover="interactive", batch_s=0, batch_jobs=0))
    changed = routed.start.tolist() != start or routed.site.tolist() != where
    kind = f"{handover} of {'jobs' if batch_jobs else 'seconds'}" if handover == "batch" else handover
    event(f"{kind}: holding changed the schedule: {changed}")
    event(f"{handover}: location {location}")
    event(f"stale information: {refresh > 0}")
    event(f"sites: {K}")


def _held_grid(handover, refresh=0, batch_s=0, batch_jobs=0):
    """Site 0 (2 processors) runs a 2-processor job for 100 s from 0; site 1 (2 processors, a broker)
    runs one for 300 s from 0 and then submits two 1-processor jobs of 10 s at 5 and 6 s."""
    a = Workload("a", 2, arr([0]), arr([100]), arr([2]), arr([100]), arr([1]), arr([0]))
    b = Workload("b", 2, arr([0, 5, 6]), arr([300, 10, 10]), arr([2, 1, 1]), arr([300, 10, 10]),
                 arr([1, 2, 3]), arr([0, 0, 0]))
    exchange = Exchange("x", transfer=("local", "broker"), location="least-load", handover=handover,
                        refresh_s=refresh, batch_s=batch_s, batch_jobs=batch_jobs)
    schedule = simulate_grid(GridJobs.merge([a, b]), "fcfs", exchange)
    check_schedule(schedule, joined_in_submit_order=handover == "interactive")
    return schedule.start.tolist(), schedule.site.tolist()


def test_a_held_job_goes_where_room_appears_first():
    """Routed at once, the broker's first job queues at home (least-load ties keep the origin) and the
    second at site 0 (the shorter queue): they start at 300 and 100 s. Held, both wait at the grid
    until site 0 frees its processors at 100 s and start there. Published every 4 s, the sites look
    busy from 5 s on (the publication at 4 s), so both are held; the publication of 100 s holds the
    events before 100 s only, so the broker sees the room at the next one, 104 s. Published every
    30 s, the broker sees the empty grid of 0 s at 5 and 6 s and routes both at once, home."""
    assert _held_grid("interactive") == ([0, 0, 300, 100], [0, 1, 1, 0])
    assert _held_grid("when-room") == ([0, 0, 100, 100], [0, 1, 0, 0])
    assert _held_grid("when-room", refresh=4) == ([0, 0, 104, 104], [0, 1, 0, 0])
    assert _held_grid("when-room", refresh=30) == ([0, 0, 300, 300], [0, 1, 1, 1])


def test_a_batch_goes_at_its_instant():
    """In batches of 10 s the broker's jobs (and its own 2-processor job of 0 s) wait for the batch's
    instant: 0 s goes at 10 s; 5 s and 6 s go together at 10 s, the first home (least-load's tie),
    the second to site 0 (the shorter queue), as routed at once but 4-5 s later; in batches of 100 s
    they go at 100 s, when site 0 has just freed its processors, and both start there."""
    assert _held_grid("batch", batch_s=10) == ([0, 10, 310, 100], [0, 1, 1, 0])
    assert _held_grid("batch", batch_s=100) == ([0, 100, 100, 100], [0, 1, 0, 0])


def test_a_batch_of_jobs_goes_with_its_last_job():
    """In batches of 2 jobs the broker's jobs of 0 and 5 s go at 5 s, the first home (idle then; it
    runs to 305 s), the second home too (least-load's tie) behind it; the job of 6 s, the last
    submission, goes alone at 6 s, to site 0 (the shorter queue), and starts when site 0 frees its
    processors at 100 s. In batches of 3 all go at 6 s, in the same way; in batches of 1 each goes
    at its arrival, as routed at once."""
    assert _held_grid("batch", batch_jobs=2) == ([0, 5, 305, 100], [0, 1, 1, 0])
    assert _held_grid("batch", batch_jobs=3) == ([0, 6, 306, 100], [0, 1, 1, 0])
    assert _held_grid("batch", batch_jobs=1) == _held_grid("interactive")


def test_a_capped_site_takes_jobs_from_elsewhere_up_to_its_cap():
    """Site 0 (4 processors, a broker) runs a 4-processor job for 100 s and then submits three
    1-processor jobs at 1, 2 and 3 s; site 1 (3 processors) is idle. Without a cap all three go to
    site 1 (least load); with a cap of 2 processors the third stays home (and starts at 100 s),
    with a cap of 0 all do; holding (when-room), the third waits at the grid until site 0's job
    ends, then starts at home."""
    a = Workload("a", 4, arr([0, 1, 2, 3]), arr([100, 500, 500, 500]), arr([4, 1, 1, 1]),
                 arr([100, 500, 500, 500]), arr([1, 2, 3, 4]), arr([0, 0, 0, 0]))
    b = Workload("b", 3, arr([1000]), arr([1]), arr([1]), arr([1]), arr([1]), arr([0]))  # after all
    jobs = GridJobs.merge([a, b])

    def run(cap, handover="interactive"):
        exchange = Exchange("x", transfer=("broker", "local"), location="least-load",
                            grid_cap=() if cap == "none" else (None, cap), handover=handover)
        schedule = simulate_grid(jobs, "fcfs", exchange)
        check_schedule(schedule, joined_in_submit_order=handover == "interactive")
        return schedule.start.tolist()[:4], schedule.site.tolist()[:4]

    assert run("none") == ([0, 1, 2, 3], [0, 1, 1, 1])
    assert run(2) == ([0, 1, 2, 100], [0, 1, 1, 0])
    assert run(0) == ([0, 100, 100, 100], [0, 0, 0, 0])
    assert run(2, "when-room") == ([0, 1, 2, 100], [0, 1, 1, 0])
    transfer = ("awf", "local")
    for exchange, message in [(Exchange("x", transfer=transfer, grid_cap=(1,)), "1 values for 2"),
                              (Exchange("x", transfer=transfer, grid_cap=(None, -1)), "site 1: -1"),
                              (Exchange("x", scheme="pool", grid_cap=(None, 1)), "not 'pool'")]:
        with pytest.raises(ScenarioError, match=message):
            simulate_grid(jobs, "fcfs", exchange)


def test_holding_needs_a_broker_and_compiled_policies():
    jobs = _two_sites(())
    brokers = ("broker",) * 2
    for exchange, message in [
        (Exchange("x", transfer=("awf",) * 2, location="olb", handover="when-room"), "no site routes jobs"),
        (Exchange("x", transfer=brokers, location="min-min", handover="when-room"), "one by one"),
        (Exchange("x", transfer=brokers, location="olb", handover="batch"), "needs its interval"),
        (Exchange("x", transfer=brokers, location="olb", handover="batch", batch_s=5, batch_jobs=5),
         "one of them"),
        (Exchange("x", transfer=brokers, location="olb", batch_jobs=5), "batch_jobs 5"),
        (Exchange("x", transfer=brokers, location="olb", batch_s=60), "batch_s 60"),
        (Exchange("x", transfer=brokers, location="olb", handover="batch", batch_s=-1), "batch_s -1"),
        (Exchange("x", transfer=brokers, location="olb", handover="later"), "later"),
        (Exchange("x", scheme="pool", transfer=brokers, location="olb", handover="when-room"), "not 'pool'"),
        (Exchange("x", scheme="active", transfer=brokers, location="olb", handover="when-room"),
         "not 'active'"),
        (Exchange("x", transfer=brokers, location=FirstSite(), handover="when-room"), "no Python decisions"),
    ]:
        with pytest.raises(ScenarioError, match=message):
            simulate_grid(jobs, "fcfs", exchange)
    workloads, requests, _ = reservation_setup(Scenario.from_spec("KTH@0-1+SDSC03@0-1"))
    with pytest.raises(ScenarioError, match="does not run with reservation requests"):
        simulate_reservations(workloads, "easy", requests,
                              exchange=Exchange("x", transfer=brokers, location="olb", handover="when-room"))


class FirstSite(LocationPolicy):
    """A Python location policy: the candidates in the order given."""

    def order(self, view, site, candidates):
        return list(candidates)
