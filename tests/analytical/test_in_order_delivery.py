"""In-order delivery across route changes (Brocade ``iodset``, Cisco MDS
``in-order-guarantee``): two edge switches joined through two cores, an ISL
pulled and put back. Without it, the exchanges FSPF moves back onto the
returned ISL overtake their own frames still queued on the other path; with
it, a switch whose next hops towards a domain change forwards nothing towards
that domain for the drop latency, and the first frame held leaves exactly
then (its outputs are idle: every frame for them was held)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fcsim.build import build_fabric, build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.fabric.fspf import FspfTimers
from fcsim.faults.config import FaultConfig
from fcsim.faults.injector import install
from fcsim.fc2.frame import Frame
from fcsim.scenario.loader import ScenarioError, scenario_from_document
from fcsim.scenario.model import SwitchConfig
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import fabric

NODES = {"h0": "e1:0", "h1": "e1:1", "d0": "e2:0", "d1": "e2:1"}
STREAMS = (StreamConfig("w0", "h0", "d0", 32768, outstanding=2),
           StreamConfig("w1", "h1", "d1", 32768, outstanding=2))
SWITCHES = {"e1": "generic-nonblocking", "c1": "generic-nonblocking",
            "c2": "generic-nonblocking", "e2": "generic-nonblocking"}
# isl0 e1-c1, isl1 c1-e2, isl2 e1-c2, isl3 c2-e2: the layout of fabric-fspf-flap
ISLS = (("e1:10", "c1:0"), ("c1:1", "e2:10"), ("e1:11", "c2:0"), ("c2:1", "e2:11"))


class Departures:
    """Trace sink: every data frame as a port starts sending it, (s, port name, frame)."""

    def __init__(self) -> None:
        self.frames: list[tuple[float, str, Frame]] = []

    def frame(self, time: float, port: Any, frame: Any, start: float, end: float) -> None:
        if isinstance(frame, Frame) and not frame.is_link_control and frame.d_id < 0xFFF000:
            self.frames.append((start, port.name, frame))

    def primitive(self, time: float, port: Any, name: str, start: float) -> None:
        """Not needed."""

    def state(self, time: float, port: Any, change: str) -> None:
        """Not needed."""


def simulate(in_order: float | None, down: float = 0.005, up: float = 0.010,
             until: float = 0.034) -> tuple[Any, Departures]:
    sim = Simulation(1)
    sc = fabric(NODES, STREAMS, until, switches=SWITCHES, isls=ISLS, speed="4GFC",
                length=5.0, isl_length=100.0)
    sc = dataclasses.replace(
        sc, switches=tuple(dataclasses.replace(s, in_order=in_order) for s in sc.switches),
        faults=(FaultConfig(down, "link-down", link="isl0"),
                FaultConfig(up, "link-up", link="isl0")),
        fspf=FspfTimers(min_ls_interval=0.020, min_ls_arrival=0.0))
    trace = Departures()
    sim.sinks.append(trace)
    net = build_fabric(sim, sc)
    build_workloads(sim, sc, net)
    install(sim, sc, net)
    sim.run(until)
    return net, trace


def overtaken(trace: Departures, ports: tuple[str, ...]) -> int:
    """Frames sent out of *ports* after a later frame of their own sequence."""
    last: dict[tuple[int, int, int], int] = {}
    count = 0
    for _, port, frame in trace.frames:
        if port in ports:
            key = (frame.s_id, frame.ox_id, frame.seq_id)
            if frame.seq_cnt < last.get(key, -1):
                count += 1
            last[key] = max(last.get(key, -1), frame.seq_cnt)
    return count


def test_without_it_rerouted_frames_overtake_their_own_sequence() -> None:
    net, trace = simulate(None)
    assert overtaken(trace, ("e2:0", "e2:1")) > 0
    assert all(not s.pauses for s in net.switches.values())


def test_with_it_forwarding_pauses_for_the_drop_latency_and_order_holds() -> None:
    flush = 0.001
    net, trace = simulate(flush)
    assert overtaken(trace, ("e2:0", "e2:1")) == 0
    e1, e2 = net.switches["e1"], net.switches["e2"]
    towards_e2 = [at for at, domain in e1.pauses if domain == e2.domain]
    # e1 changes its routes towards e2 twice: around the pulled ISL as it
    # detects the loss, and back over it when c1's new LSR lists it again
    assert len(towards_e2) == 2
    left_e1 = {id(f): t for t, port, f in trace.frames if port in ("e1:10", "e1:11")}
    for paused in towards_e2:
        # a frame the hosts sent after the pause began leaves e1 only after it
        later = [left_e1[id(f)] for t, port, f in trace.frames
                 if port in ("h0", "h1") and t > paused and id(f) in left_e1]
        assert later and min(later) >= paused + flush - 1e-12
    # put back, the ISL to c1 is idle: the first frame held leaves by it
    # exactly when the pause ends
    back = towards_e2[1]
    first = min(t for t, port, _ in trace.frames if port == "e1:10" and t > back)
    assert first == pytest.approx(back + flush, abs=1e-12)


def test_routes_that_do_not_change_do_not_pause() -> None:
    """e1's computation when its own port is Active again (10 ms) leaves its
    routes as they were (c1's record does not list the ISL yet): no pause."""
    net, _ = simulate(0.001)
    times = [at for at, _ in net.switches["e1"].pauses]
    assert not any(0.0101 <= at < 0.025 for at in times)


@settings(max_examples=6, deadline=None)
@given(down=st.integers(2, 6), out=st.integers(1, 6), flush_us=st.sampled_from([300, 1000]))
def test_no_frame_overtakes_with_in_order_delivery(down: int, out: int, flush_us: int) -> None:
    """Whenever the ISL is pulled and put back, with a flush time longer than
    the old path's queues take to drain (at most 32 frames a switch output at
    4GFC, about 0.2 ms), no frame overtakes another of its sequence."""
    _, trace = simulate(flush_us * 1e-6, down * 1e-3, (down + out) * 1e-3, 0.030)
    assert overtaken(trace, ("e2:0", "e2:1")) == 0


def test_drop_latency_without_in_order_delivery_is_refused() -> None:
    doc = {"topology": "fabric", "run": {"duration": "1 ms"},
           "switches": [{"name": "s", "model": "generic-nonblocking", "drop_latency": "1 ms"}],
           "nodes": [{"name": "a"}, {"name": "b"}],
           "links": [{"ends": ["a", "s:0"], "speed": "1GFC"},
                     {"ends": ["b", "s:1"], "speed": "1GFC"}]}
    with pytest.raises(ScenarioError, match=r"switches\[0\]\.drop_latency.*in_order_delivery"):
        scenario_from_document(doc, "t.toml")


def test_the_keys_become_the_flush_time() -> None:
    doc = {"topology": "fabric", "run": {"duration": "1 ms"},
           "switches": [{"name": "s", "model": "generic-nonblocking",
                         "in_order_delivery": True},
                        {"name": "t", "model": "generic-nonblocking",
                         "in_order_delivery": True, "drop_latency": "5 ms"},
                        {"name": "u", "model": "generic-nonblocking"}],
           "nodes": [{"name": "a"}, {"name": "b"}],
           "links": [{"ends": ["a", "s:0"], "speed": "1GFC"},
                     {"ends": ["b", "s:1"], "speed": "1GFC"},
                     {"ends": ["s:2", "t:0"], "speed": "1GFC"},
                     {"ends": ["t:1", "u:0"], "speed": "1GFC"}]}
    switches: tuple[SwitchConfig, ...] = scenario_from_document(doc, "t.toml").switches
    assert [s.in_order for s in switches] == [2.0, 0.005, None]
