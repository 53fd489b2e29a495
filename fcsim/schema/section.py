"""What every table of a scenario or model file shares: unknown keys refused,
values frozen once read, each key declared once with its default and help."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field
from pydantic.fields import FieldInfo

from fcsim.schema.fields import Expects

REQUIRED: Any = ...
"""The default of a key that must be given."""


class Section(BaseModel):
    """A TOML table. *where* names it in errors ("in [run]"); *elsewhere* maps
    keys that belong to other tables or topologies to why they are refused here."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True,
                              use_attribute_docstrings=False)
    where: ClassVar[str] = ""
    elsewhere: ClassVar[dict[str, str]] = {}
    defaults_from: ClassVar[Any] = None
    """A dataclass whose field defaults are those of the keys left unset here
    (None: the keys' own defaults)."""

    @classmethod
    def keys(cls) -> list[str]:
        """The keys the table accepts, as written in the file, in order."""
        return [info.alias or name for name, info in cls.model_fields.items()]

    @classmethod
    def field_for(cls, key: str) -> FieldInfo | None:
        """The field of *key* as written in the file, or None."""
        for name, info in cls.model_fields.items():
            if (info.alias or name) == key:
                return info
        return None

    @classmethod
    def expects(cls, key: str) -> str:
        """What *key* accepts, in words (as errors say it)."""
        info = cls.field_for(key)
        return next((m.text for m in info.metadata if isinstance(m, Expects)), "") if info else ""


def key(default: Any = REQUIRED, help: str = "", example: Any = None,
        alias: str | None = None) -> Any:
    """A key of a table: its *default* (:data:`REQUIRED`: none; None: left unset;
    otherwise written as in a file, read by the key's type), *help* (meaning and
    unit) and an *example* value as written in a file."""
    return Field(default, description=help, alias=alias,
                 examples=None if example is None else [example],
                 validate_default=default is not None and default is not REQUIRED)
