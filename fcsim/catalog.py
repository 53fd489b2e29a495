"""The device catalog in ``models/``: one TOML file per device model.

Every parameter in a model file is a table ``{ value = ..., source = "..." }``
naming where the value comes from (data sheet, standard, assumption, or
"calibrated on claim X"). Each kind of model declares its keys as a
:class:`ModelFile` (typed as scenario files are, quantities read by
:mod:`fcsim.units`).

A model is named by its catalog name (the file's stem, no folder) or, for a
model of one's own, by the path of its file ending in ``.toml`` (relative
paths from :data:`MODEL_FOLDER`: the scenario file's folder while a scenario
loads). A file may say what it models with ``type`` (:data:`MODEL_TYPES`);
where several types may be named (a target: a disk, RAM disk, array or SSD),
:func:`model_type` tells which a file is.
"""

from __future__ import annotations

import re
import tomllib
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from pydantic import ValidationError, create_model

from fcsim.resources import DATA_ROOT
from fcsim.schema.errors import problems_of
from fcsim.schema.fields import Name, Text, choice, table, value_type
from fcsim.schema.section import Section, key

MODELS_DIR = DATA_ROOT / "models"
"""The catalog folder (``models/`` in the project; see :mod:`fcsim.resources`)."""


MODEL_FOLDER: ContextVar[Path] = ContextVar("MODEL_FOLDER", default=Path("."))
"""The folder that relative model file paths start from."""
_CATALOG_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_SINGULAR = {"switches": "switch", "hosts": "host", "adapters": "adapter", "disks": "disk",
             "ramdisks": "RAM disk", "arrays": "array", "ssds": "SSD",
             "flash-arrays": "flash array",
             "disk-channels": "disk channel",
             "ethernet-switches": "Ethernet switch", "myrinet-switches": "Myrinet switch"}

MODEL_TYPES = {"switches": "switch", "hosts": "host", "adapters": "adapter", "disks": "disk",
               "ramdisks": "ramdisk", "arrays": "array", "ssds": "ssd",
               "flash-arrays": "flash-array",
               "disk-channels": "disk-channel",
               "ethernet-switches": "ethernet-switch", "myrinet-switches": "myrinet-switch"}
"""Each catalog folder and the ``type`` its files may declare."""


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


ModelType = choice({name: name for name in MODEL_TYPES.values()})


class ModelFile(Section):
    """A device model file: a description, then one ``{ value, source }`` table
    per parameter the file sets (the others keep their defaults)."""

    where = "in a model file"

    description: Text = key("", "What the model is, in a sentence.", "HP 9000 C110")
    type: ModelType = key(None, "What the file models, where the folder it is in does not "
                          "say: a target's file is read as the type it gives ('disk', "
                          "'ramdisk' or 'array'), else as the type its keys belong to; "
                          "any other file must give the type it is read as.", "array")


_SOURCE_HELP = ("Where the value comes from: a data sheet, a standard, an assumption (and "
                "why), or 'calibrated on claim X'.")
_SOURCED: dict[str, Any] = {}


def sourced(value: Any, kind: str) -> Any:
    """The type of a model-file key whose value is read as *value*: a table
    ``{ value = ..., source = "..." }``. *kind* names the value's type ("Time")."""
    if kind not in _SOURCED:
        model = create_model(f"Sourced{kind}", __base__=Section,
                             __doc__=f"A {kind.lower()} value and where it comes from.",
                             value=(value, key(help="The value.")),
                             source=(Name, key(help=_SOURCE_HELP)))
        model.where = "in a { value, source } table"
        _SOURCED[kind] = table(model, f'a table {{ value = ..., source = "..." }}, value '
                                      f'{model.expects("value")}')
    return _SOURCED[kind]


def read_model(kind: str, name: str, schema: type[ModelFile],
               directory: Path | None = None) -> tuple[dict[str, Any], dict[str, str]]:
    """Values and sources of model *name* of *kind* (see :func:`model_file`), by the
    keys the file sets, read as *schema* says. Raises ValueError of one line
    naming the file, the key and the value on bad content (the first problem,
    and how many more there are)."""
    path = model_file(kind, name, directory)
    raw = _read_toml(path)
    try:
        model = schema.model_validate(raw)
    except ValidationError as error:
        problems = problems_of(error, schema, raw)
        more = len(problems) - 1
        raise ValueError(problems[0].line(str(path)) + (
            f" (and {more} more problem{'s' if more > 1 else ''})" if more else "")) from None
    if model.type is not None and model.type != MODEL_TYPES.get(kind, kind):
        raise ValueError(f"{path}: type: given {model.type!r}; "
                         f"{MODEL_TYPES.get(kind, kind)!r} (read as "
                         f"{_a(_SINGULAR.get(kind, kind))} model here)")
    given = [name for name in raw if name not in ("description", "type")]  # the file's order
    return ({name: getattr(model, name).value for name in given},
            {name: getattr(model, name).source for name in given})


def _read_toml(path: Path) -> dict[str, Any]:
    """The TOML model file *path*; ValueError of one line if it is not TOML."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"{path}: not a valid TOML model file ({error})") from None


_SAID_WITH_A_VOWEL = {"SSD"}
"""Initialisms whose spoken first letter starts with a vowel sound ("an SSD")."""


def _a(noun: str) -> str:
    """*noun* with its indefinite article."""
    vowel = noun[0] in "aeiouAEIOU" or noun.split()[0] in _SAID_WITH_A_VOWEL
    return f"{'an' if vowel else 'a'} {noun}"


def model_type(name: str, schemas: dict[str, type[ModelFile]]) -> str:
    """Which of the catalog folders *schemas* (folder: its files' schema) the
    model file *name* (a path ending in .toml) belongs to: the ``type`` it
    declares; else the one whose schema knows most of its keys; on a tie, the
    folder it is in if that is one of them. ValueError of one line naming the
    file, the key ``type``, what it has and the types allowed, otherwise."""
    what = " or ".join(_SINGULAR.get(folder, folder) for folder in schemas)
    path = MODEL_FOLDER.get() / name
    if not path.is_file():
        raise ValueError(f"no {what} model file {str(path)!r}")
    raw = _read_toml(path)
    allowed = "one of " + ", ".join(repr(MODEL_TYPES[folder]) for folder in schemas)
    declared = raw.get("type")
    if declared is not None:
        folder = next((f for f in schemas if MODEL_TYPES[f] == declared), None)
        if folder is None:
            raise ValueError(f"{path}: type: given {declared!r}; {allowed}")
        return folder
    known = {folder: sum(key in schema.model_fields for key in raw if key != "description")
             for folder, schema in schemas.items()}
    best = [folder for folder, n in known.items() if n == max(known.values())]
    if len(best) == 1:
        return best[0]
    if path.parent.name in best:
        return path.parent.name
    names = [_a(_SINGULAR.get(folder, folder)) for folder in best]
    alike = ", ".join(names[:-1]) + " and " + names[-1]
    raise ValueError(f"{path}: type: missing; {allowed}: its keys fit {alike} alike")


def model_name(load: Any, kind: str, folder: str) -> Any:
    """A device model named in a scenario, loaded from the catalog."""
    def read(value: Any) -> Any:
        if not (isinstance(value, str) and value.strip()):
            raise ValueError()
        return load(value)
    return value_type(object, read, f"the name of a {kind} model in {folder} or a model "
                      "file ending in .toml", {"type": "string", "minLength": 1})
