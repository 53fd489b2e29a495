"""The device catalog in ``models/``: one TOML file per device model.

Every parameter in a model file is a table ``{ value = ..., source = "..." }``
naming where the value comes from (data sheet, standard, assumption, or
"calibrated on claim X"). Times carry units and are read by
:func:`fcsim.units.parse_time`.

A model is named by its catalog name (the file's stem, no folder) or, for a
model of one's own, by the path of its file ending in ``.toml`` (relative
paths from :data:`MODEL_FOLDER`: the scenario file's folder while a scenario
loads).
"""

from __future__ import annotations

import re
import tomllib
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from fcsim.resources import DATA_ROOT
from fcsim.units import UnitError, parse_time

MODELS_DIR = DATA_ROOT / "models"
"""The catalog folder (``models/`` in the project; see :mod:`fcsim.resources`)."""


MODEL_FOLDER: ContextVar[Path] = ContextVar("MODEL_FOLDER", default=Path("."))
"""The folder that relative model file paths start from."""
_CATALOG_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_SINGULAR = {"switches": "switch", "hosts": "host", "adapters": "adapter"}


def model_file(kind: str, name: str, directory: Path | None = None) -> Path:
    """The file of model *name* of *kind*: ``models/<kind>/<name>.toml`` (or in
    *directory*), or the file *name* itself if it ends in ``.toml``."""
    what = _SINGULAR.get(kind, kind)
    if name.endswith(".toml"):
        path = MODEL_FOLDER.get() / name
        if not path.is_file():
            raise ValueError(f"no {what} model file {str(path)!r}")
        return path
    folder = directory if directory is not None else MODELS_DIR / kind
    known = sorted(p.stem for p in folder.glob("*.toml"))
    if not _CATALOG_NAME.fullmatch(name):
        raise ValueError(f"{name!r} is not a {what} model name: give a name from "
                         f"models/{kind}/ ({', '.join(known)}) or a model file ending in .toml")
    path = folder / f"{name}.toml"
    if not path.is_file():
        raise ValueError(f"no {what} model {name!r}; known: {', '.join(known)}")
    return path


def read_model(kind: str, name: str, allowed: set[str], times: set[str],
               directory: Path | None = None) -> tuple[dict[str, Any], dict[str, str]]:
    """Values and sources of model *name* of *kind* (see :func:`model_file`).

    Keys must be in *allowed*; those in *times* are read as times in s.
    Raises ValueError naming the file and key on bad content.
    """
    path = model_file(kind, name, directory)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"{path}: not a valid TOML model file ({error})") from None
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
