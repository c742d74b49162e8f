"""The Lublin-Feitelson workload model (docs/workload_models.md), our implementation.

U. Lublin and D. G. Feitelson, "The workload on parallel supercomputers:
modeling the characteristics of rigid jobs" (J. Parallel Distrib. Comput. 63,
2003; the 1999 technical report's model). Two job classes, interactive and
batch, each with its own parameters (:data:`BATCH`, :data:`INTERACTIVE`, the
published fit for a 128-processor machine):

- size: serial with probability ``serial``; otherwise ``2**u`` with ``u`` from
  a two-stage uniform (``U(low, med)`` with probability ``u_prob``, else
  ``U(med, high)``), rounded to an integer exponent with probability
  ``pow2`` (of all jobs), and the size rounded to an integer;
- run time: ``exp(g)`` seconds, ``g`` hyper-gamma: ``Gamma(a1, b1)`` with
  probability ``p = pa * size + pb`` (clipped to [0, 1]), else
  ``Gamma(a2, b2)`` (shape, scale); ``g > 12`` is drawn again;
- arrivals: each class is its own process with a daily cycle of 48 half-hour
  buckets weighted by ``Gamma(anum, bnum)``'s probability mass (the day
  starting at bucket 11); an inter-arrival draw ``exp(Gamma(aarr * arar,
  barr))`` seconds is "paid" in bucket weights, so busy buckets receive more
  jobs; draws above ``exp(13)`` are drawn again. The next job is the class
  whose next arrival comes first.

For a machine of ``m != 128`` processors both classes' ``high`` and ``med``
shift by ``log2(m / 128)`` (the authors: "Uhi is the log2 of the system
size", "Umed should be in [Uhi-1.5, Uhi-3.5]"); ``low`` stays unless that
would put it above ``med``. Random draws come from one seeded
:func:`numpy.random.default_rng`, so a seed gives one log on every machine
(the authors' C program uses ``drand48``; the distributions are the same,
the streams are not).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import gammainc

#: Half-hour buckets of the daily cycle.
BUCKETS = 48
SECONDS_PER_BUCKET = 86_400 // BUCKETS
#: The daily cycle's fitted gamma starts at this bucket (the authors' CYCLIC_DAY_START).
CYCLE_START = 11
#: Draws of log run time above this are drawn again (exp(12) s, about 45 h).
MAX_LOG_RUN_TIME = 12.0
#: Draws of log inter-arrival time above this are drawn again (exp(13) s, about 5 days).
MAX_LOG_GAP = 13.0
#: The machine size the published parameters were fitted for (processors).
FITTED_PROCS = 128


@dataclass(frozen=True)
class ClassParameters:
    """One job class's parameters, names as in the authors' program (sizes as log2 processors,
    run times and gaps as gamma draws of log seconds: shape ``a*``, scale ``b*``)."""

    serial: float
    pow2: float
    low: float
    med: float
    high: float
    u_prob: float
    a1: float
    b1: float
    a2: float
    b2: float
    pa: float
    pb: float
    aarr: float
    barr: float
    anum: float
    bnum: float
    arar: float

    def for_machine(self, machine_procs: int) -> ClassParameters:
        """The size parameters moved to a machine of ``machine_procs`` processors (see above)."""
        shift = math.log2(machine_procs / FITTED_PROCS)
        med = max(self.med + shift, 0.0)
        return ClassParameters(**{**self.__dict__, "high": max(self.high + shift, 0.0), "med": med,
                                  "low": min(self.low, med)})


#: Published parameters, batch jobs.
BATCH = ClassParameters(
    serial=0.2927, pow2=0.6686, low=1.2, med=5.0, high=7.0, u_prob=0.875,
    a1=6.57, b1=0.823, a2=639.1, b2=0.0156, pa=-0.003, pb=0.6986,
    aarr=6.0415, barr=0.8531, anum=6.1271, bnum=5.2740, arar=1.0519)
#: Published parameters, interactive jobs.
INTERACTIVE = ClassParameters(
    serial=0.1541, pow2=0.625, low=1.0, med=3.0, high=5.5, u_prob=0.705,
    a1=3.8351, b1=0.6605, a2=7.073, b2=0.6856, pa=-0.0118, pb=0.9156,
    aarr=6.5510, barr=0.6621, anum=8.9186, bnum=3.6680, arar=0.9797)
#: Class codes as the authors' program writes them into SWF field 15 (queue).
INTERACTIVE_CODE, BATCH_CODE = 0, 1


@dataclass(frozen=True)
class ModelJobs:
    """Jobs drawn from the model, in arrival order.

    Attributes:
        submit: arrival time (s from the start, midnight).
        procs: processors.
        run_time: run time (s, >= 1).
        job_class: :data:`INTERACTIVE_CODE` or :data:`BATCH_CODE`.
    """

    submit: np.ndarray
    procs: np.ndarray
    run_time: np.ndarray
    job_class: np.ndarray


def bucket_weights(params: ClassParameters) -> np.ndarray:
    """The daily cycle: each half-hour bucket's share of arrivals, normalised to mean 1."""
    weights = np.empty(BUCKETS)
    for i in range(CYCLE_START, CYCLE_START + BUCKETS):
        mass = gammainc(params.anum, (i + 0.5) / params.bnum) - gammainc(params.anum, (i - 0.5) / params.bnum)
        weights[(i - 1) % BUCKETS] = mass
    return weights / weights.mean()


def _gamma_below(rng: np.random.Generator, shape: float, scale: float, limit: float, n: int) -> np.ndarray:
    """``n`` draws of Gamma(shape, scale), each above ``limit`` drawn again."""
    out = rng.gamma(shape, scale, n)
    while (over := out > limit).any():
        out[over] = rng.gamma(shape, scale, int(over.sum()))
    return out


class _Arrivals:
    """One class's arrival process: inter-arrival draws paid in bucket weights (module docstring)."""

    def __init__(self, params: ClassParameters, rng: np.random.Generator) -> None:
        self.weights = bucket_weights(params)
        self.shape, self.scale, self.rng = params.aarr * params.arar, params.barr, rng
        self.points = self.remainder = 0.0
        self.bucket, self.time = 0, 0.0
        self._draws: list[float] = []
        self.advance()

    def advance(self) -> None:
        if not self._draws:
            self._draws = list(_gamma_below(self.rng, self.shape, self.scale, MAX_LOG_GAP, 1024))
        self.points += math.exp(self._draws.pop()) / SECONDS_PER_BUCKET
        gap = 0.0
        while self.points > self.weights[self.bucket]:
            self.points -= self.weights[self.bucket]
            self.bucket = (self.bucket + 1) % BUCKETS
            gap += SECONDS_PER_BUCKET
        remainder = self.points / self.weights[self.bucket]
        self.time += gap + SECONDS_PER_BUCKET * (remainder - self.remainder)
        self.remainder = remainder


def _sizes(params: ClassParameters, rng: np.random.Generator, n: int) -> np.ndarray:
    u = rng.random(n)
    first = rng.random(n) < params.u_prob
    exponent = np.where(first, rng.uniform(params.low, params.med, n),
                        rng.uniform(params.med, params.high, n))
    exponent = np.where(u <= params.serial + params.pow2, np.floor(exponent + 0.5), exponent)
    return np.where(u <= params.serial, 1, np.floor(2.0**exponent + 0.5)).astype(np.int64)


def _run_times(params: ClassParameters, rng: np.random.Generator, procs: np.ndarray) -> np.ndarray:
    p = np.clip(params.pa * procs + params.pb, 0.0, 1.0)
    first = rng.random(procs.size) <= p
    g = np.where(first, _gamma_below(rng, params.a1, params.b1, MAX_LOG_RUN_TIME, procs.size),
                 _gamma_below(rng, params.a2, params.b2, MAX_LOG_RUN_TIME, procs.size))
    return np.floor(np.exp(g)).astype(np.int64)


def lublin99(n_jobs: int, machine_procs: int = FITTED_PROCS, *, seed: int) -> ModelJobs:
    """``n_jobs`` jobs of the model for a machine of ``machine_procs`` processors.

    Raises:
        ValueError: ``n_jobs`` or ``machine_procs`` below 1.
    """
    if n_jobs < 1 or machine_procs < 1:
        raise ValueError(f"need n_jobs >= 1 and machine_procs >= 1, got {n_jobs} and {machine_procs}")
    rng = np.random.default_rng(seed)
    params = {c: p.for_machine(machine_procs)
              for c, p in ((INTERACTIVE_CODE, INTERACTIVE), (BATCH_CODE, BATCH))}
    arrivals = {c: _Arrivals(p, rng) for c, p in params.items()}
    submit = np.empty(n_jobs)
    job_class = np.empty(n_jobs, dtype=np.int64)
    for i in range(n_jobs):
        c = BATCH_CODE if arrivals[BATCH_CODE].time < arrivals[INTERACTIVE_CODE].time else INTERACTIVE_CODE
        submit[i], job_class[i] = arrivals[c].time, c
        arrivals[c].advance()
    procs = np.empty(n_jobs, dtype=np.int64)
    run_time = np.empty(n_jobs, dtype=np.int64)
    for c, p in params.items():
        mine = np.flatnonzero(job_class == c)
        procs[mine] = _sizes(p, rng, mine.size)  # 2**high is the machine size: never wider
        run_time[mine] = _run_times(p, rng, procs[mine])
    return ModelJobs(np.floor(submit).astype(np.int64), procs, run_time, job_class)
