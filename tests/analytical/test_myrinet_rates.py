"""Myrinet on the shared link machinery against closed forms: line rates,
packets on the line, a saturated stream between two NICs (back to back and
through a switch), cut-through latency, TCP goodput between ideal hosts,
the PCI bus of a LANai 4 host, and receive checksum offload."""

from __future__ import annotations

import dataclasses

import pytest

from fcsim.apps.iperf import IperfOptions
from fcsim.apps.netperf import NetperfOptions
from fcsim.engine.simulation import Simulation
from fcsim.fc0.cable import Cable
from fcsim.fc0.speed import Speed, speed_named
from fcsim.host.host_model import load_host_model
from fcsim.link.link import Link
from fcsim.myrinet.nic import MyrinetNic
from fcsim.myrinet.packet import TYPE, packet_chars
from fcsim.myrinet.switch import MyrinetSwitch, MyrinetSwitchModel, load_myrinet_switch_model
from fcsim.runner import run_scenario
from fcsim.scenario.model import LinkConfig, NodeConfig, RunConfig, Scenario, SwitchConfig
from fcsim.scenario.workload_model import IperfConfig, NetperfConfig
from fcsim.transport.tcp_config import TcpConfig

M1280 = speed_named("Myrinet-1280")
M2000 = speed_named("Myrinet-2000")
IDEAL = load_host_model("ideal")
SW8 = load_myrinet_switch_model("m2f-sw8")


def test_line_rates_and_packets_on_the_line() -> None:
    assert M1280.char_time == pytest.approx(6.25e-9)  # 160 MB/s: 1.28 Gbit/s of data
    assert M1280.char_rate * 8 == pytest.approx(1.28e9)
    assert M2000.char_time == pytest.approx(4e-9)  # 8b/10b at 2.5 Gbaud: 2 Gbit/s
    assert packet_chars(8232, 0) == 8232 + 4 + 1 + 1  # type, CRC, GAP
    assert packet_chars(8232, 2) == 8232 + 2 + 6  # and a route byte per switch to come


def _stream(sim: Simulation, speed: Speed, payload: int, length: float,
            model: MyrinetSwitchModel | None) -> tuple[MyrinetNic, list[float]]:
    """NIC a sending *payload*-byte packets back to back to NIC b, cabled straight
    or through one switch of *model*; returns a and the times b got each packet."""
    a, b = MyrinetNic(sim, "a", 1), MyrinetNic(sim, "b", 2)
    if model is None:
        Link("l", a.port, b.port, speed, Cable(length))
        a.routes[2] = ()
    else:
        switch = MyrinetSwitch(sim, "sw", model)
        Link("l0", a.port, switch.ports[0], speed, Cable(length))
        Link("l1", switch.ports[1], b.port, speed, Cable(length))
        a.routes[2] = (1,)
    got: list[float] = []
    b.deliver = lambda packet: got.append(sim.now)
    sent = a.sent

    def refill(port, segment) -> None:  # keep the transmit queue from running dry
        sent(port, segment)
        while a.queue.held < 4:
            a.send(2, payload, None)
    a.sent = refill  # type: ignore[method-assign]
    for _ in range(4):
        a.send(2, payload, None)
    return a, got


def _rate(got: list[float], payload: int, start: float, end: float) -> float:
    return sum(1 for t in got if start < t <= end) * payload / (end - start)


@pytest.mark.parametrize("payload", [64, 1500, 9000])
@pytest.mark.parametrize("speed", [M1280, M2000], ids=lambda s: s.name)
def test_a_saturated_stream_between_two_nics_is_the_line_less_each_packets_overhead(
        payload: int, speed: Speed) -> None:
    """Back to back on one cable: payload / (payload + 6) of the line (type 4,
    CRC 1, GAP 1). The packets counted in an interval can be one off what the
    rate gives, so the tolerance is one packet's payload over the interval."""
    sim = Simulation(1)
    _, got = _stream(sim, speed, payload, 10.0, None)
    start, end = 1e-4, 2e-3
    sim.run(end)
    expected = speed.char_rate * payload / (payload + 6)
    assert _rate(got, payload, start, end) == pytest.approx(
        expected, abs=payload / (end - start))


@pytest.mark.parametrize("latency", [0.0, 150e-9, 1e-6])
@pytest.mark.parametrize("length", [1.0, 14.0])
def test_through_a_switch_each_packet_waits_for_its_route(latency: float,
                                                          length: float) -> None:
    """Through one switch the output idles while the next packet's route byte
    is read and routed: it is read once the packet before has left the input
    (the slack buffer is first in first out), so the output sends each packet
    of payload + 6 characters and then waits max(1 character, routing latency).
    The sender is stopped and let go meanwhile, without the output running dry
    (the GO mark covers the cable's round trip)."""
    sim = Simulation(1)
    model = dataclasses.replace(SW8, latency=latency)
    payload = 1500
    a, got = _stream(sim, M1280, payload, length, model)
    start, end = 1e-4, 3e-3
    sim.run(end)
    wait = max(1.0, latency / M1280.char_time)
    expected = M1280.char_rate * payload / (payload + 6 + wait)
    assert _rate(got, payload, start, end) == pytest.approx(
        expected, abs=payload / (end - start))
    if latency > M1280.char_time:  # the input fills while the next packet is routed
        assert a.port.stats.stops_rx > 0


def test_cut_through_adds_the_route_byte_and_the_routing_latency() -> None:
    """One packet through a switch arrives (1 character + latency) after one
    sent over the same length of cable straight, whatever its size: the
    switch does not wait for the packet to be whole."""
    arrivals = {}
    for size in (100, 8000):
        for through in (False, True):
            sim = Simulation(1)
            a, b = MyrinetNic(sim, "a", 1), MyrinetNic(sim, "b", 2)
            if through:
                switch = MyrinetSwitch(sim, "sw", SW8)
                Link("l0", a.port, switch.ports[0], M1280, Cable(5.0))
                Link("l1", switch.ports[3], b.port, M1280, Cable(5.0))
                a.routes[2] = (3,)
            else:
                Link("l", a.port, b.port, M1280, Cable(10.0))
                a.routes[2] = ()
            got: list[float] = []
            b.deliver = lambda packet, got=got, sim=sim: got.append(sim.now)
            a.send(2, size, None)
            sim.run(1e-3)
            arrivals[size, through] = got[0]
        straight = arrivals[size, False]
        assert straight == pytest.approx((size + 6) * M1280.char_time + 10 * 5e-9)
        assert arrivals[size, True] - straight == pytest.approx(
            M1280.char_time + SW8.latency)


def _hosts(n: int, host=IDEAL, mtu: int = 9000) -> tuple[NodeConfig, ...]:
    return tuple(NodeConfig(f"h{i + 1}", host=host, mtu=mtu) for i in range(n))


def _run(nodes, links, workloads, duration: float, warmup: float, switches=()) -> dict:
    scenario = Scenario("myri", "myrinet", RunConfig(duration, warmup), nodes, links,
                        workloads, switches=switches)
    return run_scenario(scenario)["repetitions"][0]


def _star(n: int, length: float = 3.0) -> tuple[LinkConfig, ...]:
    return tuple(LinkConfig(f"l{i}", (f"h{i + 1}", f"sw:{i}"), M1280, Cable(length))
                 for i in range(n))


@pytest.mark.parametrize("mtu", [1500, 9000, 32768])
@pytest.mark.parametrize("switched", [False, True])
def test_tcp_goodput_between_ideal_hosts_is_the_line_less_each_packets_overhead(
        mtu: int, switched: bool) -> None:
    """TCP between two ideal hosts: MSS / (MSS + 40 + 6) of 1.28 Gbit/s on one
    cable; through a switch, 24 characters more per packet (its 150 ns
    routing latency at 6.25 ns a character)."""
    test = NetperfConfig("tcp", "h1", "h2", NetperfOptions(length=10.0),
                         send_sizes=(65536,), sockets=(2**21,))
    if switched:
        links, switches = _star(2), (SwitchConfig("sw", SW8),)
    else:
        links, switches = (LinkConfig("l0", ("h1", "h2"), M1280, Cable(3.0)),), ()
    rep = _run(_hosts(2, mtu=mtu), links, (test,), 0.6, 0.3, switches)
    frames = rep["links"]["l0"]["directions"]["h1->sw:0" if switched else "h1->h2"]["frames"]
    mss = TcpConfig(sndbuf=2**21, rcvbuf=2**21, mtu=mtu).interface_mss
    extra = 24 if switched else 0
    goodput = frames * mss * 8 / 0.3
    assert goodput == pytest.approx(mss / (mss + 40 + 6 + extra) * 1.28e9, rel=0.005)


def test_a_lanai4_host_is_limited_by_its_pci_bus_not_the_link() -> None:
    """The fact sheet's point: the LANai 4.1 card's 32-bit 33 MHz PCI (120 MB/s
    sustained here) is slower than the 160 MB/s link. With processors that
    cost nothing, the sender's bus is busy all the time and the link is not."""
    host = load_host_model("ideal-lanai41")
    test = NetperfConfig("tcp", "h1", "h2", NetperfOptions(length=10.0),
                         send_sizes=(65536,), sockets=(2**20,))
    rep = _run(_hosts(2, host), _star(2), (test,), 0.6, 0.3, (SwitchConfig("sw", SW8),))
    assert rep["hosts"]["h1"]["bus_utilisation"] > 0.99
    link = rep["links"]["l0"]["directions"]["h1->sw:0"]
    assert link["utilisation"] < 0.75 and link["stops"] == 0
    mss = 8192  # each data packet costs its DMA over the bus, plus an ACK's per two
    per_packet = 2 * host.bus_overhead + (mss + 40 + 40 / 2) / host.bus_bandwidth
    assert link["frames"] * per_packet == pytest.approx(0.3, rel=0.02)


@pytest.mark.parametrize("offload", [False, True])
def test_receive_checksum_offload_spares_the_receiver_only(offload: bool) -> None:
    """With receive checksum offload (LANai 5 and later under Trapeze/IP) the
    receiving processor spends nothing on checksums; the sender still does."""
    host = dataclasses.replace(IDEAL, name="h", checksum_per_byte=1e-9,
                               receive_checksum_offload=offload)
    links = (LinkConfig("l0", ("h1", "h2"), M1280, Cable(3.0)),)
    test = IperfConfig("udp", "h1", "h2", IperfOptions(True, bandwidth=100e6, duration=0.2))
    rep = _run(_hosts(2, host), links, (test,), 0.25, 0.0)
    datagrams = rep["nodes"]["h2"]["packets_rx"]
    checksums = datagrams * (1470 + 8) * 1e-9
    received = rep["hosts"]["h2"]["cpu_utilisation"] * 0.25
    sent = rep["hosts"]["h1"]["cpu_utilisation"] * 0.25
    assert received == pytest.approx(0.0 if offload else checksums, rel=0.01, abs=1e-9)
    assert sent == pytest.approx(rep["nodes"]["h1"]["packets_tx"] * (1470 + 8) * 1e-9,
                                 rel=0.01)



def test_a_nic_tells_of_a_packet_as_it_begins_and_counts_its_bytes_in() -> None:
    """A packet sent over a cable to a NIC: the NIC is told of it when its first
    character reaches it (one cable delay after the sender starts), then its
    payload comes in at the line rate behind its 4-byte type, until it is all
    in when it is delivered (its CRC and GAP last)."""
    sim = Simulation(1)
    a, b = MyrinetNic(sim, "a", 1), MyrinetNic(sim, "b", 2)
    Link("l", a.port, b.port, M1280, Cable(10.0))
    a.routes[2] = ()
    tau, payload = M1280.char_time, 2000
    heads: list[float] = []
    seen: dict[float, int] = {}
    got: list[float] = []

    def arriving(packet) -> None:
        heads.append(sim.now)
        for k in (0.5, 3.5, 4.5, 1000.5, 2003.5, 2004.5):
            sim.call_later(k * tau, lambda _e, k=k: seen.__setitem__(k, b.received(packet)))
    b.on_arriving = arriving
    b.deliver = lambda packet: got.append(sim.now)
    a.send(2, payload, None)
    sim.run(1e-3)
    assert heads == [pytest.approx(10 * 5e-9, abs=1e-15)]
    assert seen == {k: max(0, min(payload, int(k) - TYPE)) for k in seen}
    assert got == [pytest.approx(heads[0] + packet_chars(payload) * tau, abs=1e-15)]
