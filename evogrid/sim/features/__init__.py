"""Decision features of fuzzy rulebases, one file per feature (docs/grid.md, docs/reservations.md).

A feature is a number a TSK rulebase reads. Its registry entry
(:data:`evogrid.sim.registry.FEATURES`, a :class:`~evogrid.sim.registry.Feature`: name, code,
default range, help, the decisions it can inform) names its compiled functions, one per kind of
decision, each ``"module:function"``:

- ``value(k, job, jobs, sc)``: ``job`` as site k sees it now, before the job is enqueued (transfer
  decisions: :func:`transfer_value`);
- ``ranking(k, l, job, t, jobs, sc, speed, ready)``: site l as a home for site k's ``job`` at time
  ``t`` (a ranking rulebase's input: :func:`ranking_value`); a feature without one is its
  ``value`` as site l sees the job. ``ready``: the time l's work ahead would be done, computed only
  for a feature whose entry sets ``reads_ready`` (:func:`reads_ready`);
- ``admission(k, t, s, duration, need, lead_room, state)``: a reservation part of ``need``
  processors at site k over ``[s, s + duration)``, asked at time ``t``; ``lead_room = (backlog,
  next planned start)`` of the site (:func:`admission_value`).

The three dispatches over the codes are generated from the registry (:mod:`evogrid.sim.dispatch`);
an unknown code gives NaN, which makes a rulebase's output NaN, which no test of ``y > 0``
accepts, rather than another feature's value. Codes are checked against the registry before a
simulation starts (:meth:`~evogrid.sim.tsk.TSKStack.stack`).

Adding a feature: a file with its functions, :func:`register` its entry (a built-in one goes into
``FEATURES``), and its value in the reference simulator's ``features()`` (``tests/reference_sim.py``).
"""

from __future__ import annotations

import numpy as np

from evogrid.sim.dispatch import any_of, branch_on, compile_inline, component, register_component
from evogrid.sim.features.est_hours import SECONDS_PER_HOUR
from evogrid.sim.registry import FEATURES, Feature

__all__ = ["SECONDS_PER_HOUR", "admission_value", "ranking_value", "reads_ready", "register",
           "transfer_value"]

_SIGNATURES = {"value": "k, job, jobs, sc",
               "ranking": "k, l, job, t, jobs, sc, speed, ready",
               "admission": "k, t, s, duration, need, lead_room, state"}


def _generate_dispatch(entries: tuple[Feature, ...]) -> tuple:
    """The compiled ``transfer_value``, ``ranking_value``, ``admission_value`` and ``reads_ready``
    over ``entries`` (module docstring)."""
    compiled: dict = {}
    as_seen = [e.code for e in entries if "ranking" in e.decisions and not e.ranking]
    for function, decision, default in (
            ("transfer_value", "value", "NAN"),
            # a ranking feature without a ranking of its own: its value as the ranked site sees the job
            ("ranking_value", "ranking",
             f"transfer_value(code, l, job, jobs, sc) if {any_of('code', as_seen)} else NAN"),
            ("admission_value", "admission", "NAN")):
        targets: dict[str, list[int]] = {}
        for e in entries:
            if getattr(e, decision):
                targets.setdefault(getattr(e, decision), []).append(e.code)
        lines, namespace = branch_on(function, "code", _SIGNATURES[decision], targets, default)
        namespace.update(NAN=np.nan, transfer_value=compiled.get("transfer_value"))
        compiled[function], = compile_inline(lines, namespace, __file__, (function,))
    ready = [e.code for e in entries if e.reads_ready]
    compiled["reads_ready"], = compile_inline(
        ["def reads_ready(code):", f"    return {any_of('code', ready)}"], {}, __file__, ("reads_ready",))
    return tuple(compiled.values())


def check(entry: Feature) -> None:
    """ValueError unless every decision the entry lists has its compiled function."""
    for decision, has in (("transfer", entry.value), ("ranking", entry.ranking or entry.value),
                          ("admission", entry.admission)):
        if decision in entry.decisions and not has:
            raise ValueError(f"feature {entry.name!r} informs {decision} decisions but names no "
                             f"function for them")


for _entry in FEATURES.values():
    check(_entry)
transfer_value, ranking_value, admission_value, reads_ready = _generate_dispatch(tuple(FEATURES.values()))


def register(entry: Feature) -> None:
    """Add a feature with its compiled functions (before the first simulation of this process: the
    numba cache stamp takes the new entry in, so loops compiled without it are never served for it).

    Raises:
        ValueError: a decision it lists has no function.
        EvogridError: the name or code is taken.
        RuntimeError: this process has compiled a loop already.
    """
    global transfer_value, ranking_value, admission_value, reads_ready
    check(entry)
    functions = [component(p) for p in (entry.value, entry.ranking, entry.admission) if p]
    register_component(FEATURES, entry, *functions)
    transfer_value, ranking_value, admission_value, reads_ready = _generate_dispatch(
        tuple(FEATURES.values()))
