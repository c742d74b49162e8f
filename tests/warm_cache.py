"""Fill numba's cache for a test run: ``python tests/warm_cache.py PART LOCK``, PART 0 or 1 of
:data:`PARTS`, run by tests/conftest.py as two processes at once before the xdist workers start.

Compiling the grid loops takes minutes of one core, so the two halves run in
parallel. Numba's cache has no locking: a save reads the function's index,
adds its entry and writes it back, so two processes saving variants of one
function at the same moment could lose an entry or point one at the other's
code. Here every save holds an exclusive lock on the file LOCK for its
whole read-add-write, so concurrent saves happen one after the other and
each sees the other's entries. No other process compiles while these run.
"""

from __future__ import annotations

import fcntl
import sys

from numba.core import caching

from evogrid.sim.booking import warm_up_reservations
from evogrid.sim.schedule import warm_up

#: The LRMS choices (one for every site, or one per site) each process compiles, local and grid
#: loops; part 1 also compiles the reservation loop. Balanced by measured compile time.
PARTS = (("fcfs", "easy", "list", "sjf"), ("conservative", ("fcfs", "easy"), "easy-sjf"))


def lock_cache_saves(lock_path: str) -> None:
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


def warm(part: int) -> None:
    warm_up(PARTS[part])
    if part == 1:
        warm_up_reservations()


if __name__ == "__main__":
    lock_cache_saves(sys.argv[2])
    warm(int(sys.argv[1]))
