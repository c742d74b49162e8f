"""NSGA-II Pareto runs: operators, problem evaluation, fronts, resume, backends."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jobs_rows import awrt_from_jobs_file
from reference_sim import Job, simulate_reference

from evogrid.optimize import Evaluator, ParetoConfig, resume_pareto, run_pareto
from evogrid.optimize.evaluator import ScenarioRef
from evogrid.optimize.partition import (
    PerturbedLocalSampling,
    effective_sites,
    partition_awrt,
    random_mutation,
    shift_mutation,
)
from evogrid.sim.schedule import GridJobs
from evogrid.workload import synthetic_workload

TINY = "KTH@0-1+SDSC03@0-1"


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 5), st.integers(1, 3000), st.floats(1, 3000), st.integers(0, 2**32 - 1))
def test_shift_mutation_moves_exactly_n_s_genes_to_one_site(K, n, sigma, seed):
    x = np.random.default_rng(seed).integers(0, K, n)
    before = x.copy()
    rng = np.random.default_rng(seed + 1)
    moved = shift_mutation(x, K, sigma, rng)
    changed = np.flatnonzero(x != before)
    assert len(changed) == moved
    if moved:
        assert len(set(x[changed].tolist())) == 1  # one target site
    # n_s = round(|N(0, sigma)|) from the same draws, capped by the genes not on the target
    check = np.random.default_rng(seed + 1)
    n_s = int(round(abs(check.normal(0, sigma))))
    target = int(check.integers(K))
    assert moved == min(n_s, int((before != target).sum()))
    assert ((x >= 0) & (x < K)).all()


def test_random_mutation_rate_and_validity():
    K, n = 3, 100_000
    x = np.zeros(n, dtype=np.int64)
    moved = random_mutation(x, K, 0.1, np.random.default_rng(0))
    assert (x != 0).sum() == moved
    assert abs(moved / n - 0.1) < 0.005
    assert set(np.unique(x).tolist()) == {0, 1, 2}


def test_perturbed_local_sampling():
    origin = np.repeat([0, 1], 500)
    sampling = PerturbedLocalSampling(origin, 2, n_changes=37)
    X = sampling._do(None, 6, random_state=np.random.default_rng(3))
    assert (X[0] == origin).all()
    assert [(x != origin).sum() for x in X[1:]] == [37] * 5
    seeds = [1 - origin, np.zeros_like(origin)]
    sampling = PerturbedLocalSampling(origin, 2, 37, seeds=seeds)
    seeded = sampling._do(None, 6, random_state=np.random.default_rng(3))
    assert (seeded[0] == origin).all() and (seeded[1] == seeds[0]).all() and (seeded[2] == 0).all()
    assert (seeded[3:] == X[3:]).all()


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["fcfs", "easy", "list"]))
def test_partition_awrt_equals_the_reference_simulator(seed, lrms):
    """AWRT per site of an assignment = the pure-Python simulator with each job at its assigned
    site (or its origin where it does not fit), AWRT grouped by where jobs were submitted."""
    rng = np.random.default_rng(seed)
    sites = [synthetic_workload(int(rng.integers(5, 40)), m, load=0.9, seed=seed + m) for m in (4, 16)]
    jobs = GridJobs.merge(sites)
    assignment = rng.integers(0, 2, len(jobs.submit))
    ours = partition_awrt(jobs, (lrms, lrms), assignment)
    where = effective_sites(jobs, assignment)
    assert (jobs.procs <= jobs.machine_procs[where]).all()
    ref_jobs = [Job(int(s), int(r), int(p), int(e), int(w)) for s, r, p, e, w in
                zip(jobs.submit, jobs.run_time, jobs.procs, jobs.estimate, where, strict=True)]
    start, _ = simulate_reference(ref_jobs, [4, 16], [lrms, lrms])
    sa = jobs.run_time * jobs.procs
    response = np.array(start) + jobs.run_time - jobs.submit
    for k in range(2):
        mine = jobs.origin == k
        assert ours[k] == pytest.approx((sa[mine] * response[mine]).sum() / sa[mine].sum(), rel=1e-12)


def _tiny(mode="partition", **kw):
    return ParetoConfig(TINY, mode=mode, pop_size=8, generations=4, seed=3, n_changes=100, n_rules=3, **kw)


def test_tiny_run_front_contains_or_dominates_local(tmp_path):
    with Evaluator("serial") as ev:
        result = run_pareto(_tiny(), tmp_path / "run", ev, progress=False)
    front = np.array(result["front"])
    local = np.array(result["reference_points"]["local"])
    assert (front <= local + 1e-9).all(axis=1).any()
    # non-dominated: no point dominates another
    for p in front:
        assert not ((front <= p).all(axis=1) & (front < p).any(axis=1)).any()
    rows = (tmp_path / "run" / "generations.csv").read_text().splitlines()
    assert len(rows) == 1 + 4
    assert (tmp_path / "run" / "pareto.png").stat().st_size > 10_000
    sites = np.load(tmp_path / "run" / "front_assignments.npz")["sites"]
    assert sites.shape == (len(front), len(ScenarioRef(TINY, "easy").jobs().submit))


@pytest.mark.parametrize("mode", ["partition", "policy"])
def test_resume_after_a_kill_gives_the_same_front(tmp_path, mode):
    with Evaluator("serial") as ev:
        straight = run_pareto(_tiny(mode), tmp_path / "straight", ev, progress=False)
        first = run_pareto(_tiny(mode), tmp_path / "killed", ev, progress=False, stop_after=2)
        assert first == {"finished": False, "generation": 2}
        resumed = resume_pareto(tmp_path / "killed", ev, progress=False)
    assert resumed["front"] == straight["front"]
    csv_rows = (tmp_path / "killed" / "generations.csv").read_text().splitlines()
    assert [r.split(",")[0] for r in csv_rows[1:]] == ["1", "2", "3", "4"]


def test_evaluator_rejects_unknown_backend():
    from evogrid.errors import EvogridError

    with pytest.raises(EvogridError, match="unknown backend"):
        Evaluator("mpi")
    with pytest.raises(EvogridError, match="--scheduler needs --backend dask or ray"):
        Evaluator("loky", 2, scheduler="tcp://127.0.0.1:1")


def test_scenario_ref_is_cached_per_process():
    ref = ScenarioRef(TINY, "easy")
    assert ref.jobs() is ScenarioRef(TINY, "easy").jobs()


def test_cli_pareto_and_plot(tmp_path, capsys):
    from test_cli import assert_one_line_error, run

    out = tmp_path / "p"
    code, stdout, err = run(capsys, "pareto", TINY, "--pop-size", "6", "--generations", "2",
                            "--n-changes", "50", "--backend", "serial", "--out", str(out))
    assert code == 0, err
    assert "hypervolume" in stdout and "local" in stdout
    data = json.loads((out / "front.json").read_text())
    assert set(data["reference_points"]) >= {"local", "AWF", "EASY-JS", "LIST-JS", "AA"}
    code, stdout, err = run(capsys, "plot", str(out), "--output", str(tmp_path / "x.png"))
    assert code == 0, err and (tmp_path / "x.png").exists()
    code, _, err = run(capsys, "pareto", "--resume", str(tmp_path / "nothing"))
    assert_one_line_error(code, err, "no checkpoint")
    code, _, err = run(capsys, "pareto", TINY, "--mode", "magic")
    assert_one_line_error(code, err, "--mode magic")


def test_partition_cutoff_gives_lower_bounds():
    sites = [synthetic_workload(6000, 8, load=1.5, seed=1), synthetic_workload(6000, 32, load=0.6, seed=2)]
    jobs = GridJobs.merge(sites)
    everything_at_0 = np.zeros(len(jobs.submit), dtype=np.int64)
    true_awrt = partition_awrt(jobs, ("easy", "easy"), everything_at_0)
    bounds = partition_awrt(jobs, ("easy", "easy"), everything_at_0, cutoff=0.1 * true_awrt.max())
    assert (bounds <= true_awrt * (1 + 1e-12)).all() and bounds.max() > 0.1 * true_awrt.max()
    same = partition_awrt(jobs, ("easy", "easy"), everything_at_0, cutoff=10 * true_awrt.max())
    assert same.tolist() == true_awrt.tolist()


RESERVATION_TOML = ('lrms = "easy"\n'
                    + "".join(f'[[sites]]\nwindow = "SDSC03@d{d}-{d + 7}"\n' for d in (14, 21, 28))
                    + '[reservations]\nworkload = "rw1"\nseed = 3\n')


def test_reservation_front_runs_resumes_and_is_never_worse_than_algorithms_3_to_5(tmp_path, capsys):
    """NSGA-II over the admission parameters (three one-week SDSC-BLUE sites, RW1): the initial
    population holds Algorithms 3-5, so every one of them is weakly dominated by a front point;
    a killed run resumed gives the uninterrupted front; the CLI runs, resumes and redraws it."""
    from test_cli import run

    from evogrid.optimize.reservation_front import (
        ReservationFrontConfig,
        resume_reservation_front,
        run_reservation_front,
    )

    scenario = tmp_path / "res.toml"
    scenario.write_text(RESERVATION_TOML)
    config = ReservationFrontConfig(str(scenario), pop_size=8, generations=3, seed=2)
    with Evaluator("serial") as ev:
        straight = run_reservation_front(config, tmp_path / "straight", ev, progress=False, plots=None)
        first = run_reservation_front(config, tmp_path / "killed", ev, progress=False, stop_after=1,
                                      plots=None)
        assert first == {"finished": False, "generation": 1}
        resumed = resume_reservation_front(tmp_path / "killed", ev, progress=False, plots=None)
    assert resumed["front"] == straight["front"]
    front = np.array(straight["front"])
    assert front.shape[1] == 2 and ((front[:, 0] >= 0) & (front[:, 0] <= 1)).all()
    for name in ("backlog", "backfill", "weighted"):
        point = np.array(straight["reference_points"][name])
        assert ((front <= point + 1e-9).all(axis=1)).any(), name
    out = tmp_path / "cli"
    code, stdout, err = run(capsys, "pareto", str(scenario), "--mode", "reservation", "--pop-size", "6",
                            "--generations", "2", "--backend", "serial", "--out", str(out))
    assert code == 0, err
    assert "failure_rate" in stdout and "backlog" in stdout
    assert (out / "pareto.png").stat().st_size > 10_000
    code, _, err = run(capsys, "plot", str(out), "--output", str(tmp_path / "again.png"))
    assert code == 0, err
    assert (tmp_path / "again.png").exists()


def test_reservation_front_with_per_site_objectives(tmp_path, capsys):
    """One objective per site's batch AWRT besides the failure rate: the front is non-dominated in
    all four, its points' mean AWRT is the two-objective run's measure of the same genome, and the
    CLI runs it and refuses the option outside the reservation mode."""
    from test_cli import assert_one_line_error, run

    from evogrid.optimize.reservation_front import (
        ReservationFrontConfig,
        _setup,
        genome_rules,
        objectives,
        run_reservation_front,
    )

    scenario = tmp_path / "res.toml"
    scenario.write_text(RESERVATION_TOML)
    config = ReservationFrontConfig(str(scenario), pop_size=8, generations=2, seed=2, objectives="per-site")
    with Evaluator("serial") as ev:
        result = run_reservation_front(config, tmp_path / "run", ev, progress=False, plots=None)
    front, genomes = np.array(result["front"]), np.array(result["genomes"])
    sites = [f"batch_awrt_SDSC03@d{d}-{d + 7}" for d in (14, 21, 28)]
    assert result["objectives"] == ["failure_rate", *sites]
    assert front.shape[1] == 4 and len(front) >= 2
    for p in front:
        assert not ((front <= p).all(axis=1) & (front < p).any(axis=1)).any()
    workloads, _, base = _setup(config.ref)
    two = objectives(config.ref, genome_rules(genomes[0], base, base.arrays(workloads)[1]))
    assert two == pytest.approx([front[0, 0], front[0, 1:].mean()], rel=1e-12)
    assert len(result["reference_points"]["backlog"]) == 4
    code, stdout, err = run(capsys, "pareto", str(scenario), "--mode", "reservation", "--objectives",
                            "per-site", "--pop-size", "6", "--generations", "1", "--backend", "serial",
                            "--out", str(tmp_path / "cli"))
    assert code == 0, err
    assert (tmp_path / "cli" / "pareto.png").stat().st_size > 10_000
    code, _, err = run(capsys, "pareto", str(scenario), "--objectives", "per-site")
    assert_one_line_error(code, err, "--objectives per-site")



@pytest.mark.parametrize("mode", ["partition", "policy"])
def test_the_run_keeps_the_schedules_of_the_front_corners(tmp_path, mode):
    """Each site's best front point has its per-job file, and that schedule has the point's AWRTs."""
    config = ParetoConfig("KTH@0-1+SDSC03@0-1", mode=mode, pop_size=8, generations=2, seed=4)
    with Evaluator("serial") as ev:
        result = run_pareto(config, tmp_path, ev, progress=False, plots=None)
    front = np.array(result["front"])
    corners = sorted({int(np.argmin(front[:, k])) for k in range(2)})
    kept = sorted(p.name for p in tmp_path.glob("jobs_point*.csv"))
    assert kept == [f"jobs_point{i:03d}.csv" for i in corners]
    for i in corners:
        assert awrt_from_jobs_file(tmp_path / f"jobs_point{i:03d}.csv", result["sites"]) == \
            pytest.approx(front[i], rel=1e-9)
