"""A request for exactly N nodes, and Cankar's test requests.

Cankar's collective request (dissertation, 3.2) gives the job's duration,
the number of nodes N, the earliest and the latest start, per resource a
minimum free amount d_i on each node and a minimum total e_i over the N
nodes, and qualitative requirements; with ``e_i = N d_i`` it is a simple
request. :func:`cankar_cases` draws his test requests (3.4.2), each as a
simple and a collective variant that differ in d_i only.
"""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from evogrid.nodes.pool import OPTERON, XTREEMOS, NodePool

#: His request durations (minutes) and numbers of nodes (3.4.2).
DURATIONS_MIN = (10, 30, 60, 120, 180, 300)
NODE_COUNTS = (2, 5, 10, 15, 30, 60)
#: The earliest start is drawn from [0 h, 5 h 50 min], the latest end from [18 h 10 min, 24 h].
EARLIEST_MIN, LATEST_END_MIN = (0, 350), (1090, 1440)
#: The least total per node where his interval (3.4) for e_i goes below zero (CPUs: 2.90 - 2 x
#: 1.51 < 0): "a small positive amount", as he uses for a d_i that is not given (3.2).
LEAST_PER_NODE = 0.1


class NodeRequest(BaseModel):
    """A request for exactly ``n_nodes`` nodes (times in seconds from the pool's slot 0)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    n_nodes: int = Field(ge=1)
    duration_s: int = Field(gt=0)
    earliest_s: int = Field(ge=0)
    latest_s: int = Field(ge=0, description="the latest start")
    per_node: tuple[float, ...] = Field(description="d_i: the least free amount on each node")
    total: tuple[float, ...] = Field(description="e_i: the least amount over the N nodes")
    labels: int = Field(0, ge=0, description="bit set of the qualitative properties required")

    @model_validator(mode="after")
    def _consistent(self) -> NodeRequest:
        if self.latest_s < self.earliest_s:
            raise ValueError(f"latest_s {self.latest_s} is before earliest_s {self.earliest_s}")
        if len(self.per_node) != len(self.total):
            raise ValueError(f"per_node has {len(self.per_node)} resources, total {len(self.total)}")
        if any(d < 0 for d in self.per_node) or any(e < 0 for e in self.total):
            raise ValueError("per_node and total must not be negative")
        if any(e < self.n_nodes * d * (1 - 1e-12) for d, e in zip(self.per_node, self.total, strict=True)):
            raise ValueError("total: every e_i must be at least n_nodes x per_node "
                             "(e_i = N d_i: a simple request)")
        return self

    @property
    def is_simple(self) -> bool:
        """e_i = N d_i for every resource (his simple request)."""
        return all(np.isclose(e, self.n_nodes * d) for d, e in zip(self.per_node, self.total, strict=True))

    def compiled(self, pool: NodePool) -> tuple:
        """The request as :func:`evogrid.nodes.cankar.co_allocate` takes it, times in ``pool``'s
        slots; a time off the slot grid, a window past the pool's last slot or a wrong number of
        resources is a ValueError naming the field."""
        if len(self.total) != len(pool.resources):
            raise ValueError(f"total: {len(self.total)} resources, the pool has {len(pool.resources)}")
        slots = {}
        for field in ("duration_s", "earliest_s", "latest_s"):
            value = getattr(self, field)
            if value % pool.slot_s:
                raise ValueError(f"{field}: {value} s is not a multiple of the pool's {pool.slot_s} s slots")
            slots[field] = value // pool.slot_s
        if slots["latest_s"] + slots["duration_s"] > pool.n_slots:
            raise ValueError(f"latest_s: the reservation would end after the pool's "
                             f"{pool.n_slots * pool.slot_s} s")
        window = (slots["earliest_s"], slots["latest_s"], slots["duration_s"])
        return (self.n_nodes, np.array(self.per_node, dtype=np.float64),
                np.array(self.total, dtype=np.float64), self.labels, window)


def cankar_cases(pool: NodePool, n_nodes: int, n_cases: int, seed: int,
                 statistics: dict[str, tuple[float, ...]] | None = None,
                 ) -> list[tuple[NodeRequest, NodeRequest]]:
    """``n_cases`` of Cankar's test requests for ``n_nodes`` nodes as (simple, collective) pairs.

    As in his 3.4.2: the duration from :data:`DURATIONS_MIN`, the earliest start and the latest end
    uniform on the slot grid within :data:`EARLIEST_MIN` and :data:`LATEST_END_MIN`, and e_i uniform
    in ``[N (mean_i - 2 sd_i), N (mean_i + sd_i / 2)]`` with the pool's mean and standard deviation
    (its lower end at least ``N x`` :data:`LEAST_PER_NODE`); d_i = e_i / N (simple) or e_i / 2N
    (collective); both require AMD Opteron nodes with XtreamOS. ``statistics`` (resource ->
    (mean, sd, ...), e.g. :data:`~evogrid.nodes.pool.TABLE_3_1`) replaces the pool's own.
    """
    rng = np.random.default_rng(seed)
    stats = pool.statistics() if statistics is None else statistics
    slot_min = pool.slot_s // 60
    cases = []
    for _ in range(n_cases):
        duration = int(rng.choice(DURATIONS_MIN)) * 60
        earliest, latest_end = (int(rng.integers(low // slot_min, high // slot_min + 1)) * pool.slot_s
                                for low, high in (EARLIEST_MIN, LATEST_END_MIN))
        bounds = [(n_nodes * max(m - 2 * sd, LEAST_PER_NODE), n_nodes * (m + sd / 2))  # his (3.4)
                  for m, sd, *_ in (stats[name] for name in pool.resources)]
        total = tuple(float(rng.uniform(low, high)) for low, high in bounds)
        common = dict(n_nodes=n_nodes, duration_s=duration, earliest_s=earliest,
                      latest_s=latest_end - duration, total=total, labels=OPTERON | XTREEMOS)
        cases.append((NodeRequest(per_node=tuple(e / n_nodes for e in total), **common),
                      NodeRequest(per_node=tuple(e / (2 * n_nodes) for e in total), **common)))
    return cases
