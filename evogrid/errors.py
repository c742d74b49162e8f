"""User-facing errors.

Anything a user can cause (a malformed SWF line, an unknown trace name, an
empty window, a bad scenario file) raises :class:`EvogridError`. The CLI turns
it into one line on stderr and exit code 2; the Python API lets it propagate.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError


class EvogridError(Exception):
    """A mistake in user input, reported as one clear line."""


class SWFFormatError(EvogridError):
    """An SWF file that cannot be parsed (names the file and line)."""


class ScenarioError(EvogridError):
    """An invalid scenario: unknown trace, empty window, bad option."""


def validation_error(exc: ValidationError, fields: Sequence[str] = ()) -> tuple[str, str]:
    """The first error of a pydantic validation: ``(field.path, what is wrong)``; ``fields``: the
    field names in order, which name a setting given by position (a dataclass's)."""
    err = exc.errors()[0]
    loc = list(err["loc"])
    if loc and isinstance(loc[0], int) and loc[0] < len(fields):
        loc[0] = fields[loc[0]]
    where = ".".join(str(part) for part in loc) or "(top level)"
    what = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
    return where, what.removeprefix("Value error, ")


def validation_message(exc: ValidationError, fields: Sequence[str] = ()) -> str:
    """The first error of a pydantic validation as ``field.path: what is wrong``."""
    return ": ".join(validation_error(exc, fields))
