import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# Parsed-trace cache shared by test runs (and xdist workers) in the checkout.
os.environ.setdefault("EVOGRID_CACHE_DIR", str(REPO / ".evogrid-cache"))


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
    """Fill numba's cache in one process before xdist workers start (see evogrid.sim.schedule.warm_up)."""
    if not hasattr(config, "workerinput"):
        import numpy as np

        from evogrid.sim.booking import simulate_reservations
        from evogrid.sim.schedule import warm_up
        from evogrid.workload.model import Workload
        from evogrid.workload.reservations import Reservations

        warm_up()
        one = np.ones(1, dtype=np.int64)
        tiny = Workload("warm-up", 2, 0 * one, one, one, one, one, 0 * one)
        request = Reservations("warm-up", 0 * one, one, 3 * one, one, one[:, None])
        simulate_reservations([tiny], "easy", request)
