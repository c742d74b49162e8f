"""Optimisers over whole-grid simulations: parallel evaluation, EFS and co-evolution
(DEAP), and NSGA-II Pareto fronts (pymoo)."""

from evogrid.optimize.es import TrainConfig
from evogrid.optimize.evaluator import Evaluator, ScenarioRef
from evogrid.optimize.pareto import ParetoConfig, resume_pareto, run_pareto
from evogrid.optimize.training import resume_training, run_training

__all__ = ["Evaluator", "ParetoConfig", "ScenarioRef", "TrainConfig", "resume_pareto", "resume_training",
           "run_pareto", "run_training"]
