"""The IP input queue between the receive interrupt and protocol input
(4.4BSD ``ipintrq``): its overflow against a closed form, the conservation
of packets through it, and receive livelock of a 1-byte TCP_STREAM."""

from __future__ import annotations

import dataclasses

import pytest

from fcsim.apps.netperf import Netperf, NetperfOptions
from fcsim.engine.simulation import Simulation
from fcsim.host.host import Host
from fcsim.host.host_model import HostModel, load_host_model
from fcsim.topology.point_to_point import build_point_to_point
from fcsim.transport.udp import Datagram
from tests.builders import p2p

HARDWARE, INPUT = 20e-6, 30e-6  # receive interrupt, then UDP/IP input per packet, s


def _flood(period: float, queue: int, duration: float = 0.1) -> tuple[Host, int, int]:
    """Datagrams offered to host b's IP input every *period* s for *duration* s:
    (host, datagrams offered, datagrams through input). b's process never
    reads, so every datagram through input stays in its socket buffer."""
    scenario = p2p((), duration=duration)
    sim = Simulation(1)
    net = build_point_to_point(sim, scenario.nodes, scenario.links)
    model = HostModel("receiver", interrupt=HARDWARE, tcp_input_per_packet=INPUT,
                      ip_input_queue=queue)
    host = Host(sim, "b", model, net.nodes["b"])
    socket = host.udp_socket(9, 1 << 20, 1 << 30)
    interface = host.interfaces[0]
    offered = 0

    def arrive(_event: object = None) -> None:
        nonlocal offered
        offered += 1
        host._ip_input(Datagram("a:9", socket.address, 8), 36, sim.now, True, interface)
        if sim.now + period < duration:
            sim.call_later(period, arrive)

    sim.call_later(0.0, arrive)
    sim.run(duration + 1.0)  # the queue drains after the last arrival
    return host, offered, socket.endpoint.datagrams_received


def test_an_overloaded_input_queue_drops_what_the_processor_cannot_take() -> None:
    """Packets every T with interrupt h < T < h + c: interrupts take h/T of the
    processor, input the rest, so (1 - h/T)/c packets/s get through and the
    remainder is dropped at the full queue."""
    period = 40e-6
    host, offered, through = _flood(period, queue=50)
    duration = offered * period
    expected = duration * (1 - HARDWARE / period) / INPUT
    assert through == pytest.approx(expected + 50, rel=0.01)  # and the queue left at the end
    assert host.ip_input_drops == offered - through > 0


def test_a_processor_that_keeps_up_drops_nothing() -> None:
    host, offered, through = _flood(60e-6, queue=50)
    assert host.ip_input_drops == 0 and through == offered


def test_a_longer_queue_delays_the_drops_by_its_length() -> None:
    _, _, short = _flood(40e-6, queue=10)
    _, _, long = _flood(40e-6, queue=300)
    assert long - short == 290


def test_one_byte_stream_livelocks_a_slower_receiver() -> None:
    """1-byte TCP_STREAM with TCP_NODELAY, C110 to C110: the receiver's interrupt
    and input per segment (63 us) exceed the sender's send() and output (about
    45 us), so input never lets the reading process run, the input queue
    overflows, and the reader gets nothing while the sender keeps sending."""
    scenario = p2p((), duration=1.0)
    sim = Simulation(1)
    net = build_point_to_point(sim, scenario.nodes, scenario.links)
    c110 = load_host_model("hp-c110")
    a, b = Host(sim, "a", c110, net.nodes["a"]), Host(sim, "b", c110, net.nodes["b"])
    options = NetperfOptions(send_size=1, local_socket=262143, remote_socket=262143,
                             nodelay=True, length=0.6)
    run = Netperf(sim, "np", a, b, options)
    sim.run(0.5)
    assert run.bytes == 0
    assert b.ip_input_drops > 1000
    assert b.cpu.busy_time > 0.95 * 0.5


def test_a_queue_of_no_packets_is_refused() -> None:
    with pytest.raises(ValueError, match="ip_input_queue"):
        dataclasses.replace(load_host_model("hp-c110"), ip_input_queue=0)
