"""User-facing errors.

Anything a user can cause (a malformed SWF line, an unknown trace name, an
empty window, a bad scenario file) raises :class:`EvogridError`. The CLI turns
it into one line on stderr and exit code 2; the Python API lets it propagate.
"""


class EvogridError(Exception):
    """A mistake in user input, reported as one clear line."""


class SWFFormatError(EvogridError):
    """An SWF file that cannot be parsed (names the file and line)."""


class ScenarioError(EvogridError):
    """An invalid scenario: unknown trace, empty window, bad option."""
