"""Cankar's co-allocation on nodes (evogrid.nodes): the compiled phases against the pure-Python twin
(tests/reference_nodes.py), the invariants of a placement, the optimum, and the inputs."""

from __future__ import annotations

import numpy as np
import pytest
import reference_nodes as ref
from draws import int_list
from hypothesis import event, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from evogrid.nodes import (
    CankarLimits,
    NodePool,
    NodeRequest,
    cankar,
    co_allocate,
    co_allocate_concurrently,
    discovered,
    optimum,
    planetlab_like,
)
from evogrid.nodes.pool import OPTERON, TABLE_3_1, XTREEMOS
from evogrid.nodes.request import DURATIONS_MIN, cankar_cases


@st.composite
def cases(draw, max_nodes=10):
    """A small pool (amounts in quarter units, so sums are exact in any order) and a request."""
    n = draw(st.integers(2, max_nodes))
    r = draw(st.integers(1, 3))
    slots = draw(st.integers(4, 16))
    # Whole arrays in one draw each (tests/draws.py); about half the slots free.
    cap = np.array(draw(int_list(n * r, 1, 16)), dtype=float).reshape(n, r) / 4
    busy = np.array(draw(int_list(n * r * slots, 0, 33)), dtype=float).reshape(n, r, slots)
    occ = np.where(busy > 16, 0.0, np.minimum(busy / 4, cap[:, :, None]))
    labels = np.array(draw(int_list(n, 0, 3)), dtype=np.int64)
    n_nodes = draw(st.integers(1, min(4, n)))
    d = [draw(st.integers(0, 8)) / 4 for _ in range(r)]
    e = [n_nodes * d[i] + draw(st.integers(0, 12)) / 4 for i in range(r)]
    duration = draw(st.integers(1, slots))
    earliest = draw(st.integers(0, slots - duration))
    latest = draw(st.integers(earliest, slots - duration))
    request = NodeRequest(n_nodes=n_nodes, duration_s=duration * 300, earliest_s=earliest * 300,
                          latest_s=latest * 300, per_node=tuple(d), total=tuple(e),
                          labels=draw(st.integers(0, 3)))
    m_init = draw(st.integers(1, 3))
    limits = CankarLimits(m_init=m_init, m_max=m_init * draw(st.sampled_from([1, 2, 4])),
                          l1=draw(st.integers(0, 8)), l2=draw(st.integers(0, 10)))
    resources = tuple(f"r{i}" for i in range(r))
    return NodePool(cap, occ, labels, resources), request, limits, draw(st.integers(0, 2**32))


def _twin_pool(pool: NodePool):
    return pool.capacity.tolist(), pool.occupancy.tolist()


@settings(max_examples=1000, deadline=None)
@given(cases())
def test_compiled_placement_is_the_twins(case):
    pool, request, limits, seed = case
    got = co_allocate(pool, request, limits, seed)
    want = ref.co_allocate(_twin_pool(pool), pool.labels.tolist(), request.compiled(pool),
                           limits.compiled(), seed)
    if want is None:
        assert not got.placed
        return
    start, nodes, amounts, efficiency = want
    assert got.placed and got.start_s == start * pool.slot_s
    assert got.nodes.tolist() == nodes
    np.testing.assert_allclose(got.amounts, np.array(amounts).reshape(got.amounts.shape), rtol=1e-12)
    assert got.efficiency == pytest.approx(efficiency, rel=1e-12)


@settings(max_examples=1000, deadline=None)
@given(cases())
def test_a_placement_keeps_every_bound(case):
    """Exactly N distinct nodes with the labels, each free for d_i over the whole reservation, the
    amounts at least d_i and within what is free, e_i in all; booking it keeps Z <= r."""
    pool, request, limits, seed = case
    got = co_allocate(pool, request, limits, seed, book=False)
    if not got.placed:
        return
    n, d, e, want, (earliest, latest, duration) = request.compiled(pool)
    first = got.start_s // pool.slot_s
    assert earliest <= first <= latest
    assert len(got.nodes) == n == len(set(got.nodes.tolist()))
    assert all(pool.labels[j] & want == want for j in got.nodes)
    free = pool.free()[got.nodes, :, first:first + duration].min(axis=2)
    assert (free >= d - 1e-12).all()
    # His phase III: the start is where the window opens or some discovered node's occupancy falls.
    if limits.m_max == limits.m_init:
        found = discovered(pool, request, limits, seed)
        occupancy = pool.occupancy[found]
        assert first == earliest or (occupancy[:, :, first] < occupancy[:, :, first - 1]).any()
    assert (got.amounts >= d - 1e-12).all() and (got.amounts <= np.maximum(free, d) + 1e-9).all()
    np.testing.assert_allclose(got.amounts.sum(axis=0), np.maximum(e, n * d), rtol=1e-9)
    pool.reserve(got.nodes, got.amounts, first, duration)
    assert (pool.occupancy <= pool.capacity[:, :, None] + 1e-9).all()


@settings(max_examples=1000, deadline=None)
@given(cases(max_nodes=7))
def test_optimum_is_the_twins_and_bounds_the_heuristic(case):
    pool, request, limits, seed = case
    nodes = discovered(pool, request, limits, seed)
    best = optimum(pool, request, nodes)
    want = ref.optimum(_twin_pool(pool), nodes.tolist(), request.compiled(pool))
    assert (best.start_s is None) == (want is None)
    one_pass = limits.m_max == limits.m_init  # the heuristic saw exactly these nodes
    if want is None:
        assert not (one_pass and co_allocate(pool, request, limits, seed).placed)
        return
    assert best.start_s == want[0] * pool.slot_s and best.efficiency == pytest.approx(want[1], rel=1e-12)
    if one_pass:
        got = co_allocate(pool, request, limits, seed)
        if got.placed:
            assert got.start_s >= best.start_s
            if got.start_s == best.start_s:
                assert got.efficiency <= best.efficiency + 1e-12


def test_the_same_seed_gives_the_same_placement_and_nodes_can_be_given():
    pool = planetlab_like(120, seed=3)
    placed = [pair for pair in cankar_cases(pool, 5, 40, seed=4) if co_allocate(pool, pair[1], seed=9).placed]
    assert placed
    simple, collective = placed[0]
    first = co_allocate(pool, collective, seed=9)
    again = co_allocate(pool, collective, seed=9)
    assert first.placed and first.start_s == again.start_s and first.nodes.tolist() == again.nodes.tolist()
    found = discovered(pool, collective, seed=9)
    given_nodes = co_allocate(pool, collective, seed=9, nodes=found)
    assert given_nodes.placed and given_nodes.start_s == first.start_s
    assert set(given_nodes.nodes) <= set(found.tolist())
    # Given nodes still pass phase I's filter: the simple variant keeps only those with r >= e / N.
    kept = found[np.all(pool.capacity[found] >= np.array(simple.per_node), axis=1)]
    given_simple = co_allocate(pool, simple, seed=9, nodes=found)
    assert kept.size < found.size
    if given_simple.placed:
        assert set(given_simple.nodes) <= set(kept.tolist())


def test_planetlab_like_pool_has_table_3_1s_statistics():
    pool = planetlab_like(seed=1)
    assert pool.capacity.shape == (606, 3) and pool.n_slots == 288
    for name, (mean, sd, low, high) in pool.statistics().items():
        table = TABLE_3_1[name]
        assert abs(mean - table[0]) < 0.1 and abs(sd - table[1]) < 0.1
        assert table[2] <= low and high <= table[3]
    assert (pool.occupancy[:, 1:] == 0).all()  # only the CPUs are occupied by default
    assert (pool.occupancy <= pool.capacity[:, :, None]).all()


def test_a_narrower_spread_keeps_the_means_and_scales_the_deviations():
    """``spread`` scales each capacity's standard deviation (means and ranges stay Table 3.1's);
    requests can still be drawn from Table 3.1's statistics."""
    narrow = planetlab_like(seed=1, spread=0.5).statistics()
    for name, (mean, sd, low, high) in narrow.items():
        table = TABLE_3_1[name]
        assert abs(mean - table[0]) < 0.1 and abs(sd - 0.5 * table[1]) < 0.06
        assert table[2] <= low and high <= table[3]
    pool = planetlab_like(50, seed=1, spread=0.25)
    for simple, _ in cankar_cases(pool, 5, 20, seed=1, statistics=TABLE_3_1):
        for e, (mean, sd, *_) in zip(simple.total, TABLE_3_1.values(), strict=True):
            assert 5 * max(mean - 2 * sd, 0.1) <= e <= 5 * (mean + sd / 2)
    with pytest.raises(ValueError, match="spread: 0.0 is not above 0"):
        planetlab_like(10, spread=0.0)


def test_a_higher_concentration_brings_the_nodes_loads_nearer_the_mean_load():
    """``concentration`` is the Beta law's c: the nodes' mean utilisations keep ``load`` as their
    mean, and their spread falls as c rises (the default 2 is the uniform law at load 0.5)."""
    def node_loads(c: float) -> np.ndarray:
        pool = planetlab_like(400, seed=3, load=0.5, concentration=c)
        return (pool.occupancy[:, 0] / pool.capacity[:, :1]).mean(axis=1)

    wide, narrow = node_loads(2.0), node_loads(32.0)
    assert abs(wide.mean() - 0.5) < 0.05 and abs(narrow.mean() - 0.5) < 0.05
    assert narrow.std() < 0.5 * wide.std()
    assert abs(wide.std() - np.sqrt(1 / 12)) < 0.05  # Beta(1, 1): uniform
    with pytest.raises(ValueError, match="concentration: 0.0 is not above 0"):
        planetlab_like(10, concentration=0.0)


def test_cankar_cases_follow_his_test_setting():
    pool = planetlab_like(200, seed=2)
    pairs = cankar_cases(pool, 10, 50, seed=1)
    stats = pool.statistics()
    for simple, collective in pairs:
        assert simple.is_simple and not collective.is_simple
        assert simple.total == collective.total
        assert collective.per_node == tuple(e / 20 for e in collective.total)
        assert 0 <= simple.earliest_s <= 350 * 60
        assert 1090 * 60 <= simple.latest_s + simple.duration_s <= 1440 * 60
        assert simple.duration_s // 60 in DURATIONS_MIN and simple.labels == OPTERON | XTREEMOS
        for e, (mean, sd, *_) in zip(simple.total, stats.values(), strict=True):
            assert 10 * max(mean - 2 * sd, 0.1) <= e <= 10 * (mean + sd / 2)


def test_bad_requests_and_limits_name_the_field():
    pool = planetlab_like(20, seed=1)
    base = dict(n_nodes=2, duration_s=600, earliest_s=0, latest_s=600, per_node=(1, 1, 1), total=(2, 2, 2))
    with pytest.raises(ValueError, match="duration_s: 601 s is not a multiple"):
        NodeRequest(**{**base, "duration_s": 601}).compiled(pool)
    with pytest.raises(ValueError, match="total: 2 resources"):
        NodeRequest(**{**base, "per_node": (1, 1), "total": (2, 2)}).compiled(pool)
    with pytest.raises(ValidationError, match="latest_s 0 is before earliest_s 300"):
        NodeRequest(**{**base, "earliest_s": 300, "latest_s": 0})
    with pytest.raises(ValidationError, match="total: every e_i must be at least n_nodes x per_node"):
        NodeRequest(**{**base, "total": (1, 2, 2)})
    with pytest.raises(ValidationError, match="m_max 1 is below m_init 3"):
        CankarLimits(m_max=1)
    with pytest.raises(ValueError, match="occupied: unknown resources"):
        planetlab_like(10, occupied=("disk",))
    assert cankar.OUTCOMES[cankar.PLACED] == "placed"


@settings(max_examples=600, deadline=None)
@given(cases(), st.integers(1, 4), st.integers(1, 5))
def test_concurrent_searches_never_overbook_and_one_at_a_time_is_sequential(case, concurrency, copies):
    """Several requests (copies of one, seeded apart) searched ``concurrency`` at a time on the same
    pool state, booked in order (phase VI's failure sends a request back to phase I): no node is
    ever over its capacity, each placed request holds exactly N nodes, a failed booking is followed
    by another search, and with concurrency 1 nothing fails and the placements are those of placing
    the requests one after the other."""
    pool, request, limits, seed = case
    requests = [request] * copies
    twin = NodePool(pool.capacity.copy(), pool.occupancy.copy(), pool.labels, pool.resources)
    got = co_allocate_concurrently(pool, requests, concurrency, limits, seed)
    assert (pool.occupancy <= pool.capacity[:, :, None] + 1e-9).all()
    for placement, tries, failures in zip(got.placements, got.attempts, got.failed_bookings, strict=True):
        assert tries == failures + 1
        if placement.placed:
            assert len(set(placement.nodes.tolist())) == request.n_nodes
    event(f"failed bookings: {min(sum(got.failed_bookings), 2)}+")
    if concurrency == 1:
        assert sum(got.failed_bookings) == 0
        for i, placement in enumerate(got.placements):
            alone = co_allocate(twin, request, limits, seed + i, book=True)
            assert (alone.start_s, alone.nodes.tolist()) == (placement.start_s, placement.nodes.tolist())
        assert np.allclose(twin.occupancy, pool.occupancy)


def test_a_booking_taken_by_a_concurrent_search_goes_back_to_phase_one():
    """Two identical requests for one node of the only node's whole capacity, searched at once: both
    find slot 0; the first books it, the second's booking fails and its next search finds the slot
    after the first one's reservation."""
    pool = NodePool(np.ones((1, 1)), np.zeros((1, 1, 4)), np.zeros(1, dtype=np.int64), ("r0",))
    request = NodeRequest(n_nodes=1, duration_s=300, earliest_s=0, latest_s=900, per_node=(1.0,),
                          total=(1.0,), labels=0)
    got = co_allocate_concurrently(pool, [request, request], concurrency=2)
    assert [p.start_s for p in got.placements] == [0, 300]
    assert got.attempts == [1, 2] and got.failed_bookings == [0, 1]
    with pytest.raises(ValueError, match="concurrency"):
        co_allocate_concurrently(pool, [request], concurrency=0)
