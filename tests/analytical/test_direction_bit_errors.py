"""A bit error rate per direction of a link: the frames one end sends are hit
with probability 1 - (1 - p)^(10 x characters), within the binomial spread,
and the other direction's not at all; set by the link (`bit_error_rates`)
or by a fault (`bit-error-rate` with `from`)."""

from __future__ import annotations

import dataclasses
import math

import pytest

from fcsim.build import build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.ethernet.frame import EthernetFrame
from fcsim.faults.config import FaultConfig
from fcsim.faults.injector import install
from fcsim.fc2.frame import frame_chars
from fcsim.runner import run_once
from fcsim.scenario.loader import scenario_from_document
from fcsim.scenario.workload_model import StreamConfig
from fcsim.topology.point_to_point import build_point_to_point
from tests.builders import p2p

PAYLOAD = 2112
UDP_PACKET = 1470 + 8 + 20
"""iperf's 1470-byte datagram with its UDP and IP headers: an Ethernet frame's payload."""
STREAMS = (StreamConfig("ab", "a", "b", 10 * PAYLOAD, outstanding=2),
           StreamConfig("ba", "b", "a", 10 * PAYLOAD, outstanding=2))


def run(scenario) -> tuple[object, object]:
    sim = Simulation(3)
    net = build_point_to_point(sim, scenario.nodes, scenario.links,
                               recovering=bool(scenario.faults))
    build_workloads(sim, scenario, net)
    install(sim, scenario, net)
    sim.run(scenario.run.duration)
    return net.nodes["a"].port, net.nodes["b"].port


def expect_hits(sender, receiver, p: float) -> None:
    """The receiver's CRC errors: Binomial(frames sent, q) within 5 sigma."""
    q = 1.0 - (1.0 - p) ** (10 * frame_chars(PAYLOAD))
    n = sender.stats.frames_tx
    mean = n * q
    assert n > 1000
    assert abs(receiver.stats.errors_rx - mean) < 5 * math.sqrt(mean * (1 - q))


@pytest.mark.parametrize("forward", [True, False])
def test_a_link_with_a_rate_for_each_direction(forward: bool) -> None:
    p = 2e-6
    base = p2p(STREAMS, 0.03)
    rates = (("a", p), ("b", 0.0)) if forward else (("a", 0.0), ("b", p))
    link = dataclasses.replace(base.links[0], error_rates=rates)
    a, b = run(dataclasses.replace(base, links=(link,)))
    noisy, quiet = (a, b) if forward else (b, a)
    expect_hits(noisy, quiet, p)
    assert noisy.stats.errors_rx == 0  # the other direction is clean


def test_a_fault_raises_the_rate_of_one_direction() -> None:
    p = 2e-6
    scenario = dataclasses.replace(
        p2p(STREAMS, 0.03),
        faults=(FaultConfig(0.0, "bit-error-rate", link="link", bit_error_rate=p,
                            sender="b"),))
    a, b = run(scenario)
    expect_hits(b, a, p)
    assert b.stats.errors_rx == 0



@pytest.mark.parametrize("noisy_first", [True, False])
def test_an_ethernet_cable_with_a_rate_for_each_direction(noisy_first: bool) -> None:
    """UDP from h1 to h2 over a cable noisy one way: from h1, h2's NIC counts
    FCS errors at the closed form's rate; from h2 only, none."""
    p = 1e-6
    document = {
        "topology": "ethernet", "name": "noisy", "run": {"duration": "50 ms"},
        "nodes": [{"name": "h1", "host": "ideal"}, {"name": "h2", "host": "ideal"}],
        "links": [{"ends": ["h1", "h2"], "speed": "1000BASE-X", "length": "10 m",
                   "bit_error_rates": [p, 0.0] if noisy_first else [0.0, p]}],
        "workloads": [{"name": "udp", "type": "iperf", "protocol": "udp", "from": "h1",
                       "to": "h2", "bandwidth": "500 Mbit/s", "duration": "45 ms"}]}
    nodes = run_once(scenario_from_document(document, "noisy.toml"), 1)["nodes"]
    if not noisy_first:
        assert nodes["h2"]["fcs_errors"] == 0
        return
    n = nodes["h1"]["frames_tx"]
    chars = EthernetFrame(0, 0, UDP_PACKET, None).chars
    q = 1.0 - (1.0 - p) ** (10 * chars)
    assert n > 1000
    assert abs(nodes["h2"]["fcs_errors"] - n * q) < 5 * math.sqrt(n * q)


class _Hits:
    """The frames each port sends, by start time: (start, hit)."""

    def __init__(self) -> None:
        self.rows: dict[str, list[tuple[float, bool]]] = {}

    def frame(self, time: float, port: object, frame: object, start: float, end: float) -> None:
        if getattr(frame, "data_len", 0) == PAYLOAD:
            self.rows.setdefault(port.name, []).append((start, frame.corrupt))  # type: ignore

    def primitive(self, *args: object) -> None:
        pass

    def state(self, *args: object) -> None:
        pass


def expect_window(rows: list[tuple[float, bool]], start: float, end: float, p: float) -> None:
    """The frames a port began sending from *start* to *end* s are hit as at rate
    *p*: Binomial(frames, q) within 5 sigma, none when p is 0."""
    hits = [hit for at, hit in rows if start <= at < end]
    q = 1.0 - (1.0 - p) ** (10 * frame_chars(PAYLOAD))
    assert len(hits) > 50
    mean = len(hits) * q
    assert abs(sum(hits) - mean) <= 5 * math.sqrt(mean * (1 - q)) + (0 if p else 0.5)


def test_overlapping_faults_on_one_direction_each_last_their_own_time() -> None:
    """Two bit-error-rate faults from "a" that overlap without nesting: 2e-5
    from 0 to 10 ms and 1e-5 from 6 to 16 ms. The later one's rate holds while
    it lasts (6 to 16 ms), its end gives back the link's own rate (0): the
    first one's end does not take the second's rate away, nor does the
    second's end bring the first's back. b's frames are never hit."""
    p1, p2 = 2e-5, 1e-5
    faults = (FaultConfig(0.0, "bit-error-rate", link="link", bit_error_rate=p1, sender="a",
                          duration=10e-3),
              FaultConfig(6e-3, "bit-error-rate", link="link", bit_error_rate=p2, sender="a",
                          duration=10e-3))
    scenario = dataclasses.replace(p2p(STREAMS, 0.022), faults=faults)
    sim = Simulation(3)
    hits = _Hits()
    sim.sinks.append(hits)
    net = build_point_to_point(sim, scenario.nodes, scenario.links, recovering=True)
    build_workloads(sim, scenario, net)
    install(sim, scenario, net)
    sim.run(scenario.run.duration)
    a = hits.rows["a"]
    expect_window(a, 0.0, 6e-3, p1)
    expect_window(a, 6e-3, 10e-3, p2)
    expect_window(a, 10e-3, 16e-3, p2)
    expect_window(a, 16e-3, 22e-3, 0.0)
    assert not any(hit for _, hit in hits.rows["b"])
