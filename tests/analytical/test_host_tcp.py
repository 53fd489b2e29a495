"""TCP over IP over FC on modelled hosts, against closed forms.

Ideal hosts (no processor cost) are limited by the link or by the window;
a host whose only cost is copying runs at the copy rate; a 1-byte TCP_RR
round trip is the sum of its parts.
"""

from __future__ import annotations

import dataclasses

import pytest

from fcsim.apps.iperf import Iperf, IperfOptions
from fcsim.apps.netperf import Netperf, NetperfOptions
from fcsim.engine.simulation import Simulation
from fcsim.fc0.speed import speed_named
from fcsim.fc2.frame import FRAMING_BYTES, MAX_DATA_FIELD, frame_chars
from fcsim.fc4.ip import LLC_SNAP, MTU, NETWORK_HEADER
from fcsim.host.host import Host
from fcsim.host.host_model import HostModel, load_host_model
from fcsim.topology.point_to_point import build_point_to_point
from fcsim.transport.segment import HEADER_BYTES
from fcsim.transport.tcp_config import TcpConfig
from tests.builders import p2p

IDEAL = load_host_model("ideal")
GAP = 24  # six fill words


def _netperf(options: NetperfOptions, speed: str = "266M", length: float = 10.0,
             sender: HostModel = IDEAL, receiver: HostModel = IDEAL,
             tcp: TcpConfig | None = None):
    scenario = p2p((), duration=60.0, speed=speed, length=length)
    sim = Simulation(1)
    net = build_point_to_point(sim, scenario.nodes, scenario.links)
    a = Host(sim, "a", sender, net.nodes["a"])
    b = Host(sim, "b", receiver, net.nodes["b"])
    return sim, Netperf(sim, "np", a, b, options, tcp=tcp)


def _steady_rate(sim: Simulation, run: Netperf, start: float, end: float) -> float:
    """Bytes/s the receiving application got between *start* and *end* s."""
    sim.run(start)
    before = run.bytes
    sim.run(end)
    return (run.bytes - before) / (end - start)


def _wire_chars(iu: int) -> int:
    """Characters on the wire for one IP-over-FC sequence of *iu* bytes, fill included."""
    frames = -(-iu // MAX_DATA_FIELD)
    return iu + frames * (FRAMING_BYTES + GAP)


def test_ideal_hosts_are_link_limited() -> None:
    options = NetperfOptions(send_size=65536, local_socket=262144, remote_socket=262144,
                             nodelay=True, length=5.0)
    # Buffers counted in data bytes only: with mbuf accounting the clusters of a 256 KB
    # send buffer hold about 3.9 segments of 63488 bytes, a little short of the link rate.
    bytes_only = TcpConfig(sndbuf=262144, rcvbuf=262144, mtu=MTU, mbuf_accounting=False)
    sim, run = _netperf(options, tcp=bytes_only)
    rate = _steady_rate(sim, run, 1.0, 3.0)
    mss = run.local.endpoint.tcb.mss
    iu = mss + HEADER_BYTES + NETWORK_HEADER + LLC_SNAP
    expected = speed_named("266M").char_rate * mss / _wire_chars(iu)
    assert rate == pytest.approx(expected, rel=0.02)


def test_ideal_hosts_on_a_long_link_are_window_limited() -> None:
    """One 32 KB segment per round: the window update after the read releases the next."""
    length = 200_000.0
    options = NetperfOptions(send_size=32768, local_socket=32768, remote_socket=32768,
                             nodelay=True, length=5.0)
    sim, run = _netperf(options, length=length)
    rate = _steady_rate(sim, run, 1.0, 3.0)
    speed = speed_named("266M")
    mss = run.local.endpoint.tcb.mss
    delay = length * 5e-9
    bus = IDEAL.bus_bandwidth
    data_iu = mss + HEADER_BYTES + NETWORK_HEADER + LLC_SNAP
    ack_iu = HEADER_BYTES + NETWORK_HEADER + LLC_SNAP
    cycle = (  # DMA out, the frames, propagation, DMA of the last frame in; then the update
        (mss + HEADER_BYTES) / bus + (_wire_chars(data_iu) - GAP) * speed.char_time + delay
        + (data_iu - (-(-data_iu // MAX_DATA_FIELD) - 1) * MAX_DATA_FIELD) / bus
        + HEADER_BYTES / bus + frame_chars(ack_iu) * speed.char_time + delay + ack_iu / bus)
    assert rate == pytest.approx(mss / cycle, rel=0.02)


def test_a_copy_bound_sender_runs_at_its_copy_rate() -> None:
    copy = 4e-8  # s/byte: 25 MB/s, well below a 1GFC link
    sender = dataclasses.replace(IDEAL, name="copier", copy_per_byte=copy)
    options = NetperfOptions(send_size=65536, local_socket=262144, remote_socket=262144,
                             nodelay=True, length=5.0)
    sim, run = _netperf(options, speed="1GFC", sender=sender)
    assert _steady_rate(sim, run, 1.0, 3.0) == pytest.approx(1 / copy, rel=0.02)


def test_tcp_rr_round_trip_is_the_sum_of_its_parts() -> None:
    model = dataclasses.replace(
        IDEAL, name="costly", syscall=12e-6, copy_per_byte=2e-8, checksum_per_byte=1e-8,
        tcp_output_per_packet=30e-6, tcp_input_per_packet=40e-6, interrupt=20e-6,
        driver_per_frame=5e-6, bus="EISA", bus_bandwidth=20e6, bus_overhead=8e-6,
        adapter_frame_time=3e-6)
    options = NetperfOptions(test="TCP_RR", local_socket=32768, remote_socket=32768,
                             nodelay=True, length=1.0)
    length = 100.0
    sim, run = _netperf(options, length=length, sender=model, receiver=model)
    sim.run(1.5)
    speed = speed_named("266M")
    segment = 1 + HEADER_BYTES
    iu = segment + NETWORK_HEADER + LLC_SNAP
    one_way = (
        model.syscall + model.copy_per_byte  # send(): system call and copy in
        + model.tcp_output_per_packet + model.checksum_per_byte  # tcp_output
        + model.bus_overhead + segment / model.bus_bandwidth  # DMA to the adapter
        + model.adapter_frame_time  # the card, sending
        + frame_chars(iu) * speed.char_time + length * 5e-9  # the frame and the fibre
        + model.adapter_frame_time  # the card, receiving
        + model.bus_overhead + iu / model.bus_bandwidth  # DMA to memory
        + model.interrupt + model.driver_per_frame  # interrupt and driver
        + model.tcp_input_per_packet + model.checksum_per_byte  # tcp_input
        + model.copy_per_byte)  # recv() copies out (its system call was made before)
    assert run.results()["round_trip_s"] == pytest.approx(2 * one_way, rel=0.02)


def _hosts(speed: str = "1GFC", model: HostModel = IDEAL):
    scenario = p2p((), duration=60.0, speed=speed, length=10.0)
    sim = Simulation(1)
    net = build_point_to_point(sim, scenario.nodes, scenario.links)
    return sim, Host(sim, "a", model, net.nodes["a"]), Host(sim, "b", model, net.nodes["b"])


def test_udp_stream_between_ideal_hosts_is_link_limited() -> None:
    sim, a, b = _hosts("266M")
    size = 60000
    run = Netperf(sim, "udp", a, b, NetperfOptions(test="UDP_STREAM", send_size=size,
                                                    local_socket=262144,
                                                    remote_socket=262144, length=2.0))
    rate = _steady_rate(sim, run, 0.5, 1.5)
    iu = size + 28 + NETWORK_HEADER + LLC_SNAP
    assert rate == pytest.approx(speed_named("266M").char_rate * size / _wire_chars(iu),
                                 rel=0.02)
    assert run.results()["datagrams_dropped"] == 0


def test_iperf_udp_gets_what_it_offers_below_capacity() -> None:
    sim, a, b = _hosts()
    run = Iperf(sim, "u", a, b, IperfOptions(udp=True, bandwidth=200e6, duration=0.5))
    sim.run(1.0)
    result = run.results()
    assert result["throughput_mbit_s"] == pytest.approx(200.0, rel=0.01)
    assert result["datagrams_lost"] == 0


def test_iperf_parallel_flows_share_the_link() -> None:
    sim, a, b = _hosts("266M")
    run = Iperf(sim, "p", a, b, IperfOptions(parallel=3, window=262144, length=65536,
                                            duration=3.0, nodelay=True))
    sim.run(3.5)
    flows = run.results()["flows_mbit_s"]
    link = 8 * speed_named("266M").char_rate / 1e6
    assert 0.85 * link < sum(flows) < link
    assert max(flows) / min(flows) < 1.2


def test_netperf_cpu_figures_see_the_work_and_the_background_load() -> None:
    """netperf -c -C: utilisation over the test, every process included, and the
    service demand that goes with it (us of processor per transaction)."""
    import dataclasses
    from pathlib import Path

    from fcsim.runner import run_once
    from fcsim.scenario.loader import load_scenario

    scenario = load_scenario(Path(__file__).resolve().parents[2] / "scenarios"
                             / "netperf-tcp-rr.toml")
    quiet = run_once(scenario, 1)["netperf"]["rr"]
    loaded_nodes = tuple(dataclasses.replace(n, background_load=0.3) if n.name == "server"
                         else n for n in scenario.nodes)
    loaded = run_once(dataclasses.replace(scenario, nodes=loaded_nodes), 1)["netperf"]["rr"]
    assert 0 < quiet["local_cpu_utilisation"] < 1
    assert loaded["remote_cpu_utilisation"] >= 0.3
    assert loaded["remote_cpu_utilisation"] > quiet["remote_cpu_utilisation"] + 0.1
    assert abs(quiet["local_cpu_utilisation"] - quiet["local_service_demand_us"] * 1e-6
               * quiet["transactions_per_s"]) < 1e-9


def test_netperf_cpu_utilisation_never_exceeds_the_processor() -> None:
    """A test shorter than one send() call's copy: the processor is busy the
    whole test, and no more (work is counted as it is done, not when it starts)."""
    import dataclasses
    from pathlib import Path

    from fcsim.runner import run_once
    from fcsim.scenario.loader import load_scenario

    scenario = load_scenario(Path(__file__).resolve().parents[2] / "scenarios"
                             / "netperf-tcp-stream-sweep.toml")
    (sweep,) = scenario.workloads
    short = dataclasses.replace(
        sweep, send_sizes=(262144,), sockets=(262144,),
        options=dataclasses.replace(sweep.options, length=3e-3), start=0.5e-3)
    scenario = dataclasses.replace(scenario, workloads=(short,),
                                   run=dataclasses.replace(scenario.run, duration=4e-3))
    figures = run_once(scenario, 1)["netperf"]["stream"]
    assert figures["local_cpu_utilisation"] == pytest.approx(1.0)
