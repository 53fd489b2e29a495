"""The typed models of scenario files: the published schema and docs are fresh and
accept every example, every problem of a file is reported, and a document with
one corrupted field is refused in a line naming that field."""

from __future__ import annotations

import functools
import json
import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fcsim.cli import main
from fcsim.loop.config import LoopSection
from fcsim.scenario.loader import scenario_from_document
from fcsim.scenario.reference import GENERATED, SCHEMAS, render, scenario_schema, schema_text
from fcsim.scenario.sections.links import LinkSection, SwitchSection
from fcsim.scenario.sections.nodes import FabricNodeSection, LoopNodeSection, NodeSection
from fcsim.scenario.sections.run import RunSection
from fcsim.scenario.sections.workloads import WORKLOADS
from fcsim.schema.errors import MAX_PROBLEMS, ScenarioError
from fcsim.schema.section import Section
from tests.fabric_text import point_to_point

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted(p for p in (ROOT / "scenarios").rglob("*.toml"))
TABLES: list[type[Section]] = [RunSection, NodeSection, FabricNodeSection, LoopNodeSection,
                               LinkSection, SwitchSection, LoopSection, *WORKLOADS.values()]


@pytest.mark.parametrize("name", GENERATED)
def test_the_reference_docs_are_generated_from_the_models(name: str) -> None:
    fresh = render((ROOT / f"{name}.in").read_text(encoding="utf-8"))
    assert (ROOT / name).read_text(encoding="utf-8") == fresh, \
        f"{name} is stale: run python -m fcsim.scenario.reference"


@pytest.mark.parametrize("name", SCHEMAS)
def test_fcsim_schema_prints_the_committed_schema(name: str, capsys) -> None:
    """Run in this process (a new interpreter costs about 2 s of start-up a
    kind); tests/unit/test_outputs.py runs ``python -m fcsim.cli schema``."""
    assert main(["schema", name]) == 0
    out = capsys.readouterr().out
    assert out == schema_text(SCHEMAS[name]())
    assert out == (ROOT / "docs" / f"{name}.schema.json").read_text(encoding="utf-8"), \
        f"docs/{name}.schema.json is stale: run python -m fcsim.scenario.reference"


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_schema_accepts_every_scenario(path: Path) -> None:
    document = tomllib.loads(path.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(scenario_schema()).validate(document)


def test_the_schema_refuses_an_unknown_key_and_a_wrong_type() -> None:
    document = tomllib.loads(SCENARIOS[0].read_text(encoding="utf-8"))
    check = jsonschema.Draft202012Validator(scenario_schema())
    assert check.is_valid(document)
    assert not check.is_valid({**document, "colour": "red"})
    assert not check.is_valid({**document, "run": {"duration": True}})


@functools.cache
def _example(model: type[Section]) -> str:
    properties = model.model_json_schema()["properties"]
    table = {}
    for name, info in model.model_fields.items():
        key = info.alias or name
        table[key] = info.examples[0] if info.examples else properties[key]["const"]
    return json.dumps(table)


def example(model: type[Section]) -> dict[str, Any]:
    """A table of *model* with every key at its example (or the one value it takes)."""
    return json.loads(_example(model))


@pytest.mark.parametrize("model", TABLES, ids=lambda m: m.__name__)
def test_every_key_has_help_and_an_example_that_is_valid(model: type[Section]) -> None:
    for name, info in model.model_fields.items():
        assert info.description, f"{model.__name__}.{name} has no help text"
    model.model_validate(example(model))


# -- every problem at once ----------------------------------------------------------------

GOOD = point_to_point("1 ms")


def problems(document: dict[str, Any]) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        scenario_from_document(document, "case.toml")
    return info.value


def test_every_problem_of_a_file_is_reported_in_file_order() -> None:
    document = tomllib.loads(GOOD)
    document["run"] = {"duration": "0 s", "sed": 1}
    document["links"][0]["lenght"] = "1 km"
    document["nodes"][1]["bb_credit"] = 0
    error = problems(document)
    assert [(p.path, p.problem) for p in error.problems] == [
        ("run.duration", "given '0 s'"), ("run.sed", "unknown key"),
        ("nodes[1].bb_credit", "given 0"), ("links[0].lenght", "unknown key")]
    assert str(error).splitlines()[3] == (
        "case.toml: links[0].lenght: unknown key; did you mean 'length'? allowed keys in "
        "[[links]]: name, ends, speed, coding, length, propagation, bit_error_rate, "
        "bit_error_rates, fec, arb_ff_fill, cost")


def test_checks_across_keys_report_every_problem_too() -> None:
    document = tomllib.loads(GOOD)
    document["links"][0]["ends"] = ["a", "c"]
    document["workloads"] = [{"type": "stream", "from": "x", "to": "b", "size": 1},
                             {"type": "stream", "from": "a", "to": "a", "size": 1}]
    error = problems(document)
    assert [p.path for p in error.problems] == [
        "links[0].ends[1]", "workloads[0].from", "workloads[1].to"]


def test_a_long_list_of_problems_is_cut_and_counted() -> None:
    document = tomllib.loads(GOOD)
    document["run"].update({f"k{i}": i for i in range(MAX_PROBLEMS + 5)})
    error = problems(document)
    lines = str(error).splitlines()
    assert len(error.problems) == MAX_PROBLEMS + 5 and len(lines) == MAX_PROBLEMS + 1
    assert lines[-1] == "case.toml: and 5 more problems"


# -- one corrupted field -------------------------------------------------------------------

_TOPOLOGY_TABLES = {"point-to-point": (NodeSection, None),
                    "fabric": (FabricNodeSection, SwitchSection),
                    "loop": (LoopNodeSection, LoopSection)}


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    """A document whose every value is good (names and ends need not agree: the
    checks across keys come only after every value is good): each key of each
    table left out (if it may be) or at its example."""
    def table(model: type[Section]) -> dict[str, Any]:
        full = example(model)
        return {key: value for key, value in full.items()
                if model.field_for(key).is_required() or draw(st.booleans())}
    topology = draw(st.sampled_from(sorted(_TOPOLOGY_TABLES)))
    node, other = _TOPOLOGY_TABLES[topology]
    document: dict[str, Any] = {"topology": topology, "run": table(RunSection),
                                "nodes": [table(node) for _ in range(draw(st.integers(1, 3)))]}
    if topology == "loop":
        document["loop"] = table(LoopSection)
    else:
        document["links"] = [table(LinkSection) for _ in range(draw(st.integers(1, 2)))]
    if topology == "fabric":
        document["switches"] = [table(SwitchSection)]
    kinds = draw(st.lists(st.sampled_from(sorted(WORKLOADS)), max_size=3))
    if kinds:
        document["workloads"] = [table(WORKLOADS[kind]) for kind in kinds]
    return document


def _leaves(document: dict[str, Any]) -> list[tuple[list[str | int], Any]]:
    """(path, value) of every key of every table, and the tables themselves."""
    out: list[tuple[list[str | int], Any]] = []
    for key, value in document.items():
        out.append(([key], value))
        if isinstance(value, dict):
            out += [([key, k], v) for k, v in value.items()]
        elif isinstance(value, list) and value and isinstance(value[0], dict):
            out += [([key, i, k], v) for i, t in enumerate(value) for k, v in t.items()]
    return out


def _wrong(key: str | int, value: Any, kind: str) -> Any:
    """*value* of *key* corrupted: of another TOML type, with a unit that does not
    exist, or far out of any range."""
    if kind == "type":
        return "yes" if isinstance(value, bool) else True
    quantity = key not in ("name", "description")
    if kind == "unit" and quantity and isinstance(value, str) and value[:1].isdigit():
        return value.split()[0] + " furlongs" if " " in value else value + " furlongs"
    if isinstance(value, int) and not isinstance(value, bool):
        return -10**9
    return {"nested": [1, 2]}


def _path(steps: list[str | int]) -> str:
    text = ""
    for step in steps:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else step)
    return text


@settings(max_examples=300, deadline=None)
@given(documents(), st.data(), st.sampled_from(["type", "unit", "range", "unknown key"]))
def test_one_corrupted_field_is_refused_naming_it(document: dict[str, Any], data: st.DataObject,
                                                  kind: str) -> None:
    leaves = [(p, v) for p, v in _leaves(document) if kind == "unknown key" or
              not isinstance(v, (dict, list)) or p[-1] in ("classes", "ends", "order")]
    steps, value = data.draw(st.sampled_from(leaves))
    where: Any = document
    for step in steps[:-1]:
        where = where[step]
    if kind == "unknown key":
        table = where[steps[-1]] if isinstance(where[steps[-1]], dict) else where
        named = steps if isinstance(where[steps[-1]], dict) else steps[:-1]
        table["colour"] = "red"
        expected = _path([*named, "colour"])
    else:
        where[steps[-1]] = _wrong(steps[-1], value, kind)
        expected = _path(steps)
    with pytest.raises(ScenarioError) as info:
        scenario_from_document(document, "case.toml")
    paths = [p.path for p in info.value.problems]
    assert any(p == expected or p.startswith((expected + ".", expected + "[")) for p in paths), \
        str(info.value)
