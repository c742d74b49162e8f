"""Evaluating many candidates in parallel: serial, joblib/loky, a dask cluster or a Ray cluster.

An optimiser hands the :class:`Evaluator` a function and a list of tasks;
the evaluator splits the tasks into chunks, several per worker, runs the
chunks with joblib (loky, dask) or as Ray tasks and returns the results in
task order. Tasks carry a :class:`ScenarioRef` (a few strings), not the
jobs: each worker process loads a scenario once (``ScenarioRef.jobs`` is
cached per process) and keeps its compiled simulator between calls (loky,
dask and Ray reuse their workers).

Results are the same on every backend and worker count: evaluations are
deterministic simulations, and all randomness stays in the optimiser.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import joblib
import numpy as np

from evogrid.errors import EvogridError
from evogrid.sim.scenario import Scenario
from evogrid.sim.schedule import GridJobs, warm_up

BACKENDS = ("serial", "loky", "dask", "ray")
#: A local Ray cluster's shared-object store (bytes): tasks are a few strings, results a few numbers.
RAY_OBJECT_STORE_BYTES = 256 * 2**20
#: Chunks per worker and batch: several, so a worker that finishes early
#: takes another chunk (simulation times vary between candidates).
CHUNKS_PER_WORKER = 8


@dataclass(frozen=True)
class ScenarioRef:
    """A scenario by name, cheap to send to workers.

    Attributes:
        spec: inline scenario or TOML path (as for ``evogrid simulate``).
        lrms: LRMS override for every site, or None for the scenario's own.
        procs: machine-size override for every site, or None.
    """

    spec: str
    lrms: str | None = None
    procs: int | None = None

    def scenario(self) -> Scenario:
        return _load_scenario(self)

    def jobs(self) -> GridJobs:
        return _load_jobs(self)


@functools.lru_cache(maxsize=8)
def _load_scenario(ref: ScenarioRef) -> Scenario:
    return Scenario.from_spec(ref.spec, lrms=ref.lrms, procs=ref.procs)


@functools.lru_cache(maxsize=8)
def _load_jobs(ref: ScenarioRef) -> GridJobs:
    return _load_scenario(ref).grid_jobs()


def _run_chunk(fn: Callable, chunk: Sequence[Any]) -> list:
    return [fn(task) for task in chunk]


class Evaluator:
    """Runs ``fn(task)`` for every task, in parallel.

    Args:
        backend: ``serial`` (in this process), ``loky`` (joblib's process
            pool, the default), ``dask`` (a dask.distributed cluster
            through joblib; needs ``pip install evogrid[distributed]``) or
            ``ray`` (a Ray cluster, one Ray task per chunk; needs
            ``pip install evogrid[ray]``).
        n_workers: worker processes for ``loky`` (negative as in joblib: -1 all cores,
            -2 all but one; 0 is an error); for dask,
            how many chunks to split a batch into (default: the cluster's
            worker count).
        scheduler: the address of a running cluster: a dask scheduler
            (``tcp://host:8786``) or a Ray cluster (``ray://host:10001``, or
            ``auto`` for the one on this machine). Without it, ``dask`` and
            ``ray`` start a local cluster on 127.0.0.1 with ``n_workers``
            workers, and stop it on :meth:`close`.
    """

    def __init__(self, backend: str = "loky", n_workers: int = 1, scheduler: str | None = None):
        if backend not in BACKENDS:
            raise EvogridError(f"unknown backend {backend!r}; expected one of {', '.join(BACKENDS)}")
        if scheduler and backend not in ("dask", "ray"):
            raise EvogridError("--scheduler needs --backend dask or ray")
        if n_workers == 0:
            raise EvogridError("0 workers: give a count >= 1, or a negative count as in joblib "
                               "(-1: all cores, -2: all but one)")
        self.backend = backend
        # Negative counts as in joblib: -1 all cores, -2 all but one, ... (at least one).
        self.n_workers = n_workers if n_workers > 0 else max(1, (joblib.cpu_count() or 1) + 1 + n_workers)
        self.scheduler = scheduler
        self._client = None
        self._cluster = None
        self._ray_started = False
        self._warm: set[tuple[str, ...]] = set()
        if backend == "dask":
            self._connect()
        elif backend == "ray":
            self._connect_ray()

    def _connect(self) -> None:
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise EvogridError("--backend dask needs dask.distributed: "
                               "pip install 'evogrid[distributed]'") from None
        if self.scheduler:
            self._client = Client(self.scheduler)
        else:
            self._cluster = LocalCluster(n_workers=self.n_workers, threads_per_worker=1,
                                         host="127.0.0.1", dashboard_address=None, processes=True)
            self._client = Client(self._cluster)
        workers = len(self._client.scheduler_info().get("workers", {}))
        self.n_workers = max(self.n_workers if not self.scheduler else workers, 1)

    def _connect_ray(self) -> None:
        try:
            import ray
        except ImportError:
            raise EvogridError("--backend ray needs Ray: pip install 'evogrid[ray]'") from None
        if not ray.is_initialized():
            if self.scheduler:
                ray.init(address=self.scheduler, log_to_driver=False, logging_level="ERROR")
            else:
                ray.init(num_cpus=self.n_workers, include_dashboard=False, _node_ip_address="127.0.0.1",
                         object_store_memory=RAY_OBJECT_STORE_BYTES, log_to_driver=False,
                         logging_level="ERROR")
            self._ray_started = True
        if self.scheduler:
            self.n_workers = max(int(ray.cluster_resources().get("CPU", 1)), 1)

    def map(self, fn: Callable, tasks: Sequence[Any]) -> list:
        """``[fn(t) for t in tasks]``, evaluated on the backend; ``fn`` must be picklable."""
        tasks = list(tasks)
        local = self.backend == "serial" or (self.backend == "loky" and self.n_workers == 1)
        if local or not tasks:
            return _run_chunk(fn, tasks)
        self._warm_up(tasks[0])
        chunks = _split(tasks, min(self.n_workers * CHUNKS_PER_WORKER, len(tasks)))
        backend = self.backend
        if backend == "ray":
            # Ray tasks, not Ray's joblib backend: that starts a pool of new worker processes for
            # every call (a generation), each loading evogrid and the scenario again (30 s against
            # 6 s for a tiny NSGA-II run); Ray keeps its task workers, and their caches, between calls.
            import ray

            run_chunk = ray.remote(_run_chunk)
            return [r for part in ray.get([run_chunk.remote(fn, c) for c in chunks]) for r in part]
        # n_jobs stays the worker count: a different count makes loky resize
        # its pool, and new workers must load the scenario and code again.
        with joblib.parallel_config(backend=backend, n_jobs=self.n_workers):
            parts = joblib.Parallel()(joblib.delayed(_run_chunk)(fn, c) for c in chunks)
        return [r for part in parts for r in part]

    def _warm_up(self, task: Any) -> None:
        """Compile (or load) the loops of the task's scenario here, before the workers need them.

        Workers on this machine then only load compiled code from numba's
        cache, and never compile the same code at once (the cache has no
        locking). Only the LRMS mode the scenario uses is compiled.
        """
        items = task if isinstance(task, tuple) else (getattr(task, "ref", task),)
        for item in items:
            if isinstance(item, ScenarioRef):
                lrms = item.scenario().lrms
                if lrms not in self._warm:
                    warm_up((lrms[0] if len(set(lrms)) == 1 else lrms,))
                    self._warm.add(lrms)

    def close(self, *, kill_workers: bool = False) -> None:
        """Release the cluster; ``kill_workers``: also stop loky's reusable workers now (after an
        interruption: they would otherwise idle for minutes after this process has gone)."""
        if kill_workers and self.backend == "loky":
            from joblib.externals.loky import get_reusable_executor

            get_reusable_executor().shutdown(wait=True, kill_workers=True)
        if self._client is not None:
            self._client.close()
        if self._cluster is not None:
            self._cluster.close()
        self._client = self._cluster = None
        if self._ray_started:
            import ray

            ray.shutdown()
            self._ray_started = False

    def __enter__(self) -> Evaluator:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *exc: object) -> None:
        self.close(kill_workers=exc_type is not None and not issubclass(exc_type, Exception))


def _split(tasks: list, n: int) -> list[list]:
    """n contiguous chunks of nearly equal size, in order."""
    bounds = np.linspace(0, len(tasks), n + 1).round().astype(int)
    return [tasks[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a]
