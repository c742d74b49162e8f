"""One line per invalid input: the mixin of every pydantic dataclass that checks user settings.

The first mistake pydantic finds becomes one :class:`~evogrid.errors.EvogridError` line (the CLI
prints it and exits 2); the field types say what is allowed, so each setting is declared once.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

from pydantic import ValidationError, model_validator

from evogrid.errors import EvogridError


class OneLineErrors:
    """Raise ``ERROR(describe(first error))`` instead of pydantic's ValidationError.

    ``ERROR``: the exception class; :meth:`_describe` (override it to name options as a command
    spells them): ``field: what is wrong``, after ``PREFIX``.
    """

    ERROR: ClassVar[type[Exception]] = EvogridError
    PREFIX: ClassVar[str] = ""

    @model_validator(mode="wrap")
    @classmethod
    def _one_line(cls, data: Any, handler: Any) -> Any:
        try:
            return handler(data)
        except ValidationError as exc:
            raise cls.ERROR(cls._describe(exc)) from None

    @classmethod
    def _describe(cls, exc: ValidationError) -> str:
        err = exc.errors()[0]
        what = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
        return f"{cls.PREFIX}{cls._field(err)}: {what.removeprefix('Value error, ')}"

    @classmethod
    def _field(cls, err: dict) -> str:
        """Where the error is, ``field.path``; a setting given by position is named too."""
        loc = list(err["loc"])
        if loc and isinstance(loc[0], int) and dataclasses.is_dataclass(cls):
            loc[0] = dataclasses.fields(cls)[loc[0]].name
        return ".".join(str(part) for part in loc) or "(top level)"
