"""Heterogeneous sites and matchmaking: speed factors, site attributes, job requirements (docs/grid.md).

A :class:`Sites` describes what the grid's sites are beyond their size:

- ``speed``: per site, a factor (default 1). A job submitted at site k that
  runs at site l takes ``p_j * s_k / s_l`` seconds there (its estimate too);
  a job that stays home runs as logged.
- ``attributes``: per site, key/value pairs (``arch = "x86"``).
- ``requirements``: seeded synthetic job requirements, each a share of the
  jobs that require (``hard``: only sites holding it qualify) or prefer
  (``preferred``: sites holding it come first) one attribute value, or a
  condition with comparators and AND/OR/NOT (evogrid.sim.requirement_expr;
  a site "holds" it where the condition is met). Instead of a drawn share,
  the jobs may be those whose SWF queue or partition field has one of
  listed values (``swf_field``, ``swf_values``). A per-processor demand read
  from the log (``swf_field = "req_memory"``, SWF field 10, KB) requires a
  site whose numeric ``attribute`` is at least the job's demand (jobs
  whose log does not give it have none). A hard
  requirement is drawn only for jobs whose home site holds it, so every job
  can still run where it was submitted (the comparison with local
  scheduling stays meaningful).

The compiled loop sees bit masks: each distinct ``key=value`` held by some
site is a bit (in order of first appearance over the sites).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

import numpy as np

from evogrid.errors import ScenarioError
from evogrid.sim import requirement_expr

#: Bits available for distinct attribute values (int64 masks in the compiled loop).
MAX_TAGS = 62
KINDS = ("hard", "preferred")
#: SWF fields a requirement may be read from: a job has it where its field's value is listed, or,
#: for a demand field, a site qualifies where its attribute is at least the job's value.
SWF_FIELDS = ("queue", "partition", "req_memory")
DEMAND_FIELDS = ("req_memory",)


class SiteArrays(NamedTuple):
    """Sites and requirements as the compiled grid loop reads them (:meth:`Sites.arrays`)."""

    speed: np.ndarray  #: float64 (K,): each site's speed factor
    tags: np.ndarray  #: int64 (K,): the attribute bits each site holds
    hard: np.ndarray  #: int64 (n,): the bits each job requires ...
    preferred: np.ndarray  #: int64 (n,): ... and prefers


@dataclass(frozen=True)
class Requirement:
    """A share of jobs requiring (``hard``) or preferring (``preferred``) ``attribute = value``, or
    a site condition ``expression`` in Beichter's job description language
    (evogrid.sim.requirement_expr; then ``attribute`` and ``value`` stay empty)."""

    attribute: str = ""
    value: str = ""
    share: float | None = None
    kind: str = "hard"
    seed: int = 0
    expression: str = ""
    swf_field: str | None = None
    swf_values: Sequence[int] = ()

    def __post_init__(self) -> None:
        """Every check of a requirement, for the scenario file (RequirementConfig) and the API alike."""
        object.__setattr__(self, "swf_values", tuple(self.swf_values))
        if self.is_demand:
            extra = self.value or self.expression or self.swf_values or self.share is not None
            if not self.attribute or extra:
                raise ScenarioError(f"requirement {self.swf_field}: a demand read from the log takes "
                                    f"attribute (the sites' capacity per processor) and no value, "
                                    f"expression, swf_values or share")
            if self.kind not in KINDS:
                raise ScenarioError(f"requirement {self.tag}: kind {self.kind!r}, expected hard or preferred")
            return
        if bool(self.expression) == bool(self.attribute or self.value):
            raise ScenarioError("requirement: give either attribute and value, or expression")
        if not self.expression and not (self.attribute and self.value):
            raise ScenarioError("requirement: give both attribute and value")
        if self.kind not in KINDS:
            raise ScenarioError(f"requirement {self.tag}: kind {self.kind!r}, expected hard or preferred")
        if (self.share is None) == (self.swf_field is None):
            raise ScenarioError(f"requirement {self.tag}: give either share (a drawn share of the jobs) "
                                f"or swf_field (the jobs whose SWF field has one of swf_values)")
        if self.swf_field is not None and self.swf_field not in SWF_FIELDS:
            raise ScenarioError(f"requirement {self.tag}: swf_field {self.swf_field!r}, expected one of "
                                f"{SWF_FIELDS}")
        if self.swf_field is not None and not self.swf_values:
            raise ScenarioError(f"requirement {self.tag}: swf_values: list the values of "
                                f"{self.swf_field} that carry it")
        if self.share is not None and not 0.0 <= self.share <= 1.0:
            raise ScenarioError(f"requirement {self.tag}: share {self.share} outside [0, 1]")

    @property
    def is_demand(self) -> bool:
        """A per-processor demand read from the log (:data:`DEMAND_FIELDS`)?"""
        return self.swf_field in DEMAND_FIELDS

    def levels(self, attributes: Sequence[Mapping[str, str]]) -> list[float]:
        """A demand's distinct site capacities (the numeric values of ``attribute``), ascending."""
        values = set()
        for attrs in attributes:
            try:
                values.add(float(attrs[self.attribute]))
            except KeyError:
                continue
            except ValueError:
                raise ScenarioError(f"requirement {self.tag}: site attribute {self.attribute} = "
                                    f"{attrs[self.attribute]!r} is not a number") from None
        return sorted(values)

    def level_tag(self, level: float) -> str:
        """The bit of the sites whose capacity is at least ``level``."""
        return f"{self.attribute}>={level:g}"

    def chosen(self, i: int, fields: Mapping[str, np.ndarray], n_jobs: int) -> np.ndarray:
        """Which jobs have it: those whose SWF field holds a listed value, or a seeded draw of
        ``share`` of them (requirement i's generator, seeded ``(seed, i)``)."""
        if self.swf_field is not None:
            return np.isin(fields[self.swf_field], self.swf_values)
        return np.random.default_rng([self.seed, i]).random(n_jobs) < self.share

    @cached_property
    def condition(self):
        """The parsed expression (None for ``attribute = value``), parsed once."""
        return requirement_expr.parse(self.expression) if self.expression else None

    @property
    def tag(self) -> str:
        """Its bit's name: ``attribute=value``, or the expression in one line (a demand's name:
        ``attribute>=field``; its bits are :meth:`level_tag`'s)."""
        if self.is_demand:
            return f"{self.attribute}>={self.swf_field}"
        if self.expression:
            return requirement_expr.describe(self.condition)
        return f"{self.attribute}={self.value}"

    def held_by(self, attributes: Mapping[str, str]) -> bool:
        """Does a site with ``attributes`` meet it?"""
        if self.expression:
            return requirement_expr.holds(self.condition, attributes)
        return attributes.get(self.attribute) == self.value


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
            if r.is_demand:
                if not r.levels(self.attributes):
                    raise ScenarioError(f"requirement {r.tag}: no site has attribute {r.attribute}")
                continue
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
        for r in self.requirements:  # an expression is a bit of its own, held where it holds
            if r.expression and r.tag not in tags and any(r.held_by(a) for a in self.attributes):
                tags.append(r.tag)
            if r.is_demand:  # a bit per capacity level: the sites with at least that much
                tags += [t for t in map(r.level_tag, r.levels(self.attributes)) if t not in tags]
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
            for r in self.requirements:
                if r.expression and r.held_by(attrs):
                    masks[k] |= bit[r.tag]
                if r.is_demand and r.attribute in attrs:  # every level up to its capacity
                    capacity = float(attrs[r.attribute])
                    masks[k] |= sum(bit[r.level_tag(v)] for v in r.levels(self.attributes) if v <= capacity)
        return masks

    def job_masks(self, origin: np.ndarray, n_sites: int,
                  fields: Mapping[str, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(hard, preferred)`` bits per job, int64 shape (n,) each, for jobs submitted at ``origin``
        whose SWF queue and partition are ``fields`` (-1 each where unknown).

        A job gets requirement i where :meth:`Requirement.chosen` says so
        (and, for a hard one, its home site holds it).
        """
        bit = {tag: 1 << i for i, tag in enumerate(self.tags())}
        home_masks = self.site_masks(n_sites)[origin]
        hard = np.zeros(origin.shape[0], dtype=np.int64)
        preferred = np.zeros(origin.shape[0], dtype=np.int64)
        unknown = np.full(origin.shape[0], -1, dtype=np.int64)
        fields = {name: unknown for name in SWF_FIELDS} | dict(fields or {})
        for i, r in enumerate(self.requirements):
            if r.is_demand:
                target = hard if r.kind == "hard" else preferred
                target |= self._demand_masks(r, fields[r.swf_field], bit, home_masks, origin)
                continue
            drawn = r.chosen(i, fields, origin.shape[0])
            b = bit[r.tag]
            if r.kind == "hard":
                hard[drawn & (home_masks & b != 0)] |= b
            else:
                preferred[drawn] |= b
        return hard, preferred

    def check_demands(self, workloads: Sequence) -> None:
        """Raise :meth:`job_masks`' error for the sites' own jobs' demands read from their logs
        (``workloads``, one per site, in site order), without merging the jobs first."""
        if not any(r.is_demand for r in self.requirements):
            return
        origin = np.repeat(np.arange(len(workloads)), [w.n_jobs for w in workloads])
        fields = {name: np.concatenate([w.swf_field(name) for w in workloads]) for name in DEMAND_FIELDS}
        self.job_masks(origin, len(workloads), fields)

    def _demand_masks(self, r: Requirement, demand: np.ndarray, bit: Mapping[str, int],
                      home_masks: np.ndarray, origin: np.ndarray) -> np.ndarray:
        """Per job, the bit of the least capacity level that meets its demand (0 where the log gives
        none). A hard demand that the job's home site does not meet is an error: the log ran the
        job there, so the site's attribute is too low (one line naming the site and the least
        value that would do)."""
        levels = np.array(r.levels(self.attributes))
        bits = np.array([bit[r.level_tag(v)] for v in levels] + [0], dtype=np.int64)
        known = demand > 0
        idx = np.where(known, np.searchsorted(levels, demand, side="left"), len(levels))
        mask = bits[idx]
        if r.kind == "hard":
            unmet = known & ((home_masks & mask) == 0)
            if unmet.any():
                k = int(origin[unmet][np.argmax(demand[unmet])])
                worst = int(demand[unmet & (origin == k)].max())
                raise ScenarioError(f"requirement {r.tag}: {int((unmet & (origin == k)).sum())} jobs "
                                    f"of site {k} ask for more {r.swf_field} per processor than its "
                                    f"{r.attribute}, though the log ran them there; give site {k} "
                                    f"{r.attribute} >= {worst}")
        return mask

    def arrays(self, origin: np.ndarray, n_sites: int,
               fields: Mapping[str, np.ndarray] | None = None) -> SiteArrays:
        """The ``sites`` bundle of the compiled grid loop's policy (:class:`SiteArrays`)."""
        return SiteArrays(self.speeds(n_sites), self.site_masks(n_sites),
                          *self.job_masks(origin, n_sites, fields))


def sites_from_config(speeds: Sequence[float], attributes: Sequence[Mapping[str, str]],
                      requirements: Sequence[Mapping]) -> Sites:
    """A :class:`Sites` from a scenario file's per-site ``speed`` and ``attributes`` and its requirements."""
    uniform = all(s == 1.0 for s in speeds)
    return Sites(speed=() if uniform else tuple(float(s) for s in speeds),
                 attributes=tuple(dict(a) for a in attributes) if any(attributes) else (),
                 requirements=tuple(Requirement(**r) for r in requirements))
