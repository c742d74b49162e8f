"""Placing a node request with Cankar's algorithm, and the brute-force optimum it is judged by."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from evogrid.nodes import cankar
from evogrid.nodes.pool import NodePool
from evogrid.nodes.request import NodeRequest


class CankarLimits(BaseModel):
    """The algorithm's parameters (his 3.3), defaulting to the values of his experiments (3.4.3):
    M_init = 3, one pass (M_max = M_init), L1 = 7, L2 = 10."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    m_init: int = Field(3, ge=1, description="discovery asks for M x N nodes, M from m_init")
    m_max: int = Field(3, ge=1, description="M doubles after a failed pass while M <= m_max")
    l1: int = Field(7, ge=0, description="SelectAndSwap tries at most L1 x N swaps (phase IV)")
    l2: int = Field(10, ge=0, description="phase V tries L2 x N random swaps")

    @model_validator(mode="after")
    def _ordered(self) -> CankarLimits:
        if self.m_max < self.m_init:
            raise ValueError(f"m_max {self.m_max} is below m_init {self.m_init}")
        return self

    def compiled(self) -> tuple[int, int, int, int]:
        return self.m_init, self.m_max, self.l1, self.l2


@dataclass(frozen=True)
class Placement:
    """Where a request goes.

    Attributes:
        outcome: one of :data:`evogrid.nodes.cankar.OUTCOMES` ("placed" or why not).
        start_s: the common start (s), None unless placed.
        nodes: the N nodes (pool indices), empty unless placed.
        amounts: (N, resources) reserved on each (phase VI), empty unless placed.
        efficiency: the efficiency estimate (3.3) of the nodes at the start, 0 unless placed.
        passes: discovery rounds run (more than one only with m_max > m_init).
    """

    outcome: str
    start_s: int | None
    nodes: np.ndarray
    amounts: np.ndarray
    efficiency: float
    passes: int

    @property
    def placed(self) -> bool:
        return self.start_s is not None


def co_allocate(pool: NodePool, request: NodeRequest, limits: CankarLimits | None = None,
                seed: int = 0, *, nodes: np.ndarray | None = None, book: bool = False) -> Placement:
    """Cankar's phases I-V for ``request`` on ``pool`` (evogrid.nodes.cankar), and phase VI's split.

    ``nodes``: what discovery (phase I) returns, instead of its seeded sample (for example the
    nodes another variant of the request was given); ``book``: also reserve the amounts on the
    pool. The same seed gives the same placement.
    """
    limits = limits or CankarLimits()
    given = np.empty(0, dtype=np.int64) if nodes is None else np.asarray(nodes, dtype=np.int64)
    outcome, start, nodes, amounts, efficiency, passes = cankar.co_allocate(
        pool.capacity, pool.labels, pool.occupancy, request.compiled(pool), limits.compiled(), seed,
        given)
    placed = outcome == cankar.PLACED
    if placed and book:
        pool.reserve(nodes, amounts, start, request.duration_s // pool.slot_s)
    return Placement(cankar.OUTCOMES[outcome], int(start) * pool.slot_s if placed else None,
                     nodes, amounts, float(efficiency), int(passes))


def discovered(pool: NodePool, request: NodeRequest, limits: CankarLimits | None = None,
               seed: int = 0) -> np.ndarray:
    """The nodes phase I returns on the first pass of :func:`co_allocate` with the same seed."""
    limits = limits or CankarLimits()
    n_nodes, per_node, _, labels, _ = request.compiled(pool)
    nodes, _, _ = cankar.discover(pool.capacity, pool.labels, (per_node, labels),
                                  limits.m_init * n_nodes, np.uint64(cankar.first_state(seed)))
    return nodes


@dataclass(frozen=True)
class Optimum:
    """The optimal solution among given nodes: start (s; None if there is none), efficiency
    estimate and nodes."""

    start_s: int | None
    efficiency: float
    nodes: np.ndarray


def optimum(pool: NodePool, request: NodeRequest, nodes: np.ndarray) -> Optimum:
    """The optimum over every N-set of ``nodes`` (the earliest start, then the highest efficiency
    factor), by brute force: C(len(nodes), N) sets at each candidate start."""
    start, efficiency, chosen = cankar.optimum(pool.capacity, pool.occupancy,
                                               np.asarray(nodes, dtype=np.int64), request.compiled(pool))
    return Optimum(int(start) * pool.slot_s if start >= 0 else None, float(efficiency), chosen)


@dataclass(frozen=True)
class ConcurrentOutcome:
    """What :func:`co_allocate_concurrently` did with each request.

    Attributes:
        placements: the final placement of each request (booked on the pool where placed).
        attempts: per request, the searches it ran (1: booked at the first try).
        failed_bookings: per request, the bookings that failed because a request searching at the
            same time had taken the resources first (his phase VI failure).
    """

    placements: list[Placement]
    attempts: list[int]
    failed_bookings: list[int]


def co_allocate_concurrently(pool: NodePool, requests: list[NodeRequest], concurrency: int,
                             limits: CankarLimits | None = None, seed: int = 0) -> ConcurrentOutcome:
    """Place ``requests`` as searches that overlap: ``concurrency`` of them at a time search (phases
    I-V) on the same state of ``pool``, then book (phase VI) in list order. A booking fails when the
    resources it needs are no longer free, taken by a request of the same round; the request then
    returns to phase I with M unchanged (his 3.3.6: "Rezervacija je lahko neuspešna, ker so bili med
    izvajanjem algoritma nekateri viri na vozliščih že zasedeni. V tem primeru se algoritem vrne v
    fazo I brez spreminjanja parametra M", the reservation may fail because some resources on the
    nodes were taken while the algorithm ran; then the algorithm returns to phase I without changing
    M) and searches again in the next round, with the requests not yet started. ``concurrency = 1``
    is placing them one after the other. Each search's seed is ``seed`` plus the request's index
    and, on a repeat, 1,000,003 per attempt before. ``pool`` is updated in place."""
    if concurrency < 1:
        raise ValueError(f"concurrency {concurrency}: expected at least 1")
    n = len(requests)
    placements: dict[int, Placement] = {}
    attempts, failed = [0] * n, [0] * n
    waiting = list(range(n))
    while waiting:
        round_, waiting = waiting[:concurrency], waiting[concurrency:]
        found = {}
        for i in round_:  # every search of the round sees the pool as the round found it
            found[i] = co_allocate(pool, requests[i], limits, seed + i + 1_000_003 * attempts[i])
            attempts[i] += 1
        retry = []
        for i in round_:
            got = found[i]
            first = None if got.start_s is None else got.start_s // pool.slot_s
            slots = requests[i].duration_s // pool.slot_s
            if got.placed and not _still_free(pool, got.nodes, got.amounts, first, slots):
                failed[i] += 1
                retry.append(i)
                continue
            if got.placed:
                pool.reserve(got.nodes, got.amounts, first, slots)
            placements[i] = got
        # Back to phase I, ahead of the requests not yet started. The round's first booking always
        # holds (it searched the pool as it is), so every round settles at least one request.
        waiting = retry + waiting
    return ConcurrentOutcome([placements[i] for i in range(n)], attempts, failed)


def _still_free(pool: NodePool, nodes: np.ndarray, amounts: np.ndarray, first_slot: int,
                n_slots: int) -> bool:
    """Do ``nodes`` still have ``amounts`` free over the slots (a tolerance for float sums)?"""
    free = pool.capacity[nodes, :, None] - pool.occupancy[nodes, :, first_slot:first_slot + n_slots]
    return bool((free >= amounts[:, :, None] - 1e-9).all())
