import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# Parsed-trace cache shared by test runs (and xdist workers) in the checkout.
os.environ.setdefault("EVOGRID_CACHE_DIR", str(REPO / ".evogrid-cache"))
#: Grids of these LRMS run the mixed loops in the tests (docs/architecture.md, "Compile modes"): the
#: schedules are the same (tests/schedule_digests.py holds their digests written in loops of their
#: own), and a test run compiles three grid loops and three loops of sites alone less.
#: `EVOGRID_MIXED_LOOPS= make test` runs every grid in loops of its own LRMS.
MIXED_LOOP_LRMS = ("conservative", "sjf", "easy-sjf")


@pytest.fixture
def swf_file(tmp_path):
    """Write an SWF file from header lines and job rows; returns its path."""

    def write(rows, header=("; MaxProcs: 8",), name="tiny.swf"):
        lines = list(header)
        for row in rows:
            if isinstance(row, str):
                lines.append(row)
            else:
                lines.append(" ".join(str(v) for v in row))
        path = tmp_path / name
        path.write_text("\n".join(lines) + "\n")
        return path

    return write


def job_row(job_id, submit, run_time, procs, req_time=-1, req_procs=-1):
    """An 18-field SWF line with the fields evogrid reads set."""
    fields = [-1] * 18
    fields[0], fields[1], fields[3], fields[4] = job_id, submit, run_time, procs
    fields[7], fields[8] = req_procs, req_time
    return fields


def pytest_configure(config):
    """Send the grids of MIXED_LOOP_LRMS to the mixed loops (here, not on import: the digest script
    imports the list and writes its digests in loops of their own); then fill numba's cache before
    xdist workers start, in two processes at once (tests/warm_cache.py)."""
    os.environ.setdefault("EVOGRID_MIXED_LOOPS", ",".join(MIXED_LOOP_LRMS))
    if not hasattr(config, "workerinput"):
        with tempfile.TemporaryDirectory() as tmp:
            script = str(REPO / "tests" / "warm_cache.py")
            procs = [subprocess.Popen([sys.executable, script, tmp]) for _ in range(2)]
            codes = [proc.wait() for proc in procs]  # wait for both, then judge
        if any(codes):
            raise pytest.UsageError("tests/warm_cache.py failed (its output is above)")


def pytest_collection_modifyitems(config, items):
    """The tests of the xdist group "compile" first: the toy-LRMS test compiles the loops anew in a
    cache of its own (about two minutes of one core), and started last it would run alone."""
    items.sort(key=lambda item: (marker := item.get_closest_marker("xdist_group")) is None
               or marker.args[:1] != ("compile",))
