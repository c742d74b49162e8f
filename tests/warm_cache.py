"""Fill numba's cache for a test run: ``python tests/warm_cache.py DIR``, started twice at once by
tests/conftest.py before the xdist workers start (DIR: a directory both processes share).

Compiling the loops takes minutes of one core, so two processes share the
work: each takes the next task of :func:`tasks` until none is left (the
longest first, so that the two end close together). Numba's cache has no
locking: a save reads the function's index, adds its entry and writes it
back, so two processes saving variants of one function at the same moment
could lose an entry or point one at the other's code. Here every save holds
an exclusive lock on ``DIR/numba-cache.lock`` for its whole read-add-write,
so concurrent saves happen one after the other and each sees the other's
entries. No other process compiles while these run.
"""

from __future__ import annotations

import fcntl
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
from numba.core import caching

from evogrid.nodes import co_allocate, discovered, optimum, packing, planetlab_like
from evogrid.nodes.cloud_jobs import scalable_batch
from evogrid.nodes.request import cankar_cases
from evogrid.sim import core, lrms
from evogrid.sim.booking import warm_up_reservations
from evogrid.sim.lrms import lrms_code
from evogrid.sim.schedule import GridJobs, simulate_local, warm_up, warm_up_site
from evogrid.workload.model import Workload


def warm_up_indexed() -> None:
    """The indexed continuations of EASY's and LIST's single-site loop (evogrid.sim.queue_index), as
    tests/test_core_vs_reference.py reaches them: a queue span of 1 position."""
    zero, one = np.zeros(3, dtype=np.int64), np.ones(3, dtype=np.int64)
    jobs = GridJobs.merge([Workload("warm-up", 1, zero, one, one, one, np.arange(3), zero)])  # two wait
    for name in ("easy", "list"):
        core.run_local(jobs.packed, jobs.machine_procs, np.full(1, lrms_code(name)), index_span=1)


def warm_up_nodes() -> None:
    """Cankar's compiled phases and the co-location packer (evogrid.nodes) for the argument types
    tests/test_nodes.py and tests/test_colocation.py pass."""
    pool = planetlab_like(20, seed=1)
    request = cankar_cases(pool, 1, 5, seed=1)[0][1]
    for book in (False, True):
        co_allocate(pool, request, seed=1, book=book)
    optimum(pool, request, discovered(pool, request, seed=1))
    one = np.ones(1, dtype=np.int64)
    packing.schedule(np.full((1, 3), 0.25), one, one, -one, False, 1, 6, True)
    packing.run(packing.reference(scalable_batch(2, 0.0, False, seed=1), packing.STRATEGIES[0]), 2)


def warm_up_single_sites(names: tuple[str, ...]) -> None:
    """The single-site loops of LRMS whose grids run the mixed loops (``$EVOGRID_MIXED_LOOPS``), which
    the ``('fcfs', 'easy')`` task compiles."""
    for name in names:
        simulate_local([warm_up_site(2)], name)


#: The registry's LRMS by the cold compile of their local and grid loops, slowest first (2 cores,
#: 2026-11-28: 55-61 s each, FCFS 52-54 s); an LRMS not listed goes first.
SLOWEST_FIRST = ("conservative", "easy-sjf", "sjf", "easy", "list", "fcfs")


def tasks() -> tuple[tuple[str, Callable[[], None]], ...]:
    """What the tests run, as ``(label, compile)`` tasks: the loop for sites that hold reservations,
    the local and grid loops of an LRMS for every site or one per site (mixed), the single-site loops
    of LRMS whose grids run the mixed loops, the indexed single-site loops and the node-level code.
    Longest first (measured cold on 2 cores). A variant left to the tests would be compiled by each
    xdist worker that needs it, at the same moment, into a cache without locking."""
    mixed = lrms.mixed_loop_codes()
    own, alone = [], []
    for name in sorted(lrms.REGISTRY, key=lambda n: SLOWEST_FIRST.index(n) if n in SLOWEST_FIRST else -1):
        (alone if lrms_code(name) in mixed else own).append(name)
    return (("reservations", warm_up_reservations),
            (str(("fcfs", "easy")), partial(warm_up, [("fcfs", "easy")])),
            *((name, partial(warm_up, [name])) for name in own),
            *((("single sites", partial(warm_up_single_sites, tuple(alone))),) if alone else ()),
            ("nodes", warm_up_nodes), ("indexed", warm_up_indexed))


def lock_cache_saves(lock_path: Path) -> None:
    """Make every save to numba's cache in this process hold an exclusive lock on ``lock_path``."""
    save = caching.IndexDataCacheFile.save

    def locked_save(self, key, data):
        with open(lock_path, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                return save(self, key, data)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    caching.IndexDataCacheFile.save = locked_save


def claim(counter_path: Path) -> int:
    """The index of the next task nobody has taken (past the last once all are), counted in a file."""
    with open(counter_path, "a+") as counter:
        fcntl.flock(counter, fcntl.LOCK_EX)  # released when the file closes
        counter.seek(0)
        taken = int(counter.read() or 0)
        counter.seek(0)
        counter.truncate()
        counter.write(str(taken + 1))
    return taken


def warm(shared: Path) -> None:
    """Take and run tasks until none is left; print the time of each that compiled."""
    todo = tasks()
    while (i := claim(shared / "tasks-taken")) < len(todo):
        label, compile_loops = todo[i]
        t0 = time.perf_counter()
        compile_loops()
        if (seconds := time.perf_counter() - t0) >= 1.0:  # not when the cache was warm
            print(f"tests/warm_cache.py: {label} compiled in {seconds:.0f} s", flush=True)


if __name__ == "__main__":
    shared = Path(sys.argv[1])
    lock_cache_saves(shared / "numba-cache.lock")
    warm(shared)
