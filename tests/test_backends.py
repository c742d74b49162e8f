"""The same seed gives the same result in this process, on a loky pool, a dask cluster and a Ray
cluster of two workers: training (EFS and co-evolution) and NSGA-II.

One test starts each backend once and runs every optimiser on it: a local
dask or Ray cluster takes 7-10 s to start, more than the runs it serves.
"""

import pytest
from test_pareto import _tiny as tiny_pareto
from test_training import _result
from test_training import _tiny as tiny_training

from evogrid.optimize import Evaluator, run_pareto, run_training

#: backend -> the optimisers run on it
RUNS = {"serial": ("efs", "coevolution", "pareto"), "loky": ("efs", "coevolution", "pareto"),
        "dask": ("efs", "pareto"), "ray": ("pareto",)}


@pytest.mark.xdist_group("dask")
def test_same_results_on_every_backend_and_worker_count(tmp_path):
    results = {}
    for backend, kinds in RUNS.items():
        with Evaluator(backend, 1 if backend == "serial" else 2) as ev:
            for kind in kinds:
                out = tmp_path / f"{kind}-{backend}"
                if kind == "pareto":
                    front = run_pareto(tiny_pareto("policy"), out, ev, progress=False)["front"]
                    results[kind, backend] = front
                else:
                    run_training(tiny_training(kind), out, ev, progress=False)
                    results[kind, backend] = _result(out)
    for kind in ("efs", "coevolution", "pareto"):
        on = [backend for backend, kinds in RUNS.items() if kind in kinds]
        assert all(results[kind, b] == results[kind, "serial"] for b in on), kind
