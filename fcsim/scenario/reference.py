"""The reference of scenario files, generated from their typed models: the JSON
Schema editors read (``docs/scenario.schema.json``, printed by ``fcsim schema``)
and the key tables of ``docs/scenarios.md``.

``docs/scenarios.md`` is ``docs/scenarios.md.in`` with each marker replaced:
``{{doc:MODEL}}`` by the model's docstring, ``{{keys:MODEL}}`` by the table of
its keys and a line per key saying what it means, ``{{keys:MODEL-BASE}}`` by
those of its keys that BASE does not have. ``python -m fcsim.scenario.reference``
rewrites both files in a checkout; a test fails when either is stale.
"""

from __future__ import annotations

import inspect
import json
import re
import sys
from pathlib import Path
from typing import Any

from pydantic.fields import FieldInfo

from fcsim.scenario.errors import show
from fcsim.scenario.sections.base import Section
from fcsim.scenario.sections.document import DOCUMENT

SCHEMA_ID = "https://fcsim.example/scenario.schema.json"
"""The ``$id`` of the scenario schema."""
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


def scenario_schema() -> dict[str, Any]:
    """The JSON Schema of scenario files."""
    schema = _tidy(DOCUMENT.json_schema())
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID,
            "title": "fcsim scenario file",
            "description": "One simulation: topology, nodes, links, traffic and how long to "
                           "run (docs/scenarios.md).", **schema}


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


def _default(info: FieldInfo) -> str:
    if info.is_required():
        return "required"
    if info.default is None:
        return "not set"
    if isinstance(info.default, list) and not info.default:
        return "none"
    return f"`{show(info.default).replace(chr(39), chr(34))}`"


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
        example = (f"`{key} = {show(info.examples[0]).replace(chr(39), chr(34))}`"
                   if info.examples else "")
        rows.append(f"| `{key}` | {_kind(schema[key])} | {_cell(_default(info))} | "
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


def main(root: Path) -> None:
    """Rewrite ``docs/scenarios.md`` and ``docs/scenario.schema.json`` under *root*."""
    docs = root / "docs"
    (docs / "scenarios.md").write_text(
        render((docs / "scenarios.md.in").read_text(encoding="utf-8")), encoding="utf-8")
    (docs / "scenario.schema.json").write_text(schema_text(scenario_schema()),
                                               encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd())
