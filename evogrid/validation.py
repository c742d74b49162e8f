"""One line per invalid input: the mixin of every pydantic dataclass that checks user settings.

The first mistake pydantic finds becomes one :class:`~evogrid.errors.EvogridError` line (the CLI
prints it and exits 2); the field types say what is allowed, so each setting is declared once.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

from pydantic import ValidationError, model_validator

from evogrid.errors import EvogridError, validation_message


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
        return cls.PREFIX + validation_message(exc, cls._fields())

    @classmethod
    def _fields(cls) -> tuple[str, ...]:
        """The field names in order (they name a setting given by position)."""
        return tuple(f.name for f in dataclasses.fields(cls)) if dataclasses.is_dataclass(cls) else ()
