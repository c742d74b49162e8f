"""numba's on-disk cache, stamped with the whole simulator package.

numba stamps each cached function with its own source file only. The event
loops inline helpers from other files (``tsk.py``, ``features.py`` and
``core.py`` into ``grid.py``'s loop), so after an edit to a helper alone the
cache served the old machine code without a warning, and a session got
wrong AWRTs from it. Here every compiled function under ``evogrid/sim/`` and
its subpackages (``locations``) gets one stamp, a hash of all their sources:
any edit there recompiles all of them on the next call.

numba picks a function's cache locator when the function is decorated, so
the package's modules take ``njit`` from here (``from evogrid.sim.numba_stamp
import njit``): importing it installs the stamp first, whatever module a
process imports first (tests/test_numba_stamp.py checks that no module takes
``njit`` from numba directly).
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from numba import njit as njit  # re-exported: the package's modules decorate with it (docstring)
from numba.core import caching
from numba.core.caching import NullCache
from numba.core.dispatcher import Dispatcher

from evogrid.sim import numba_inlining  # noqa: F401 (installs the faster inliner before any compile)

SIM_DIR = Path(__file__).resolve().parent


def package_stamp() -> str:
    """SHA-256 over the names and contents of the package's ``.py`` files, its subpackages' included."""
    digest = hashlib.sha256()
    for path in sorted(SIM_DIR.rglob("*.py")):
        digest.update(path.relative_to(SIM_DIR).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


STAMP = package_stamp()


def add_to_stamp(text: str) -> None:
    """Fold ``text`` into the stamp of every compiled function of the package.

    For code registered at run time (a user's own LRMS), which the package's
    sources do not show: a cached loop compiled without it must not be
    served. Raises RuntimeError if this process has already compiled a loop
    (it would keep running the old code): register before simulating.
    """
    global STAMP
    dispatchers = [d for name, module in list(sys.modules.items()) if name.startswith("evogrid.sim")
                   for obj in vars(module).values()
                   for d in (obj.values() if isinstance(obj, dict) else (obj,))  # entry points per mode
                   if isinstance(d, Dispatcher)]
    if any(d.signatures for d in dispatchers):
        raise RuntimeError("register extensions before the first simulation of the process")
    STAMP = hashlib.sha256((STAMP + text).encode()).hexdigest()
    for d in dispatchers:
        if not isinstance(d._cache, NullCache):
            d.enable_caching()  # a new cache object reads the new stamp


def _package_stamped(locator: type) -> type:
    """``locator`` for functions of this package, with :data:`STAMP` as their source stamp."""

    class PackageStamped(locator):
        def get_source_stamp(self) -> str:
            return STAMP  # read at call time: add_to_stamp may have changed it

        @classmethod
        def from_function(cls, py_func, py_file):
            if SIM_DIR not in Path(py_file).resolve().parents:
                return None
            return super().from_function(py_func, py_file)

    PackageStamped.__name__ = PackageStamped.__qualname__ = f"PackageStamped{locator.__name__}"
    return PackageStamped


def _install() -> None:
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # older numba: _CacheImpl
    if not any(c.__name__.startswith("PackageStamped") for c in impl._locator_classes):
        # In numba's own order of preference (user-given cache dir, in-tree, user-wide, ...).
        impl._locator_classes = [_package_stamped(c) for c in impl._locator_classes] + list(
            impl._locator_classes)


_install()
