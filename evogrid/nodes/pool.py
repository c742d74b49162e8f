"""A pool of nodes with several resources, qualitative labels and an occupancy over the day.

Cankar's model (dissertation, 3.2): a node ``V_j`` has an amount ``r_ij`` of
each resource ``R_i`` and qualitative properties given as labels; the amount
of ``R_i`` reserved on it at time t is its occupancy ``Z_ij(t)``, and nodes
are shared, so a request reserves amounts, not whole nodes. Here time is
cut into slots (5 minutes by default: his PlanetLab data are 5-minute
samples) and ``Z`` is constant within a slot.

:func:`planetlab_like` draws a pool after his test setting (3.4.2): 606
nodes whose CPU count, CPU frequency and memory follow his Table 3.1, on
a day of 24 hours. He used PlanetLab's recorded load of 18 August 2010,
which is not published, nor how load became occupancy; our stand-in is
written down in docs/coallocation.md ("The node pool").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: The resources of Cankar's Table 3.1, in his order (units: CPUs, GHz, GB).
RESOURCES = ("cpus", "ghz", "memory_gb")
#: Table 3.1 (606 PlanetLab nodes): mean, standard deviation, minimum, maximum per resource.
TABLE_3_1 = {
    "cpus": (2.90, 1.51, 1.0, 8.0),
    "ghz": (2.68, 0.36, 1.40, 3.60),
    "memory_gb": (2.95, 0.84, 0.73, 7.71),
}
#: Labels (bits) of the qualitative properties his requests asked for (3.4.2): "AMD Opteron"
#: nodes "that have XtreamOS installed".
OPTERON, XTREEMOS = 1, 2
SLOT_S = 300
DAY_SLOTS = 24 * 3600 // SLOT_S


@dataclass(frozen=True)
class NodePool:
    """Nodes with resources and an occupancy per time slot.

    Attributes:
        capacity: (nodes, resources) amounts ``r_ij``.
        occupancy: (nodes, resources, slots) reserved amounts ``Z_ij`` per slot; updated in place
            by :meth:`reserve`.
        labels: (nodes,) int64 bit sets of qualitative properties.
        resources: the resources' names, in column order.
        slot_s: a slot's length (seconds).
    """

    capacity: np.ndarray
    occupancy: np.ndarray
    labels: np.ndarray
    resources: tuple[str, ...] = RESOURCES
    slot_s: int = SLOT_S

    def __post_init__(self) -> None:
        n, r = self.capacity.shape
        if self.occupancy.shape[:2] != (n, r) or self.labels.shape != (n,) or len(self.resources) != r:
            raise ValueError(f"node pool: capacity {self.capacity.shape}, occupancy "
                             f"{self.occupancy.shape}, labels {self.labels.shape} and "
                             f"{len(self.resources)} resources do not agree")

    @property
    def n_slots(self) -> int:
        return self.occupancy.shape[2]

    def free(self) -> np.ndarray:
        """(nodes, resources, slots): the free amounts ``a_ij = r_ij - Z_ij``."""
        return self.capacity[:, :, None] - self.occupancy

    def reserve(self, nodes: np.ndarray, amounts: np.ndarray, first_slot: int, n_slots: int) -> None:
        """Book ``amounts`` (len(nodes), resources) on ``nodes`` over ``n_slots`` slots from
        ``first_slot`` (phase VI's update of the occupancy)."""
        self.occupancy[nodes, :, first_slot:first_slot + n_slots] += amounts[:, :, None]

    def statistics(self) -> dict[str, tuple[float, float, float, float]]:
        """Per resource: mean, standard deviation, minimum and maximum of the capacities (Table
        3.1's columns)."""
        return {name: (float(c.mean()), float(c.std()), float(c.min()), float(c.max()))
                for name, c in zip(self.resources, self.capacity.T, strict=True)}


def _capacity_law(stats: tuple[float, float, float, float], whole: bool):
    """A normal law truncated to [min, max] (for ``whole`` units: rounded to whole units) whose
    mean and standard deviation are ``stats``'s: the underlying normal's are solved for, since
    truncation and rounding move them. Returns a sampler ``(rng, n) -> draws``."""
    from scipy import optimize
    from scipy import stats as st

    mean, sd, low, high = stats
    units = np.arange(low, high + 1)

    def unit_probabilities(mu: float, sigma: float) -> np.ndarray:
        p = st.norm.cdf(units + 0.5, mu, sigma) - st.norm.cdf(units - 0.5, mu, sigma)
        return p / p.sum()

    def moments(x: np.ndarray) -> tuple[float, float]:
        mu, sigma = x[0], abs(x[1])
        if whole:
            p = unit_probabilities(mu, sigma)
            m = float(p @ units)
            return m, float(np.sqrt(p @ (units - m) ** 2))
        law = st.truncnorm((low - mu) / sigma, (high - mu) / sigma, mu, sigma)
        return float(law.mean()), float(law.std())

    mu, sigma = optimize.least_squares(lambda x: np.subtract(moments(x), (mean, sd)), [mean, sd]).x
    sigma = abs(sigma)
    if whole:
        p = unit_probabilities(mu, sigma)
        return lambda rng, n: rng.choice(units, size=n, p=p)
    law = st.truncnorm((low - mu) / sigma, (high - mu) / sigma, mu, sigma)
    return lambda rng, n: law.rvs(size=n, random_state=rng)


def planetlab_like(n_nodes: int = 606, *, load: float = 0.5, seed: int = 0,
                   occupied: tuple[str, ...] = ("cpus",), labelled_share: float = 1.0,
                   spread: float = 1.0, concentration: float = 2.0, n_slots: int = DAY_SLOTS) -> NodePool:
    """A pool after Cankar's test setting (module docstring; docs/coallocation.md).

    Capacities: normal laws truncated to Table 3.1's minimum and maximum (CPUs rounded to whole
    CPUs) whose mean and standard deviation are the table's. Occupancy: each node has a mean
    utilisation drawn from Beta(c load, c (1 - load)) with c = ``concentration`` (2: uniform at load
    0.5; larger: the nodes' loads nearer ``load``) and a utilisation per slot that follows it
    as a first-order autoregressive series (0.95 of the last slot's deviation, noise 0.05),
    clipped to [0, 1]; the ``occupied`` resources of the node are occupied in that proportion, the
    others are free all day (his data record the CPU load only).
    ``labelled_share`` of the nodes carry both labels his requests asked for. ``spread`` scales
    every capacity's standard deviation (1: Table 3.1's; less: nodes more alike than his 606, as
    the subset his qualitative conditions kept may have been).
    """
    if not 0.0 < load < 1.0:
        raise ValueError(f"load: {load} is not in (0, 1)")
    if not 0.0 <= labelled_share <= 1.0:
        raise ValueError(f"labelled_share: {labelled_share} is not in [0, 1]")
    if not spread > 0.0:
        raise ValueError(f"spread: {spread} is not above 0")
    if not concentration > 0.0:
        raise ValueError(f"concentration: {concentration} is not above 0")
    rng = np.random.default_rng(seed)
    laws = {name: _capacity_law((mean, spread * sd, low, high), whole=name == "cpus")
            for name, (mean, sd, low, high) in TABLE_3_1.items()}
    capacity = np.column_stack([laws[name](rng, n_nodes) for name in RESOURCES]).astype(np.float64)
    mean = rng.beta(concentration * load, concentration * (1 - load), n_nodes)
    use = np.empty((n_nodes, n_slots))
    use[:, 0] = mean
    noise = rng.normal(0.0, 0.05, (n_nodes, n_slots))
    for s in range(1, n_slots):
        use[:, s] = np.clip(mean + 0.95 * (use[:, s - 1] - mean) + noise[:, s], 0.0, 1.0)
    unknown = set(occupied) - set(RESOURCES)
    if unknown:
        raise ValueError(f"occupied: unknown resources {sorted(unknown)}; expected some of {RESOURCES}")
    shares = np.array([name in occupied for name in RESOURCES], dtype=np.float64)
    occupancy = capacity[:, :, None] * shares[None, :, None] * use[:, None, :]
    labels = np.where(rng.random(n_nodes) < labelled_share, OPTERON | XTREEMOS, 0).astype(np.int64)
    return NodePool(capacity, occupancy, labels)
