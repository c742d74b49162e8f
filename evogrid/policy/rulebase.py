"""The TSK fuzzy rulebase: a transfer policy as data (docs/grid.md, TSK rulebases).

A :class:`Rulebase` holds N_r rules over N_f named features (see
:data:`evogrid.policy.registry.FEATURES`): per rule N_f Gaussian centres and
widths and a consequent of +1 (accept) or -1 (decline). Its decision::

    phi_i(x) = exp(-sum_h (x_h - c_ih)^2 / w_ih^2)
    y(x)     = sum_i phi_i b_i / sum_i phi_i      # accept iff y > 0

It is saved as JSON (``format: evogrid.rulebase``), validated on load
against :class:`RulebaseFile`, whose JSON Schema ships as
``evogrid/policy/rulebase.schema.json``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from evogrid._version import __version__
from evogrid.errors import EvogridError, validation_message
from evogrid.files import read_json, write_json
from evogrid.policy.registry import FEATURES, feature_code, feature_ranges
from evogrid.sim.tsk import tsk_output_numpy

SCHEMA_PATH = Path(__file__).with_name("rulebase.schema.json")
#: Widths made by code (random rulebases, the optimisers' genomes) are kept at least
#: this fraction of the feature's range, so every rule stays defined.
MIN_WIDTH_FRACTION = 1e-6
DECISION_TEXT = "accept if weighted mean of consequents > 0"


class RulebaseError(EvogridError):
    """A rulebase file or value that fails validation."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


FeatureName = FEATURES.name_type()


class FeatureSpec(_Strict):
    name: FeatureName = Field(description="a registered feature: " + ", ".join(FEATURES))
    range: tuple[float, float] = Field(description="[low, high] used to initialise and plot")

    @field_validator("range")
    @classmethod
    def _ordered(cls, value: tuple[float, float]) -> tuple[float, float]:
        if not value[0] < value[1]:
            raise ValueError("range must be [low, high] with low < high")
        return value


class RuleSpec(_Strict):
    centers: list[float] = Field(description="one Gaussian centre per feature")
    widths: list[float] = Field(description="one Gaussian width per feature, > 0")
    consequent: Literal[-1, 1] = Field(description="+1 accept, -1 decline")

    @field_validator("widths")
    @classmethod
    def _positive(cls, widths: list[float]) -> list[float]:
        if any(not (w > 0 and np.isfinite(w)) for w in widths):
            raise ValueError("widths must be finite and > 0")
        return widths

    @field_validator("centers")
    @classmethod
    def _finite(cls, centers: list[float]) -> list[float]:
        if not all(np.isfinite(c) for c in centers):
            raise ValueError("centers must be finite")
        return centers


class RulebaseFile(_Strict):
    """The JSON file format of a rulebase (version 1)."""

    format: Literal["evogrid.rulebase"]
    version: Literal[1]
    features: list[FeatureSpec] = Field(min_length=1)
    rules: list[RuleSpec] = Field(min_length=1)
    decision: str = DECISION_TEXT
    provenance: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _lengths(self) -> RulebaseFile:
        nf = len(self.features)
        for i, rule in enumerate(self.rules):
            if len(rule.centers) != nf or len(rule.widths) != nf:
                raise ValueError(f"rule {i}: needs {nf} centers and {nf} widths (one per feature)")
        return self


@dataclass(frozen=True, eq=False)
class Rulebase:
    """A zero-order TSK rulebase.

    Attributes:
        features: feature names, length N_f.
        ranges: shape (N_f, 2), [low, high] per feature.
        centers, widths: shape (N_r, N_f); widths > 0.
        consequents: shape (N_r,), +1 (accept) or -1 (decline).
        provenance: where it came from (site, partner, training run, ...).
    """

    features: tuple[str, ...]
    ranges: np.ndarray
    centers: np.ndarray
    widths: np.ndarray
    consequents: np.ndarray
    provenance: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        nr, nf = len(self.consequents), len(self.features)
        for name in self.features:
            FEATURES.lookup(name, error=RulebaseError)
        if self.centers.shape != (nr, nf) or self.widths.shape != (nr, nf):
            raise RulebaseError(f"centers and widths must have shape ({nr}, {nf})")
        if self.ranges.shape != (nf, 2):
            raise RulebaseError(f"ranges must have shape ({nf}, 2)")
        if not (self.widths > 0).all() or not np.isfinite(self.centers).all():
            raise RulebaseError("widths must be > 0 and centres finite")
        if not np.isin(self.consequents, (-1.0, 1.0)).all():
            raise RulebaseError("consequents must be +1 or -1")

    @classmethod
    def from_arrays(
        cls,
        centers: np.ndarray,
        widths: np.ndarray,
        consequents: np.ndarray,
        features: Sequence[str] = ("NWP", "NJP"),
        ranges: np.ndarray | None = None,
        provenance: dict[str, Any] | None = None,
    ) -> Rulebase:
        """Build from arrays; ``ranges`` default to the features' registered ranges."""
        if ranges is None:
            ranges = feature_ranges(features, RulebaseError)
        return cls(
            tuple(features), np.asarray(ranges, dtype=np.float64),
            np.asarray(centers, dtype=np.float64), np.asarray(widths, dtype=np.float64),
            np.asarray(consequents, dtype=np.float64), dict(provenance or {}),
        )

    @classmethod
    def constant(cls, accept: bool, features: Sequence[str] = ("NWP", "NJP")) -> Rulebase:
        """One rule that always accepts (or always declines)."""
        nf = len(features)
        return cls.from_arrays(np.zeros((1, nf)), np.ones((1, nf)), [1.0 if accept else -1.0], features)

    @classmethod
    def random(
        cls,
        n_rules: int = 10,
        features: Sequence[str] = ("NWP", "NJP"),
        *,
        seed: int | np.random.Generator = 0,
    ) -> Rulebase:
        """The ES initialisation (docs/training.md): centres and widths uniform in each feature's range."""
        rng = np.random.default_rng(seed)
        ranges = feature_ranges(features, RulebaseError)
        low, high = ranges[:, 0], ranges[:, 1]
        centers = rng.uniform(low, high, size=(n_rules, len(features)))
        widths = rng.uniform(0.0, high - low, size=(n_rules, len(features)))
        widths = np.maximum(widths, MIN_WIDTH_FRACTION * (high - low))
        consequents = rng.choice([-1.0, 1.0], size=n_rules)
        return cls.from_arrays(centers, widths, consequents, features, ranges)

    @property
    def n_rules(self) -> int:
        return len(self.consequents)

    @property
    def feature_codes(self) -> list[int]:
        return [feature_code(f) for f in self.features]

    def output(self, x: np.ndarray) -> np.ndarray:
        """y for points ``x`` of shape (P, N_f) (or (N_f,)): shape (P,), in [-1, 1]."""
        x = np.atleast_2d(np.asarray(x, dtype=np.float64))
        return tsk_output_numpy(self.centers, self.widths, self.consequents, x)

    def accepts(self, x: np.ndarray) -> np.ndarray:
        """Boolean decisions at points ``x`` of shape (P, N_f): accept where y > 0."""
        return self.output(x) > 0.0

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[int]]:
        """``(centers, widths, consequents, feature codes)`` for a TSKStack."""
        return self.centers, self.widths, self.consequents, self.feature_codes

    # -- JSON --------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "format": "evogrid.rulebase",
            "version": 1,
            "features": [
                {"name": f, "range": [float(lo), float(hi)]}
                for f, (lo, hi) in zip(self.features, self.ranges, strict=True)
            ],
            "rules": [
                {"centers": c.tolist(), "widths": w.tolist(), "consequent": int(b)}
                for c, w, b in zip(self.centers, self.widths, self.consequents, strict=True)
            ],
            "decision": DECISION_TEXT,
            "provenance": self.provenance,
        }

    @classmethod
    def from_dict(cls, data: Any, *, source: str = "rulebase") -> Rulebase:
        """Validate a parsed JSON object; errors name ``source`` and the field."""
        try:
            spec = RulebaseFile.model_validate(data)
        except ValidationError as exc:
            raise RulebaseError(f"{source}: {validation_message(exc)}") from None
        return cls.from_arrays(
            [r.centers for r in spec.rules], [r.widths for r in spec.rules],
            [r.consequent for r in spec.rules], [f.name for f in spec.features],
            [f.range for f in spec.features], spec.provenance,
        )

    @classmethod
    def load(cls, path: str | Path) -> Rulebase:
        """Read and validate a rulebase JSON file (one-line RulebaseError on failure)."""
        path = Path(path)
        return cls.from_dict(read_json(path, RulebaseError, "rulebase file"), source=str(path))

    def save(self, path: str | Path) -> Path:
        """Write the JSON atomically; adds ``created`` and the evogrid version to provenance."""
        path = Path(path)
        data = self.to_dict()
        data["provenance"] = {
            "evogrid": __version__,
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
            **self.provenance,
        }
        write_json(path, data)
        return path

    def with_trained_ranges(self) -> Rulebase:
        """This rulebase with its ranges set to the states its training showed it (provenance
        ``trained_range``, recorded by transfer training), so that the ``outside_range = "awf"``
        guard acts beyond them (docs/training.md, "Beyond the trained range")."""
        seen = self.provenance.get("trained_range")
        if not seen:
            raise RulebaseError(f"rulebase of {self.provenance.get('site', '?')}: no trained_range in its "
                                "provenance (trained before evogrid recorded it, or it decided nothing)")
        ranges = np.array([seen[f] for f in self.features], dtype=np.float64)
        return Rulebase(self.features, ranges, self.centers, self.widths, self.consequents, self.provenance)

    def with_provenance(self, **facts: Any) -> Rulebase:
        return Rulebase(self.features, self.ranges, self.centers, self.widths, self.consequents,
                        {**self.provenance, **facts})


def json_schema() -> dict[str, Any]:
    """The JSON Schema of the rulebase file (what ships as rulebase.schema.json)."""
    return RulebaseFile.model_json_schema()
