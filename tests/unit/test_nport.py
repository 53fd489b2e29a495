"""The N_Port's class rules: answers, busies, rejects, drops and connections."""

from __future__ import annotations

from fcsim.build import build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.fc2.login import ServiceParameters
from fcsim.scenario.workload_model import StreamConfig
from fcsim.topology.point_to_point import build_point_to_point
from tests.builders import frames_sent, p2p


def _run(workloads, a=None, b=None, ber=0.0, length=10.0, duration=0.05):
    scenario = p2p(tuple(workloads), duration=duration, a=a, b=b, bit_error_rate=ber,
                   length=length)
    sim = Simulation(scenario.run.seed)
    net = build_point_to_point(sim, scenario.nodes, scenario.links)
    loads = build_workloads(sim, scenario, net)
    sim.run(duration)
    return net.nodes["a"], net.nodes["b"], {w.name: w for w in loads}


def test_unsupported_class_is_rejected() -> None:
    no_class1 = ServiceParameters(classes=frozenset({2, 3}))
    a, b, w = _run([StreamConfig("s", "a", "b", 4096, cls=1, count=2)], b=no_class1)
    assert b.stats.reject_tx >= 2 and a.stats.reject_rx >= 2
    assert w["s"].stats.rejected == 2 and w["s"].stats.sequences == 0
    assert a.connection is None and b.connection is None


def test_unsupported_class3_is_discarded_silently() -> None:
    only2 = ServiceParameters(classes=frozenset({2}))
    a, b, w = _run([StreamConfig("s", "a", "b", 4096, cls=3, count=3)], b=only2)
    assert b.stats.discarded_payload == 3 * 4096 and b.stats.reject_tx == 0
    assert w["s"].stats.sent == 3 and w["s"].stats.sequences == 0


def test_busy_recipient_is_retried_until_delivered() -> None:
    one_at_a_time = ServiceParameters(concurrent_sequences=1)
    a, b, w = _run([StreamConfig("s", "a", "b", 8192, cls=2, outstanding=3, count=9)],
                   b=one_at_a_time)
    assert b.stats.busy_tx > 0 and a.stats.busy_rx == b.stats.busy_tx
    assert w["s"].stats.sequences == 9 and w["s"].stats.sent == 9


def test_class3_frames_with_errors_are_dropped_and_counted() -> None:
    a, b, w = _run([StreamConfig("s", "a", "b", 21120, cls=3, count=200)], ber=1e-6)
    assert b.stats.dropped_frames > 0
    assert b.stats.payload_rx + b.stats.dropped_payload + b.stats.discarded_payload == \
        a.stats.payload_tx
    assert w["s"].stats.sequences < 200


def test_class2_losses_abort_sequences_and_restore_ee_credit() -> None:
    quick = ServiceParameters(e_d_tov=1e-3)
    a, b, w = _run([StreamConfig("s", "a", "b", 21120, cls=2, count=100)], a=quick,
                   ber=1e-6)
    assert w["s"].stats.aborted > 0
    assert w["s"].stats.aborted + w["s"].stats.sent == 100
    peer = a.peers[b.port_id]
    assert peer.ee_credit == peer.ee_credit_login


def test_rx_id_is_learned_from_the_first_ack() -> None:
    a, b, w = _run([StreamConfig("s", "a", "b", 8192, cls=2, count=1)])
    assert w["s"].stats.sequences == 1
    assert b._rx_ids  # the responder gave the exchange an RX_ID


def test_crossing_class1_connects_both_complete() -> None:
    a, b, w = _run([StreamConfig("ab", "a", "b", 8192, cls=1, count=3),
                    StreamConfig("ba", "b", "a", 8192, cls=1, count=3)], length=2000.0)
    assert w["ab"].stats.sequences == 3 and w["ba"].stats.sequences == 3
    assert a.connection is None and b.connection is None
    assert a.stats.connections >= 1 and b.stats.connections >= 1


def test_received_sequences_leave_no_timer_behind() -> None:
    """E_D_TOV is one pending check per N_Port, not one event per received
    sequence: the event heap stays small however many sequences arrive."""
    scenario = p2p((StreamConfig("s", "a", "b", 64, cls=3, outstanding=4),), duration=0.2)
    sim = Simulation(scenario.run.seed)
    net = build_point_to_point(sim, scenario.nodes, scenario.links)
    (load,) = build_workloads(sim, scenario, net)
    sim.run(0.2)
    assert load.stats.sequences > 10_000
    assert len(sim.env._queue) < 20


def test_an_incomplete_sequence_is_abandoned_at_its_deadline() -> None:
    """A Class 3 sequence whose last frame was lost is given up E_D_TOV after its
    last frame arrived, while other sequences keep arriving."""
    quick = ServiceParameters(e_d_tov=2e-3)
    a, b, w = _run([StreamConfig("s", "a", "b", 21120, cls=3, count=400)], b=quick, ber=1e-6,
                   duration=0.2)
    assert b.stats.sequences_incomplete > 0
    assert not b._inbound  # every sequence delivered or abandoned by the end
    assert b.stats.sequences_rx + b.stats.sequences_incomplete <= 400


def test_sequences_of_one_exchange_do_not_interleave() -> None:
    """FC-PH sequence management: within an exchange a sequence's frames all go
    before the next sequence's first (IP over FC keeps packets in order)."""
    sent = frames_sent([(0, 8 * 2048), (0, 1024), (0, 3 * 2048)])
    assert [seq_id for _ox, seq_id, _cnt in sent] == [0] * 8 + [1] + [2] * 3
    assert [cnt for _ox, _seq, cnt in sent] == [*range(8), 0, 0, 1, 2]


def test_sequences_of_different_exchanges_interleave() -> None:
    """A port multiplexes exchanges frame by frame."""
    sent = frames_sent([(0, 4 * 2048), (1, 4 * 2048)])
    exchanges = [ox for ox, _seq, _cnt in sent]
    assert len(sent) == 8 and exchanges[:4] != [exchanges[0]] * 4
