"""RFC 1323 timestamps on Gigabit Ethernet: the 12 option bytes of every
segment cost goodput by the closed form of the per-frame overhead, the
option is used only when both SYNs carry it, and every ACK of new data is an
RTT sample."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from fcsim.apps.netperf import NetperfOptions
from fcsim.engine.simulation import Simulation
from fcsim.ethernet.frame import GAP, frame_chars
from fcsim.fc0.cable import Cable
from fcsim.fc0.speed import speed_named
from fcsim.host.host_model import load_host_model
from fcsim.runner import run_once
from fcsim.scenario.model import LinkConfig, NodeConfig, RunConfig, Scenario
from fcsim.scenario.workload_model import NetperfConfig
from fcsim.transport.rtt import RttEstimator
from fcsim.transport.segment import HEADER_BYTES, SYN, TIMESTAMP_OPTION_BYTES, Segment
from fcsim.transport.tcp import TcpEndpoint
from fcsim.transport.tcp_config import TcpConfig

GIGE = speed_named("1000BASE-X")
IDEAL = load_host_model("ideal")
WARMUP, DURATION = 0.3, 0.6


class _DataFrames:
    """Trace sink: the TCP data segments *source* sends after the warm-up."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.segments: list[tuple[int, int]] = []  # (data bytes, line characters with gap)

    def frame(self, time: float, port: Any, frame: Any, start: float, end: float) -> None:
        if port.name == self.source and start >= WARMUP and isinstance(frame.ulp, Segment):
            if frame.ulp.length:
                self.segments.append((frame.ulp.length, frame.chars + GAP))

    def primitive(self, time: float, port: Any, name: str, start: float) -> None:
        """No primitives on Ethernet."""


@pytest.mark.parametrize("timestamps", [False, True])
@pytest.mark.parametrize("mtu", [1500, 9000])
def test_goodput_is_the_line_rate_less_each_frames_overhead_and_options(
        mtu: int, timestamps: bool) -> None:
    """Each full segment carries MSS - optlen data bytes (4.4BSD tcp_output trims
    the data so that data and options fit t_maxseg) in an IP datagram of
    MSS + 40 bytes, a frame of MSS + 40 + 38 characters of line time with its
    gap: goodput = (MSS - optlen) / (MSS + 78) of the gigabit."""
    host = dataclasses.replace(IDEAL, tcp_timestamps=timestamps)
    nodes = tuple(NodeConfig(name, host=host, mtu=mtu) for name in ("h1", "h2"))
    link = LinkConfig("l", ("h1", "h2"), GIGE, Cable(10.0))
    test = NetperfConfig("tcp", "h1", "h2", NetperfOptions(length=10.0),
                         send_sizes=(65536,), sockets=(2**20,))
    sink = _DataFrames("h1")
    run_once(Scenario("ts", "ethernet", RunConfig(DURATION, WARMUP), nodes, (link,), (test,)),
             1, (sink,))
    mss = TcpConfig(sndbuf=2**20, rcvbuf=2**20, mtu=mtu).interface_mss
    optlen = TIMESTAMP_OPTION_BYTES if timestamps else 0
    data = mss - optlen
    assert {length for length, _ in sink.segments} == {data}
    assert {chars for _, chars in sink.segments} == {mss + HEADER_BYTES + 38}
    assert frame_chars(data + HEADER_BYTES + optlen) + GAP == mss + 78
    interval = DURATION - WARMUP
    goodput = sum(length for length, _ in sink.segments) * 8 / interval
    closed_form = data / (mss + 78) * GIGE.char_rate * 8  # 1e9 bit/s of data at 1.25 Gbaud
    # frames back to back: only the frames cut by the interval's two edges differ
    assert goodput == pytest.approx(closed_form, abs=2 * data * 8 / interval)
    # MTU 1500: the fact sheet's 949.3 and 941.5 Mbit/s (section 4.2); MTU 9000: an MSS
    # of 8192 after 4.4BSD's cluster rounding, not the fact sheet's 8960 (Linux)
    expected = {(1500, False): 949.28e6, (1500, True): 941.48e6,
                (9000, False): 990.57e6, (9000, True): 989.12e6}[(mtu, timestamps)]
    assert closed_form == pytest.approx(expected, rel=1e-5)


def _pair(client: bool, server: bool) -> tuple[Simulation, TcpEndpoint, TcpEndpoint, list]:
    """Two endpoints joined by a 100 us one-way delay; the segments each sends."""
    sim = Simulation()
    sent: list[Segment] = []
    ends: dict[str, TcpEndpoint] = {}

    def wire(segment: Segment) -> None:
        sent.append(segment)
        sim.call_later(100e-6, lambda _e: ends[segment.dst].receive(segment))

    for name, ts in (("a", client), ("b", server)):
        config = TcpConfig(sndbuf=65536, rcvbuf=65536, mtu=1500, timestamps=ts)
        ends[name] = TcpEndpoint(sim, name, config, wire)
    ends["b"].open_passive()
    ends["a"].open_active("b")

    def read(n: int = 1) -> None:
        if n:
            ends["b"].read(65536, read)
    read()
    return sim, ends["a"], ends["b"], sent


@pytest.mark.parametrize(("client", "server"), [(True, False), (False, True), (True, True)])
def test_the_option_is_used_only_when_both_syns_carry_it(client: bool, server: bool) -> None:
    sim, a, b, sent = _pair(client, server)
    a.write(20000, lambda: None)
    sim.run(1.0)
    syn, syn_ack = sent[0], sent[1]
    assert (syn.tsval is not None) == client
    assert (syn_ack.tsval is not None) == (client and server)  # RFC 1323 section 3.2
    agreed = client and server
    data = [s for s in sent[2:] if s.length]
    assert data and all((s.tsval is not None) == agreed for s in sent[2:])
    assert max(s.length for s in data) == 1460 - (12 if agreed else 0)
    assert a.counters.bytes_acked == 20000


class _Recording(RttEstimator):
    """An RTT estimator that keeps every sample, s."""

    __slots__ = ("samples",)

    def __init__(self) -> None:
        super().__init__(3.0, 1.0, 64.0)
        self.samples: list[float] = []

    def sample(self, rtt: float) -> None:
        self.samples.append(rtt)
        super().sample(rtt)


def test_every_ack_of_new_data_is_an_rtt_sample_echoing_the_oldest_unacknowledged() -> None:
    """Each ACK echoes the timestamp of the segment that held the previous
    acknowledgement sent (ts_recent: with delayed ACKs, the oldest segment it
    acknowledges), and the sender takes every ACK of new data as a sample, its
    arrival less the echoed time (4.4BSD tcp_input, RFC 1323 section 4)."""
    sim, a, b, sent = _pair(True, True)
    a.tcb.rtt = _Recording()
    a.write(60000, lambda: None)
    sim.run(1.0)
    starts = {s.seq: s.tsval for s in sent if s.src == "a" and s.length}
    acks = [s for s in sent if s.src == "b" and not s.flags & SYN]
    expected, last = [], 1  # the SYN-ACK acknowledged the SYN
    for ack in acks:
        if ack.ack > last:
            assert ack.tsecr == starts[last]
            expected.append(ack)
        last = ack.ack
    assert len(expected) > 5 and len(a.tcb.rtt.samples) == len(expected) + 1  # and the SYN-ACK's
    assert all(rtt >= 200e-6 - 1e-12 for rtt in a.tcb.rtt.samples)  # never below the round trip
    assert a.counters.bytes_acked == 60000
