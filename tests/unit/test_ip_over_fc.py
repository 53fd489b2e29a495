"""IP over FC (RFC 2625): framing of one packet as one sequence."""

from __future__ import annotations

import pytest

from fcsim.engine.simulation import Simulation
from fcsim.fc0.speed import speed_named
from fcsim.fc2 import header as h
from fcsim.fc2.frame import FRAMING_BYTES
from fcsim.fc4.ip import LLC_SNAP, MTU, NETWORK_HEADER, IpOverFc
from fcsim.topology.point_to_point import build_point_to_point
from tests.builders import p2p


class Frames:
    def __init__(self) -> None:
        self.frames = []

    def frame(self, time, port, frame, start, end) -> None:
        self.frames.append(frame)

    def primitive(self, time, port, name, start) -> None:
        """Not needed."""


def _pair(speed: str = "266M"):
    scenario = p2p((), duration=1.0, speed=speed)
    sim = Simulation(1)
    sink = Frames()
    sim.sinks.append(sink)
    net = build_point_to_point(sim, scenario.nodes, scenario.links)
    got: list[tuple[object, int, float]] = []
    a = IpOverFc(net.nodes["a"])
    IpOverFc(net.nodes["b"], deliver=lambda p, n, t: got.append((p, n, t)))
    return sim, net, a, got, sink


def test_one_packet_is_one_sequence_with_network_and_snap_headers() -> None:
    sim, net, a, got, sink = _pair()
    packet = object()
    a.send(net.nodes["b"].port_id, MTU, packet)
    sim.run(0.01)
    assert got == [(packet, MTU, pytest.approx(got[0][2]))]
    frames = sink.frames
    assert len(frames) == 31  # 65,304-byte IU in 2112-byte data fields
    assert frames[0].df_ctl == h.DF_CTL_NETWORK and all(f.df_ctl == 0 for f in frames[1:])
    assert all(f.type == h.TYPE_IP and f.r_ctl == h.R_CTL_UNSOLICITED_DATA for f in frames)
    assert sum(f.payload_len for f in frames) == MTU + NETWORK_HEADER + LLC_SNAP


def test_ip_rate_at_266_mbaud_matches_the_fact_sheet() -> None:
    """Fact sheet 8.1: 65,280-byte datagrams carry ~25.8 MB/s of IP at 265.625 Mbaud."""
    sim, net, a, got, sink = _pair()
    d_id = net.nodes["b"].port_id
    for _ in range(40):
        a.send(d_id, MTU, None)
    sim.run(1.0)
    last = got[-1][2]
    wire = (MTU + NETWORK_HEADER + LLC_SNAP + 31 * (FRAMING_BYTES + 24))
    assert 40 * MTU / last == pytest.approx(speed_named("266M").char_rate * MTU / wire,
                                            rel=0.01)
    assert 40 * MTU / last == pytest.approx(25.8e6, rel=0.01)


def test_mtu_is_enforced() -> None:
    sim, net, a, got, sink = _pair()
    with pytest.raises(ValueError):
        a.send(net.nodes["b"].port_id, MTU + 1, None)


def test_each_packet_is_an_exchange_of_its_own_sent_in_order() -> None:
    """Packets past the 256th never repeat an (OX_ID, SEQ_ID) pair, which a
    capture reader takes for the same sequence again (Wireshark reassembles by
    addresses, OX_ID and SEQ_ID); each sequence opens and ends its exchange;
    the frames still leave packet after packet, none interleaved, and arrive
    in the order sent."""
    sim, net, a, got, sink = _pair()
    d_id = net.nodes["b"].port_id
    count = 600
    for i in range(count):
        a.send(d_id, 3 * 2048 if i % 2 else 100, i)  # multi- and one-frame packets
    sim.run(1.0)
    assert [p for p, _, _ in got] == list(range(count))
    frames = [f for f in sink.frames if f.type == h.TYPE_IP]
    firsts = [f for f in frames if f.seq_cnt == 0]
    assert len(firsts) == count
    assert len({(f.ox_id, f.seq_id) for f in firsts}) == count
    exchange_bits = h.F_CTL_FIRST_SEQUENCE | h.F_CTL_LAST_SEQUENCE
    assert all(f.f_ctl & exchange_bits == exchange_bits for f in frames)
    runs = [f.ox_id for i, f in enumerate(frames) if i == 0 or f.ox_id != frames[i - 1].ox_id]
    assert len(runs) == count  # one unbroken run of frames per packet


def test_each_packet_ends_its_exchange_and_frees_its_ox_id() -> None:
    """Every packet is an exchange of its own, ended with its one sequence: more
    packets than there are OX_IDs (65,535) go through, each exchange freeing its
    OX_ID once FC-2 is done with the packet, so none is held at the end and the
    OX_IDs come round again."""
    sim, net, a, got, sink = _pair("8GFC")
    sim.sinks.remove(sink)
    d_id = net.nodes["b"].port_id
    count, left = 70_000, [70_000]

    def next_packet(_seq: object = None) -> None:  # one packet queued at a time
        if left[0]:
            left[0] -= 1
            a.send(d_id, 100, None, sent=next_packet)
    next_packet()
    sim.run(1.0)
    assert len(got) == count
    assert net.nodes["a"].exchange_ids.held == 0
