"""Optimisers over whole-grid simulations: parallel evaluation, EFS, CMA-ES and co-evolution
(DEAP), and NSGA-II Pareto fronts (pymoo), all run by one loop (:mod:`evogrid.optimize.loop`).

The configurations and the evaluator import without DEAP or pymoo; the run
functions load their optimiser's modules on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

from evogrid.optimize.config import ParetoConfig, TrainConfig
from evogrid.optimize.evaluator import Evaluator, ScenarioRef

#: Run functions and the module that holds each (imported on first access: it needs DEAP or pymoo).
_LAZY = {"run_training": "training", "resume_training": "training", "run_pareto": "pareto",
         "resume_pareto": "pareto"}

__all__ = ["Evaluator", "ParetoConfig", "ScenarioRef", "TrainConfig", "resume_pareto", "resume_training",
           "run_pareto", "run_training"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f"evogrid.optimize.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
