"""IEEE 802.1Q trunks: the tag's 4 bytes cost line time on the trunk only,
VLANs stay apart across it, and the ingress rules drop what a port is not a
member of."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from fcsim.apps.iperf import IperfOptions
from fcsim.apps.netperf import NetperfOptions
from fcsim.engine.simulation import Simulation
from fcsim.ethernet.frame import GAP, EthernetFrame, frame_chars
from fcsim.ethernet.switch import EthernetSwitch, load_ethernet_switch_model
from fcsim.fc0.cable import Cable
from fcsim.fc0.speed import speed_named
from fcsim.host.host_model import load_host_model
from fcsim.runner import run_once, run_scenario
from fcsim.scenario.loader import load_scenario
from fcsim.scenario.model import LinkConfig, NodeConfig, RunConfig, Scenario, SwitchConfig
from fcsim.scenario.workload_model import IperfConfig, NetperfConfig

ROOT = Path(__file__).resolve().parents[2]
GIGE = speed_named("1000BASE-X")
IDEAL = load_host_model("ideal")
FORCE10 = load_ethernet_switch_model("force10-e-series-class")
WARMUP, DURATION = 0.3, 0.6


def _two_switches(workloads: tuple, trunk: tuple[int, ...] = (10, 20)) -> Scenario:
    """a1 (VLAN 10) and a2 (VLAN 20) on sw1, b1 and b2 on sw2, a trunk between."""
    nodes = tuple(NodeConfig(name, host=IDEAL) for name in ("a1", "a2", "b1", "b2"))
    access = tuple(LinkConfig(f"{h}", (h, f"{sw}:{i}"), GIGE, Cable(10.0), vlans=(vlan,))
                   for h, sw, i, vlan in (("a1", "sw1", 0, 10), ("a2", "sw1", 1, 20),
                                          ("b1", "sw2", 0, 10), ("b2", "sw2", 1, 20)))
    trunk_link = LinkConfig("trunk", ("sw1:47", "sw2:47"), GIGE, Cable(100.0), trunk=trunk)
    switches = (SwitchConfig("sw1", FORCE10), SwitchConfig("sw2", FORCE10))
    return Scenario("trunk", "ethernet", RunConfig(DURATION, WARMUP), nodes,
                    access + (trunk_link,), workloads, switches=switches)


class _Frames:
    """Trace sink: the frames each port sends after the warm-up."""

    def __init__(self) -> None:
        self.sent: dict[str, list[EthernetFrame]] = {}

    def frame(self, time: float, port: Any, frame: Any, start: float, end: float) -> None:
        if start >= WARMUP:
            self.sent.setdefault(port.name, []).append(frame)

    def primitive(self, time: float, port: Any, name: str, start: float) -> None:
        """No primitives on Ethernet."""


def test_the_tag_costs_four_bytes_of_line_time_on_the_trunk_only() -> None:
    """One TCP stream across the trunk: full frames of MSS + 40 bytes, untagged
    (MSS + 78 characters with the gap) on the access cables and tagged
    (MSS + 82) on the trunk, which is the bottleneck: its frames follow back to
    back and TCP's goodput is MSS / (MSS + 82) of the gigabit."""
    stream = NetperfConfig("s", "a1", "b1", NetperfOptions(length=10.0), send_sizes=(65536,),
                           sockets=(2**20,))
    sink = _Frames()
    rep = run_once(_two_switches((stream,)), 1, (sink,))
    mss = 1460
    on_trunk = [f for f in sink.sent["sw1:47"] if f.payload == mss + 40]
    assert on_trunk and all(f.tagged and f.vlan == 10 for f in on_trunk)
    assert {frame_chars(f.payload, f.tagged) + GAP for f in on_trunk} == {mss + 82}
    into = [f for f in sink.sent["a1"] if f.payload == mss + 40]
    assert into and not any(f.tagged for f in into)  # the access cable: untagged
    assert {frame_chars(f.payload, f.tagged) + GAP for f in into} == {mss + 78}
    assert not any(f.tagged for f in sink.sent["sw2:0"])  # untagged again to b1
    interval = DURATION - WARMUP
    assert len(on_trunk) == pytest.approx(interval * GIGE.char_rate / (mss + 82), abs=2)
    goodput = len(on_trunk) * mss * 8 / interval
    assert goodput == pytest.approx(mss / (mss + 82) * 1e9, abs=2 * mss * 8 / interval)
    assert rep["switches"]["sw1"]["ingress_drops"] == 0


def test_vlans_stay_apart_across_the_trunk() -> None:
    """a1 (VLAN 10) sends to b2 (VLAN 20): the frames are flooded in VLAN 10 only,
    cross the trunk tagged 10 and reach b1's cable, never b2's; a2 to b2 in
    VLAN 20 arrives whole."""
    apart = IperfConfig("apart", "a1", "b2", IperfOptions(True, bandwidth=50e6, duration=0.55))
    same = IperfConfig("same", "a2", "b2", IperfOptions(True, bandwidth=50e6, duration=0.55))
    sink = _Frames()
    rep = run_once(_two_switches((apart, same)), 1, (sink,))
    assert rep["iperf"]["apart"]["throughput_mbit_s"] == 0
    assert rep["iperf"]["same"]["throughput_mbit_s"] == pytest.approx(50, rel=0.01)
    from_a1 = [f for f in sink.sent["sw1:47"] if f.src == 0x020000000001]
    assert from_a1 and all(f.tagged and f.vlan == 10 for f in from_a1)
    assert any(f.src == 0x020000000001 for f in sink.sent["sw2:0"])  # flooded to b1
    assert not any(f.src == 0x020000000001 for f in sink.sent.get("sw2:1", []))
    assert all(f.vlan == 20 for f in sink.sent["sw1:47"] if f.src == 0x020000000002)


def test_a_tagged_frame_of_another_vlan_is_dropped_at_an_access_port() -> None:
    """IEEE 802.1Q ingress filtering: a frame tagged with a VLAN its port is not
    a member of is discarded; tagged with the access port's own VLAN, or
    untagged, it is forwarded; untagged on a trunk with no native VLAN, dropped."""
    sim = Simulation()
    switch = EthernetSwitch(sim, "sw", dataclasses.replace(FORCE10, latency=0.0),
                            {0: 10, 1: 10, 2: 20}, trunks={3: (None, frozenset({10, 20}))})
    for i in range(4):
        switch.ports[i].peer = switch.ports[(i + 1) % 4]  # cabled, so floods reach them
        switch.ports[i].kick = lambda: None  # type: ignore[method-assign]  # keep the FIFOs
    switch.frame_received(switch.ports[0], EthernetFrame(1, 2, 100, vlan=20, tagged=True))
    assert switch.stats.ingress_drops == 1 and switch.stats.forwarded == 0
    switch.frame_received(switch.ports[0], EthernetFrame(1, 2, 100, vlan=10, tagged=True))
    switch.frame_received(switch.ports[0], EthernetFrame(1, 2, 100))
    assert switch.stats.ingress_drops == 1 and switch.stats.forwarded == 4  # to 1 and 3 each
    switch.frame_received(switch.ports[3], EthernetFrame(5, 2, 100))
    assert switch.stats.ingress_drops == 2
    queued = [frame for frame, _ in switch._queues[3]]
    assert [f.tagged for f in queued] == [True, True] and {f.vlan for f in queued} == {10}
    assert [f.tagged for f, _ in switch._queues[1]] == [False, False]


def test_the_trunk_example_runs_and_shares_the_tagged_gigabit() -> None:
    scenario = load_scenario(ROOT / "scenarios" / "vlan-trunk.toml")
    trunk = next(link for link in scenario.links if link.name == "trunk")
    assert trunk.trunk == (10, 20) and trunk.native_vlan is None
    rep = run_scenario(scenario)["repetitions"][0]
    flows = [rep["iperf"][name]["throughput_mbit_s"] for name in ("vlan10", "vlan20")]
    assert all(flow > 300 for flow in flows)
    assert sum(flows) < 1460 / (1460 + 82) * 1000  # at most the tagged trunk's TCP capacity
    assert rep["switches"]["sw1"]["flooded"] <= 4 and rep["switches"]["sw1"]["ingress_drops"] == 0
