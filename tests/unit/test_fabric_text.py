"""The tests' scenario text (tests/fabric_text.py): each value reads back as
itself in TOML, and a fabric's text reads as the scenario it describes."""

from __future__ import annotations

import tomllib

from hypothesis import given
from hypothesis import strategies as st

from fcsim.scenario.loader import scenario_from_document
from tests.fabric_text import one_switch_fabric, point_to_point, stream, toml_value

SCALARS = (st.text() | st.integers(-2**63, 2**63 - 1) | st.booleans()
           | st.floats(allow_nan=False, allow_infinity=False))


@given(st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.from_regex(r"[a-z_]{1,8}", fullmatch=True), inner,
                                      max_size=4), max_leaves=12))
def test_every_value_reads_back_as_itself(value: object) -> None:
    assert tomllib.loads(f"x = {toml_value(value)}")["x"] == value


@given(st.floats(min_value=1e-300, max_value=1e300))
def test_a_float_is_written_without_a_zero_led_exponent(value: float) -> None:
    text = toml_value(value)
    assert tomllib.loads(f"x = {text}")["x"] == value
    assert "e-0" not in text and "e+0" not in text


def test_a_one_switch_fabric_puts_each_node_on_its_own_port() -> None:
    text = one_switch_fabric(("a", "b", "c"), "2 ms", "4GFC", seed=7) + stream(
        "s", "a", "c", **{"class": 2}, size="64 KiB")
    scenario = scenario_from_document(tomllib.loads(text), "t.toml")
    assert scenario.topology == "fabric" and scenario.run.duration == 2e-3
    assert scenario.run.seed == 7
    assert [s.name for s in scenario.switches] == ["sw"]
    assert [link.ends for link in scenario.links] == [("a", "sw:0"), ("b", "sw:1"),
                                                      ("c", "sw:2")]
    (job,) = scenario.workloads
    assert (job.source, job.destination, job.cls, job.size) == ("a", "c", 2, 65536)


def test_a_point_to_point_link_joins_its_two_nodes() -> None:
    scenario = scenario_from_document(
        tomllib.loads(point_to_point("1 ms", "2GFC", name="fibre")), "t.toml")
    assert scenario.topology == "point-to-point" and [n.name for n in scenario.nodes] == [
        "a", "b"]
    (link,) = scenario.links
    assert link.name == "fibre" and link.ends == ("a", "b") and link.speed.name == "2GFC"
