"""Reservation requests: day windows, Meltzer's and Röblitz's generators, validation."""

import numpy as np
import pytest

from evogrid.errors import ScenarioError
from evogrid.workload import load_window, parse_window
from evogrid.workload.model import SECONDS_PER_DAY
from evogrid.workload.reservations import AMDAHL, DOWNEY, Elastic, Reservations, meltzer, roblitz, speedup


def test_day_windows():
    spec = parse_window("SDSC03@d14-28")
    assert (spec.first, spec.last, spec.unit_days, spec.label) == (14, 28, 1, "SDSC03@d14-28")
    w = load_window("SDSC03@d14-28")
    whole = load_window("SDSC03")
    inside = (whole.submit >= 14 * SECONDS_PER_DAY) & (whole.submit < 28 * SECONDS_PER_DAY)
    assert w.n_jobs == int(inside.sum()) > 0
    assert w.submit.min() >= 0 and w.submit.max() < 14 * SECONDS_PER_DAY
    assert parse_window("SDSC03@3-5").unit_days == 30  # months stay months
    with pytest.raises(ScenarioError, match="days A-B need A < B"):
        parse_window("SDSC03@d5-5")


@pytest.mark.parametrize("variant", ["rw1", "rw2", "rw3"])
def test_meltzer_rules(variant):
    w = load_window("SDSC03@d0-14")
    batch, req = meltzer(w, variant, seed=7)
    src = req.source_job
    # the drawn jobs are templates and stay batch jobs (his 6.3), or leave the workload, counted
    assert batch is w and "became_reservation" not in batch.dropped
    taken, same = meltzer(w, variant, seed=7, templates="taken")
    assert np.array_equal(same.source_job, src)
    assert taken.n_jobs + req.n_requests == w.n_jobs
    assert taken.dropped["became_reservation"] == req.n_requests
    with pytest.raises(ScenarioError, match="unknown templates 'both'"):
        meltzer(w, variant, templates="both")
    assert abs(req.n_requests / w.n_jobs - 0.1) < 4 * np.sqrt(0.09 / w.n_jobs)
    wc, cpus = w.estimate[src], w.procs[src]
    assert (req.duration == wc).all()
    assert (req.parts[:, 0] == cpus).all()
    second = req.parts[:, 1]
    assert (second >= np.rint(0.7 * cpus)).all()
    assert (second <= np.minimum(w.machine_procs, np.rint(1.3 * cpus))).all()
    f = req.earliest_start
    assert f.min() >= 0 and f.max() <= w.span_seconds
    factor = 3 if variant == "rw3" else 6
    assert (req.deadline == np.minimum(f + wc + SECONDS_PER_DAY, f + (1 + factor) * wc)).all()
    ahead = 3 * wc if variant == "rw1" else wc // 2
    assert (req.submit == np.maximum(0, f - ahead)).all()
    assert (np.diff(req.submit) >= 0).all()


def test_meltzer_section_6_8_workloads():
    """His 6.8: RW1's requests made 30 s before their earliest start with a six-hour range; the
    three-part one copies the second part and leaves every third request out (it stays a batch job)."""
    w = load_window("SDSC03@d0-14")
    _, rw1 = meltzer(w, "rw1", seed=7)
    _, two = meltzer(w, "rw1-6h", seed=7)
    by_job = np.argsort(rw1.source_job)
    same = np.argsort(two.source_job)
    assert np.array_equal(rw1.earliest_start[by_job], two.earliest_start[same])
    assert np.array_equal(rw1.parts[by_job], two.parts[same])
    assert (two.deadline - two.earliest_start - two.duration == 6 * 3600).all()
    assert (two.submit == np.maximum(0, two.earliest_start - 30)).all()
    batch3, three = meltzer(w, "rw1-6h-3", seed=7, templates="taken")
    assert three.parts.shape[1] == 3 and (three.parts[:, 2] == three.parts[:, 1]).all()
    assert three.n_requests == two.n_requests - two.n_requests // 3
    assert batch3.n_jobs + three.n_requests == w.n_jobs
    assert set(three.source_job) < set(two.source_job)


def test_meltzer_shared_draw_makes_the_second_part_and_the_start_from_one_number():
    """His 6.3 read literally (the default): one random number u per request, f_start = u * span and
    the second part round(0.7 cpus + 0.6 u cpus); the starts are those of the independent draw
    (drawn first)."""
    w = load_window("SDSC03@d0-14")
    _, two = meltzer(w, "rw1", seed=7, draw="independent")
    _, one = meltzer(w, "rw1", seed=7)
    assert np.array_equal(one.earliest_start, two.earliest_start)
    assert np.array_equal(one.parts[:, 0], two.parts[:, 0])
    cpus, u_low = one.parts[:, 0], one.earliest_start / w.span_seconds  # f = floor(u * span)
    u_high = (one.earliest_start + 1) / w.span_seconds
    low = np.minimum(w.machine_procs, np.rint(0.7 * cpus + 0.6 * u_low * cpus))
    high = np.minimum(w.machine_procs, np.rint(0.7 * cpus + 0.6 * u_high * cpus))
    assert ((one.parts[:, 1] >= low) & (one.parts[:, 1] <= high)).all()
    assert not np.array_equal(one.parts[:, 1], two.parts[:, 1])
    with pytest.raises(ScenarioError, match="unknown draw 'both'"):
        meltzer(w, "rw1", draw="both")


def test_meltzer_is_seeded():
    w = load_window("SDSC03@d0-14")
    a, b, c = (meltzer(w, "rw2", seed=s)[1] for s in (1, 1, 2))
    assert np.array_equal(a.parts, b.parts) and np.array_equal(a.earliest_start, b.earliest_start)
    assert not np.array_equal(a.source_job, c.source_job)
    with pytest.raises(ScenarioError, match="unknown reservation workload 'rw4'"):
        meltzer(w, "rw4")


def test_roblitz_book_ahead():
    """Their timing by default: requested at the job's submission, starting 24 h later; the earlier
    reading requests 24 h before the submission (never before 0) and starts at it."""
    w = load_window("SDSC03")
    batch, req = roblitz(w, book_ahead_hours=24, slack_hours=2, first_jobs=2000)
    assert req.n_requests == 200 and batch.n_jobs == 1800
    assert (req.source_job % 10 == 9).all()
    submitted = w.submit[req.source_job]
    assert (req.submit == submitted).all() and (req.earliest_start == submitted + 24 * 3600).all()
    assert (req.deadline == req.earliest_start + req.duration + 2 * 3600).all()
    assert (req.parts[:, 0] == w.procs[req.source_job]).all()
    batch_b, before = roblitz(w, book_ahead_hours=24, slack_hours=2, first_jobs=2000,
                              request_at="before-start")
    assert np.array_equal(batch_b.submit, batch.submit) and np.array_equal(before.duration, req.duration)
    assert (before.earliest_start == submitted).all()
    assert (before.submit == np.maximum(0, submitted - 24 * 3600)).all()
    assert (before.deadline == submitted + before.duration + 2 * 3600).all()
    with pytest.raises(ScenarioError, match="request_at 'later'"):
        roblitz(w, first_jobs=100, request_at="later")


def _one(**change):
    fields = dict(submit=[0], earliest_start=[10], deadline=[100], duration=[50], parts=[[4, 2]])
    fields.update(change)
    return Reservations("bad", *(np.array(fields[k], dtype=np.int64) for k in
                                 ("submit", "earliest_start", "deadline", "duration", "parts")))


@pytest.mark.parametrize(("change", "message"), [
    (dict(duration=[0]), "request 0: field duration must be positive"),
    (dict(deadline=[40]), "request 0: field deadline leaves no room"),
    (dict(earliest_start=[0], submit=[5]), "request 0: field earliest_start must not precede"),
    (dict(parts=[[0, 0]]), "request 0: field parts needs at least one part"),
    (dict(parts=[[4, -1]]), "request 0: field parts needs at least one part and no negative one"),
])
def test_requests_that_can_never_be_met_are_rejected_in_one_line(change, message):
    with pytest.raises(ScenarioError, match=message) as err:
        _one(**change)
    assert "\n" not in str(err.value)


def test_infeasible_requests_are_counted_per_grid():
    req = Reservations("r", *(np.array(v, dtype=np.int64) for v in
                              ([0, 0, 0], [0, 0, 0], [9, 9, 9], [5, 5, 5], [[8, 4], [8, 8], [3, 0]])))
    assert _one().n_requests == 1
    assert req.infeasible(np.array([8, 4])).tolist() == [False, True, False]
    assert req.infeasible(np.array([16])).tolist() == [True, True, False]  # two parts need two sites


@pytest.mark.parametrize(("model", "params"), [
    (AMDAHL, (0.0, 0.0)), (AMDAHL, (0.1, 0.0)), (DOWNEY, (16.0, 0.5)), (DOWNEY, (16.0, 1.0)),
    (DOWNEY, (16.0, 2.0)), (DOWNEY, (1.0, 0.0)),
])
def test_speedup_models_are_continuous_monotone_and_at_most_linear(model, params):
    n = np.arange(1, 200, dtype=np.float64)
    s = speedup(model, np.array(params), n)
    assert s[0] == pytest.approx(1.0)
    assert (np.diff(s) >= -1e-12).all() and (s <= n + 1e-9).all()
    fine = speedup(model, np.array(params), np.linspace(1, 199, 20_000))
    assert np.abs(np.diff(fine)).max() < 0.05  # no jump where the pieces meet
    if model == DOWNEY:
        assert s[-1] == pytest.approx(params[0])  # saturates at the average parallelism
    elif params[0] > 0:
        assert s[-1] < 1 / params[0]


def test_elastic_roblitz_requests():
    w = load_window("SDSC03")
    _, req = roblitz(w, book_ahead_hours=1, first_jobs=2000, elastic=(0.5, 2.0), model="downey",
                     params=(32.0, 1.0))
    e = req.elastic
    cpus = req.parts[:, 0]
    assert (e.procs_min == np.maximum(1, np.floor(0.5 * cpus))).all()
    assert (e.procs_max == np.minimum(w.machine_procs, np.ceil(2.0 * cpus))).all()
    assert (e.procs_ref == cpus).all() and (e.duration_ref == req.duration).all()
    i = int(np.argmax(np.minimum(e.procs_max, 32) - e.procs_min))  # a range below saturation (A = 32)
    n = np.arange(e.procs_min[i], e.procs_max[i] + 1)
    d = e.duration(i, n)
    assert d[n == e.procs_ref[i]][0] == e.duration_ref[i]
    assert (np.diff(d) <= 0).all() and d[0] > d[-1]  # more processors, shorter (until saturation)
    with pytest.raises(ScenarioError, match="elastic range"):
        roblitz(w, first_jobs=100, elastic=(1.5, 2.0))
    with pytest.raises(ScenarioError, match="unknown speedup model 'gustafson'"):
        roblitz(w, first_jobs=100, elastic=(0.5, 2.0), model="gustafson")


def test_bad_elastic_requests_are_rejected_in_one_line():
    one = np.ones(1, dtype=np.int64)
    with pytest.raises(ScenarioError, match="request 0: field procs_max must not be below procs_min"):
        Elastic(4 * one, 2 * one, 2 * one, 10 * one, AMDAHL * one, np.array([[0.1, 0.0]]))
    with pytest.raises(ScenarioError, match="request 0: field params out of range"):
        Elastic(one, 2 * one, one, 10 * one, DOWNEY * one, np.array([[0.5, 1.0]]))
    with pytest.raises(ScenarioError, match="preferences"):
        Elastic(one, 2 * one, one, 10 * one, AMDAHL * one, np.array([[0.1, 0.0]]), ("cheapest",))


def test_wide_jobs_become_collective_requests_and_merge():
    """Jobs wider than the site leave the batch workload (counted) and become collective requests
    (e = their processors, N sites, d = half of e / N, 3 equal fixed parts as the simple form); two
    windows' requests merge in submission order."""
    from evogrid.workload import load_window
    from evogrid.workload.reservations import merge_requests, wide_jobs

    window = load_window("SDSC03@d14-28")
    batch, req = wide_jobs(window, 768, 3)
    wide = window.procs > 768
    assert req.n_requests == int(wide.sum()) > 0 and batch.n_jobs == window.n_jobs - req.n_requests
    assert batch.machine_procs == 768 and (batch.procs <= 768).all()
    assert batch.dropped["became_collective"] == req.n_requests
    assert req.collective.total_min.tolist() == window.procs[wide].tolist()
    assert (req.collective.site_min == np.ceil(0.5 * req.collective.total_min / 3)).all()
    assert (req.parts.sum(axis=1) >= req.collective.total_min).all() and req.parts.shape[1] == 3
    other = wide_jobs(load_window("SDSC03@d28-42"), 768, 3)[1]
    both = merge_requests("both", [req, other])
    assert both.n_requests == req.n_requests + other.n_requests
    assert (np.diff(both.submit) >= 0).all()
    assert sorted(both.collective.total_min.tolist()) == sorted(req.collective.total_min.tolist()
                                                                + other.collective.total_min.tolist())


def test_equal_parts_split_each_requests_processors():
    """Cankar's simple request: the parts' sum e as N equal parts of ceil(e / N), the times kept;
    N below 1 is refused."""
    from evogrid.workload.reservations import equal_parts

    parts = np.array([[5, 2, 0], [3, 3, 3], [1, 0, 0]])
    one = np.ones(3, dtype=np.int64)
    requests = Reservations("r", one, 2 * one, 9 * one, 4 * one, parts)
    split = equal_parts(requests, 3)
    assert split.parts.tolist() == [[3, 3, 3], [3, 3, 3], [1, 1, 1]]
    assert (split.parts.sum(axis=1) >= parts.sum(axis=1)).all()
    assert split.earliest_start.tolist() == requests.earliest_start.tolist()
    assert split.duration.tolist() == requests.duration.tolist()
    with pytest.raises(ScenarioError, match="n_parts"):
        equal_parts(requests, 0)
