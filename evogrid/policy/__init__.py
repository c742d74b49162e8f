"""Transfer policies: AWF, TSK fuzzy rulebases (JSON), the pool and active-request baselines.

The names strategies are made of (transfer and location policies, pool
arrival rules, decision features) are registries in
:mod:`evogrid.policy.registry`; the strategies as the CLI and scenario
files name them, and a scenario file's ``[strategy]`` table, are
:mod:`evogrid.policy.config`. ``simulate(Scenario.from_spec("x.toml"))``
runs the file's strategy.
"""


from evogrid._lazy import lazy_exports

_WHERE = {
    "STRATEGIES": "evogrid.policy.registry",
    "RulebaseSpec": "evogrid.policy.config",
    "StrategyConfig": "evogrid.policy.config",
    "StrategyKind": "evogrid.policy.registry",
    "build_strategy": "evogrid.policy.config",
    "scenario_strategy": "evogrid.policy.config",
    "strategy_config": "evogrid.policy.config",
    "FEATURES": "evogrid.policy.registry",
    "LOCATIONS": "evogrid.policy.registry",
    "POOL_ARRIVALS": "evogrid.policy.registry",
    "TRANSFERS": "evogrid.policy.registry",
    "Choice": "evogrid.policy.registry",
    "Feature": "evogrid.policy.registry",
    "Registry": "evogrid.policy.registry",
    "Rulebase": "evogrid.policy.rulebase",
    "RulebaseError": "evogrid.policy.rulebase",
    "AcceptWhenFit": "evogrid.policy.strategies",
    "ActiveRequest": "evogrid.policy.strategies",
    "CentralPool": "evogrid.policy.strategies",
    "FuzzyPolicy": "evogrid.policy.strategies",
    "Local": "evogrid.policy.strategies",
    "Result": "evogrid.policy.strategies",
    "Strategy": "evogrid.policy.strategies",
    "simulate": "evogrid.policy.strategies",
}
__all__ = sorted(_WHERE)
__getattr__, __dir__ = lazy_exports(__name__, _WHERE)
