"""How evenly equal-cost groups carry their load, in the JSON results, the
summary and the HTML report (docs/results.md, ``routing``)."""

from __future__ import annotations

import dataclasses

import pytest

from fcsim.fabric.routing import balance
from fcsim.fabric.switch_model import load_switch_model
from fcsim.report import summary_text
from fcsim.run_report import _groups
from fcsim.runner import run_scenario
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import fabric

PORT_BASED = dataclasses.replace(load_switch_model("generic-nonblocking"), routing="port-based")


def test_balance_of_even_and_uneven_loads() -> None:
    assert balance([0.5, 0.5, 0.5]) == {"min": 0.5, "mean": 0.5, "max": 0.5,
                                        "max_over_mean": 1.0, "cv": 0.0}
    one_of_two = balance([0.9, 0.0])  # mean 0.45, deviations ±0.45
    assert one_of_two["max_over_mean"] == pytest.approx(2.0)
    assert one_of_two["cv"] == pytest.approx(1.0)
    assert balance([0.0, 0.0])["max_over_mean"] == 1.0


@pytest.fixture(scope="module")
def result() -> dict:
    """Two switches joined by two ISLs, port-based: the N_Ports on ports 0 and
    2 both go by ISL 0 (port mod 2), ISL 1 stays idle."""
    nodes = {"h0": "s1:0", "h2": "s1:2", "d0": "s2:0", "d2": "s2:2"}
    streams = (StreamConfig("a", "h0", "d0", 2048, outstanding=2),
               StreamConfig("b", "h2", "d2", 2048, outstanding=2))
    return run_scenario(fabric(nodes, streams, duration=0.004, warmup=0.001,
                               switches={"s1": PORT_BASED, "s2": PORT_BASED},
                               isls=(("s1:20", "s2:20"), ("s1:21", "s2:21"))))


def test_the_json_has_each_group_and_its_balance(result: dict) -> None:
    first = result["repetitions"][0]
    routing = first["routing"]
    assert routing["policies"] == {"s1": "port-based", "s2": "port-based"}
    (group,) = [g for g in routing["groups"] if g["switch"] == "s1"]
    assert group["domains"] == [2] and [m["isl"] for m in group["isls"]] == ["isl0", "isl1"]
    busy, idle = (first["links"][name]["directions"][f"s1:{port}->s2:{port}"]["utilisation"]
                  for name, port in (("isl0", 20), ("isl1", 21)))
    assert busy > 0.95 and idle == 0.0
    assert [m["utilisation"] for m in group["isls"]] == [busy, idle]
    assert group["balance"]["max_over_mean"] == pytest.approx(2.0)
    assert group["balance"]["cv"] == pytest.approx(1.0)
    assert [m["share"] for m in group["isls"]] == pytest.approx([2.0, 0.0])


def test_the_summary_and_the_page_show_the_groups(result: dict) -> None:
    text = summary_text(result)
    assert "equal-cost groups (first repetition)" in text
    assert "s1 (port-based) to domain 2 over 2 ISLs" in text and "max/mean 2.00, cv 1.00" in text
    table = _groups(result)
    assert "<h2>Equal-cost groups</h2>" in table and "<td>2.00</td>" in table
