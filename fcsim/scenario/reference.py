"""The reference of scenario and device model files, generated from their typed
models: the JSON Schemas editors read (``docs/scenario.schema.json``,
``docs/host.schema.json``, ...; printed by ``fcsim schema``) and the key tables
of ``docs/scenarios.md`` and ``models/README.md``.

Each of those two is its template ``FILE.in`` with each marker replaced:
``{{doc:MODEL}}`` by the model's docstring, ``{{keys:MODEL}}`` by the table of
its keys and a line per key saying what it means, ``{{keys:MODEL-BASE}}`` by
those of its keys that BASE does not have. ``python -m fcsim.scenario.reference``
rewrites them and the schemas in a checkout; a test fails when one is stale.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import json
import re
import sys
from pathlib import Path
from typing import Any

from pydantic.fields import FieldInfo

from fcsim.catalog import ModelFile
from fcsim.ethernet.switch import EthernetSwitchFile
from fcsim.fabric.switch_model import SwitchFile
from fcsim.host.host_model import AdapterFile, HostFile
from fcsim.myrinet.switch import MyrinetSwitchFile
from fcsim.scenario.sections.document import DOCUMENT
from fcsim.schema.errors import show
from fcsim.schema.section import Section
from fcsim.storage.channel_model import ChannelFile
from fcsim.storage.device_model import (
    ArrayFile,
    DiskFile,
    FlashArrayFile,
    RamDiskFile,
    SsdFile,
)

SCHEMA_BASE = "https://fcsim.example/schemas"
"""Where the published schemas' ``$id`` s point."""
_MARKER = re.compile(r"\{\{(doc|keys):(\w+)(?:-(\w+))?\}\}")


def _tidy(node: Any, names: bool = False) -> Any:
    """*node* of a generated schema without pydantic's generated titles and the
    ``default: null`` of keys that are simply left unset; *names*: *node* maps
    key names (``properties``, ``$defs``) to schemas."""
    if isinstance(node, dict):
        return {k: _tidy(v, k in ("properties", "$defs")) for k, v in node.items()
                if names or not ((k == "title" and isinstance(v, str))
                                 or (k == "default" and v is None))}
    if isinstance(node, list):
        return [_tidy(item) for item in node]
    return node


def _schema(generated: dict[str, Any], name: str, title: str,
            description: str) -> dict[str, Any]:
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": f"{SCHEMA_BASE}/{name}.schema.json", "title": title,
            "description": description, **_tidy(generated)}


def scenario_schema() -> dict[str, Any]:
    """The JSON Schema of scenario files."""
    return _schema(DOCUMENT.json_schema(), "scenario", "fcsim scenario file",
                   "One simulation: topology, nodes, links, traffic and how long to run "
                   "(docs/scenarios.md).")


MODEL_FILES: dict[str, type[ModelFile]] = {"host": HostFile, "adapter": AdapterFile,
                                          "switch": SwitchFile, "disk": DiskFile,
                                          "ramdisk": RamDiskFile, "array": ArrayFile,
                                          "ssd": SsdFile, "flash-array": FlashArrayFile,
                                          "ethernet-switch": EthernetSwitchFile,
                                          "disk-channel": ChannelFile,
                                          "myrinet-switch": MyrinetSwitchFile}
"""Each kind of device model file (``models/<kind>s/``) and its model."""


def model_schema(kind: str) -> dict[str, Any]:
    """The JSON Schema of the device model files of *kind* (a key of :data:`MODEL_FILES`)."""
    model = MODEL_FILES[kind]
    return _schema(model.model_json_schema(), kind, f"fcsim {kind} model file",
                   inspect.cleandoc(model.__doc__ or ""))


SCHEMAS = {"scenario": scenario_schema, **{kind: functools.partial(model_schema, kind)
                                           for kind in MODEL_FILES}}
"""Every published schema by name: ``docs/<name>.schema.json``."""


def schema_text(schema: dict[str, Any]) -> str:
    """*schema* as the committed file holds it."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


# -- markdown -------------------------------------------------------------------------------


def _models() -> dict[str, type[Section]]:
    found: dict[str, type[Section]] = {}
    todo = [Section]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            found[sub.__name__] = sub
            todo.append(sub)
    return found


def _kind(schema: dict[str, Any]) -> str:
    """The TOML type of a key from its schema."""
    if "anyOf" in schema:
        return " or ".join(dict.fromkeys(_kind(s) for s in schema["anyOf"]))
    if "oneOf" in schema or "$ref" in schema or "allOf" in schema:
        return "table"
    if "enum" in schema and "type" not in schema:
        return "integer" if all(isinstance(v, int) for v in schema["enum"]) else "string"
    kind = schema.get("type", "")
    if isinstance(kind, list):
        return " or ".join(_kind({"type": k}) for k in kind)
    if kind == "array":
        items = _kind(schema.get("items", {})).split(" or ")
        return "array of " + " or ".join(f"{item}s" for item in items)
    return {"object": "table", "": "value"}.get(kind, kind)


def _allowed(model: type[Section], key: str, schema: dict[str, Any]) -> str:
    """What *key* accepts: its text, or the one value it takes."""
    if model.expects(key):
        return model.expects(key)
    return repr(schema["const"]) if "const" in schema else ""


def _default(model: type[Section], name: str, info: FieldInfo) -> str:
    if info.is_required():
        return "required"
    default = info.default
    if default is None and model.defaults_from is not None:
        default = {f.name: f.default for f in dataclasses.fields(model.defaults_from)}.get(name)
    if default is None:
        return "not set"
    if isinstance(default, list) and not default:
        return "none"
    return f"`{show(default).replace(chr(39), chr(34))}`"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def keys_table(model: type[Section], without: type[Section] | None = None) -> str:
    """The markdown table of *model*'s keys (those *without* lacks) and what each means."""
    schema = model.model_json_schema(ref_template="#/$defs/{model}")["properties"]
    skip = set(without.model_fields) if without else set()
    rows = ["| key | type | default | allowed | example |", "|---|---|---|---|---|"]
    notes = []
    for name, info in model.model_fields.items():
        if name in skip:
            continue
        key = info.alias or name
        example = (f"`{key} = {show(info.examples[0], None).replace(chr(39), chr(34))}`"
                   if info.examples else "")
        rows.append(f"| `{key}` | {_kind(schema[key])} | {_cell(_default(model, name, info))} | "
                    f"{_cell(_allowed(model, key, schema[key]))} | {_cell(example)} |")
        if info.description:
            notes.append(f"- `{key}`: {info.description}")
    return "\n".join(rows + [""] + notes)


def render(template: str) -> str:
    """*template* with its markers replaced (see the module's docstring)."""
    models = _models()

    def replace(match: re.Match[str]) -> str:
        what, name, base = match.groups()
        if name not in models or (base and base not in models):
            raise ValueError(f"unknown model in marker {match[0]}")
        if what == "doc":
            return inspect.cleandoc(models[name].__doc__ or "")
        return keys_table(models[name], models[base] if base else None)
    return _MARKER.sub(replace, template)


GENERATED = ("docs/scenarios.md", "models/README.md")
"""The files generated from a template ``FILE.in`` beside them."""


def main(root: Path) -> None:
    """Rewrite the :data:`GENERATED` files and ``docs/<name>.schema.json`` under *root*."""
    for name in GENERATED:
        template = (root / f"{name}.in").read_text(encoding="utf-8")
        (root / name).write_text(render(template), encoding="utf-8")
    for name, schema in SCHEMAS.items():
        (root / "docs" / f"{name}.schema.json").write_text(schema_text(schema()),
                                                           encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd())
