"""Gigabit Ethernet on the shared link machinery: frame sizes on the line, TCP
goodput from the per-frame overhead, shaped UDP, a switch output
oversubscribed 2:1, and two VLANs bridged by a loop-back cable."""

from __future__ import annotations

import dataclasses

import pytest

from fcsim.apps.iperf import IperfOptions
from fcsim.apps.netperf import NetperfOptions
from fcsim.ethernet.frame import GAP, frame_chars
from fcsim.ethernet.switch import load_ethernet_switch_model
from fcsim.fc0.cable import Cable
from fcsim.fc0.speed import speed_named
from fcsim.host.host_model import load_host_model
from fcsim.runner import run_scenario
from fcsim.scenario.model import LinkConfig, NodeConfig, RunConfig, Scenario, SwitchConfig
from fcsim.scenario.workload_model import IperfConfig, NetperfConfig
from fcsim.transport.tcp_config import TcpConfig

GIGE = speed_named("1000BASE-X")
IDEAL = load_host_model("ideal")


def test_frames_on_the_line() -> None:
    assert frame_chars(1500) + GAP == 1538  # MTU + 38
    assert frame_chars(1500, tagged=True) + GAP == 1542
    assert frame_chars(1) == 8 + 64  # padded to the 64-byte minimum
    assert frame_chars(1, tagged=True) == 8 + 64
    assert GIGE.char_rate == pytest.approx(125e6)  # 1 Gbit/s of data at 1.25 Gbaud


def _hosts(n: int, mtu: int = 1500) -> tuple[NodeConfig, ...]:
    return tuple(NodeConfig(f"h{i + 1}", host=IDEAL, mtu=mtu) for i in range(n))


def _run(nodes, links, workloads, duration: float, warmup: float, switches=()) -> dict:
    scenario = Scenario("eth", "ethernet", RunConfig(duration, warmup), nodes, links,
                        workloads, switches=switches)
    return run_scenario(scenario)["repetitions"][0]


@pytest.mark.parametrize("mtu", [1500, 9000])
def test_tcp_goodput_is_the_line_rate_less_each_frames_overhead(mtu: int) -> None:
    link = LinkConfig("l", ("h1", "h2"), GIGE, Cable(10.0))
    test = NetperfConfig("tcp", "h1", "h2", NetperfOptions(length=10.0),
                         send_sizes=(65536,), sockets=(2**20,))
    rep = _run(_hosts(2, mtu), (link,), (test,), 0.6, 0.3)
    frames = rep["links"]["l"]["directions"]["h1->h2"]["frames"]
    # MTU less 40 bytes of IP and TCP headers, rounded down to whole 2048-byte
    # mbuf clusters above one cluster (4.4BSD tcp_mss()); no options on data segments
    mss = TcpConfig(sndbuf=2**20, rcvbuf=2**20, mtu=mtu).interface_mss
    assert mss == {1500: 1460, 9000: 8192}[mtu]
    goodput = frames * mss * 8 / 0.3
    assert goodput == pytest.approx(mss / (mss + 40 + 38) * 1e9, rel=0.005)


def test_udp_at_a_shaped_rate_arrives_whole() -> None:
    link = LinkConfig("l", ("h1", "h2"), GIGE, Cable(10.0))
    test = IperfConfig("udp", "h1", "h2", IperfOptions(True, bandwidth=300e6, duration=0.4))
    rep = _run(_hosts(2), (link,), (test,), 0.5, 0.0)
    assert rep["iperf"]["udp"]["throughput_mbit_s"] == pytest.approx(300.0, rel=0.01)


def _star(n: int, vlans: tuple[int, ...] = ()) -> tuple[LinkConfig, ...]:
    return tuple(LinkConfig(f"l{i}", (f"h{i + 1}", f"sw:{i}"), GIGE, Cable(10.0),
                            vlans=(vlans[i],) if vlans else ()) for i in range(n))


def test_an_output_oversubscribed_two_to_one_drops_and_tcp_recovers() -> None:
    switch = SwitchConfig("sw", load_ethernet_switch_model("gigabit-workgroup"))
    flows = tuple(IperfConfig(f"f{i}", f"h{i}", "h3", IperfOptions(window=2**19, duration=2.0))
                  for i in (1, 2))
    rep = _run(_hosts(3), _star(3), flows, 1.2, 0.4, (switch,))
    sw = rep["switches"]["sw"]
    assert sw["tail_drops"] > 0
    into = rep["links"]["l2"]["directions"]["sw:2->h3"]
    assert 0 < into["utilisation"] <= 1.0
    assert all(rep["links"][f"l{i}"]["directions"][f"h{i + 1}->sw:{i}"]["frames"] > 1000
               for i in (0, 1))  # both senders still sending after the drops
    assert sw["max_queued_bytes"]["sw:2"] <= switch.model.buffer


def test_a_loop_back_cable_bridges_two_vlans() -> None:
    switch = SwitchConfig("sw", load_ethernet_switch_model("force10-e-series-class"))
    links = _star(4, (10, 10, 20, 20))[::2] + (
        LinkConfig("loopback", ("sw:1", "sw:3"), GIGE, Cable(2.0), vlans=(10, 20)),)
    nodes = tuple(n for n in _hosts(4) if n.name in ("h1", "h3"))
    test = IperfConfig("across", "h1", "h3", IperfOptions(window=2**19, duration=0.5))
    rep = _run(nodes, links, (test,), 0.6, 0.1, (switch,))
    assert rep["iperf"]["across"]["throughput_mbit_s"] > 500
    crossing = rep["links"]["loopback"]["directions"]["sw:1->sw:3"]["frames"]
    assert crossing == pytest.approx(rep["links"]["l0"]["directions"]["h1->sw:0"]["frames"],
                                     abs=2)  # frames on the wire at the interval's edges


def test_pause_never_drops() -> None:
    switch = SwitchConfig("sw", load_ethernet_switch_model("gigabit-workgroup"), pause=True)
    flows = tuple(IperfConfig(f"f{i}", f"h{i}", "h3", IperfOptions(window=2**19, duration=2.0))
                  for i in (1, 2))
    rep = _run(_hosts(3), _star(3), flows, 0.8, 0.2, (switch,))
    sw = rep["switches"]["sw"]
    assert sw["pauses_sent"] > 0 and sw["tail_drops"] == 0
    assert sw["max_queued_bytes"]["sw:2"] <= switch.model.buffer
    into = rep["links"]["l2"]["directions"]["sw:2->h3"]
    assert into["utilisation"] > 0.95  # the paused senders keep the output busy


def test_an_iperf_mesh_reports_its_sum_per_interval_and_the_median() -> None:
    switch = SwitchConfig("sw", load_ethernet_switch_model("force10-e-series-class"))
    links = _star(4, (10, 10, 20, 20)) + (
        LinkConfig("loopback", ("sw:10", "sw:11"), GIGE, Cable(2.0), vlans=(10, 20)),)
    udp = IperfConfig("udp", "h1", "h3", IperfOptions(True, bandwidth=100e6, duration=0.4,
                                                      interval=0.1),
                      mesh_clients=("h1", "h2"), mesh_servers=("h3", "h4"))
    rep = _run(_hosts(4), links, (udp,), 0.5, 0.0, (switch,))
    mesh = rep["iperf"]["udp"]
    assert len(mesh["runs"]) == 4 and mesh["datagrams_lost"] <= 4  # one in flight each at the end
    assert mesh["throughput_mbit_s"] == pytest.approx(400.0, rel=0.01)
    assert len(mesh["intervals_mbit_s"]) == 4
    assert mesh["median_mbit_s"] == pytest.approx(400.0, rel=0.02)
    tcp = IperfConfig("tcp", "h1", "h3", IperfOptions(window=2**18, duration=0.4, interval=0.1),
                      mesh_clients=("h1", "h2"), mesh_servers=("h3", "h4"))
    mesh = _run(_hosts(4), links, (tcp,), 0.5, 0.0, (switch,))["iperf"]["tcp"]
    crossing = 1460 / 1538 * 1000  # every flow crosses the one loop-back cable
    assert mesh["median_mbit_s"] == pytest.approx(crossing, rel=0.02)
    assert mesh["throughput_mbit_s"] < crossing


def test_a_staggered_mesh_reports_a_staircase() -> None:
    """2 x 2 UDP runs at r each, run k starting k x stagger after the first;
    with interval = stagger the mesh's reports climb r, 2r, ... and fall
    back as the runs end after their duration: interval i holds the runs
    started by its start and not yet ended."""
    rate, stagger, duration = 100e6, 0.05, 0.1
    switch = SwitchConfig("sw", load_ethernet_switch_model("force10-e-series-class"))
    udp = IperfConfig("udp", "h1", "h3", IperfOptions(True, bandwidth=rate, duration=duration,
                                                      interval=stagger),
                      mesh_clients=("h1", "h2"), mesh_servers=("h3", "h4"), stagger=stagger)
    mesh = _run(_hosts(4), _star(4), (udp,), 0.3, 0.0, (switch,))["iperf"]["udp"]
    runs = 4
    spans = round((duration + (runs - 1) * stagger) / stagger)
    expected = [rate / 1e6 * sum(1 for k in range(runs)
                                 if k * stagger <= i * stagger < k * stagger + duration)
                for i in range(spans)]
    assert expected == [100, 200, 200, 200, 100]
    assert mesh["intervals_mbit_s"] == pytest.approx(expected, rel=0.01)
    for run in mesh["runs"].values():  # each run reports on its own clock, from its start
        assert run["intervals_mbit_s"] == pytest.approx([rate / 1e6] * 2, rel=0.01)
        assert run["throughput_mbit_s"] == pytest.approx(rate / 1e6, rel=0.01)


def test_a_udp_sender_that_falls_behind_sends_one_datagram_at_a_time() -> None:
    """iperf 2's one sending thread: a sender whose sendto() takes longer than
    the pacing gap sends as fast as its processor lets it, and nothing is lost
    on the way (the old pacing by timer lost what a blocked socket held)."""
    slow = IDEAL.__class__(**{**IDEAL.__dict__, "name": "slow", "syscall": 50e-6})
    nodes = (NodeConfig("h1", host=slow), NodeConfig("h2", host=IDEAL))
    link = LinkConfig("l", ("h1", "h2"), GIGE, Cable(10.0))
    test = IperfConfig("udp", "h1", "h2", IperfOptions(True, bandwidth=500e6, duration=0.2))
    rep = _run(nodes, (link,), (test,), 0.3, 0.0)["iperf"]["udp"]
    assert rep["datagrams_sent"] == pytest.approx(0.2 / 50e-6, rel=0.01)
    assert rep["datagrams_lost"] <= 2  # those on their way at the end
    assert rep["throughput_mbit_s"] == pytest.approx(8 * 1470 / 50e-6 / 1e6, rel=0.01)


@pytest.mark.parametrize("batch", [1, 8])
def test_interrupt_moderation_saves_a_receiver_from_livelock(batch: int) -> None:
    """A receiver whose interrupt costs 20 us takes 81,000 datagrams a second
    of 1470 bytes: one interrupt per frame is more than its processor has, so
    interrupts starve the reading process (receive livelock); with one
    interrupt per 8 frames it keeps up, and its processor time is exactly one
    interrupt per batch and the per-packet work per frame."""
    receiver = IDEAL.__class__(**{**IDEAL.__dict__, "name": "rx", "interrupt": 20e-6,
                                  "tcp_input_per_packet": 2e-6, "rx_coalesce_frames": batch,
                                  "rx_coalesce_time": 150e-6})
    nodes = (NodeConfig("h1", host=IDEAL), NodeConfig("h2", host=receiver))
    link = LinkConfig("l", ("h1", "h2"), GIGE, Cable(10.0))
    test = IperfConfig("udp", "h1", "h2", IperfOptions(True, bandwidth=950e6, duration=0.2))
    rep = _run(nodes, (link,), (test,), 0.25, 0.0)
    got = rep["iperf"]["udp"]["throughput_mbit_s"]
    if batch == 1:
        assert got < 50  # the process hardly ever runs
    else:
        assert got == pytest.approx(950, rel=0.01)
        frames = rep["nodes"]["h2"]["frames_rx"]
        busy = rep["hosts"]["h2"]["cpu_utilisation"] * 0.25
        assert busy == pytest.approx(frames * 2e-6 + frames / 8 * 20e-6, rel=0.01)


def test_cut_through_saves_the_rest_of_each_frame_per_switch() -> None:
    """TCP_RR of 1 byte through one switch: cut-through forwards each frame
    once its preamble and header (22 characters) are in, so each of the two
    frames of a transaction arrives (its length - 22) characters sooner."""
    base = load_ethernet_switch_model("gigabit-workgroup")
    trips = {}
    for cut in (False, True):
        switch = SwitchConfig("sw", dataclasses.replace(base, cut_through=cut))
        test = NetperfConfig("rr", "h1", "h2", NetperfOptions("TCP_RR", length=0.05),
                             send_sizes=(1,), sockets=(65536,))
        rep = _run(_hosts(2), _star(2), (test,), 0.06, 0.0, (switch,))
        trips[cut] = rep["netperf"]["rr"]["round_trip_s"]
    one_byte = frame_chars(1 + 40)  # 41 bytes of IP and TCP, padded to the minimum
    assert trips[False] - trips[True] == pytest.approx(
        2 * (one_byte - 22) * GIGE.char_time, rel=1e-3)


@pytest.mark.parametrize("offload", [False, True])
def test_checksum_offload_takes_the_checksum_off_the_processor(offload: bool) -> None:
    host = IDEAL.__class__(**{**IDEAL.__dict__, "name": "h", "checksum_per_byte": 1e-9,
                              "checksum_offload": offload})
    nodes = (NodeConfig("h1", host=host), NodeConfig("h2", host=host))
    link = LinkConfig("l", ("h1", "h2"), GIGE, Cable(10.0))
    test = IperfConfig("udp", "h1", "h2", IperfOptions(True, bandwidth=100e6, duration=0.2))
    rep = _run(nodes, (link,), (test,), 0.25, 0.0)
    busy = rep["hosts"]["h2"]["cpu_utilisation"] * 0.25
    datagrams = rep["nodes"]["h2"]["frames_rx"]
    assert busy == pytest.approx(0.0 if offload else datagrams * (1470 + 8) * 1e-9, rel=0.01,
                                 abs=1e-9)


def test_a_nic_drops_and_counts_frames_longer_than_its_mtu_takes() -> None:
    """8000-byte UDP datagrams from a 9000-MTU host to a 1500-MTU host on one
    cable: each 8046-byte frame is longer than the 1518 bytes the receiver
    takes (MTU + MAC header + FCS), so it drops every one and counts it as a
    length error (Linux rx_length_errors); nothing is delivered."""
    nodes = (NodeConfig("h1", host=IDEAL, mtu=9000), NodeConfig("h2", host=IDEAL, mtu=1500))
    link = LinkConfig("l", ("h1", "h2"), GIGE, Cable(10.0))
    test = IperfConfig("udp", "h1", "h2", IperfOptions(True, length=8000, bandwidth=100e6,
                                                        duration=0.05))
    rep = _run(nodes, (link,), (test,), 0.06, 0.0)
    sent = rep["links"]["l"]["directions"]["h1->h2"]["frames"]
    assert sent > 0 and frame_chars(8000 + 28) - 8 > 1500 + 14 + 4
    assert rep["nodes"]["h2"]["length_errors"] == sent
    assert rep["nodes"]["h2"]["frames_rx"] == 0
    assert rep["iperf"]["udp"]["throughput_mbit_s"] == 0.0


def test_a_nic_takes_frames_up_to_its_mtu() -> None:
    """Datagrams that just fill a 1500-byte MTU (1472 + 8 UDP + 20 IP) arrive
    from a 9000-MTU sender: the longest frame the receiver takes, none dropped."""
    nodes = (NodeConfig("h1", host=IDEAL, mtu=9000), NodeConfig("h2", host=IDEAL, mtu=1500))
    link = LinkConfig("l", ("h1", "h2"), GIGE, Cable(10.0))
    test = IperfConfig("udp", "h1", "h2", IperfOptions(True, length=1472, bandwidth=100e6,
                                                        duration=0.05))
    rep = _run(nodes, (link,), (test,), 0.06, 0.0)
    assert rep["nodes"]["h2"]["length_errors"] == 0
    assert rep["nodes"]["h2"]["frames_rx"] == rep["links"]["l"]["directions"]["h1->h2"]["frames"]
