"""Beichter's three-hour runs rebuilt (experiments/beichter_labgrid.py): the shape docs/grid.md reports
for 8 processors a cluster holds on the model's five seeds (without the learned ranking's training).

- the old policy, reading the grid's slots, sends most of the grid's jobs to B and queues them there;
  the new one spreads them and they hardly wait (his 8.1.5 table: 86 -> 68 % at B, 373 -> 40 s);
- with the slots equal to the processors the old policy places every job as the new one does: the
  slots are its flaw (his 7.1.1);
- with 16 processors a cluster, where A's and C's 8 slots could bind, his two policies never hold
  more of the grid's jobs at a cluster than its slots, so LoadLeveler enforcing the slots changes
  none of their schedules; MCT, which reads no slots, holds more at A and C, and the enforced slots
  hold it to them.
"""

import importlib.util
import sys
from pathlib import Path

import numpy as np

from evogrid.sim.schedule import Exchange, simulate_grid

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "experiments" / "beichter_labgrid.py"
_spec = importlib.util.spec_from_file_location("beichter_labgrid", SCRIPT)
labgrid = importlib.util.module_from_spec(_spec)
sys.modules["beichter_labgrid"] = labgrid  # its dataclasses look their module up there
_spec.loader.exec_module(labgrid)


def _run(jobs, location, slots, slot_rule="read"):
    exchange = Exchange(location, transfer=labgrid.TRANSFER, location=location, refresh_s=labgrid.REFRESH_S,
                        grid_slots=slots, slot_rule=slot_rule if slots else "enforced")
    return simulate_grid(jobs, "fcfs", exchange)


def test_the_rebuilt_runs_have_his_shape_and_the_slots_are_the_old_policys_flaw():
    clusters = next(c for c in labgrid.SETTINGS if set(c.procs.values()) == {8})
    slots = (None, *clusters.slots.values())
    old_b, new_b, old_wait, new_wait = [], [], [], []
    for seed in range(1, 6):
        jobs = labgrid.grid_jobs(clusters, seed)
        old, new = _run(jobs, "beichter-old", slots), _run(jobs, "beichter-new", slots)
        plain = _run(jobs, "beichter-old", ())
        assert np.array_equal(plain.site, new.site) and np.array_equal(plain.start, new.start), seed
        m_old, m_new = labgrid.metrics(jobs, old), labgrid.metrics(jobs, new)
        old_b.append(m_old["jobs B"])
        new_b.append(m_new["jobs B"])
        old_wait.append(m_old["avgQueueTime (s)"])
        new_wait.append(m_new["avgQueueTime (s)"])
    sixteen = next(c for c in labgrid.SETTINGS if set(c.procs.values()) == {16} and not c.maxjobs)
    slots = (None, *sixteen.slots.values())  # A and C 8 of 16 processors: the slots can bind
    for seed in range(1, 6):
        jobs = labgrid.grid_jobs(sixteen, seed)
        for location in ("beichter-old", "beichter-new"):
            read = _run(jobs, location, slots)
            m = labgrid.metrics(jobs, read)
            for k, name in enumerate(labgrid.SPEED, 1):
                assert m[f"most grid jobs at once at {name}"] <= slots[k], (seed, name)
            enforced = _run(jobs, location, slots, "enforced")
            assert np.array_equal(enforced.start, read.start) and np.array_equal(enforced.site, read.site)
    jobs = labgrid.grid_jobs(sixteen, 1)
    free, held = (labgrid.metrics(jobs, _run(jobs, "mct", s, "enforced")) for s in ((), slots))
    assert max(free[f"most grid jobs at once at {name}"] for name in "AC") > 8
    for k, name in enumerate(labgrid.SPEED, 1):
        assert held[f"most grid jobs at once at {name}"] <= slots[k], name
    assert np.mean(old_b) > 0.8 and np.mean(new_b) < 0.65
    assert np.mean(new_wait) < np.mean(old_wait) / 5


def test_his_one_hour_runs_have_his_shape():
    """His one-hour runs (8.1.5) rebuilt with 16 processors a cluster: with short and with long jobs
    the new policy sends fewer of the grid's jobs to B and more to A than the old one (his tables:
    281 -> 203 and 88 -> 56 at B), and with short jobs the old policy has them all computed sooner
    ("Bei den beiden Testläufen mit den kurzen Simulationsjobs wurden die Jobs mit der alten Policy
    schneller berechnet")."""
    clusters = next(c for c in labgrid.SETTINGS if set(c.procs.values()) == {16} and not c.maxjobs)
    slots = (None, *clusters.slots.values())
    for runs in labgrid.ONE_HOUR:
        mean = {}
        for location in ("beichter-old", "beichter-new"):
            rows = [labgrid.one_hour_metrics(jobs, _run(jobs, location, slots, "enforced"), clusters)
                    for jobs in (labgrid.grid_jobs(clusters, seed, runs) for seed in range(1, 6))]
            mean[location] = {key: np.mean([r[key] for r in rows]) for key in rows[0]}
        old, new = mean["beichter-old"], mean["beichter-new"]
        assert new["jobs B"] < old["jobs B"] and new["jobs A"] > old["jobs A"], runs.label
        if runs.run_factor == 1:
            assert old["span (s)"] < new["span (s)"]
