"""Heterogeneous sites and matchmaking: speed factors, site attributes, job requirements (docs/grid.md).

A :class:`Sites` describes what the grid's sites are beyond their size:

- ``speed``: per site, a factor (default 1). A job submitted at site k that
  runs at site l takes ``p_j * s_k / s_l`` seconds there (its estimate too);
  a job that stays home runs as logged.
- ``attributes``: per site, key/value pairs (``arch = "x86"``).
- ``requirements``: seeded synthetic job requirements, each a share of the
  jobs that require (``hard``: only sites holding it qualify) or prefer
  (``preferred``: sites holding it come first) one attribute value. A hard
  requirement is drawn only for jobs whose home site holds it, so every job
  can still run where it was submitted (the comparison with local
  scheduling stays meaningful).

The compiled loop sees bit masks: each distinct ``key=value`` held by some
site is a bit (in order of first appearance over the sites).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from evogrid.errors import ScenarioError

#: Bits available for distinct attribute values (int64 masks in the compiled loop).
MAX_TAGS = 62
KINDS = ("hard", "preferred")


class SiteArrays(NamedTuple):
    """Sites and requirements as the compiled grid loop reads them (:meth:`Sites.arrays`)."""

    speed: np.ndarray  #: float64 (K,): each site's speed factor
    tags: np.ndarray  #: int64 (K,): the attribute bits each site holds
    hard: np.ndarray  #: int64 (n,): the bits each job requires ...
    preferred: np.ndarray  #: int64 (n,): ... and prefers


@dataclass(frozen=True)
class Requirement:
    """A share of jobs requiring (``hard``) or preferring (``preferred``) ``attribute = value``."""

    attribute: str
    value: str
    share: float
    kind: str = "hard"
    seed: int = 0

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ScenarioError(f"requirement {self.tag}: kind {self.kind!r}, expected hard or preferred")
        if not 0.0 <= self.share <= 1.0:
            raise ScenarioError(f"requirement {self.tag}: share {self.share} outside [0, 1]")

    @property
    def tag(self) -> str:
        return f"{self.attribute}={self.value}"


@dataclass(frozen=True)
class Sites:
    """Speeds, attributes and job requirements of a grid's K sites (empty tuples: the defaults)."""

    speed: tuple[float, ...] = ()
    attributes: tuple[Mapping[str, str], ...] = ()
    requirements: tuple[Requirement, ...] = field(default=())

    def __post_init__(self) -> None:
        if any(not s > 0 for s in self.speed):
            raise ScenarioError(f"site speeds must be positive, got {list(self.speed)}")
        held = self.tags()
        for r in self.requirements:
            if r.tag not in held:
                raise ScenarioError(f"requirement {r.tag}: no site has it (site attributes: "
                                    f"{', '.join(held) or 'none'})")

    @property
    def speeds_differ(self) -> bool:
        """Do some sites run faster than others (so moved jobs change their run times)?"""
        return len(set(self.speed)) > 1

    @property
    def is_default(self) -> bool:
        """Equal speeds and no requirements: the grid of earlier results, bit for bit."""
        return not self.speeds_differ and not self.requirements

    def tags(self) -> list[str]:
        """Every ``key=value`` some site holds, in order of first appearance (bit i is tags()[i])."""
        tags: list[str] = []
        for attrs in self.attributes:
            for key, value in attrs.items():
                if f"{key}={value}" not in tags:
                    tags.append(f"{key}={value}")
        if len(tags) > MAX_TAGS:
            raise ScenarioError(f"{len(tags)} distinct site attribute values; at most {MAX_TAGS}")
        return tags

    def speeds(self, n_sites: int) -> np.ndarray:
        """Speed factor per site, float64 shape (K,)."""
        if not self.speed:
            return np.ones(n_sites)
        if len(self.speed) != n_sites:
            raise ScenarioError(f"{len(self.speed)} site speeds for {n_sites} sites")
        return np.array(self.speed, dtype=np.float64)

    def site_masks(self, n_sites: int) -> np.ndarray:
        """The attribute bits each site holds, int64 shape (K,)."""
        if self.attributes and len(self.attributes) != n_sites:
            raise ScenarioError(f"attributes for {len(self.attributes)} sites, the grid has {n_sites}")
        bit = {tag: 1 << i for i, tag in enumerate(self.tags())}
        masks = np.zeros(n_sites, dtype=np.int64)
        for k, attrs in enumerate(self.attributes):
            for key, value in attrs.items():
                masks[k] |= bit[f"{key}={value}"]
        return masks

    def job_masks(self, origin: np.ndarray, n_sites: int) -> tuple[np.ndarray, np.ndarray]:
        """``(hard, preferred)`` bits per job, int64 shape (n,) each, for jobs submitted at ``origin``.

        Requirement i draws one uniform number per job from the generator
        seeded ``(seed, i)``; a job gets it where the number is below the
        share (and, for a hard one, its home site holds it).
        """
        bit = {tag: 1 << i for i, tag in enumerate(self.tags())}
        home_masks = self.site_masks(n_sites)[origin]
        hard = np.zeros(origin.shape[0], dtype=np.int64)
        preferred = np.zeros(origin.shape[0], dtype=np.int64)
        for i, r in enumerate(self.requirements):
            drawn = np.random.default_rng([r.seed, i]).random(origin.shape[0]) < r.share
            b = bit[r.tag]
            if r.kind == "hard":
                hard[drawn & (home_masks & b != 0)] |= b
            else:
                preferred[drawn] |= b
        return hard, preferred

    def arrays(self, origin: np.ndarray, n_sites: int) -> SiteArrays:
        """The ``sites`` bundle of the compiled grid loop's policy (:class:`SiteArrays`)."""
        return SiteArrays(self.speeds(n_sites), self.site_masks(n_sites), *self.job_masks(origin, n_sites))


def sites_from_config(speeds: Sequence[float], attributes: Sequence[Mapping[str, str]],
                      requirements: Sequence[Mapping]) -> Sites:
    """A :class:`Sites` from a scenario file's per-site ``speed`` and ``attributes`` and its requirements."""
    uniform = all(s == 1.0 for s in speeds)
    return Sites(speed=() if uniform else tuple(float(s) for s in speeds),
                 attributes=tuple(dict(a) for a in attributes) if any(attributes) else (),
                 requirements=tuple(Requirement(**r) for r in requirements))
