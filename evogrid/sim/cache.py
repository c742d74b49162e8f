"""numba's on-disk cache, stamped with the whole simulator package.

numba stamps each cached function with its own source file only. The event
loops inline helpers from other files (``tsk.py``, ``features.py`` and
``core.py`` into ``grid.py``'s loop), so after an edit to a helper alone the
cache served the old machine code without a warning, and a session got
wrong AWRTs from it. Here every compiled function under ``evogrid/sim/``
gets one stamp, a hash of all the package's sources: any edit there
recompiles all of them on the next call.

Imported first by ``evogrid.sim`` (numba picks a function's cache locator
when the function is decorated).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from numba.core import caching

SIM_DIR = Path(__file__).resolve().parent


def package_stamp() -> str:
    """SHA-256 over the names and contents of the package's ``.py`` files."""
    digest = hashlib.sha256()
    for path in sorted(SIM_DIR.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


STAMP = package_stamp()


def _package_stamped(locator: type) -> type:
    """``locator`` for functions of this package, with :data:`STAMP` as their source stamp."""

    class PackageStamped(locator):
        def get_source_stamp(self) -> str:
            return STAMP

        @classmethod
        def from_function(cls, py_func, py_file):
            if Path(py_file).resolve().parent != SIM_DIR:
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
