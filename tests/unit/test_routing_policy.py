"""Routing policies as scenarios and switch models set them, and the paths of
both directions of a Class 2 exchange (docs/fabrics.md, "Equal-cost paths")."""

from __future__ import annotations

from pathlib import Path

import pytest

from fcsim.build import build_fabric
from fcsim.engine.simulation import Simulation
from fcsim.fabric.routing import next_hops, pick, switch_seed
from fcsim.fabric.switch_model import load_switch_model
from fcsim.runner import run_scenario
from fcsim.scenario.loader import load_scenario
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import assert_refused, fabric
from tests.fabric_text import SWITCH_MODEL, link, nodes, run, switches, table

LISTED = ('topology = "fabric"\ndescription = "two switches, two ISLs"\n' + run("1 ms")
          + table("[[switches]]", {"name": "a", "model": SWITCH_MODEL, "routing": "port-based"})
          + switches("b", model="ancor-fcs-266-16") + nodes("h", "d")
          + link("h", "a:0", "1GFC") + link("d", "b:0", "1GFC")
          + link("a:10", "b:10", "1GFC") + link("a:11", "b:11", "1GFC"))


def test_each_model_file_gives_its_routing_policy_with_a_source() -> None:
    for name, policy in (("generic-nonblocking", "exchange-based"),
                         ("generic-director-256", "exchange-based"),
                         ("ancor-fcs-266-16", "port-based")):
        model = load_switch_model(name)
        assert model.routing == policy
        assert model.sources["routing"]


def test_a_listed_switch_takes_its_routing_key_or_its_models(tmp_path: Path) -> None:
    path = tmp_path / "listed.toml"
    path.write_text(LISTED, encoding="utf-8")
    scenario = load_scenario(path)
    net = build_fabric(Simulation(1), scenario)
    assert net.switches["a"].routing == "port-based"
    assert net.switches["b"].routing == "port-based"  # ancor-fcs-266-16's own
    path.write_text(LISTED.replace('routing = "port-based"', 'routing = "device-based"'),
                    encoding="utf-8")
    assert build_fabric(Simulation(1), load_scenario(path)).switches["a"].routing == (
        "device-based")


def test_a_bad_routing_key_is_refused_in_one_line(tmp_path: Path) -> None:
    assert_refused(tmp_path, LISTED, ('routing = "port-based"', 'routing = "round-robin"'),
                   "switches[0].routing", "given 'round-robin'",
                   "one of 'port-based', 'device-based', 'exchange-based'")


def test_a_model_file_with_a_bad_routing_value_is_refused(tmp_path: Path) -> None:
    text = (Path(__file__).parents[2] / "models/switches/generic-nonblocking.toml").read_text()
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace('value = "exchange-based"', 'value = "spray"'))
    with pytest.raises(ValueError, match=r"routing.*'spray'"):
        load_switch_model(str(bad))


def test_class_2_data_and_acks_each_keep_one_path() -> None:
    """Two Class 2 streams (two exchanges each) between two switches joined by
    four ISLs, exchange-based: the data frames leave switch s1 by exactly the
    ISLs the hash gives (S_ID, D_ID, OX_ID) at s1, and the ACKs (S_ID and D_ID
    swapped, the same OX_ID) leave s2 by exactly those it gives at s2, one ISL
    per exchange and direction; every sequence completes (no frame out of
    order, none lost)."""
    nodes = {f"h{i}": f"s1:{i}" for i in range(2)} | {f"d{i}": f"s2:{i}" for i in range(2)}
    streams = tuple(StreamConfig(f"w{i}", f"h{i}", f"d{i}", 8192, cls=2, outstanding=2)
                    for i in range(2))
    isls = tuple((f"s1:{20 + i}", f"s2:{20 + i}") for i in range(4))
    scenario = fabric(nodes, streams, duration=0.004, switches={"s1": "generic-nonblocking",
                                                                "s2": "generic-nonblocking"},
                      isls=isls, login=False)
    result = run_scenario(scenario)["repetitions"][0]
    table = next_hops(["s1", "s2"], [("s1", "s2", f"isl{i}", 1.0) for i in range(4)])
    data, acks = set(), set()
    for i in range(2):
        s_id, d_id = 1 << 16 | i << 8, 2 << 16 | i << 8
        for ox in range(2):  # each N_Port's first two exchanges
            data.add(pick("exchange-based", table["s1"]["s2"], s_id, d_id, ox,
                          switch_seed(1), None))
            acks.add(pick("exchange-based", table["s2"]["s1"], d_id, s_id, ox,
                          switch_seed(2), None))
    assert len(data) < 4 and len(acks) < 4 and data != acks  # the check can tell them apart
    links = result["links"]
    assert {f"isl{i}" for i in range(4)
            if links[f"isl{i}"]["directions"][f"s1:{20 + i}->s2:{20 + i}"]["frames"]} == data
    assert {f"isl{i}" for i in range(4)
            if links[f"isl{i}"]["directions"][f"s2:{20 + i}->s1:{20 + i}"]["frames"]} == acks
    for w in result["workloads"].values():
        assert w["sequences"] > 10
        assert w["sender"]["rejected"] == w["sender"]["aborted"] == 0
