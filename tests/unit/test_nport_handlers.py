"""What plugs into the N_Port: sequence handlers by frame TYPE, a sequence
recovery and a keeper of queued sequences."""

from __future__ import annotations

from fcsim.engine.simulation import Simulation
from fcsim.fc2 import header as h
from fcsim.fc2.nport import NPort
from fcsim.fc2.sequence import Sequence
from fcsim.topology.point_to_point import build_point_to_point
from tests.builders import p2p


def _pair() -> tuple[Simulation, NPort, NPort]:
    scenario = p2p((), duration=1.0)
    sim = Simulation(scenario.run.seed)
    net = build_point_to_point(sim, scenario.nodes, scenario.links)
    return sim, net.nodes["a"], net.nodes["b"]


def test_a_sequence_goes_to_its_types_handlers_newest_first_until_one_takes_it() -> None:
    sim, a, b = _pair()
    seen: list[tuple[str, int]] = []

    def handler(label: str, takes: bool):
        def received(seq: Sequence, _time: float) -> bool:
            seen.append((label, seq.type))
            return takes
        return received

    b.register((h.TYPE_IP,), handler("oldest", True))
    b.register((h.TYPE_IP, h.TYPE_FCP), handler("leaves", False))
    b.register((h.TYPE_FCP,), handler("newest", True))
    for type_ in (h.TYPE_IP, h.TYPE_FCP, h.TYPE_CT):
        a.send(a.open_exchange(b.port_id), 100, 3, type_=type_, last=True)
    sim.run(1e-3)
    assert seen == [("leaves", h.TYPE_IP), ("oldest", h.TYPE_IP),
                    ("newest", h.TYPE_FCP)]  # no handler of CT: nobody sees it
    assert b.stats.sequences_rx == 3


class _HoldAll:
    def __init__(self) -> None:
        self.held: list[Sequence] = []

    def keeps(self, seq: Sequence) -> bool:
        if seq.type == h.TYPE_ELS:
            return False
        self.held.append(seq)
        return True


def test_a_keeper_holds_what_it_keeps_and_lets_the_rest_go_out() -> None:
    sim, a, b = _pair()
    got: list[int] = []
    b.register((h.TYPE_ELS, h.TYPE_IP), lambda seq, _t: got.append(seq.type) is None)
    keeper = _HoldAll()
    a.hold(keeper)
    a.send(a.open_exchange(b.port_id), 100, 3, type_=h.TYPE_IP, last=True)
    a.send(a.open_exchange(b.port_id), 100, 3, type_=h.TYPE_ELS, last=True)
    sim.run(1e-3)
    assert got == [h.TYPE_ELS] and len(keeper.held) == 1 and not a.queued()
    a.hold(None)
    a.enqueue(keeper.held[0])
    a.port.kick()
    sim.run(2e-3)
    assert got == [h.TYPE_ELS, h.TYPE_IP]


def test_one_sequence_recovery_per_nport() -> None:
    _, a, _ = _pair()

    class Policy:
        def gap(self, frame) -> None: ...
        def answered(self, frame) -> None: ...
        def completed(self, seq, status) -> None: ...
        def received(self, seq, time) -> bool:
            return False

    a.recover_sequences(Policy())
    try:
        a.recover_sequences(Policy())
    except RuntimeError:
        pass
    else:
        raise AssertionError("a second sequence recovery was accepted")
