"""Transfer policies: AWF, TSK fuzzy rulebases (JSON), the pool and active-request baselines."""

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
    "AcceptWhenFit",
    "ActiveRequest",
    "CentralPool",
    "FuzzyPolicy",
    "Local",
    "Result",
    "Rulebase",
    "RulebaseError",
    "Strategy",
    "simulate",
]
