"""Fill numba's cache for a test run: ``python tests/warm_cache.py DIR``, started twice at once by
tests/conftest.py before the xdist workers start (DIR: a directory both processes share).

Compiling the loops takes minutes of one core, so two processes share the
work: each takes the next task of :data:`TASKS` until none is left (the
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
from functools import partial
from pathlib import Path

from numba.core import caching

from evogrid.sim.booking import warm_up_reservations
from evogrid.sim.schedule import warm_up

#: What the tests run, as ``(label, compile)`` tasks: the loop for sites that hold reservations, and
#: the local and grid loops of an LRMS for every site or one per site. Longest first (measured cold on
#: 2 cores).
TASKS = (("reservations", warm_up_reservations),
         *((str(choice), partial(warm_up, [choice]))
           for choice in (("fcfs", "easy"), "conservative", "easy-sjf", "easy", "list", "fcfs", "sjf")))


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
    """The index of the next task nobody has taken (>= len(TASKS) once all are), counted in a file."""
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
    while (i := claim(shared / "tasks-taken")) < len(TASKS):
        label, compile_loops = TASKS[i]
        t0 = time.perf_counter()
        compile_loops()
        if (seconds := time.perf_counter() - t0) >= 1.0:  # not when the cache was warm
            print(f"tests/warm_cache.py: {label} compiled in {seconds:.0f} s", flush=True)


if __name__ == "__main__":
    shared = Path(sys.argv[1])
    lock_cache_saves(shared / "numba-cache.lock")
    warm(shared)
