"""The device catalog in ``models/``: one TOML file per device model.

Every parameter in a model file is a table ``{ value = ..., source = "..." }``
naming where the value comes from (data sheet, standard, assumption, or
"calibrated on claim X"). Times carry units and are read by
:func:`fcsim.units.parse_time`.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from fcsim.units import UnitError, parse_time

MODELS_DIR = Path(__file__).resolve().parents[1] / "models"
"""The catalog folder (``models/`` in the project)."""


def read_model(kind: str, name: str, allowed: set[str], times: set[str],
               directory: Path | None = None) -> tuple[dict[str, Any], dict[str, str]]:
    """Values and sources of model *name* of *kind* (``models/<kind>/<name>.toml``).

    Keys must be in *allowed*; those in *times* are read as times in s.
    Raises ValueError naming the file and key on bad content.
    """
    folder = directory if directory is not None else MODELS_DIR / kind
    path = folder / f"{name}.toml"
    if not path.is_file():
        known = sorted(p.stem for p in folder.glob("*.toml"))
        raise ValueError(f"no {kind[:-1]} model {name!r}; known: {', '.join(known)}")
    raw = tomllib.loads(path.read_text())
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for key, entry in raw.items():
        if key == "description":
            continue
        if key not in allowed or not isinstance(entry, dict) or set(entry) != {"value", "source"}:
            raise ValueError(f"{path}: {key}: expected one of {sorted(allowed)} as "
                             "{ value = ..., source = \"...\" }")
        value = entry["value"]
        if key in times and isinstance(value, str):
            try:
                value = parse_time(value)
            except UnitError as error:
                raise ValueError(f"{path}: {key}: {error}") from None
        values[key] = value
        sources[key] = entry["source"]
    return values, sources
