"""Frames are conserved under every congestion cure (hypothesis): at any
moment of a run with a slow or stuck receiver and any mix of hold time,
credit loss recovery, port fencing and ingress rate limiting, every frame
the sender sent is delivered, discarded (by the switch or a reset), lost, or
still on its way (on a fibre, in the switch, in the receiver's buffers), and
what is on its way fits where it can be: the frames a is counted as having
sent, less those the switch's input received or lost, fit on the fibre;
those received, less those sent on, discarded and lost in the switch, fit
in the input's buffers; those sent on, less those b handled and lost (a
reset's discards included), fit on the second fibre and in b's buffers.
And no cure reorders a sequence: the frames the switch sends b, sequence by
sequence, go in the order of their SEQ_CNT (some may be missing)."""

from __future__ import annotations

import dataclasses

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fcsim.build import BUILDERS, build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.fabric.cures import CreditLossRecovery, Cures, Fencing, IngressLimit
from fcsim.fabric.switch_model import load_switch_model
from fcsim.faults.injector import install
from fcsim.fc2.login import ServiceParameters
from fcsim.fc2.receive_drain import DrainSpec
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import fabric

DRAINS = st.builds(
    lambda rate, stuck: DrainSpec(rate=rate, stuck_at=None if stuck is None else stuck[0],
                                  stuck_for=0.0 if stuck is None else stuck[1]),
    st.sampled_from([0.0, 5e6, 30e6]),
    st.one_of(st.none(), st.tuples(st.sampled_from([0.5e-3, 1.5e-3]),
                                   st.sampled_from([0.4e-3, 3e-3]))))
CURES = st.builds(
    Cures,
    st.one_of(st.none(), st.sampled_from([0.3e-3, 1e-3]).map(
        lambda t: CreditLossRecovery(t, 1.5 * t))),
    st.one_of(st.none(), st.sampled_from([0.2, 0.7]).map(
        lambda share: Fencing(0.5e-3, txwait=share))),
    st.one_of(st.none(), st.sampled_from([0.05, 0.4]).map(
        lambda share: IngressLimit(0.5e-3, share, floor=0.01))))
SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(DRAINS, CURES, st.sampled_from([None, 0.4e-3]), st.integers(1, 6),
       st.sampled_from([256, 2112]))
def test_frames_conserved_under_every_cure(drain: DrainSpec, cures: Cures,
                                           hold: float | None, buffers: int,
                                           payload: int) -> None:
    model = dataclasses.replace(load_switch_model("generic-nonblocking"), hold_time=hold)
    stream = (StreamConfig("w", "a", "b", 4 * payload, cls=3, max_data_field=payload,
                           outstanding=2),)
    scenario = fabric({"a": "sw:0", "b": "sw:1"}, stream, duration=4e-3, login=False,
                      switches={"sw": model})
    nodes = tuple(dataclasses.replace(n, params=ServiceParameters(bb_credit=buffers,
                                                                  drain=drain))
                  if n.name == "b" else n for n in scenario.nodes)
    scenario = dataclasses.replace(scenario, nodes=nodes, cures=cures)
    sim = Simulation(scenario.run.seed)
    order = _Order("sw:1")
    sim.sinks.append(order)
    net = BUILDERS[scenario.topology](sim, scenario)
    build_workloads(sim, scenario, net)
    install(sim, scenario, net)
    a, b, switch = net.nodes["a"], net.nodes["b"], net.switches["sw"]
    f_in, f_out = switch.ports[0].port, switch.ports[1].port

    def lost(port) -> int:
        lcf = getattr(port, "lcf", None)
        return 0 if lcf is None else lcf.stats.frames_lost

    frame_time = (payload + 36) * f_in.char_time
    fibre = 2 + f_in.delay / frame_time  # the most frames one fibre can hold
    for step in range(1, 41):
        sim.run(step * 1e-4)
        on_first = a.port.stats.frames_tx - f_in.stats.frames_rx - lost(f_in)
        in_switch = (f_in.stats.frames_rx - f_out.stats.frames_tx - switch.stats.discarded
                     - net.losses.frames_lost)
        handled = b.stats.data_frames_rx + b.stats.discarded_frames + b.stats.dropped_frames
        beyond = f_out.stats.frames_tx - handled - lost(b.port)  # on the fibre or in b
        assert 0 <= on_first <= fibre
        assert 0 <= in_switch <= f_in.rx_buffers
        assert 0 <= beyond <= fibre + b.port.rx_buffers
    assert order.seen > 0 and order.reordered == 0


class _Order:
    """A trace sink that counts the frames port *name* sends out of SEQ_CNT
    order within their sequence."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.last: dict[int, tuple[int, object]] = {}  # the sequence kept: its id unique
        self.reordered = self.seen = 0

    def frame(self, time: float, port: object, frame: object, start: float,
              end: float) -> None:
        if getattr(port, "name", None) != self.name or frame.sequence is None:  # type: ignore[attr-defined]
            return
        seq = frame.sequence  # type: ignore[attr-defined]
        self.seen += 1
        if frame.seq_cnt <= self.last.get(id(seq), (-1, None))[0]:  # type: ignore[attr-defined]
            self.reordered += 1
        self.last[id(seq)] = (frame.seq_cnt, seq)  # type: ignore[attr-defined]

    def primitive(self, time: float, port: object, name: str, start: float) -> None:
        """Not needed."""

    def state(self, time: float, port: object, change: str) -> None:
        """Not needed."""
