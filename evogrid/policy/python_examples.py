"""Example policies written in Python (docs/python_policies.md): the built-in AWF, least-load location
and shortest-job-first queue order as plain classes. Each gives the schedule of its compiled twin
(tests/test_python_policy.py); copy one to start your own."""

from __future__ import annotations

from evogrid.sim.python_policy import GridView, LocationPolicy, QueueOrder, TransferPolicy

#: Beichter's slot factor in the least-load tie-break (evogrid.sim.locations.least_load.SLOT_FACTOR).
SLOT_FACTOR = 5.0


class AcceptWhenFitPolicy(TransferPolicy):
    """AWF: a site runs a job iff it fits the processors free now (the compiled ``awf``)."""

    def accepts(self, view: GridView, site: int, partner: int) -> bool:
        return bool(view.procs[view.job] <= view.free[site])


class LeastLoadPolicy(LocationPolicy):
    """Least load after assignment, ``1 - (free - m_j) / m``, ties by ``(waiting jobs + 1) /
    (5 m)`` (the compiled ``least-load``; its measure and slot factor are Beichter's, the rule is
    ours: docs/grid.md)."""

    def order(self, view: GridView, site: int, candidates: tuple[int, ...]) -> list[int]:
        need = view.procs[view.job]

        def key(s: int) -> tuple[float, float]:
            m = view.machine_procs[s]
            return 1.0 - (view.free[s] - need) / m, (view.n_waiting(s) + 1) / (m * SLOT_FACTOR)

        return sorted(candidates, key=key)


class ShortestFirstOrder(QueueOrder):
    """Shortest estimate first (the compiled ``sjf`` and ``easy-sjf`` queues)."""

    def key(self, view: GridView) -> float:
        return float(view.estimate[view.job])
