"""numba's cache is stamped with the whole simulator package (evogrid.sim.numba_stamp)."""

from __future__ import annotations

import shutil

import pytest

from evogrid.sim import core, grid, numba_stamp, tsk


@pytest.mark.parametrize("fn", [core._local_loop, core._simulate_local, grid._grid_loop, tsk.tsk_output])
def test_every_compiled_function_carries_the_package_stamp(fn):
    locator = fn._cache._impl.locator
    assert type(locator).__name__.startswith("PackageStamped")
    assert locator.get_source_stamp() == numba_stamp.STAMP


def test_the_stamp_changes_with_any_file_of_the_package(tmp_path, monkeypatch):
    for path in numba_stamp.SIM_DIR.glob("*.py"):
        shutil.copy(path, tmp_path / path.name)
    monkeypatch.setattr(numba_stamp, "SIM_DIR", tmp_path)
    before = numba_stamp.package_stamp()
    assert before == numba_stamp.STAMP
    # An edit to an inlined helper alone, as in the incident that motivated the stamp.
    with open(tmp_path / "tsk.py", "a") as f:
        f.write("# edited\n")
    assert numba_stamp.package_stamp() != before
