"""Bundled traces and window names like ``KTH-5``, ``SDSC03@0-11`` (docs/model.md, windows).

A window name is ``NAME`` (whole log), ``NAME-M`` (the dissertation's cut labelled
so, a row of its Tables 7.1 and 7.3: ``KTH-11`` is KTH's first 28,479 jobs,
evogrid.workload.dissertation) or ``NAME@A-B`` (30-day months A to B, rebased
to time 0; the first M months are ``NAME@0-M``); ``NAME@A-`` runs from month A
to the end of the log. ``NAME`` is a bundled log's short name or a path to any
SWF file.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from evogrid.errors import ScenarioError
from evogrid.workload.merge import merge_small_jobs
from evogrid.workload.model import Workload
from evogrid.workload.preprocess import Preprocessing, load_swf

#: Short name -> file in the traces directory (see traces/PROVENANCE.md).
#: The dissertation's site names (CTC, SDSC00, SDSC03, SDSC05, LANL96) are the
#: short names of its logs; the archive's machine names are aliases.
BUNDLED: dict[str, str] = {
    "KTH": "KTH-SP2-1996-2.swf.gz",
    "CTC": "CTC-SP2-1996-3.1-cln.swf.gz",
    "SDSC00": "SDSC-SP2-1998-4.2-cln.swf.gz",
    "SDSC03": "SDSC-BLUE-2000-4.2-cln.swf.gz",
    "SDSC05": "SDSC-DS-2004-2.1-cln.swf.gz",
    "LANL96": "LANL-CM5-1994-4.1-cln.swf.gz",
    "SDSC-PAR": "SDSC-Par-1996-3.1-cln.swf.gz",
    "HPC2N": "HPC2N-2002-2.1-cln.swf.gz",
    "THUNDER": "LLNL-Thunder-2007-1.1-cln.swf.gz",
    "ATLAS": "LLNL-Atlas-2006-2.1-cln.swf.gz",
}
ALIASES: dict[str, str] = {
    "BLUE": "SDSC03", "SDSC-BLUE": "SDSC03", "SDSC-SP2": "SDSC00", "SDSC-DS": "SDSC05",
    "DATASTAR": "SDSC05", "LANL-CM5": "LANL96", "CTC-SP2": "CTC", "SDSC-PARAGON": "SDSC-PAR",
}
#: Machine sizes that differ from the header's MaxProcs, in processors. CTC's
#: cleaned log says 338 (the batch partition), but its jobs use up to 430
#: processors and the dissertation's CTC has m = 430: with 338 the jobs wider
#: than 338 are dropped and the rest overload the machine (FCFS AWRT about 10x).
DEFAULT_PROCS: dict[str, int] = {"CTC": 430}

_WINDOW = re.compile(r"^(?P<name>.+?)(?:-(?P<months>\d+)|@(?P<days>d?)(?P<first>\d+)-(?P<last>\d*))?$")


def traces_dir() -> Path:
    """Where bundled logs live: ``$EVOGRID_TRACES``, else the repository's ``traces/``."""
    if env := os.environ.get("EVOGRID_TRACES"):
        return Path(env)
    repo = Path(__file__).resolve().parents[2] / "traces"
    return repo if repo.is_dir() else Path.cwd() / "traces"


def canonical_name(name: str) -> str | None:
    """The bundled short name for ``name`` (case-insensitive, aliases), or None."""
    upper = name.upper()
    upper = ALIASES.get(upper, upper)
    return upper if upper in BUNDLED else None


def resolve_trace(name: str) -> Path:
    """The SWF file for a short name or path.

    Raises:
        ScenarioError: unknown name, listing the known ones.
    """
    short = canonical_name(name)
    if short is not None:
        path = traces_dir() / BUNDLED[short]
        if not path.is_file():
            raise ScenarioError(f"bundled trace {short} is missing: expected {path}")
        return path
    path = Path(name)
    if path.is_file():
        return path
    known = ", ".join(list(BUNDLED) + list(ALIASES))
    raise ScenarioError(f"unknown trace {name!r}: not a bundled name ({known}) nor an existing file")


def relative_to(text: str, directory: Path) -> str:
    """``text`` (a window: NAME, NAME@A-B, ...) with a relative SWF path NAME read from ``directory``
    (a scenario file's folder) where a file of that name is there; else ``text`` as given (a bundled
    name, an absolute path, or a path from the working directory)."""
    text = text.strip()
    if text and (directory / text).is_file():  # a file named like a window, as parse_window takes it
        return str(directory / text)
    match = _WINDOW.match(text)
    if match is None or canonical_name(match["name"]) is not None:
        return text
    path = directory / match["name"]  # an absolute name stays itself
    return str(path) + text[len(match["name"]):] if path.is_file() else text


@dataclass(frozen=True)
class WindowSpec:
    """A trace and a range ``[first, last)`` of 30-day months, or of days if ``unit_days`` is 1;
    ``last=None`` = to the end."""

    trace: str
    path: Path
    first: int = 0
    last: int | None = None
    unit_days: int = 30

    @property
    def label(self) -> str:
        end = "" if self.last is None else self.last
        if self.unit_days == 1:
            return f"{self.trace}@d{self.first}-{end}"
        if self.first == 0 and self.last is None:
            return self.trace
        return f"{self.trace}@{self.first}-{end}"


def parse_window(text: str) -> WindowSpec:
    """Parse ``NAME``, ``NAME@A-B`` or ``NAME@A-`` (30-day months), ``NAME@dA-B`` or ``NAME@dA-``
    (days; reservation studies use two-week windows: ``SDSC03@d0-14``). NAME: a short name or an
    SWF path. ``NAME-M``, the dissertation's cut, is not a span of time: :func:`load_window`.

    Raises:
        ScenarioError: unknown trace or malformed window.
    """
    text = text.strip()
    if not text:
        raise ScenarioError("empty trace/window name")
    if Path(text).is_file():
        return WindowSpec(Path(text).name, Path(text))
    match = _WINDOW.match(text)
    assert match is not None  # the name group matches anything non-empty
    name = match["name"]
    path = resolve_trace(name)
    trace = canonical_name(name) or path.name
    if match["months"] is not None:
        raise ScenarioError(f"{text!r} names a dissertation cut, not a span of months: "
                            f"load it with load_window; its first {match['months']} 30-day months are "
                            f"{name}@0-{match['months']}")
    if match["first"] is not None:
        unit_days = 1 if match["days"] else 30
        first = int(match["first"])
        if not match["last"]:
            return WindowSpec(trace, path, first, None, unit_days)
        last = int(match["last"])
        if last <= first:
            raise ScenarioError(f"{text!r}: {'days' if unit_days == 1 else 'months'} A-B need A < B")
        return WindowSpec(trace, path, first, last, unit_days)
    return WindowSpec(trace, path)


def default_options(trace: str, options: Preprocessing | None = None) -> Preprocessing:
    """``options`` with a bundled trace's machine size (:data:`DEFAULT_PROCS`) unless overridden."""
    options = options or Preprocessing()
    short = canonical_name(trace)
    if options.machine_procs is None and short in DEFAULT_PROCS:
        return replace(options, machine_procs=DEFAULT_PROCS[short])
    return options


@lru_cache(maxsize=32)
def _load_cached(path: Path, options: Preprocessing, lenient: bool) -> Workload:
    return load_swf(path, options, lenient=lenient)


#: Prefix of a window that is one of the dissertation's cuts of its logs written out (``lepping:KTH-11``,
#: the same as ``KTH-11``, and how a cut is labelled), and of the cut that gives its Table 7.2 makespans
#: (``lepping-cmax:SDSC05-11``; evogrid.workload.dissertation).
DISSERTATION_PREFIX = "lepping:"
MAKESPAN_PREFIX = "lepping-cmax:"


def load_window(
    spec: WindowSpec | str,
    options: Preprocessing | None = None,
    *,
    lenient: bool = False,
) -> Workload:
    """The jobs of a window, rebased to time 0 and named by its label; ``NAME-M`` (or written out,
    ``lepping:NAME-M``) is the dissertation's cut labelled so (evogrid.workload.dissertation), and
    ``lepping-cmax:NAME-M`` the cut of that row that gives its Table 7.2 makespans.

    Raises:
        ScenarioError: unknown trace, empty window, a dissertation cut with other preprocessing.
        SWFFormatError: malformed log.
    """
    if isinstance(spec, str) and spec.strip().startswith((DISSERTATION_PREFIX, MAKESPAN_PREFIX)):
        return _dissertation_window(spec.strip(), options)
    if isinstance(spec, str) and not Path(spec.strip()).is_file():
        match = _WINDOW.match(spec.strip())
        if match is not None and match["months"] is not None:
            from evogrid.workload.dissertation import dissertation_cut  # it builds on this module

            resolve_trace(match["name"])  # an unknown name is that, not a missing row
            typed, months = spec.strip(), int(match["months"])
            name = canonical_name(match["name"]) or match["name"]
            hint = f"; its first {months} 30-day months are {match['name']}@0-{months}" if months > 0 else ""
            _refuse_options(typed, options, hint)
            try:
                cut = dissertation_cut(name, months)
            except ScenarioError as exc:
                raise ScenarioError(f"{typed}: {exc}{hint}") from None
            return replace(cut, name=f"{name}-{months}")
    window = parse_window(spec) if isinstance(spec, str) else spec
    options = default_options(window.trace, options)
    whole = _load_cached(window.path.resolve(), replace(options, merge_small_jobs=False), lenient)
    w = whole.window(window.first, window.last, name=window.label, unit_days=window.unit_days)
    return merge_small_jobs(w) if options.merge_small_jobs else w


def _refuse_options(typed: str, options: Preprocessing | None, hint: str = "") -> None:
    """A dissertation cut comes with its own preprocessing: refuse any other, naming ``typed``."""
    if options is not None and options != Preprocessing():
        raise ScenarioError(f"{typed}: the dissertation's cuts come with their own preprocessing; drop the "
                            f"machine size override and the [preprocessing] table for it{hint}")


def _dissertation_window(spec: str, options: Preprocessing | None) -> Workload:
    from evogrid.workload.dissertation import dissertation_cut  # it builds on this module

    _refuse_options(spec, options)
    prefix = MAKESPAN_PREFIX if spec.startswith(MAKESPAN_PREFIX) else DISSERTATION_PREFIX
    name, _, months = spec.removeprefix(prefix).rpartition("-")
    if not name or not months.isdigit():
        raise ScenarioError(f"{spec!r}: expected {prefix}NAME-M, a row of the dissertation's Tables 7.1 "
                            "and 7.3 (lepping:KTH-11, lepping:SDSC03-5, lepping-cmax:SDSC05-11)")
    by = "makespans" if prefix == MAKESPAN_PREFIX else "jobs"
    return dissertation_cut(canonical_name(name) or name, int(months), by=by)
