"""Job requirements with comparators and AND/OR/NOT, in Beichter's job description language.

T. Beichter's job description (his Diplomarbeit, 6.4) names a resource
attribute and a value, ``<REQUIREMENT NAME="os">AIX</REQUIREMENT>``; his
10.1.1 extends it with logical operators (``<AND>``, ``<OR>``, and "noch die
NOT-Verknüpfung", the NOT operator as well) and a comparator ``COMP`` =
``gr`` (greater), ``lo`` (lower), ``eq`` (equal, the default) or ``ne`` (not
equal) against ``VALUE``:

    <OR>
      <AND>
        <REQUIREMENT NAME="os" VALUE="Suse"/>
        <REQUIREMENT NAME="os-version" VALUE="5.1" COMP="gr"/>
      </AND>
      <REQUIREMENT NAME="os" VALUE="AIX"/>
    </OR>

:func:`parse` reads that form (several top-level requirements mean all of
them, as in his 6.4 listing); :func:`holds` judges a site's attributes.
Values compare as numbers where both sides are numbers, else as text;
``gr`` and ``lo`` hold for numbers only; a condition on an attribute the
site does not have does not hold (``ne`` included; ``NOT`` turns that
around). Whether a requirement must hold or is only preferred is the
scenario entry's ``kind`` (his ``REQUIRED`` attribute), not part of the
expression.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import NamedTuple

from evogrid.errors import ScenarioError

COMPARATORS = ("eq", "ne", "gr", "lo")
OPERATORS = ("AND", "OR", "NOT")


class Condition(NamedTuple):
    """``NAME COMP VALUE``: one attribute against a value."""

    name: str
    comp: str
    value: str


class Operation(NamedTuple):
    """``AND``, ``OR`` (one or more operands) or ``NOT`` (exactly one)."""

    op: str
    operands: tuple


def parse(text: str) -> Condition | Operation:
    """The expression in ``text`` (module docstring); a ScenarioError naming what is wrong."""
    try:
        root = ET.fromstring(f"<AND>{text}</AND>")
    except ET.ParseError as exc:
        raise ScenarioError(f"requirement expression: not well-formed XML ({exc})") from None
    expr = _element(root)
    return expr.operands[0] if len(expr.operands) == 1 else expr


def _element(node: ET.Element) -> Condition | Operation:
    if node.tag == "REQUIREMENT":
        unknown = set(node.attrib) - {"NAME", "VALUE", "COMP"}
        if unknown:
            raise ScenarioError(f"requirement expression: REQUIREMENT attribute {sorted(unknown)[0]} "
                                f"is not NAME, VALUE or COMP (hard or preferred is the entry's kind)")
        name = node.get("NAME", "").strip()
        value = node.get("VALUE", node.text or "").strip()
        comp = node.get("COMP", "eq")
        if not name or not value:
            raise ScenarioError("requirement expression: a REQUIREMENT needs a NAME and a value")
        if comp not in COMPARATORS:
            raise ScenarioError(f"requirement expression: COMP {comp!r}, expected one of {COMPARATORS}")
        return Condition(name, comp, value)
    if node.tag not in OPERATORS:
        raise ScenarioError(f"requirement expression: unknown element <{node.tag}>; expected "
                            f"REQUIREMENT, {', '.join(OPERATORS)}")
    operands = tuple(_element(child) for child in node)
    if not operands or (node.tag == "NOT" and len(operands) != 1):
        raise ScenarioError(f"requirement expression: <{node.tag}> needs "
                            f"{'exactly one operand' if node.tag == 'NOT' else 'operands'}")
    return Operation(node.tag, operands)


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def holds(expr: Condition | Operation, attributes: Mapping[str, str]) -> bool:
    """Does a site with ``attributes`` meet ``expr``?"""
    if isinstance(expr, Operation):
        results = (holds(e, attributes) for e in expr.operands)
        if expr.op == "NOT":
            return not next(results)
        return all(results) if expr.op == "AND" else any(results)
    if expr.name not in attributes:
        return False
    have, want = str(attributes[expr.name]), expr.value
    a, b = _number(have), _number(want)
    if expr.comp in ("gr", "lo"):
        return a is not None and b is not None and (a > b if expr.comp == "gr" else a < b)
    same = a == b if a is not None and b is not None else have == want
    return same if expr.comp == "eq" else not same


def describe(expr: Condition | Operation) -> str:
    """A one-line text form, e.g. ``(os eq Suse AND os-version gr 5.1) OR os eq AIX``."""
    if isinstance(expr, Condition):
        return f"{expr.name} {expr.comp} {expr.value}"
    if expr.op == "NOT":
        return f"NOT {_grouped(expr.operands[0])}"
    return f" {expr.op} ".join(_grouped(e) for e in expr.operands)


def _grouped(expr: Condition | Operation) -> str:
    return describe(expr) if isinstance(expr, Condition) else f"({describe(expr)})"
