"""Optimisers over whole-grid simulations: parallel evaluation and NSGA-II Pareto fronts."""

from evogrid.optimize.evaluator import Evaluator, ScenarioRef
from evogrid.optimize.pareto import ParetoConfig, resume_pareto, run_pareto

__all__ = ["Evaluator", "ParetoConfig", "ScenarioRef", "resume_pareto", "run_pareto"]
