"""Invariants of the arbitrated loop over random loops and traffic (hypothesis)."""

from __future__ import annotations

from typing import Any
from unittest.mock import patch

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fcsim.build import build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.fc2.login import ServiceParameters
from fcsim.loop.build import build_loop
from fcsim.loop.config import LoopPortConfig
from fcsim.loop.loop import Loop
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import loop


class LoopChecker:
    """Trace sink asserting credit and buffer bounds at every loop event."""

    def __init__(self) -> None:
        self.events = 0

    def _check(self, port: Any) -> None:
        self.events += 1
        peer = port.peer
        assert 0 <= port.credit <= (peer.rx_buffers if peer is not None else 0)
        for p in (port, peer) if peer is not None else (port,):
            assert 0 <= p.buffers_used <= p.rx_buffers

    def frame(self, time: float, port: Any, frame: Any, start: float, end: float) -> None:
        assert port.circuit is not None and frame.d_id == port.peer.port_id
        self._check(port)

    def primitive(self, time: float, port: Any, name: str, start: float) -> None:
        self._check(port)


@st.composite
def loops(draw: Any) -> tuple[Any, bool]:
    n = draw(st.integers(2, 9))
    names = [f"p{i}" for i in range(n)]
    params, ports = {}, {}
    all_fair = draw(st.booleans())
    for name in names:
        buffers = draw(st.integers(1, 6))
        params[name] = ServiceParameters(
            bb_credit=buffers, ee_credit=draw(st.integers(1, 4)),
            rx_frame_time=draw(st.sampled_from([0.0, 0.0, 3e-6])), e_d_tov=1e-3,
            busy_retry=20e-6, concurrent_sequences=draw(st.integers(1, 3)))
        ports[name] = LoopPortConfig(
            fairness=all_fair or draw(st.booleans()), login_credit=draw(st.integers(0, buffers)),
            repeat_delay=draw(st.integers(0, 12)))
    flows = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(1, n - 1),
                                    st.integers(0, 9000), st.sampled_from([2, 3]),
                                    st.integers(1, 3), st.integers(1, 4)),
                          min_size=1, max_size=4))
    workloads = tuple(
        StreamConfig(f"w{i}", names[src], names[(src + step) % n], size, cls=cls,
                     outstanding=k, count=count, start=100e-6 * i)
        for i, (src, step, size, cls, k, count) in enumerate(flows))
    ber = draw(st.sampled_from([0.0, 0.0, 2e-5]))
    lip = draw(st.sampled_from([(), (), (400e-6,), (150e-6, 900e-6)]))
    scenario = loop(n, workloads, duration=0.03, hop_length=draw(st.sampled_from([0.0, 20.0])),
                    ports=ports, params=params, lip_at=lip, bit_error_rate=ber,
                    seed=draw(st.integers(0, 99)))
    # a lossless loop of fair ports delivers every Class 2 sequence (an unfair
    # port may starve others' ACKs past E_D_TOV; errors, LIPs and overruns lose
    # frames: a login credit above the buffers free at OPN overruns)
    return scenario, not ber and not lip and all(p.fairness for p in ports.values())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(loops())
def test_credit_bounds_and_byte_conservation(case: tuple[Any, bool]) -> None:
    scenario, delivers_all = case
    checker = LoopChecker()
    sim = Simulation(scenario.run.seed)
    sim.sinks.append(checker)
    net = build_loop(sim, scenario.nodes, scenario.links)
    workloads = build_workloads(sim, scenario, net)
    sim.run(scenario.run.duration)
    assert checker.events > 0
    stats = [node.stats for node in net.nodes.values()]
    sent = sum(s.payload_tx for s in stats)
    accounted = sum(s.payload_rx + s.dropped_payload + s.discarded_payload + s.refused_payload
                    for s in stats)
    assert sent == accounted
    loop_ = net.loop
    assert loop_.circuit is None and not loop_.arbitrating
    for port in loop_.ports:
        assert port.buffers_used == 0 and port.credit == 0
    overrun = any(port.loop_stats.overruns for port in loop_.ports)
    for w in workloads:
        assert w.stats.sent + w.stats.rejected + w.stats.aborted == w.offered == w.count
        if delivers_all and not overrun and w.cls == 2:
            assert w.stats.sequences == w.count


class WinRecorder(Loop):
    """A loop that notes each win and each access-window reset, in order."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.events: list[tuple[str, int]] = []
        super().__init__(*args, **kwargs)

    def _win(self, value: Any) -> None:
        gen, index = value
        if gen == self._gen:
            self.events.append(("win", index))
        super()._win(value)

    def _reset_window(self, origin: int, at: float) -> None:
        self.events.append(("reset", origin))
        super()._reset_window(origin, at)


@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 16).flatmap(
    lambda n: st.tuples(st.just(n), st.lists(st.integers(1, n - 1), min_size=n, max_size=n))))
def test_fair_ports_each_win_once_per_access_window(case: tuple[int, list[int]]) -> None:
    """FC-AL-2 access fairness: with every port fair and always wanting the loop,
    each wins exactly once between two access-window resets, whatever port each
    one sends to, and each gets 1/N of the loop (within 5 %). Sequences of one
    frame, two open: a tenancy carries both (bursts of many frames: the next
    test)."""
    n, steps = case
    workloads = tuple(StreamConfig(f"w{i}", f"p{i}", f"p{(i + step) % n}", 2048, outstanding=2)
                      for i, step in enumerate(steps))
    scenario = loop(n, workloads, duration=1.0)
    sim = Simulation(scenario.run.seed)
    with patch("fcsim.loop.build.Loop", WinRecorder):
        net = build_loop(sim, scenario.nodes, scenario.links)
    build_workloads(sim, scenario, net)
    windows = 60
    while sum(kind == "reset" for kind, _ in net.loop.events) < windows + 2:
        assert sim.now < 0.1, "access windows stopped ending: a port holds the loop"
        sim.run(sim.now + 1e-3)
    resets = [i for i, (kind, _) in enumerate(net.loop.events) if kind == "reset"]
    for begin, end in zip(resets[1:], resets[2:], strict=False):
        winners = sorted(index for kind, index in net.loop.events[begin + 1:end] if kind == "win")
        assert winners == list(range(n)), f"window wins {winners}"
    frames = [node.stats.data_frames_tx for node in net.nodes.values()]
    for sent in frames:
        assert abs(sent / sum(frames) - 1 / n) <= 0.05 / n, frames


@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 12).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.integers(1, n - 1), min_size=n, max_size=n),
    st.lists(st.integers(1, 12 * 2112), min_size=n, max_size=n),
    st.lists(st.integers(1, 2), min_size=n, max_size=n))))
def test_fair_ports_win_once_per_access_window_with_bursts(
        case: tuple[int, list[int], list[int], list[int]]) -> None:
    """Access fairness with bursts: each fair port holds the loop for its burst
    (a sequence of its own size, up to a dozen full frames) once others
    arbitrate, and still wins exactly once between two access-window resets;
    every tenancy carries whole sequences: at least one, and never a sequence
    begun but left part-sent."""
    n, steps, sizes, outstanding = case
    workloads = tuple(StreamConfig(f"w{i}", f"p{i}", f"p{(i + step) % n}", size,
                                   outstanding=k)
                      for i, (step, size, k) in enumerate(zip(steps, sizes, outstanding,
                                                              strict=True)))
    scenario = loop(n, workloads, duration=1.0)
    sim = Simulation(scenario.run.seed)
    with patch("fcsim.loop.build.Loop", WinRecorder):
        net = build_loop(sim, scenario.nodes, scenario.links)
    build_workloads(sim, scenario, net)
    windows = 12
    while sum(kind == "reset" for kind, _ in net.loop.events) < windows + 2:
        assert sim.now < 0.2, "access windows stopped ending: a port holds the loop"
        sim.run(sim.now + 1e-3)
    resets = [i for i, (kind, _) in enumerate(net.loop.events) if kind == "reset"]
    for begin, end in zip(resets[1:], resets[2:], strict=False):
        winners = sorted(index for kind, index in net.loop.events[begin + 1:end] if kind == "win")
        assert winners == list(range(n)), f"window wins {winners}"
    for port, size in zip(net.loop.ports, sizes, strict=True):
        ls = port.loop_stats
        sent = port.owner.stats.data_frames_tx  # type: ignore[union-attr]
        # a whole sequence or more per tenancy; the last may still be going
        assert sent >= (ls.tenancies - 1) * -(-size // 2112) and ls.tenancies > 0
