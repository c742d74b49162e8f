"""Transfer policies: AWF, TSK fuzzy rulebases (JSON), the pool and active-request baselines.

The names strategies are made of (transfer and location policies, pool
arrival rules, decision features) are registries in
:mod:`evogrid.policy.registry`; the strategies as the CLI and scenario
files name them, and a scenario file's ``[strategy]`` table, are
:mod:`evogrid.policy.config`. ``simulate(Scenario.from_spec("x.toml"))``
runs the file's strategy.
"""

from evogrid.policy.config import (
    STRATEGIES,
    RulebaseSpec,
    StrategyConfig,
    StrategyKind,
    build_strategy,
    scenario_strategy,
    strategy_config,
)
from evogrid.policy.registry import FEATURES, LOCATIONS, POOL_ARRIVALS, TRANSFERS, Choice, Feature, Registry
from evogrid.policy.rulebase import Rulebase, RulebaseError
from evogrid.policy.strategies import (
    AcceptWhenFit,
    ActiveRequest,
    CentralPool,
    FuzzyPolicy,
    Local,
    Result,
    Strategy,
    simulate,
)

__all__ = [
    "FEATURES",
    "LOCATIONS",
    "POOL_ARRIVALS",
    "STRATEGIES",
    "TRANSFERS",
    "AcceptWhenFit",
    "ActiveRequest",
    "CentralPool",
    "Choice",
    "Feature",
    "FuzzyPolicy",
    "Local",
    "Registry",
    "Result",
    "Rulebase",
    "RulebaseError",
    "RulebaseSpec",
    "Strategy",
    "StrategyConfig",
    "StrategyKind",
    "build_strategy",
    "scenario_strategy",
    "simulate",
    "strategy_config",
]
