"""numba's cache is stamped with the whole simulator package (evogrid.sim.numba_stamp)."""

from __future__ import annotations

import re
import shutil

import pytest

from evogrid.sim import core, grid, locations, numba_stamp, queue_index, tsk
from evogrid.sim.locations import least_load


@pytest.mark.parametrize("fn", [core.profile_scan, queue_index.add_job, grid._grid_loop, tsk.tsk_output,
                                locations.site_key, least_load.key])
def test_every_compiled_function_carries_the_package_stamp(fn):
    locator = fn._cache._impl.locator
    assert type(locator).__name__.startswith("PackageStamped")
    assert locator.get_source_stamp() == numba_stamp.STAMP


def test_every_module_decorates_with_the_stamped_njit():
    """numba picks the cache locator at decoration: a module taking njit from numba itself, imported
    before any module that installs the stamp, would cache without it (tsk.py once did)."""
    direct = [str(path.relative_to(numba_stamp.SIM_DIR)) for path in numba_stamp.SIM_DIR.rglob("*.py")
              if path.name != "numba_stamp.py"
              and re.search(r"^from numba import .*\bnjit\b|\bnumba\.njit\b", path.read_text(), re.M)]
    assert direct == []


def test_the_stamp_changes_with_any_file_of_the_package(tmp_path, monkeypatch):
    copy = tmp_path / "sim"
    shutil.copytree(numba_stamp.SIM_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(numba_stamp, "SIM_DIR", copy)
    before = numba_stamp.package_stamp()
    assert before == numba_stamp.STAMP
    # An edit to an inlined helper alone, as in the incident that motivated the stamp; and in a subpackage.
    with open(copy / "tsk.py", "a") as f:
        f.write("# edited\n")
    edited = numba_stamp.package_stamp()
    assert edited != before
    with open(copy / "locations" / "olb.py", "a") as f:
        f.write("# edited\n")
    assert numba_stamp.package_stamp() not in (before, edited)
