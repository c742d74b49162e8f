"""The strategies as the CLI and scenario files name them, and helpers over the feature registry.

The registries of the compiled loops' choices (transfer and location
policies, pool arrival rules, active-request rules, exchange schemes,
decision features) live with the simulation, in :mod:`evogrid.sim.registry`,
the only table of their names and codes; they are re-exported here, where
the CLI, scenario TOML loading (:class:`~evogrid.policy.config.StrategyConfig`),
rulebase JSON loading and the optimisers read them. This module adds
:data:`STRATEGIES` (``local``, ``awf``, ``rulebase``, ``broker``, ``pool``,
``aa``), whose entries build a strategy object from a configuration, and
the feature helpers (:func:`features_for`, :func:`check_features`,
:func:`feature_ranges`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

from evogrid.errors import ScenarioError
from evogrid.sim.registry import (  # noqa: F401 (re-exported: users and the CLI look here)
    ACTIVE_TAKE,
    FEATURES,
    HANDOVER,
    LOCATIONS,
    OUTSIDE_RANGE,
    POOL_ARRIVALS,
    REFUSALS,
    SCHEMES,
    SLOT_RULES,
    TRANSFERS,
    Choice,
    Entry,
    Feature,
    Location,
    Registry,
    Transfer,
)

#: The features a trained rulebase gets when none are given, per decision.
DEFAULT_FEATURES: dict[str, list[str]] = {"transfer": ["NWP", "NJP"],
                                          "ranking": ["LOAD_AFTER", "NWP", "SPEED", "NJP"]}


def features_for(decision: str) -> list[str]:
    """The registered features a ``transfer``, ``admission`` or ``ranking`` rulebase may use."""
    return [name for name, f in FEATURES.items() if decision in f.decisions]


def check_features(names: Iterable[str], decision: str, where: str) -> None:
    """ScenarioError naming ``where`` if a feature is unknown or cannot inform ``decision``."""
    usable = features_for(decision)
    if wrong := [n for n in names if n not in usable]:
        raise ScenarioError(f"{where}: feature {', '.join(wrong)} cannot inform {decision} decisions; "
                            f"expected {', '.join(usable)}")


def plain_transfers() -> list[str]:
    """The transfer policies a site can run without a rulebase (``others``; ``awf`` is its default)."""
    return [name for name in TRANSFERS if name != "rulebase"]


def feature_code(name: str) -> int:
    """The compiled code of a registered feature; ScenarioError names the known ones."""
    return FEATURES.lookup(name).code


def feature_ranges(names: Iterable[str], error: type[Exception] = ScenarioError) -> np.ndarray:
    """The registered [low, high] of each feature, shape (N_f, 2); ``error`` for an unknown name."""
    import numpy as np  # here: the CLI's --help needs the registries, not numpy

    return np.array([FEATURES.lookup(name, error=error).range for name in names], dtype=np.float64)


#: (configuration, scenario, rulebase specs) -> a strategy object (evogrid.policy.config).
StrategyFactory = Callable[..., Any]


@dataclass(frozen=True)
class StrategyKind:
    """A strategy as the CLI and ``[strategy] name`` call it.

    Attributes:
        name: the ``--strategy`` value.
        factory: (configuration, scenario, rulebase specs) -> a strategy object.
        help: one line for ``--help``.
    """

    name: str
    factory: StrategyFactory
    help: str


# The factories import the strategies when called: the CLI's --help reads this
# registry and should not load numpy and numba.
def _local(config: Any, scenario: Any, specs: Any) -> Any:
    from evogrid.policy.strategies import Local

    return Local()


def _awf(config: Any, scenario: Any, specs: Any) -> Any:
    from evogrid.policy.strategies import AcceptWhenFit

    return AcceptWhenFit(location=config.location, seed=config.seed)


def _rulebase(config: Any, scenario: Any, specs: Any) -> Any:
    from evogrid.policy.config import fuzzy_strategy

    return fuzzy_strategy(config, scenario, specs)


def _broker(config: Any, scenario: Any, specs: Any) -> Any:
    from evogrid.policy.config import broker_strategy

    return broker_strategy(config, scenario, specs)


def _pool(config: Any, scenario: Any, specs: Any) -> Any:
    from evogrid.policy.strategies import CentralPool

    return CentralPool(arrivals=config.pool_arrivals)


def _aa(config: Any, scenario: Any, specs: Any) -> Any:
    from evogrid.policy.strategies import ActiveRequest

    return ActiveRequest(take=config.active_take)


STRATEGIES: Registry[StrategyKind] = Registry("strategy", [
    StrategyKind("local", _local, "none"),
    StrategyKind("awf", _awf, "accept when fit"),
    StrategyKind("rulebase", _rulebase, "TSK fuzzy policies from --rulebase"),
    StrategyKind("broker", _broker, "information-rich: each site sends every job to the best qualified "
                                    "site by --location (mct, min-min, ...; rank: TSK ranking rulebases "
                                    "from --rulebase)"),
    StrategyKind("pool", _pool, "central job pool: FCFS-JS/EASY-JS/LIST-JS"),
    StrategyKind("aa", _aa, "active request (--active-take)"),
])
