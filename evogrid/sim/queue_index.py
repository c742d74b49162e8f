"""An index over waiting queues: which stretch of a queue may hold a job that can start now.

Behind a blocked head, EASY and LIST judge every later job in queue order;
under overload the queue grows with the log, and a pass that reads all of it
makes the run quadratic (docs/benchmarks.md, "Cost against the number of
jobs"). The index lets a pass jump over stretches where no job can start.

Layout: the queue positions of a row are grouped into blocks of ``BLOCK``
positions; ``index[F, k, i]`` (F: ``MIN_PROCS``, ``MIN_ESTIMATE``) is a
segment tree over row k's blocks (node 1 the root, node i's children 2i and
2i+1, block b the leaf ``leaves + b``), holding the fewest processors and the
shortest estimate (s) of the waiting jobs under each node (``EMPTY`` for
none). While the tree is kept, a job that leaves the queue leaves a hole
(:data:`HOLE`) behind, so positions keep their order and the tree needs no
re-building (evogrid.sim.core.indexed_pass; only a row the active request's
moves use up is compacted and its tree rebuilt, evogrid.sim.core.compact_row).

Keeping the tree costs a climb per arrival and per start, which a short
queue does not repay, and holes cost a short queue's linear pass more than
the tree saves. So a row's tree is kept only while the row is long: node
0, outside the tree, holds the row's state, ``index[LIVE, k, 0]`` (1 while
kept) and ``index[SPAN_ON, k, 0]``: a pass that finds ``tail - head``
(positions, holes included) at least ``SPAN_ON`` builds the tree over them;
one that leaves at most a quarter of that drops the tree and closes the
holes, and the short queue goes back to the plain pass
(evogrid.sim.core.lrms_scan). The gap between the two keeps the building
cost at O(1) per arrival.

A node is worth entering when its bounds allow a job that fits the free
processors and that the LRMS's rule may start (``lrms.group_may_start``);
the bounds come from different jobs, so a node may be entered in vain, but
a node whose bounds rule out every job is never entered (no job is missed).
"""

from __future__ import annotations

import numpy as np

from evogrid.sim import lrms
from evogrid.sim.numba_stamp import njit

#: Queue positions per leaf of the tree: a leaf's jobs are read one by one.
BLOCK = 8
MIN_PROCS, MIN_ESTIMATE = 0, 1
#: Node 0 of a row (outside the tree): is the tree kept (1; 0 not kept; ``UNFILLED`` not kept and
#: never filled, :func:`new_index`), and from which span on.
LIVE, SPAN_ON = 0, 1
UNFILLED = -1
#: The default ``SPAN_ON`` (queue positions): shorter queues are read one job after another.
SPAN = 512
#: A queue position whose job has left.
HOLE = -1
#: The bounds of a node without waiting jobs (no job is that wide or that long).
EMPTY = np.iinfo(np.int64).max


def new_index(n_positions: int, n_rows: int, span_on: int) -> np.ndarray:
    """An index, not kept yet, for ``n_rows`` queue rows of ``n_positions`` positions each, kept from
    a span of ``span_on`` positions on (module docstring).

    From ``np.zeros``, whose pages the system maps only where written: a row's tree is filled
    with ``EMPTY`` when it is first built (``index[LIVE, k, 0]`` is ``UNFILLED`` until then,
    :func:`fill`), so a run whose queues stay short pays nothing for its index (filled at once,
    a 200,000-job grid's index took 1.4 ms, 2-3 % of the run).
    """
    leaves = 1
    while leaves * BLOCK < n_positions:
        leaves *= 2
    index = np.zeros((2, n_rows, 2 * leaves), dtype=np.int64)
    index[LIVE, :, 0] = UNFILLED
    index[SPAN_ON, :, 0] = span_on
    return index


@njit(cache=True, _nrt=False)
def fill(index, k):
    """Row k's tree without jobs (``EMPTY`` everywhere), not kept: before its first build in a run,
    and before a compacted row's is built anew (evogrid.sim.core.compact_row). A call."""
    for f in range(2):
        for i in range(1, index.shape[2]):
            index[f, k, i] = EMPTY
    index[LIVE, k, 0] = 0


@njit(cache=True, inline="always")
def kept(index, k):
    """Is row k's tree kept (module docstring)?"""
    return index[LIVE, k, 0] == 1


@njit(cache=True, _nrt=False)
def add_job(index, k, position, procs, estimate):
    """A job needing ``procs`` processors for ``estimate`` seconds waits at ``position`` of row k
    (a call, not inlined: it runs on long queues only)."""
    i = index.shape[2] // 2 + position // BLOCK
    while i >= 1 and (procs < index[MIN_PROCS, k, i] or estimate < index[MIN_ESTIMATE, k, i]):
        index[MIN_PROCS, k, i] = min(index[MIN_PROCS, k, i], procs)
        index[MIN_ESTIMATE, k, i] = min(index[MIN_ESTIMATE, k, i], estimate)
        i >>= 1


@njit(cache=True, inline="always")
def set_block(index, k, block, min_procs, min_estimate):
    """Block ``block`` of row k now holds jobs with these bounds (after a job left it)."""
    i = index.shape[2] // 2 + block
    index[MIN_PROCS, k, i] = min_procs
    index[MIN_ESTIMATE, k, i] = min_estimate
    i >>= 1
    while i >= 1:
        p = min(index[MIN_PROCS, k, 2 * i], index[MIN_PROCS, k, 2 * i + 1])
        e = min(index[MIN_ESTIMATE, k, 2 * i], index[MIN_ESTIMATE, k, 2 * i + 1])
        if p == index[MIN_PROCS, k, i] and e == index[MIN_ESTIMATE, k, i]:
            return  # the ancestors hold these bounds already
        index[MIN_PROCS, k, i] = p
        index[MIN_ESTIMATE, k, i] = e
        i >>= 1


@njit(cache=True, inline="always")
def _worth(index, k, i, free, judged, code, t, T, extra):
    """May node i of row k hold a job that fits ``free`` and (once ``judged``) passes the rule?"""
    procs = index[MIN_PROCS, k, i]
    if procs > free:
        return False
    return not judged or lrms.group_may_start(code, t, procs, index[MIN_ESTIMATE, k, i], T, extra)


@njit(cache=True, _nrt=False)
def next_block(index, k, block, free, judged, code, t, T, extra):
    """The first block from ``block`` on that is worth reading (see :func:`_worth`), or -1.

    The usual walk of a segment tree: up while the node starts where the
    last one ended, right past nodes not worth entering, down to the leftmost
    child worth entering (a node's bounds come from different jobs, so
    neither child may be: then on to the right again). A call, not inlined:
    one compiled copy serves every pass.
    """
    leaves = index.shape[2] // 2
    if block >= leaves:
        return -1
    i = leaves + block
    while True:
        while i & 1 == 0 and i > 1:
            i >>= 1
        found = _worth(index, k, i, free, judged, code, t, T, extra)
        while found and i < leaves:
            i <<= 1
            if not _worth(index, k, i, free, judged, code, t, T, extra):
                i += 1
                found = _worth(index, k, i, free, judged, code, t, T, extra)
        if found:
            return i - leaves
        i += 1
        if i & (i - 1) == 0:
            return -1  # past the last leaf
