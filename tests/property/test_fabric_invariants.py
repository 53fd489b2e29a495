"""Invariants of random switched fabrics under random traffic (hypothesis)."""

from __future__ import annotations

import dataclasses

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fcsim.build import build_fabric, build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.fabric.switch_model import load_switch_model
from fcsim.fc2.login import ServiceParameters
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import fabric
from tests.property.test_fc2_invariants import CreditChecker

BASE = load_switch_model("generic-nonblocking")

MODELS = st.builds(
    lambda voq, ct, credit, hold: dataclasses.replace(
        BASE, virtual_output_queues=voq, cut_through=ct, bb_credit=credit, hold_time=hold,
        crossbar_speedup=1.0),
    st.booleans(), st.booleans(), st.integers(1, 4), st.sampled_from([None, None, 50e-6]))


@st.composite
def fabrics(draw, bit_error_rates=(0.0,)):
    n_switches = draw(st.integers(1, 3))
    models = [draw(MODELS) for _ in range(n_switches)]
    names = [f"s{i}" for i in range(n_switches)]
    isls = [(f"s{i}:{40 + i}", f"s{i + 1}:{50 + i}") for i in range(n_switches - 1)]
    if n_switches > 1 and draw(st.booleans()):
        isls.append(("s0:60", "s1:61"))
    n_nodes = draw(st.integers(2, 5))
    nodes = {f"n{i}": f"s{draw(st.integers(0, n_switches - 1))}:{i}" for i in range(n_nodes)}
    loads = []
    for i in range(draw(st.integers(1, 4))):
        src, dst = draw(st.lists(st.sampled_from(sorted(nodes)), min_size=2, max_size=2,
                                 unique=True))
        loads.append(StreamConfig(f"w{i}", src, dst, draw(st.integers(0, 9000)),
                                  cls=draw(st.sampled_from([1, 2, 3])),
                                  outstanding=draw(st.integers(1, 3)),
                                  count=draw(st.integers(1, 4))))
    params = ServiceParameters(bb_credit=draw(st.integers(1, 4)), ee_credit=draw(
        st.integers(1, 4)), e_d_tov=1e-3, busy_retry=draw(st.sampled_from([5e-6, 40e-6])))
    return fabric(nodes, tuple(loads), duration=0.05, switches=dict(zip(names, models,
                  strict=True)), isls=tuple(isls), params=params, login=draw(st.booleans()),
                  length=draw(st.sampled_from([1.0, 10.0, 2_000.0])),
                  speed=draw(st.sampled_from(["1GFC", "4GFC"])),
                  bit_error_rate=draw(st.sampled_from(bit_error_rates)))


class WaitingChecker:
    """Trace sink checking, at every frame, that each switch output's list of
    waiting inputs is exactly the inputs whose next frame in line is for it."""

    def __init__(self) -> None:
        self.switches: list = []
        self.checks = 0

    def frame(self, time, port, frame, start, end) -> None:
        for switch in self.switches:
            voq = switch.model.virtual_output_queues
            for out in switch.ports.values():
                heads = [inp.pos for inp in switch._inputs
                         if (inp.voq.get(out.index) if voq else
                             inp.fifo and inp.fifo[0].out is out and inp.fifo)]
                assert out.waiting == heads
                self.checks += 1

    def primitive(self, time, port, name, start) -> None:
        pass


@settings(max_examples=120, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(fabrics())
def test_credits_bounded_and_every_byte_accounted(scenario) -> None:
    sim = Simulation(1)
    checker = CreditChecker()
    waiting = WaitingChecker()
    sim.sinks.extend((checker, waiting))
    net = build_fabric(sim, scenario)
    waiting.switches = list(net.switches.values())
    workloads = build_workloads(sim, scenario, net)
    sim.run(scenario.run.duration)
    assert checker.events > 0 and waiting.checks > 0
    for port in net.ports():
        assert port.current_credit() == port.credit_login
        assert port.buffers_used == 0
    for node in net.nodes.values():
        for peer in node.peers.values():
            assert peer.ee_credit == peer.ee_credit_login
    switches = net.switches.values()
    sent = sum(n.stats.payload_tx for n in net.nodes.values())
    sent += sum(s.stats.service_payload_out for s in switches)  # login answers
    accounted = sum(n.stats.payload_rx + n.stats.dropped_payload + n.stats.discarded_payload
                    + n.stats.refused_payload for n in net.nodes.values())
    accounted += sum(s.stats.discarded_payload + s.stats.refused_payload
                     + s.stats.service_payload_in for s in switches)
    assert sent == accounted
    for w in workloads:
        assert w.stats.sent + w.stats.rejected + w.stats.aborted == w.offered == w.count
    assert all(node.ready_at is not None for node in net.nodes.values())


class CreditReturnChecker:
    """Trace sink recording, at each port, when the EOF of every frame that took
    one of its receive buffers arrived and when each R_RDY it sent began."""

    def __init__(self) -> None:
        self.eofs: dict[object, list[float]] = {}
        self.r_rdys: dict[object, list[float]] = {}

    def frame(self, time, port, frame, start, end) -> None:
        if frame.uses_bb_credit:
            self.eofs.setdefault(port.peer, []).append(end + port.delay)

    def primitive(self, time, port, name, start) -> None:
        if name == "R_RDY":
            self.r_rdys.setdefault(port, []).append(start)

    def state(self, time, port, change) -> None:
        pass

    def early(self) -> list[tuple[object, int, float, float]]:
        """(port, k, k-th R_RDY, k-th EOF) wherever a port's k-th R_RDY began
        before the k-th EOF of a frame that used one of its buffers arrived."""
        found = []
        for port, sent in self.r_rdys.items():
            eofs = sorted(self.eofs.get(port, []))
            for k, at in enumerate(sorted(sent)):
                if k >= len(eofs) or at < eofs[k] - 1e-12:
                    found.append((port, k, at, eofs[k] if k < len(eofs) else None))
        return found


@settings(max_examples=80, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(fabrics(bit_error_rates=(0.0, 0.0, 1e-5)))
def test_no_r_rdy_before_the_frame_it_returns_is_in(scenario) -> None:
    """Every port returns credit only for buffers whose frames have arrived
    whole: its k-th R_RDY starts no earlier than the k-th EOF it received
    (cut-through or store-and-forward switches, N_Ports, damaged frames)."""
    sim = Simulation(1)
    checker = CreditReturnChecker()
    sim.sinks.append(checker)
    net = build_fabric(sim, scenario)
    build_workloads(sim, scenario, net)
    sim.run(scenario.run.duration)
    assert sum(len(v) for v in checker.r_rdys.values()) > 0
    assert checker.early() == []
