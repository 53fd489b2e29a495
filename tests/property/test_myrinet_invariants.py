"""Invariants of Myrinet's stop/go flow control under random traffic
(hypothesis): many senders into one output through one or two switches,
random cable lengths (within what the slack buffers cover), packet sizes,
start times and switch models; and the receiving NIC's count of a packet's
bytes as it arrives."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fcsim.engine.simulation import Simulation
from fcsim.fc0.cable import Cable
from fcsim.fc0.speed import speed_named
from fcsim.link.link import Link
from fcsim.myrinet.nic import MyrinetNic
from fcsim.myrinet.slack import reach
from fcsim.myrinet.switch import MyrinetSwitch, load_myrinet_switch_model

SPEEDS = [speed_named("Myrinet-1280"), speed_named("Myrinet-2000")]
MODELS = [load_myrinet_switch_model("m2f-sw8"), load_myrinet_switch_model("m3-sw16")]


@st.composite
def networks(draw):
    """Senders on switch s0 (and, with two switches, some on s1), one receiver
    on the last switch; each sender sends a burst of packets of random sizes."""
    speed = draw(st.sampled_from(SPEEDS))
    model = draw(st.sampled_from(MODELS))
    model = dataclasses.replace(model, latency=draw(st.sampled_from([0.0, 150e-9, 1e-6])))
    longest = reach(model.slack, model.stop, speed.char_time) / 5e-9  # metres at 5 ns/m
    lengths = st.floats(0.0, longest)
    switches = draw(st.integers(1, 2))
    senders = draw(st.integers(1, 5))
    where = [draw(st.integers(0, switches - 1)) for _ in range(senders)]
    bursts = [draw(st.lists(st.integers(1, 3000), min_size=1, max_size=12))
              for _ in range(senders)]
    starts = [draw(st.floats(0.0, 20e-6)) for _ in range(senders)]
    cables = [draw(lengths) for _ in range(senders + switches)]
    return speed, model, switches, where, bursts, starts, cables


def _build(speed, model, switches, where, bursts, starts, cables):
    sim = Simulation(1)
    sws = [MyrinetSwitch(sim, f"s{i}", model) for i in range(switches)]
    receiver = MyrinetNic(sim, "rx", 100)
    last = sws[-1]
    Link("rx", last.ports[model.ports - 1], receiver.port, speed, Cable(cables[-1]))
    if switches == 2:  # s0's last port to s1's port before last
        Link("isl", sws[0].ports[model.ports - 1], sws[1].ports[model.ports - 2], speed,
             Cable(cables[-2]))
    nics = []
    for i, (switch, burst, start) in enumerate(zip(where, bursts, starts, strict=True)):
        nic = MyrinetNic(sim, f"h{i}", i + 1)
        Link(f"l{i}", nic.port, sws[switch].ports[i], speed, Cable(cables[i]))
        nic.routes[100] = ((model.ports - 1,) if switch == switches - 1
                           else (model.ports - 1, model.ports - 1))
        for size in burst:
            sim.call_later(start, lambda _e, nic=nic, size=size: nic.send(100, size, size))
        nics.append(nic)
    return sim, sws, receiver, nics


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(networks())
def test_stop_go_never_overflows_a_slack_buffer_and_loses_or_reorders_nothing(net) -> None:
    speed, model, switches, where, bursts, starts, cables = net
    sim, sws, receiver, nics = _build(*net)
    got: list[tuple[int, int, int]] = []
    receiver.deliver = lambda p: got.append((p.src, p.number, p.ulp))
    total = sum(size + 8 for burst in bursts for size in burst)
    sim.run(2 * total * speed.char_time + 1e-4)  # every packet twice over, and more
    for switch in sws:
        for port in switch.ports:
            assert port.buffer.max_level <= model.slack + 1e-6, port.name
            assert port.buffer.level <= 1e-6 and not port.buffer.segments  # all drained
    for i, burst in enumerate(bursts):
        mine = [(number, size) for src, number, size in got if src == i + 1]
        assert mine == list(enumerate(burst))  # every packet, in the order sent


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(networks(), st.floats(0.05, 1.0))
def test_a_nic_counts_each_packet_in_as_it_arrives(net, every: float) -> None:
    """The receiving NIC, told of each packet as it begins to arrive, counts its
    payload bytes in: from none at its first character, never falling, never
    more than its payload, through pauses of stop/go; each packet told of is
    delivered whole, in the order told."""
    speed = net[0]
    sim, _sws, receiver, _nics = _build(*net)
    told: list[object] = []
    got: list[object] = []
    counts: dict[int, list[int]] = {}
    receiver.on_arriving = lambda p: (told.append(p),
                                      counts.setdefault(id(p), []).append(receiver.received(p)))
    receiver.deliver = got.append
    period = every * 1e-6

    def sample(_event) -> None:
        if len(told) > len(got):  # a packet is arriving
            packet = told[-1]
            counts[id(packet)].append(receiver.received(packet))  # type: ignore[arg-type]
        sim.call_later(period, sample)
    sim.call_later(period, sample)
    total = sum(size + 8 for burst in net[4] for size in burst)
    sim.run(2 * total * speed.char_time + 1e-4)
    assert got == told
    for packet in got:
        seen = counts[id(packet)]
        assert seen[0] == 0
        assert seen == sorted(seen) and seen[-1] <= packet.payload  # type: ignore[attr-defined]
        assert receiver.received(packet) == packet.payload  # type: ignore[arg-type]


@pytest.mark.parametrize("senders", [2, 3, 5])
def test_a_blocked_output_holds_its_senders_back_and_stays_busy(senders: int) -> None:
    """Saturating senders into one output: each is stopped again and again and
    gets its share by round robin (each input of the last switch an equal
    part; the senders behind the first switch share its input there); the
    output delivers its capacity, payload / (payload + 6) of the line: while
    one input's packet goes through, the next input's packet has its route
    read and waits, so the output never waits for a routing decision. Through
    two switches the blocking reaches back through the first one (wormhole)."""
    speed, model = SPEEDS[0], MODELS[0]
    payload = 2000
    bursts = [[payload] * 400 for _ in range(senders)]
    where = [i % 2 for i in range(senders)]
    sim, sws, receiver, nics = _build(speed, model, 2, where, bursts, [0.0] * senders,
                                      [10.0] * (senders + 2))
    got: list[tuple[float, int]] = []
    receiver.deliver = lambda p: got.append((sim.now, p.src))
    start, end = 2e-4, 2.2e-3
    sim.run(end)
    counted = [src for t, src in got if start < t <= end]
    capacity = speed.char_rate * payload / (payload + 6)
    assert len(counted) * payload / (end - start) == pytest.approx(
        capacity, abs=payload / (end - start))
    first, last = where.count(0), where.count(1)
    inputs = last + (1 if first else 0)  # of the last switch's output
    for i, nic in enumerate(nics):
        assert nic.port.stats.stops_rx > 0
        share = 1 / inputs / (first if where[i] == 0 else 1)
        assert counted.count(i + 1) == pytest.approx(len(counted) * share, abs=senders)
    isl = sws[1].ports[model.ports - 2]  # s1's input from s0: full, it stops s0's output
    assert isl.buffer.stops > 0 and sws[0].ports[model.ports - 1].stats.stops_rx > 0
    for switch in sws:
        assert all(port.buffer.max_level <= model.slack for port in switch.ports)


def test_the_slack_fills_to_the_stop_mark_plus_what_is_on_the_way() -> None:
    """Two senders into one output: the waiting input's level peaks at the STOP
    mark plus the STOP's character and two cable delays' worth of characters."""
    speed, model = SPEEDS[0], MODELS[0]
    length = 12.0
    sim, sws, _, _ = _build(speed, model, 1, [0, 0], [[3000] * 4] * 2, [0.0, 0.0],
                            [length] * 3)
    sim.run(1e-3)
    peak = max(port.buffer.max_level for port in sws[0].ports)
    assert peak == pytest.approx(model.stop + 1 + 2 * length * 5e-9 / speed.char_time)
