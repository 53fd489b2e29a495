"""Invariants of FC-2 on a point-to-point link, over random scenarios (hypothesis)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fcsim.build import build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.fc2.frame import MAX_DATA_FIELD
from fcsim.fc2.login import ServiceParameters
from fcsim.fc2.nport import NPort
from fcsim.runner import run_scenario
from fcsim.scenario.workload_model import StreamConfig
from fcsim.topology.point_to_point import build_point_to_point
from tests.builders import frames_sent, p2p

PARAMS = st.builds(
    ServiceParameters,
    bb_credit=st.integers(1, 8),
    ee_credit=st.integers(1, 8),
    concurrent_sequences=st.integers(1, 4),
    rx_frame_time=st.sampled_from([0.0, 1e-6, 5e-6]),
    busy_retry=st.sampled_from([2e-6, 50e-6]),
    e_d_tov=st.just(1e-3),
)

STREAMS = st.lists(
    st.tuples(st.sampled_from(["ab", "ba"]), st.integers(0, 9000), st.sampled_from([1, 2, 3]),
              st.sampled_from([256, 1024, 2112]), st.integers(1, 3), st.integers(1, 6)),
    min_size=1, max_size=3,
)


def _scenario(streams: list[tuple[Any, ...]], a: ServiceParameters, b: ServiceParameters,
              length: float, ber: float, duration: float):
    workloads = tuple(
        StreamConfig(f"w{i}", d[0], d[1], size, cls=cls, max_data_field=mdf, outstanding=k,
                     count=count)
        for i, (d, size, cls, mdf, k, count) in enumerate(streams))
    return p2p(workloads, duration=duration, length=length, a=a, b=b, bit_error_rate=ber)


class CreditChecker:
    """Trace sink asserting credit and buffer bounds at every link event."""

    def __init__(self) -> None:
        self.events = 0

    def _check(self, port: Any) -> None:
        self.events += 1
        assert 0 <= port.credit <= port.credit_login
        assert 0 <= port.buffers_used <= port.rx_buffers
        assert 0 <= port.peer.buffers_used <= port.peer.rx_buffers

    def frame(self, time: float, port: Any, frame: Any, start: float, end: float) -> None:
        self._check(port)

    def primitive(self, time: float, port: Any, name: str, start: float) -> None:
        self._check(port)


def _run_to_quiescence(scenario, sinks=()) -> tuple[dict[str, NPort], list[Any]]:
    sim = Simulation(scenario.run.seed)
    sim.sinks.extend(sinks)
    net = build_point_to_point(sim, scenario.nodes, scenario.links)
    workloads = build_workloads(sim, scenario, net)
    sim.run(scenario.run.duration)
    return net.nodes, workloads


# derandomize: CI runs the same examples every time (explore locally with
# --hypothesis-seed=random).
SETTINGS = settings(max_examples=150, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(STREAMS, PARAMS, PARAMS, st.sampled_from([1.0, 2_000.0]),
       st.sampled_from([0.0, 0.0, 2e-5]))
def test_credit_bounds_and_byte_conservation(streams, a, b, length, ber) -> None:
    checker = CreditChecker()
    scenario = _scenario(streams, a, b, length, ber, duration=0.05)
    nodes, workloads = _run_to_quiescence(scenario, [checker])
    assert checker.events > 0
    for sender, receiver in ((nodes["a"], nodes["b"]), (nodes["b"], nodes["a"])):
        s, r = sender.stats, receiver.stats
        assert s.payload_tx == (r.payload_rx + r.dropped_payload + r.discarded_payload
                                + r.refused_payload)
        assert sender.port.current_credit() == sender.port.credit_login
        for peer in sender.peers.values():
            assert peer.ee_credit == peer.ee_credit_login
    for w in workloads:
        done = w.stats.sent + w.stats.rejected + w.stats.aborted
        assert done == w.offered == w.count
        if ber == 0.0 and w.cls != 3:  # Class 3 may discard; 1 and 2 retry busies
            assert w.stats.sequences == w.count


@SETTINGS
@given(STREAMS, PARAMS, PARAMS)
def test_class1_and_class2_deliver_in_order(streams, a, b) -> None:
    scenario = _scenario(streams, a, b, 100.0, 0.0, duration=0.05)
    sim = Simulation(1)
    net = build_point_to_point(sim, scenario.nodes, scenario.links)
    accepted: list[tuple[Any, int, int]] = []
    for node in net.nodes.values():
        original = node._data_received

        def record(frame, node=node, original=original):
            before = node.stats.data_frames_rx
            original(frame)
            if node.stats.data_frames_rx > before:
                accepted.append((frame.sequence, frame.attempt, frame.seq_cnt))

        node._data_received = record
    build_workloads(sim, scenario, net)
    sim.run(scenario.run.duration)
    expected_next: dict[Any, tuple[int, int]] = {}
    for seq, attempt, cnt in accepted:
        if seq.cls == 3:
            continue
        last_attempt, next_cnt = expected_next.get(seq, (attempt, 0))
        if attempt != last_attempt:
            next_cnt = 0
        assert cnt == next_cnt, f"{seq}: frame {cnt} accepted where {next_cnt} was due"
        expected_next[seq] = (attempt, cnt + 1)


@settings(max_examples=10, deadline=None)
@given(STREAMS, st.integers(0, 2**31))
def test_same_seed_same_json(streams, seed) -> None:
    scenario = _scenario(streams, ServiceParameters(bb_credit=2), ServiceParameters(),
                         500.0, 1e-5, duration=0.002)
    scenario = type(scenario)(**{**scenario.__dict__,
                                 "run": type(scenario.run)(0.002, 0.0005, seed, 2)})
    first = json.dumps(run_scenario(scenario), sort_keys=True)
    assert first == json.dumps(run_scenario(scenario), sort_keys=True)


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(1, 6 * 2048)), min_size=1,
                max_size=12))
@settings(max_examples=40, deadline=None)
def test_an_exchange_sends_its_sequences_whole_and_in_order(
        sequences: list[tuple[int, int]]) -> None:
    """FC-PH: within an exchange a sequence's frames all leave before the next
    sequence's first; every frame of every queued sequence leaves."""
    sent = frames_sent(sequences)
    assert len(sent) == sum(-(-size // MAX_DATA_FIELD) for _, size in sequences)
    by_exchange: dict[int, list[tuple[int, int]]] = {}
    for ox_id, seq_id, seq_cnt in sent:
        by_exchange.setdefault(ox_id, []).append((seq_id, seq_cnt))
    for frames in by_exchange.values():
        seq_ids = [seq_id for seq_id, _ in frames]
        runs = [seq_id for k, seq_id in enumerate(seq_ids) if k == 0 or seq_ids[k - 1] != seq_id]
        assert len(runs) == len(set(runs))  # each sequence in one unbroken run
        assert runs == sorted(runs)  # in the order they were queued
        for seq_id in runs:
            counts = [cnt for s, cnt in frames if s == seq_id]
            assert counts == list(range(len(counts)))
