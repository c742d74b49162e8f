"""Cankar's co-location preprocessor and reference scheduler (evogrid.nodes.colocation, .packing):
the scheduler against its pure-Python twin, the preprocessor's invariants, his classification."""

from __future__ import annotations

import numpy as np
import pytest
import reference_nodes as ref
from draws import float_list, int_list
from hypothesis import given, settings
from hypothesis import strategies as st

from evogrid.nodes import packing
from evogrid.nodes.cloud_jobs import SHARE_POSITIONS, SHARES, scalable_batch
from evogrid.nodes.colocation import ScalableJobs, classify, pair_scales, preprocess


@st.composite
def packings(draw):
    n_nodes = draw(st.integers(1, 4))
    n_jobs = draw(st.integers(1, 6))
    need = [[draw(st.integers(1, 4)) / 4 for _ in range(3)] for _ in range(n_jobs)]
    minutes = [draw(st.integers(1, 6)) for _ in range(n_jobs)]
    tasks = [draw(st.integers(1, n_nodes)) for _ in range(n_jobs)]
    leader = [draw(st.integers(-1, j - 1)) for j in range(n_jobs)]  # -1 or an earlier job
    return need, minutes, tasks, leader, n_nodes, draw(st.integers(6, 30))


@settings(max_examples=1000, deadline=None)
@given(packings(), st.booleans(), st.sampled_from(["alone", "prefers", "waits"]))
def test_compiled_scheduler_is_the_twins(case, backfill, led):
    """With backfilling (his earliest gap) and without (each job no earlier than the one before),
    each job on its own, preferring its leader's nodes at its start, or waiting for them."""
    need, minutes, tasks, leader, n_nodes, horizon = case
    leader = [-1] * len(need) if led == "alone" else leader
    start, last_end, _ = packing.schedule(np.array(need), np.array(minutes, dtype=np.int64),
                                          np.array(tasks, dtype=np.int64), np.array(leader, dtype=np.int64),
                                          led == "waits", n_nodes, horizon, backfill)
    want_start, want_last = ref.pack(need, minutes, tasks, leader, led == "waits", n_nodes, horizon, backfill)
    assert start[:len(want_start)].tolist() == want_start
    if -1 not in want_start:
        assert last_end.tolist() == want_last


def test_a_partition_policy_leads_each_groups_later_members_by_its_first():
    """Under leader-nodes and leader-waits every later member of a group is led by the group's first
    row (which itself has none); apart leads none; an unknown policy and a leader that is not an
    earlier job are refused."""
    jobs = scalable_batch(15, 0.0, False, seed=1)
    pre = preprocess(jobs)
    sizes = [len(g) for g in sorted(pre.groups, key=len)]
    assert max(sizes) > 1
    for policy, waits in (("leader-nodes", False), ("leader-waits", True)):
        parts = packing.as_partition(jobs, pre, "HDF", policy)
        assert parts.leader_waits is waits
        firsts = np.flatnonzero(parts.leader == -1)
        assert len(firsts) == len(pre.groups)  # one first row per group
        for row, lead in enumerate(parts.leader):
            if lead >= 0:
                assert lead < row and parts.leader[lead] == -1
                assert lead == firsts[firsts < row].max()  # its own group's first row
    assert (packing.as_partition(jobs, pre, "HDF").leader == -1).all()
    with pytest.raises(ValueError, match="partition policy: unknown 'together'"):
        packing.as_partition(jobs, pre, "HDF", "together")
    with pytest.raises(ValueError, match="leader: each job's leader must be -1 or an earlier job"):
        packing.packed(np.full((2, 3), 0.5), np.ones(2), np.ones(2), leader=[-1, 1])


def test_a_member_takes_its_leaders_nodes_when_they_have_room_at_its_start():
    """Two nodes, jobs of one task: A (0.75 of a node, 10 min) runs on node 0, B (0.5) does not fit
    beside it and runs on node 1. C (0.25, 20 min) fits beside either: on its own, best fit puts it
    beside A (the fuller node 0); led by B, beside B. A job whose leader's node has no room at its
    earliest start goes where it would go alone, not later."""
    one = np.ones(3, dtype=np.int64)
    minutes = np.array([10, 10, 20], dtype=np.int64)

    def last_ends(shares, leader, waits=False):
        need = np.repeat(np.array(shares)[:, None], 3, axis=1)
        start, ends, _ = packing.schedule(need, minutes, one, np.array(leader, dtype=np.int64), waits, 2, 40,
                                          True)
        return start.tolist(), ends.tolist()

    assert last_ends([0.75, 0.5, 0.25], [-1, -1, -1]) == ([0, 0, 0], [20, 10])
    assert last_ends([0.75, 0.5, 0.25], [-1, -1, 1]) == ([0, 0, 0], [10, 20])
    # B (0.75) on node 1, C (0.5) led by B: no room beside B at 0, room beside A (0.5): node 0 at 0;
    # waiting for B's node, C starts when B ends (10) there
    assert last_ends([0.5, 0.75, 0.5], [-1, -1, 1]) == ([0, 0, 0], [20, 10])
    assert last_ends([0.5, 0.75, 0.5], [-1, -1, 1], waits=True) == ([0, 0, 10], [10, 30])


@st.composite
def batches(draw):
    """2-14 jobs: each resource's demand one of ``SHARES``, its bounds that demand divided and
    multiplied by 1-4 (at most 1), 2-7 hours, 1-3 tasks."""
    n = draw(st.integers(2, 14))
    need = np.array(SHARES)[draw(int_list(3 * n, 0, len(SHARES) - 1))].reshape(n, 3)
    low = need / np.array(draw(float_list(3 * n, 1.0, 4.0))).reshape(n, 3)
    high = np.minimum(1.0, need * np.array(draw(float_list(3 * n, 1.0, 4.0))).reshape(n, 3))
    return ScalableJobs(need, low, high, np.array(draw(float_list(n, 2.0, 7.0))),
                        tasks=np.array(draw(int_list(n, 1, 3)), dtype=np.int64))


@settings(max_examples=1000, deadline=None)
@given(batches(), st.floats(0.0, 0.5), st.floats(1.1, 5.0))
def test_preprocessor_keeps_every_bound(jobs, alpha, w):
    """Every job in exactly one group, scaled within its bounds; a merged group fits one node and
    lasts no longer than its first two members one after the other; a job alone is unchanged or
    fills a node."""
    pre = preprocess(jobs, alpha, w)
    seen = sorted(m.job for g in pre.groups for m in g)
    assert seen == list(range(len(jobs)))
    classes = classify(jobs, alpha)
    for members, hours, need, tasks in zip(pre.groups, pre.hours, pre.need, pre.tasks, strict=True):
        for m in members:
            low, high = jobs.scale_range(m.job)
            assert low - 1e-9 <= m.scale <= high + 1e-9
            assert jobs.hours[m.job] / m.scale <= hours + 1e-9
        first = members[0]
        assert tasks == jobs.tasks[first.job]
        if len(members) == 1:
            whole = 1 / np.max(jobs.need[first.job])
            if first.scale == 1.0:  # unchanged only where its bounds forbid a whole node
                assert whole > jobs.scale_range(first.job)[1] + 1e-12 or np.isclose(whole, 1.0)
            else:
                assert np.isclose(first.scale, whole)
            continue
        a, b = members[0], members[1]
        assert ("eq", "eq") not in (classes[m.job] for m in members)  # balanced jobs never merge
        assert all(classes[m.job] != classes[a.job] for m in members[1:])  # complementary classes
        assert hours <= jobs.hours[a.job] + jobs.hours[b.job] + 1e-9
        size = jobs.hours * jobs.need.max(axis=1)
        assert max(size[a.job], size[b.job]) / min(size[a.job], size[b.job]) < w  # (4.5)
        if len(members) == 2:
            assert jobs.tasks[a.job] == jobs.tasks[b.job] or jobs.tasks[b.job] < jobs.tasks[a.job]
        if jobs.tasks[b.job] != jobs.tasks[a.job]:
            assert sum(jobs.tasks[m.job] for m in members[1:]) == tasks
        for m in members[1:]:
            assert np.all(jobs.need[first.job] * first.scale + jobs.need[m.job] * m.scale <= 1 + 1e-9)
        assert np.all(need <= 1 + 1e-9)


@settings(max_examples=1000, deadline=None)
@given(batches(), st.integers(0, 2**32 - 1))
def test_pair_scales_are_the_shortest(jobs, seed):
    """No pair of scales within the bounds that fits one node ends sooner (random search twin)."""
    a, b = 0, 1
    found = pair_scales(jobs, a, b)
    rng = np.random.default_rng(seed)
    (lo_a, hi_a), (lo_b, hi_b) = jobs.scale_range(a), jobs.scale_range(b)
    s_a, s_b = rng.uniform(lo_a, hi_a, 300), rng.uniform(lo_b, hi_b, 300)
    fits = np.all(np.outer(s_a, jobs.need[a]) + np.outer(s_b, jobs.need[b]) <= 1, axis=1)
    if found is None:
        assert not fits.any()
        return
    fa, fb, t_pair = found
    assert np.all(jobs.need[a] * fa + jobs.need[b] * fb <= 1 + 1e-9)
    assert t_pair == pytest.approx(max(jobs.hours[a] / fa, jobs.hours[b] / fb))
    # Optimal: a shorter pair is ruled out by a full resource or by a job that already runs at its
    # largest scale and ends at t_pair.
    tight = np.isclose(np.max(jobs.need[a] * fa + jobs.need[b] * fb), 1.0, atol=1e-6)
    assert tight or any(np.isclose(t / hi, t_pair, rtol=1e-6)
                        for t, hi in ((jobs.hours[a], hi_a), (jobs.hours[b], hi_b)))
    durations = np.maximum(jobs.hours[a] / s_a, jobs.hours[b] / s_b)
    assert not np.any(durations[fits] < t_pair * (1 - 1e-6))


def test_classification_follows_his_equation_4_2():
    jobs = ScalableJobs(need=np.array([[0.5, 0.5, 0.5], [0.5, 0.2, 1.0], [0.5, 0.54, 0.46]]),
                        low=np.full((3, 3), 0.1), high=np.ones((3, 3)), hours=np.ones(3),
                        tasks=np.ones(3, dtype=np.int64))
    assert classify(jobs, 0.1) == [("eq", "eq"), ("lt", "gt"), ("eq", "eq")]
    assert classify(jobs, 0.05) == [("eq", "eq"), ("lt", "gt"), ("gt", "lt")]


def test_preprocessing_merges_and_saves_on_a_batch():
    """On one of his batches the preprocessor merges jobs, and both approaches end no later in
    t_RUN than the batch as it is (the direction of his Tables 4.2 and 4.3)."""
    jobs = scalable_batch(15, 0.0, False, seed=1)
    pre = preprocess(jobs)
    assert sum(len(g) > 1 for g in pre.groups) >= 10
    for strategy in packing.STRATEGIES:
        base = packing.run(packing.reference(jobs, strategy), 15)[0]
        assert packing.run(packing.as_set(pre, strategy), 15)[0] < base
        assert packing.run(packing.as_partition(jobs, pre, strategy), 15)[0] < base
    for strategy in packing.STRATEGIES:  # the set approach's surrogates (his 4.4)
        need, hours, tasks = packing.as_set(pre, strategy)[:3]
        assert len(hours) == len(pre.groups) and np.all(need <= 1 + 1e-9)
        order = -hours if strategy == "LJF" else -need.max(axis=1)
        assert np.all(np.diff(order) >= 0)
    for g, members in enumerate(pre.groups):
        if len(members) > 1 and len({jobs.tasks[m.job] for m in members}) == 1:
            summed = sum(jobs.need[m.job] * m.scale for m in members)
            assert np.allclose(pre.need[g], summed) and pre.hours[g] == max(
                jobs.hours[m.job] / m.scale for m in members)
    parts = packing.as_partition(jobs, pre, "HDF")
    need, hours, tasks = parts.need, parts.hours, parts.tasks
    assert len(hours) == len(jobs) and sorted(np.round(hours * need[:, 0], 9)) == sorted(
        np.round(jobs.hours * jobs.need[:, 0], 9))  # every job once, its work kept by scaling
    assert (parts.leader == -1).all()  # ours: every job on its own
    t_run, end = packing.run(parts, 15)
    start, last_end, _ = packing.schedule(need, np.ceil(hours * 60 - 1e-9).astype(np.int64), tasks,
                                          parts.leader, False, 15, int(60 * hours.sum()) + 1, True)
    assert t_run == last_end.sum() / 60 and end == last_end.max() / 60
    with pytest.raises(ValueError, match="strategy: unknown 'SJF'"):
        packing.reference(jobs, "SJF")


def test_optimizations_count_the_t_pair_minimisations_tried():
    """His 4.5.5 counts the minimisations of t_pair: none where every job is fully balanced (nothing
    is tried), at least one per merged group otherwise, and on this batch a wider W (more pairs
    pass the size test) tries more."""
    assert preprocess(scalable_batch(15, 1.0, False, seed=3)).optimizations == 0
    jobs = scalable_batch(15, 0.0, False, seed=3)
    narrow, wide = preprocess(jobs, w=1.25), preprocess(jobs, w=3.0)
    assert narrow.optimizations >= sum(len(g) > 1 for g in narrow.groups) > 0
    assert wide.optimizations > narrow.optimizations


def test_step_three_retries_step_twos_failed_pairs_unless_told_not_to(monkeypatch):
    """Step 3 meets step 2's failed pairs again. By default (his bound counts every pair in both
    steps) it minimises them again; with ``retry_failed=False`` each pair is minimised at most
    once. The count is the minimisations made, and the groups are the same either way."""
    from evogrid.nodes import colocation

    calls = []
    real = colocation.pair_scales
    monkeypatch.setattr(colocation, "pair_scales",
                        lambda jobs, a, b: calls.append((min(a, b), max(a, b))) or real(jobs, a, b))
    jobs = scalable_batch(30, 0.0, False, seed=1)
    his = preprocess(jobs)
    assert his.optimizations == len(calls) > len(set(calls))  # some pairs tried in both steps
    calls.clear()
    once = preprocess(jobs, retry_failed=False)
    assert once.optimizations == len(calls) == len(set(calls)) > 0
    assert once.optimizations < his.optimizations
    assert [[(m.job, m.scale) for m in g] for g in once.groups] == [[(m.job, m.scale) for m in g]
                                                                   for g in his.groups]


@pytest.mark.parametrize("position", SHARE_POSITIONS)
def test_every_share_position_keeps_his_intervals(position):
    """Each reading of where a share lies in its scaling range keeps d_min <= d <= d_max and his
    intervals (d_min in [0.15, 0.8] unless the share is lower, d_max in [0.2, 1] unless higher);
    the same seed gives the same shares, times and tasks, only the bounds move."""
    jobs = scalable_batch(30, 0.33, True, seed=4, share_position=position)
    log = scalable_batch(30, 0.33, True, seed=4)
    assert np.all(jobs.low <= jobs.need) and np.all(jobs.need <= jobs.high)
    assert np.all(jobs.low >= np.minimum(0.15, jobs.need)) and np.all(jobs.low <= 0.8)
    assert np.all(jobs.high >= 0.2) and np.all(jobs.high <= np.maximum(1.0, jobs.need))
    assert np.array_equal(jobs.need, log.need) and np.array_equal(jobs.hours, log.hours)
    assert np.array_equal(jobs.tasks, log.tasks)
    assert np.array_equal(jobs.low, log.low) == (position == "log")
    with pytest.raises(ValueError, match="share_position: unknown 'mid'"):
        scalable_batch(5, 0.0, False, seed=1, share_position="mid")


def test_without_backfilling_a_job_starts_no_earlier_than_the_one_before():
    """One node: A (half of it, 10 min), B (all of it, 5 min), C (half, 5 min). With backfilling C
    fills the gap beside A at 0; without, it starts no earlier than B (10) and, B holding the node
    until 15, at 15."""
    need = np.array([[0.5] * 3, [1.0] * 3, [0.5] * 3])
    minutes, tasks = np.array([10, 5, 5], dtype=np.int64), np.ones(3, dtype=np.int64)
    alone = np.full(3, -1, dtype=np.int64)
    assert packing.schedule(need, minutes, tasks, alone, False, 1, 30, True)[0].tolist() == [0, 10, 0]
    assert packing.schedule(need, minutes, tasks, alone, False, 1, 30, False)[0].tolist() == [0, 10, 15]
