"""A switch output with nothing more to send leaves the end of its last gap
without an event (``Port.drained``, ``Simulation.reserve``); here, on random
fabrics and traffic, every frame and primitive sent, and every counter, are
those of the path with an event at the end of every gap."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fcsim.build import build_fabric, build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.fc0.speed import speed_named
from fcsim.fc2.port import Port
from tests.property.test_fabric_invariants import fabrics


@st.composite
def mixed_fabrics(draw):
    """The random fabrics of the fabric invariants, with links of mixed speeds
    (a cut-through output slower or faster than its input) and crossbars
    sped up or not."""
    scenario = draw(fabrics())
    links = tuple(dataclasses.replace(link, speed=speed_named(draw(st.sampled_from(
        ["1GFC", "1GFC", "2GFC", "4GFC"])))) for link in scenario.links)
    switches = tuple(dataclasses.replace(sw, model=dataclasses.replace(
        sw.model, crossbar_speedup=draw(st.sampled_from([1.0, 2.0]))))
        for sw in scenario.switches)
    return dataclasses.replace(scenario, links=links, switches=switches)


class Recorder:
    """Every frame and primitive signal sent, with its port and times as exact
    floats (:mod:`fcsim.trace.timeline` rounds them to the nanosecond, and the
    two paths may differ in the last bit of a time)."""

    def __init__(self) -> None:
        self.sent: list[tuple[Any, ...]] = []

    def frame(self, time, port, frame, start, end) -> None:
        self.sent.append((time, port.name, start, end, frame.s_id, frame.d_id, frame.r_ctl,
                          frame.ox_id, frame.seq_id, frame.seq_cnt, frame.chars))

    def primitive(self, time, port, name, start) -> None:
        self.sent.append((time, port.name, name, start))

    def state(self, time, port, change) -> None:
        self.sent.append((time, port.name, change))


def _run(scenario, events_at_every_end: bool) -> tuple[list, Any, int]:
    with pytest.MonkeyPatch.context() as patch:
        if events_at_every_end:  # no owner is ever drained: the detailed path
            patch.setattr(Port, "drained", property(lambda self: False, lambda self, v: None),
                          raising=False)
        sim = Simulation(1)
        recorder = Recorder()
        sim.sinks.append(recorder)
        net = build_fabric(sim, scenario)
        build_workloads(sim, scenario, net)
        sim.run(scenario.run.duration)
        results = net.results(scenario.run.duration)
        # credit as the port sees it (R_RDYs are counted in lazily), then its counters
        ports = [(p.name, p.current_credit(), {k: getattr(p.stats, k) for k in p.stats.__slots__})
                 for p in net.ports()]
        return recorder.sent, (results, ports), next(sim.env._eid)


@settings(max_examples=120, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(mixed_fabrics())
def test_the_same_frames_at_the_same_times_without_idle_ends(scenario) -> None:
    fast = _run(scenario, False)
    detailed = _run(scenario, True)
    assert fast[0] and fast[:2] == detailed[:2]
    assert fast[2] == detailed[2]  # the same number of places in the event order taken
