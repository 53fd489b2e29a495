"""Myrinet scenario files: the example loads and its routes are built; bad ones
are refused in one line naming the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from fcsim.engine.simulation import Simulation
from fcsim.myrinet.build import build_myrinet
from fcsim.scenario.loader import ScenarioError, load_scenario

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = (ROOT / "scenarios" / "myrinet-two-hosts.toml").read_text(encoding="utf-8")
LAST_LINK = 'speed = "Myrinet-1280"\nlength = "3 m"\n\n[[workloads]]'


def test_the_example_loads_and_each_nic_gets_its_route() -> None:
    scenario = load_scenario(ROOT / "scenarios" / "myrinet-two-hosts.toml")
    assert {n.mtu for n in scenario.nodes} == {9000}
    assert {n.host.adapter for n in scenario.nodes} == {"lanai41-m2f-pci32"}
    (switch,) = scenario.switches
    assert (switch.model.ports, switch.model.slack, switch.model.stop, switch.model.go) == (
        8, 80, 56, 40)
    net = build_myrinet(Simulation(1), scenario)
    assert net.nodes["h1"].routes == {2: (1,)} and net.nodes["h2"].routes == {1: (0,)}


def test_routes_through_several_switches_take_the_shortest_path(tmp_path: Path) -> None:
    """A chain of three switches with a host on each end: one route byte per
    switch, naming the port towards the destination."""
    text = EXAMPLE.replace(LAST_LINK, LAST_LINK.replace("\n\n[[workloads]]", "") + """

[[switches]]
name = "mid"
model = "m2f-sw8"

[[switches]]
name = "far"
model = "m2f-sw8"

[[links]]
ends = ["sw:7", "mid:2"]
speed = "Myrinet-1280"

[[links]]
ends = ["mid:5", "far:3"]
speed = "Myrinet-1280"

[[nodes]]
name = "h3"
host = "ideal"

[[links]]
ends = ["far:6", "h3"]
speed = "Myrinet-1280"

[[workloads]]""")
    path = tmp_path / "chain.toml"
    path.write_text(text, encoding="utf-8")
    net = build_myrinet(Simulation(1), load_scenario(path))
    assert net.nodes["h1"].routes == {2: (1,), 3: (7, 5, 6)}
    assert net.nodes["h3"].routes == {1: (3, 2, 0), 2: (3, 2, 1)}


CASES = {
    "pause on a Myrinet switch": (('model = "m2f-sw8"', 'model = "m2f-sw8"\npause = true'),
                                  "switches[0].pause", "given true",
                                  "no pause on Myrinet: every link has stop/go flow control"),
    "an MTU beyond IP's": (("mtu = 9000", "mtu = 70000"), "nodes[0].mtu", "given 70000",
                           "an integer 68..65535"),
    "an unknown switch model": (('"m2f-sw8"', '"m3-sw32"'), "switches[0].model",
                                "given 'm3-sw32'", "no Myrinet switch model 'm3-sw32'"),
    "a switch port out of range": (('"sw:1"', '"sw:8"'), "links[1].ends[0]", "given 'sw:8'",
                                   "sw:0..7"),
    "a cable longer than the slack covers": (
        (LAST_LINK, LAST_LINK.replace("3 m", "15 m")), "links[1].length", "given '15 m'",
        "at most 14.38 m at this speed and propagation: the slack buffer of sw:1 (80 "
        "characters, STOP at 56)"),
    "two speeds in one network": ((LAST_LINK, LAST_LINK.replace("1280", "2000")),
                                  "links[1].speed", "given 'Myrinet-2000'",
                                  "Myrinet-1280, the speed of links[0]"),
    "an Ethernet speed": ((LAST_LINK, LAST_LINK.replace("Myrinet-1280", "1000BASE-X")),
                          "links[1].speed", "given '1000BASE-X'",
                          "'Myrinet-1280' (1.28 Gbit/s: LANai 4 to 7) or 'Myrinet-2000'"),
    "bit errors": (('length = "3 m"\n\n[[w', 'length = "3 m"\nbit_error_rate = 1e-9\n\n[[w'),
                   "links[1].bit_error_rate", "given 1e-09", "not modelled"),
    "a loop between switches": (
        (LAST_LINK, LAST_LINK.replace("\n\n[[workloads]]", '\n\n[[links]]\nends = ["sw:2", '
                                      '"sw:3"]\nspeed = "Myrinet-1280"\n\n[[workloads]]')),
        "links[2].ends", "given ['sw:2', 'sw:3']", "no loop: routes are shortest paths"),
    "an FC workload": (('type = "netperf"', 'type = "stream"'), "workloads[0].type",
                       "given 'stream'", "one of 'netperf', 'iperf'"),
    "a workload between hosts no route joins": (
        ('[[workloads]]\nname = "stream"\ntype = "netperf"\nfrom = "h1"\nto = "h2"',
         '[[nodes]]\nname = "h3"\nhost = "ideal"\n[[nodes]]\nname = "h4"\nhost = "ideal"\n'
         '[[links]]\nends = ["h3", "h4"]\nspeed = "Myrinet-1280"\n[[workloads]]\n'
         'name = "stream"\ntype = "netperf"\nfrom = "h1"\nto = "h3"'),
        "workloads[0].to", "given 'h3'", "a node the links join to every node in from"),
    "a node cabled twice": (('ends = ["sw:1", "h2"]', 'ends = ["sw:1", "h1"]'),
                            "links[1].ends[1]", "given 'h1'", "an end not already used"),
}


@pytest.mark.parametrize("case", CASES)
def test_bad_myrinet_input_is_one_precise_line(tmp_path: Path, case: str) -> None:
    (old, new), key, given, allowed = CASES[case]
    assert old in EXAMPLE, old
    path = tmp_path / "case.toml"
    path.write_text(EXAMPLE.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    first = str(info.value).splitlines()[0]
    assert first.startswith(f"{path}: {key}: {given}; ") and allowed in first, first
