"""Invariants of the flow model's choice among the round robin's fixed
points (:func:`fcsim.flow.model._untied`, :func:`fcsim.flow.model._other_fixed_point`),
on the oracle's random fabrics (flow model only, no packet run)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from fcsim.fabric.switch_model import SwitchModel
from fcsim.fc2.login import ServiceParameters
from fcsim.flow import model
from fcsim.flow.fabric import flow_fabric
from fcsim.flow.model import GAP_CHARS, OTHER, solve
from fcsim.scenario.loader import scenario_from_document
from fcsim.scenario.model import Scenario
from tests.property.test_flow_oracle import fabrics
from tests.voq_fabric import on_voq

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def one_core(draw: st.DrawFn) -> tuple[Scenario, str]:
    """One core, two ISLs a pair, 1GFC N_Ports, exchange-based routing: the
    shape of docs/model.md's grid, where ties at outputs nobody waits for
    arise; either the oracle's fabrics."""
    if draw(st.booleans()):
        return draw(fabrics())
    fabric = {"kind": "core-edge", "switches": draw(st.integers(3, 4)), "cores": 1,
              "model": "generic-nonblocking", "nodes_per_switch": draw(st.integers(2, 3)),
              "isls": 2, "speed": "1GFC", "isl_speed": draw(st.sampled_from(("1GFC", "2GFC"))),
              "length": "10 m", "isl_length": "500 m", "routing": "exchange-based",
              "traffic": "random-pairs", "traffic_seed": draw(st.integers(0, 5)),
              "stream_size": "16 KiB", "outstanding": 2}
    scenario = scenario_from_document({"name": "one-core", "topology": "fabric",
                                       "fabric": fabric,
                                       "run": {"duration": "1 ms", "login": False}},
                                      "one-core.toml")
    return on_voq(scenario, 16, 0.7e-6, True, 16), repr(fabric)


@settings(SETTINGS, max_examples=40)
@given(one_core())
def test_untying_gives_no_sender_less(case: tuple[Scenario, str]) -> None:
    """Freeing the levels held only by a tie takes an answer only if no
    sender gets less: where the credit waits (computed from the rates) are
    the same either way, every sender has at least its rate without it."""
    scenario, described = case
    fabric = flow_fabric(scenario)
    untied = solve(fabric)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(model, "UNTIES", 0)
        tied = solve(fabric)
    if not (untied.settled and tied.settled) or any(
            a != b for a, b in ((untied.locked, tied.locked), (untied.behind, tied.behind),
                                (untied.pipelined, tied.pipelined))):
        return
    event("untied" if np.any(untied.rates > tied.rates * (1 + OTHER)) else "no tie freed")
    assert np.all(untied.rates >= tied.rates * (1 - OTHER)), described


@st.composite
def fan_ins(draw: st.DrawFn) -> Scenario:
    """The two-core fan-in of the regression test
    (tests/unit/test_flow_arbitration.py, two fixed points), its speeds,
    lengths and credits drawn: the exchanges keep their paths."""
    speed = draw(st.sampled_from(("1GFC", "2GFC", "4GFC")))
    scenario = scenario_from_document({
        "name": "fan-in", "topology": "fabric",
        "fabric": {"kind": "core-edge", "switches": 5, "cores": 2, "model": "generic-nonblocking",
                   "nodes_per_switch": 2, "isls": 2, "speed": speed,
                   "isl_speed": draw(st.sampled_from(("4GFC", "8GFC"))),
                   "length": "10 m", "isl_length": f"{draw(st.sampled_from((10, 500)))} m",
                   "routing": "exchange-based", "traffic": "fan-in", "targets": 1,
                   "stream_size": "8 KiB", "outstanding": 2},
        "run": {"duration": "1 ms", "login": True}}, "fan-in.toml")
    voq = SwitchModel(name="voq", ports=64, bb_credit=draw(st.sampled_from((16, 8))),
                      routing_latency=draw(st.sampled_from((0.7e-6, 5e-6))),
                      cut_through=draw(st.booleans()), virtual_output_queues=True,
                      crossbar_speedup=2.0)
    return replace(scenario, switches=tuple(replace(s, model=voq) for s in scenario.switches),
                   nodes=tuple(replace(n, params=ServiceParameters(bb_credit=16))
                               for n in scenario.nodes))


@SETTINGS
@given(fan_ins())
def test_the_other_fixed_point_overloads_no_line(scenario: Scenario) -> None:
    """Where a second fixed point is found, the senders flagged are exactly
    those whose rates differ there, and its rates load no link direction
    beyond its line (frames and fill words at the direction's speed)."""
    flow = solve(flow_fabric(scenario))
    event("second fixed point" if flow.other is not None else "one fixed point found")
    if flow.other is None:
        assert not any("two fixed points" in c for c in flow.caveats.values())
        return
    for name, ours, theirs in zip(flow.senders, flow.rates, flow.other, strict=True):
        assert ("two fixed points" in flow.caveats[name]) == (abs(theirs - ours) > OTHER * ours)
    index = {name: i for i, name in enumerate(flow.senders)}
    slots: dict[str, float] = {}
    for s in flow.fabric.streams:
        slots[s.source] = slots.get(s.source, 0.0) + s.slots
    busy: dict[str, float] = {}
    for s in flow.fabric.streams:
        chars = sum(model.frame_chars(d) for d in s.frame_payloads) / len(s.frame_payloads)
        for e in s.exchanges:
            share = e.weight / slots[s.source]
            for name in e.path:
                char = flow.fabric.directions[name].speed.char_time
                busy[name] = busy.get(name, 0.0) + (
                    flow.other[index[s.source]] * share * (chars + GAP_CHARS) * char)
    assert max(busy.values()) <= 1 + 1e-6
