"""Transfer policies: AWF, TSK fuzzy rulebases (JSON), the pool and active-request baselines.

The names strategies are made of (transfer and location policies, pool
arrival rules, decision features) are registries in
:mod:`evogrid.policy.registry`; the strategies as the CLI and scenario
files name them, and a scenario file's ``[strategy]`` table, are
:mod:`evogrid.policy.config`. ``simulate(Scenario.from_spec("x.toml"))``
runs the file's strategy.
"""


from evogrid._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "evogrid.policy.registry": (
        "STRATEGIES",
        "StrategyKind",
        "FEATURES",
        "LOCATIONS",
        "POOL_ARRIVALS",
        "ACTIVE_TAKE",
        "HANDOVER",
        "TRANSFERS",
        "Choice",
        "Feature",
        "Location",
        "Registry",
        "Transfer",
    ),
    "evogrid.policy.config": (
        "RulebaseSpec",
        "StrategyConfig",
        "build_strategy",
        "scenario_strategy",
        "strategy_config",
    ),
    "evogrid.policy.rulebase": ("Rulebase", "RulebaseError"),
    "evogrid.sim.python_policy": ("AdmissionPolicy", "GridView", "LocationPolicy", "QueueOrder",
                                  "TransferPolicy"),
    "evogrid.policy.strategies": (
        "AcceptWhenFit",
        "ActiveRequest",
        "Broker",
        "CentralPool",
        "FuzzyPolicy",
        "Local",
        "PythonPolicy",
        "Result",
        "Strategy",
        "simulate",
    ),
})
