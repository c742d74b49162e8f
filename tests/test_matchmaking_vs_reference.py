"""Heterogeneous sites, matchmaking, brokers and the new location policies against the reference."""

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from invariants import check_schedule
from reference_sim import Policy
from test_grid_vs_reference import _reference, arr, grids, random_exchange

from evogrid.errors import ScenarioError
from evogrid.policy.rulebase import Rulebase
from evogrid.sim.registry import LOCATIONS
from evogrid.sim.schedule import Exchange, GridJobs, simulate_grid, simulate_local
from evogrid.sim.sites import Requirement, Sites
from evogrid.sim.tsk import TSKStack
from evogrid.workload.model import Workload

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
    any location policy but the seeded shuffle; ranking rulebases at every site for ``rank``."""
    K = len(sites)
    jobs = GridJobs.merge(sites, data.draw(heterogeneous(K)))
    lrms = [data.draw(st.sampled_from(["fcfs", "easy", "list", "conservative"])) for _ in sites]
    transfer = tuple(data.draw(st.sampled_from(["local", "awf", "rulebase", "broker"])) for _ in sites)
    scoring = LOCATIONS.names(ranks_every_site=True)
    locations = scoring if "broker" in transfer else ("fixed", "awrt", *scoring)
    location = data.draw(st.sampled_from(locations))
    exchange, ref_rbs = random_exchange(data, transfer, location)
    schedule = simulate_grid(jobs, lrms, exchange)
    check_schedule(schedule)
    speed, tags, hard, preferred = (a.tolist() for a in jobs.site_arrays)
    policy = Policy("exchange", transfer, location, ref_rbs, speed=tuple(speed), tags=tuple(tags),
                    hard=tuple(hard), preferred=tuple(preferred))
    start, where, run_time = _reference(sites, jobs, lrms, policy)
    assert schedule.start.tolist() == start
    assert schedule.site.tolist() == where
    assert schedule.run_time.tolist() == run_time
    moved = schedule.site != jobs.origin
    rescaled = moved & (schedule.run_time != jobs.run_time)
    event(f"location {location}")
    event(f"jobs moved between sites of different speed: {bool(rescaled.any())}")
    event(f"a job with a hard requirement moved: {bool((moved & (np.asarray(hard) > 0)).any())}")
    event(f"jobs submitted at one instant: {bool((np.diff(jobs.submit) == 0).any())}")


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
