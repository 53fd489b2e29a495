"""Generated scenario files, fault schedules included, fed to the loader and
the command line (hypothesis): documents are built from the published JSON
Schema (each table's keys at their examples, left out where they may be)
with faults aimed at the document's own links, ports and switches, then
corrupted (a wrong type, a bad unit, an unknown key, an extreme value). Each
one is either read (and run, when short) or refused in one line per
problem; never a traceback."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fcsim.cli import main
from fcsim.faults.checks import KINDS_OF, NEEDS, TAKES, TARGETS
from fcsim.scenario.loader import ScenarioError, scenario_from_document
from fcsim.scenario.reference import scenario_schema

SCHEMA = scenario_schema()
NODE_KEYS = {"bb_credit", "rx_data_field", "ee_credit", "classes", "concurrent_sequences",
             "busy_retry", "e_d_tov", "rx_frame_time", "login_credit", "fairness",
             "repeat_delay"}
"""The node keys whose examples need no other key (a host, a target, disks)."""
TOPOLOGIES = {"point-to-point": "PointToPointScenario", "fabric": "FabricScenario",
              "loop": "LoopScenario"}


def _ref(schema: dict[str, Any]) -> dict[str, Any]:
    """*schema* with a ``$ref`` (or an ``allOf`` of one) resolved."""
    if "allOf" in schema and len(schema["allOf"]) == 1:
        schema = schema["allOf"][0]
    if "$ref" in schema:
        return SCHEMA["$defs"][schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def _item_model(schema: dict[str, Any], name: str) -> dict[str, Any] | None:
    """The table model of an array of tables (the first choice of a union)."""
    items = schema.get("items")
    if not isinstance(items, dict):
        return None
    for option in items.get("oneOf", items.get("anyOf", [items])):
        resolved = _ref(option)
        if "properties" in resolved:
            return resolved
    return None


@st.composite
def tables(draw: st.DrawFn, model: dict[str, Any],
           only: set[str] | None = None) -> dict[str, Any]:
    """A table of *model*: its required keys, and each other key (of *only*)
    or not, at its example (a key with none, and not required, is left out)."""
    out = {}
    required = set(model.get("required", []))
    for key, schema in model["properties"].items():
        if only is not None and key not in only and key not in required:
            continue
        schema = _ref(schema) if "examples" not in schema else schema
        if "examples" in schema and (key in required or draw(st.booleans())):
            out[key] = schema["examples"][0]
        elif "const" in schema:
            out[key] = schema["const"]
    return out


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    """A scenario of a Fibre Channel topology from the schema, with faults."""
    topology = draw(st.sampled_from(sorted(TOPOLOGIES)))
    model = SCHEMA["$defs"][TOPOLOGIES[topology]]
    doc: dict[str, Any] = {"topology": topology, "run": {"duration": "1 ms"}}
    nodes = [f"n{i}" for i in range(draw(st.integers(2, 3)))]
    node = _item_model(model["properties"]["nodes"], "nodes")
    doc["nodes"] = [{**draw(tables(node, NODE_KEYS)), "name": n} for n in nodes]
    doc["workloads"] = [{"type": "stream", "from": nodes[0], "to": nodes[1], "size": "8 KiB",
                         "class": draw(st.sampled_from([2, 3]))}]
    if topology == "loop":
        doc["loop"] = {**draw(tables(_ref(model["properties"]["loop"]))), "order": nodes}
        targets = {"port": nodes}
    else:
        links = _item_model(model["properties"]["links"], "links")
        if topology == "fabric":
            doc["switches"] = [{"name": "sw", "model": "generic-nonblocking"}]
            ends = [[n, f"sw:{i}"] for i, n in enumerate(nodes)]
        else:
            ends = [nodes[:2]]
            doc["nodes"] = doc["nodes"][:2]
        doc["links"] = [{**draw(tables(links)), "name": f"l{i}", "ends": e,
                         "length": "10 m"} for i, e in enumerate(ends)]
        targets = {"link": [f"l{i}" for i in range(len(ends))], "port": nodes[:2],
                   "switch": ["sw"]}
    fault = _item_model(SCHEMA["$defs"]["FabricScenario"]["properties"]["faults"], "faults")
    examples = {key: schema.get("examples", [None])[0]
                for key, schema in fault["properties"].items()}
    doc["faults"] = []
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(KINDS_OF[topology]))
        entry: dict[str, Any] = {"at": f"{draw(st.integers(0, 900))} us", "kind": kind}
        extra = NEEDS.get(kind) or draw(st.sampled_from([None, *TAKES]))
        if extra is not None and (kind in TAKES[extra] or draw(st.booleans())):
            entry[extra] = examples[extra] if extra != "duration" else "200 us"
        accepted = [k for k in TARGETS[kind] if k in targets] or sorted(targets)
        key = draw(st.sampled_from(accepted))
        entry[key] = draw(st.sampled_from(targets[key]))
        doc["faults"].append(entry)
    return doc


def _corrupt(draw: st.DrawFn, doc: dict[str, Any]) -> None:
    """Corrupt one key of *doc* in place: a wrong type, a bad unit, an unknown
    key or an extreme value."""
    spots = [(doc, k) for k in doc] + [(t, k) for v in doc.values() if isinstance(v, dict)
                                       for t in [v] for k in t]
    spots += [(t, k) for v in doc.values() if isinstance(v, list)
              for t in v if isinstance(t, dict) for k in t]
    where, key = draw(st.sampled_from(spots))
    value = where[key]
    how = draw(st.sampled_from(["type", "unit", "unknown", "extreme"]))
    if how == "type":
        where[key] = "yes" if isinstance(value, bool | int | float) else True
    elif how == "unit" and isinstance(value, str) and value[:1].isdigit():
        where[key] = value.split()[0] + " furlongs"
    elif how == "unknown":
        where["colour"] = "red"
    else:
        where[key] = draw(st.sampled_from([-10**12, 10**12, 1e308, -1e-308, 0, "", [],
                                            "1e999 s", "-5 ms"]))


def toml(value: Any) -> str:
    """*value* as a TOML value (inline tables and arrays)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return ("nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
                if math.isinf(value) else repr(value))
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml(v) for v in value) + "]"
    return "{" + ", ".join(f"{json.dumps(k)} = {toml(v)}" for k, v in value.items()) + "}"


SETTINGS = settings(max_examples=120, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SETTINGS
@given(documents(), st.data())
def test_the_loader_reads_or_refuses_every_generated_file(doc: dict[str, Any],
                                                           data: st.DataObject) -> None:
    if data.draw(st.booleans()):
        _corrupt(data.draw, doc)
    try:
        scenario_from_document(doc, "fuzz.toml")
    except ScenarioError as error:
        assert all(line.startswith("fuzz.toml: ") for line in str(error).splitlines())


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(documents(), st.data())
def test_the_command_line_runs_or_refuses_every_generated_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], doc: dict[str, Any],
        data: st.DataObject) -> None:
    if data.draw(st.booleans()):
        _corrupt(data.draw, doc)
    path = tmp_path / "fuzz.toml"
    path.write_text("\n".join(f"{json.dumps(k)} = {toml(v)}" for k, v in doc.items()) + "\n",
                    encoding="utf-8")
    capsys.readouterr()
    status = main(["run", str(path), "--json"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    if status == 0:
        assert json.loads(out)["repetitions"]
    else:
        assert status == 2 and err.strip()
        assert all(line.startswith("fcsim: error: ") for line in err.splitlines()), err
