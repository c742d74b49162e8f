"""Package attributes imported on first access (PEP 562), so that ``evogrid --help`` stays light.

A package's ``__init__`` lists what it exports and where each name lives;
numpy, numba, pydantic and the optimisers' libraries load only when a name
that needs them is used.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_exports(package: str, modules: dict[str, tuple[str, ...]]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """``__getattr__``, ``__dir__`` and ``__all__`` for ``package`` exporting the names of ``modules``.

    ``modules``: module path -> the names the package takes from it.
    """
    where = {name: module for module, names in modules.items() for name in names}

    def attribute(name: str) -> Any:
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(where[name]), name)

    def names() -> list[str]:
        return sorted(where)

    return attribute, names, sorted(where)
