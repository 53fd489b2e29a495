"""Invariants of ISLs with virtual channels (hypothesis), with slow-drain
receivers behind them and congestion isolation moving their flows from
channel to channel: the credit of each channel stays between zero and its
login value and is always in one place (at the sender, in a receive buffer
of the channel, on the fibre, or coming back as an ER_RDY); every frame
sent is delivered or still on its way; and every port sends the frames of
a sequence in their order, and the sequences of an exchange one after
another."""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fcsim.build import BUILDERS, build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.fabric.cures import Cures, Isolation
from fcsim.fabric.switch_model import load_switch_model
from fcsim.fc2.login import ServiceParameters
from fcsim.fc2.receive_drain import DrainSpec
from fcsim.fc2.vc_port import VirtualChannelPort
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import fabric

SETTINGS = settings(max_examples=20, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])
SENDERS = 3
DRAINS = st.sampled_from([None, DrainSpec(rate=10e6), DrainSpec(rate=40e6),
                          DrainSpec(delay=30e-6), DrainSpec(stuck_at=0.5e-3, stuck_for=1e-3)])


class _Order:
    """A trace sink checking that every port sends each sequence's frames in
    order, and no frame of a sequence after a frame of a later sequence of
    its exchange."""

    def __init__(self) -> None:
        self.last: dict[tuple[str, Any], int] = {}
        self.current: dict[tuple[str, int, int], Any] = {}
        self.ended: set[tuple[str, Any]] = set()
        self.out_of_order: list[Any] = []

    def frame(self, now: float, port: Any, frame: Any, start: float, end: float) -> None:
        seq = frame.sequence
        if seq is None:
            return
        key = (port.name, seq)
        last = self.last.get(key)
        if last is not None and frame.seq_cnt <= last:
            self.out_of_order.append((port.name, frame.seq_cnt, last))
        self.last[key] = frame.seq_cnt
        exchange = (port.name, frame.s_id, frame.ox_id)
        current = self.current.get(exchange)
        if current is not seq:
            if key in self.ended:  # a later sequence of its exchange went before it
                self.out_of_order.append((port.name, "sequence", frame.seq_cnt))
            if current is not None:
                self.ended.add((port.name, current))
            self.current[exchange] = seq

    def primitive(self, time: float, port: Any, name: str, start: float) -> None:
        pass


def build(drains: list[DrainSpec | None], channels: int, credit: int, payload: int,
          isl_length: float, isolation: Isolation | None = None
          ) -> tuple[Simulation, Any, _Order]:
    """Senders a0.. on sw1 to receivers b0.. on sw2 across one ISL with
    *channels* virtual channels of *credit* buffers; store-and-forward, so a
    frame's input buffer is freed as it starts on its output."""
    model = dataclasses.replace(load_switch_model("generic-nonblocking"), cut_through=False)
    nodes = {f"a{i}": f"sw1:{i}" for i in range(SENDERS)}
    nodes |= {f"b{i}": f"sw2:{i}" for i in range(SENDERS)}
    streams = tuple(StreamConfig(f"w{i}", f"a{i}", f"b{i}", 4 * payload, cls=3,
                                 max_data_field=payload, outstanding=2)
                    for i in range(SENDERS))
    scenario = fabric(nodes, streams, duration=3e-3, switches={"sw1": model, "sw2": model},
                      isls=(("sw1:20", "sw2:20"),), speed="4GFC", length=5.0,
                      isl_length=isl_length, login=False)
    links = tuple(dataclasses.replace(link, virtual_channels=channels, vc_credit=credit)
                  if link.name.startswith("isl") else link for link in scenario.links)
    nodes_ = tuple(dataclasses.replace(n, params=ServiceParameters(drain=drains[int(n.name[1])]))
                   if n.name.startswith("b") else n for n in scenario.nodes)
    scenario = dataclasses.replace(scenario, links=links, nodes=nodes_,
                                   cures=Cures(isolation=isolation))
    sim = Simulation(scenario.run.seed)
    order = _Order()
    sim.sinks.append(order)
    net = BUILDERS[scenario.topology](sim, scenario)
    build_workloads(sim, scenario, net)
    return sim, net, order


ISOLATION = st.one_of(st.none(), st.builds(
    lambda window, rising: Isolation(rising, 0.01, window, recover=True),
    st.sampled_from([0.1e-3, 0.25e-3, 0.4e-3]), st.sampled_from([0.05, 0.3])))


@SETTINGS
@given(st.lists(DRAINS, min_size=SENDERS, max_size=SENDERS), st.integers(3, 5),
       st.integers(1, 4), st.sampled_from([512, 2112]), st.sampled_from([10.0, 2000.0]),
       ISOLATION)
def test_channel_credit_bounded_frames_conserved_and_in_order(
        drains: list[DrainSpec | None], channels: int, credit: int, payload: int,
        isl_length: float, isolation: Isolation | None) -> None:
    sim, net, order = build(drains, channels, credit, payload, isl_length, isolation)
    isl = net.links["isl0"]
    ends = [isl.a, isl.b]
    assert all(isinstance(p, VirtualChannelPort) for p in ends)
    ports = [p for link in net.links.values() for p in (link.a, link.b)]
    for step in range(1, 31):
        sim.run(step * 1e-4)
        for sender in ends:
            receiver = sender.peer
            for vc in range(channels):
                login = sender.vc_login[vc]
                assert login == credit
                arrived = sum(1 for t in sender._er_rdys[vc] if t <= sim.now)
                assert 0 <= sender.vc_credit[vc] + arrived <= login
                on_fibre = (sender.vc_stats[vc].frames_tx
                            - receiver.vc_stats[vc].frames_rx)
                assert (sender.vc_credit[vc] + len(sender._er_rdys[vc])
                        + receiver.vc_buffers_used[vc] + on_fibre == login)
                assert 0 <= receiver.vc_buffers_used[vc] <= receiver.channel_buffers
        sent = sum(net.nodes[f"a{i}"].stats.data_frames_tx for i in range(SENDERS))
        handled = sum(net.nodes[f"b{i}"].stats.data_frames_rx
                      + net.nodes[f"b{i}"].stats.discarded_frames
                      + net.nodes[f"b{i}"].stats.dropped_frames for i in range(SENDERS))
        held = sum(p.buffers_used for p in ports)
        on_fibres = sum(p.stats.frames_tx - p.peer.stats.frames_rx for p in ports)
        assert sent == handled + held + on_fibres
    assert order.out_of_order == []
    assert sum(net.nodes[f"b{i}"].stats.data_frames_rx for i in range(SENDERS)) > 0
